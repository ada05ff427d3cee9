# bench-host-preempt: a preemption across processes (vsched host) vs in the VMM's own core.
BENCH_BINS += $(BUILD)/bench-host-preempt

$(BUILD)/bench-host-preempt: bench/host_preempt.c bench/host_daemon.c bench/host_daemon.h \
		bench/spin_vcpu.c bench/spin_vcpu.h \
		$(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ bench/host_preempt.c bench/host_daemon.c bench/spin_vcpu.c $(BUILD)/libvsched.a $(LDLIBS)
