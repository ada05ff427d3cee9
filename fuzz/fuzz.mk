# Fuzz targets (docs/fuzzing.md). Each fuzz/TARGET.c defines LLVMFuzzerTestOneInput() and is built
# twice: with gcc and ASan+UBSan as a replay program that `make check` runs over the committed
# corpus fuzz/corpus/TARGET/ (fuzz-replay), and with clang's libFuzzer for `make fuzz`.
FUZZ_TARGETS ?= api_files domain_xml sim_scenario cli_specs host_msgs vmm_peer guest_io kimage
FUZZ_SECONDS ?= 60
FUZZ_CC ?= clang
FUZZ_PKGS := clang libclang-rt-14-dev
# More seeds a target reads (never writes) beside fuzz/corpus/TARGET.
FUZZ_SEEDS_sim_scenario := sim/scenarios

FUZZ_COMMON := fuzz/fuzz_util.c
# A target's own further files (fuzz/TARGET_*.c), linked into it alone.
FUZZ_PARTS_host_msgs := fuzz/host_msgs_check.c
FUZZ_PARTS_vmm_peer := fuzz/vmm_peer_check.c
FUZZ_PARTS := $(foreach t,$(FUZZ_TARGETS),$(FUZZ_PARTS_$(t)))
# Their objects per build, named without % or : (which a secondary expansion may not hold).
$(foreach t,$(FUZZ_TARGETS),$(eval FUZZ_PARTS_asan_$(t) := \
	$(FUZZ_PARTS_$(t):%.c=$(BUILD)/asan/%.o)))
$(foreach t,$(FUZZ_TARGETS),$(eval FUZZ_PARTS_lf_$(t) := \
	$(FUZZ_PARTS_$(t):%.c=$(BUILD)/libfuzzer/%.o)))

# Replay programs: the unit tests' ASan+UBSan objects and library.
FUZZ_ASAN_OBJS := $(FUZZ_COMMON:%.c=$(BUILD)/asan/%.o) $(BUILD)/asan/fuzz/replay.o
FUZZ_REPLAY_BINS := $(FUZZ_TARGETS:%=$(BUILD)/asan/fuzz-%)

# From here on prerequisites are expanded twice: $$* is then the target's name (for its parts),
# and GEN_OBJS (below) is complete.
.SECONDEXPANSION:
$(BUILD)/asan/fuzz-%: $(BUILD)/asan/fuzz/%.o $$(FUZZ_PARTS_asan_$$*) \
		$(FUZZ_ASAN_OBJS) $(BUILD)/asan/libcmd.a $(BUILD)/asan/libvsched.a
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

.PHONY: fuzz fuzz-build fuzz-replay
fuzz-replay: $(FUZZ_REPLAY_BINS)
	@$(foreach t,$(FUZZ_TARGETS),ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		$(BUILD)/asan/fuzz-$(t) fuzz/corpus/$(t) $(FUZZ_SEEDS_$(t)) &&) true

# libFuzzer builds: the whole library instrumented for coverage, under clang.
FUZZ_DIR := $(BUILD)/libfuzzer
FUZZ_CFLAGS := -std=gnu11 $(WARN) -Wno-gnu-variable-sized-type-not-at-end -O1 -g -D_GNU_SOURCE \
	-Iinclude -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP -fno-omit-frame-pointer \
	-fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_DIR)/%.o)
FUZZ_CMD_OBJS := $(CMD_SRCS:%.c=$(FUZZ_DIR)/%.o)
FUZZ_OBJS := $(FUZZ_COMMON:%.c=$(FUZZ_DIR)/%.o)
FUZZ_BINS := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz-%)

$(FUZZ_DIR)/%.o: %.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

# GEN_OBJS is complete only once vmm/payload/payload.mk (read after this file) added to it.
$(FUZZ_DIR)/libvsched.a: $(FUZZ_LIB_OBJS) $$(GEN_OBJS)
	$(make-archive)

$(FUZZ_DIR)/libcmd.a: $(FUZZ_CMD_OBJS)
	$(make-archive)

$(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/fuzz/%.o $$(FUZZ_PARTS_lf_$$*) $(FUZZ_OBJS) \
		$(FUZZ_DIR)/libcmd.a $(FUZZ_DIR)/libvsched.a
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

# Each target for FUZZ_SECONDS, one after the other; a finding fails (fuzz/run.sh).
fuzz:
	@VSCHED_EXTRA_PKGS="$(FUZZ_PKGS)" scripts/deps.sh
	@$(MAKE) --no-print-directory fuzz-build
	fuzz/run.sh $(FUZZ_DIR) $(FUZZ_SECONDS) \
		$(foreach t,$(FUZZ_TARGETS),$(t)$(if $(FUZZ_SEEDS_$(t)),:$(FUZZ_SEEDS_$(t))))

FUZZ_TARGET_OBJS := $(FUZZ_TARGETS:%=fuzz/%.o) $(FUZZ_PARTS:.c=.o)
-include $(FUZZ_ASAN_OBJS:.o=.d) $(FUZZ_TARGET_OBJS:%.o=$(BUILD)/asan/%.d)
-include $(FUZZ_LIB_OBJS:.o=.d) $(FUZZ_CMD_OBJS:.o=.d) $(FUZZ_OBJS:.o=.d) \
	$(FUZZ_TARGET_OBJS:%.o=$(FUZZ_DIR)/%.d)
# Objects only pattern rules name: keep them, so a rebuild relinks instead of recompiling.
.SECONDARY: $(FUZZ_ASAN_OBJS) $(FUZZ_OBJS) $(FUZZ_TARGET_OBJS:%=$(BUILD)/asan/%) \
	$(FUZZ_TARGET_OBJS:%=$(FUZZ_DIR)/%)

# A variable's value, for fuzz/cov.sh (source-based coverage of one target).
fuzz-var-%:
	@echo '$($*)'
