# bench-trace: guest throughput and group error with a trace recorder attached and without.
BENCH_TRACE_SRCS := bench/trace_cost.c bench/vmside.c bench/scenario.c bench/window.c \
		    tests/fixture/runvm.c
BENCH_BINS += $(BUILD)/bench-trace

$(BUILD)/bench-trace: $(BENCH_TRACE_SRCS:%.c=$(BUILD)/%.o) $(BUILD)/libcmd.a $(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)
