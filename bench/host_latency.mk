# bench-host-latency: a lane grant across processes (vsched host) vs in the VMM's own core.
BENCH_BINS += $(BUILD)/bench-host-latency

$(BUILD)/bench-host-latency: bench/host_latency.c bench/host_grant.c bench/host_lat.h \
		bench/host_hand.c bench/host_xhand.c bench/host_hand.h \
		bench/host_wake.c bench/host_wake.h \
		bench/host_daemon.c bench/host_daemon.h $(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ bench/host_latency.c bench/host_grant.c bench/host_hand.c \
		bench/host_xhand.c bench/host_wake.c \
		bench/host_daemon.c \
		$(BUILD)/libvsched.a $(LDLIBS)
