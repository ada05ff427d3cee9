# make fuzz-sim: thousands of random scenarios against the simulator's ideal (tests/sim/fuzz_sim.c).
FUZZ_SIM := $(BUILD)/fuzz-sim
FUZZ_SIM_SEEDS ?= 2000

$(FUZZ_SIM): tests/sim/fuzz_sim.c $(BUILD)/libvsched.a
	$(CC) $(ALL_CFLAGS) -o $@ $< $(BUILD)/libvsched.a $(LDLIBS)

.PHONY: fuzz-sim
fuzz-sim: $(FUZZ_SIM)
	$(FUZZ_SIM) --seeds $(FUZZ_SIM_SEEDS)
