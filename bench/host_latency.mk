# bench-host-latency: a lane grant across processes (vsched host) vs in the VMM's own core.
BENCH_BINS += $(BUILD)/bench-host-latency

$(BUILD)/bench-host-latency: bench/host_latency.c $(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libvsched.a $(LDLIBS)
