# bench-fair: vsched vs the host kernel's cgroup cpu controller against the fluid ideal.
BENCH_FAIR_SRCS := bench/fair.c bench/fair_judge.c bench/host.c bench/vmside.c bench/scenario.c \
		   bench/ideal.c bench/window.c bench/noise.c bench/tput.c bench/csv.c \
		   tests/fixture/runvm.c
BENCH_BINS += $(BUILD)/bench-fair

$(BUILD)/bench-fair: $(BENCH_FAIR_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/libcmd.a $(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)
