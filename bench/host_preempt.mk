# bench-host-preempt: a preemption across processes (vsched host) vs in the VMM's own core.
BENCH_BINS += $(BUILD)/bench-host-preempt
HOST_PREEMPT_SRC := bench/host_preempt.c bench/host_preempt_holder.c bench/host_preempt_inproc.c \
	bench/host_preempt_host.c

$(BUILD)/bench-host-preempt: $(HOST_PREEMPT_SRC) bench/host_preempt.h bench/host_daemon.c bench/host_daemon.h \
		bench/spin_vcpu.c bench/spin_vcpu.h \
		$(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $(HOST_PREEMPT_SRC) bench/host_daemon.c bench/spin_vcpu.c $(BUILD)/libvsched.a $(LDLIBS)
