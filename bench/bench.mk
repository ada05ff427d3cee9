# Benchmarks: every $(BUILD)/bench-* binary is run by bench/run.sh (make bench).
BENCH_BINS += $(BUILD)/bench-decision

$(BUILD)/bench-decision: bench/bench_decision.c $(BUILD)/libvsched.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libvsched.a $(LDLIBS)

# PNGs again from the last run's CSV files (make bench renders them already); docs/bench/ holds
# the committed copy of a full run.
.PHONY: bench-plots
bench-plots:
	bench/plot.sh $(BUILD)/plots
