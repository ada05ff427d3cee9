# bench-host-preempt: a preemption across processes (vsched host) vs in the VMM's own core.
BENCH_BINS += $(BUILD)/bench-host-preempt

$(BUILD)/bench-host-preempt: bench/host_preempt.c $(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libvsched.a $(LDLIBS)
