# bench-host: whole VMs sharing the host, `vsched host` beside the kernel's cgroups (issue 17).
BENCH_HOST_SRCS := bench/host_bench.c bench/host_kernel.c bench/host_vsched.c util/file.c
BENCH_BINS += $(BUILD)/bench-host

$(BUILD)/bench-host: $(BENCH_HOST_SRCS) bench/host_bench.h bench/work.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $(BENCH_HOST_SRCS) -lpthread -lm
