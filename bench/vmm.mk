# bench-vmm: hog work rate (guest vs native) and start-up to the first guest instruction.
BENCH_BINS += $(BUILD)/bench-vmm

$(BUILD)/bench-vmm: bench/vmm_bench.c vmm/payload/guest/work.h include/vmm/payload_abi.h
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -o $@ bench/vmm_bench.c
