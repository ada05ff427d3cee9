# vsched build. `make help` lists the targets.
# C11 (gnu11: the GNU dialect of C11, for inline asm and typeof), warnings are errors.

PREFIX  ?= /usr/local
DESTDIR ?=
BINDIR  ?= $(PREFIX)/bin
# The C API for programs: include/vsched.h, the static build/libvsched.a and vsched.pc.
INCLUDEDIR ?= $(PREFIX)/include
LIBDIR  ?= $(PREFIX)/lib
# systemd reads units from /usr/local/lib/systemd/system too (systemd.unit(5)).
UNITDIR ?= $(PREFIX)/lib/systemd/system
BUILD   ?= build
CC      ?= cc
PKG_CONFIG ?= pkg-config
OBJCOPY ?= objcopy

PKGS     := libxml-2.0 fuse3
PKG_CFLAGS := $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
CUNIT_LIBS := $(shell $(PKG_CONFIG) --libs cunit 2>/dev/null || echo -lcunit)
# ncurses for `vsched top`; its cflags (_XOPEN_SOURCE) go to cmd/ alone (below).
NCURSES_CFLAGS := $(shell $(PKG_CONFIG) --cflags ncursesw 2>/dev/null)
NCURSES_LIBS := $(shell $(PKG_CONFIG) --libs ncursesw 2>/dev/null || echo -lncursesw)

WARN    := -Wall -Wextra -Werror -Wno-missing-field-initializers -Wmissing-prototypes -Wformat=2 -Wshadow
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=gnu11 $(WARN) $(CFLAGS) -D_GNU_SOURCE -Iinclude -I$(BUILD)/gen $(PKG_CFLAGS) -MMD -MP
LDLIBS  := $(PKG_LIBS) $(NCURSES_LIBS) -lpthread -lrt -lm
SAN     := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# Debug checks (include/util/debug.h: BUG_ON, assert_held): in the ASan build and the unit tests,
# which link a debug build of the library; out of the release build (vsched, benches).
DEBUG   := -DVSCHED_DEBUG

# Every .c under these folders is part of libvsched. The command line (cmd/: main.c and the
# subcommands that compose the modules) is libcmd, linked into the binary, the unit tests (which
# test its parsers) and the tools that drive a VM like `vsched run` does.
SRC_DIRS := util sched sched/* ctl vmm vmm/* libvirt-hooks host
LIB_SRCS := $(sort $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c)))
CMD_SRCS := $(filter-out cmd/main.c,$(sort $(wildcard cmd/*.c)))
# An in-process VM under the runtime, for the tests and benches only (tests/fixture/).
FIXTURE_SRCS := $(sort $(wildcard tests/fixture/*.c))
TEST_SRCS := $(sort $(wildcard tests/unit/*.c)) $(FIXTURE_SRCS)

# Module fragments (payload guest images, benches) add to these.
GEN_OBJS :=
GEN_HDRS :=
BENCH_BINS :=

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/%.o)
DEBUG_LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/debug/%.o)
ASAN_LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/asan/%.o)
ASAN_CMD_OBJS  := $(CMD_SRCS:%.c=$(BUILD)/asan/%.o)
ASAN_TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/asan/%.o)

VSCHED := $(BUILD)/vsched

.PHONY: all check layers doc-links unit unit-asan integration bench demo install clean deps help
all: $(VSCHED)

-include $(sort $(wildcard */*.mk */*/*.mk))

# ar keys members by file name alone: refuse two objects with one name, and start from an empty
# archive so that objects of deleted sources do not linger.
define make-archive
@mkdir -p $(@D)
@dups=$$(printf '%s\n' $(notdir $^) | sort | uniq -d); \
[ -z "$$dups" ] || { echo "$(@F): two objects named $$dups; rename one" >&2; exit 1; }
@rm -f $@
$(AR) rcs $@ $^
endef

$(BUILD)/libvsched.a: $(LIB_OBJS) $(GEN_OBJS)
	$(make-archive)

$(BUILD)/debug/libvsched.a: $(DEBUG_LIB_OBJS) $(GEN_OBJS)
	$(make-archive)

# The installed library: one object whose only global symbols are the functions include/vsched.h
# declares. The build's own libvsched.a exports every module's names (cpuset_parse, file_read,
# xwarn, ...): a program with a function of one of those names failed to link, or had its own
# called by the library. `ld -r` joins the objects the API reaches, objcopy makes the rest local.
API_SYMS := $(BUILD)/api/vsched.syms
$(API_SYMS): include/vsched.h
	@mkdir -p $(@D)
	sed -n '/^typedef/d; s/^[a-z][^(]*[ *]\(vsched_[a-z_]*\)(.*/\1/p' $< >$@.tmp
	@test -s $@.tmp || { echo "$@: no function found in $<" >&2; exit 1; }
	mv $@.tmp $@

$(BUILD)/api/vsched-api.o: $(LIB_OBJS) $(GEN_OBJS) $(API_SYMS)
	$(LD) -r --gc-sections $$(sed 's/^/-u /' $(API_SYMS)) -o $@.tmp $(LIB_OBJS) $(GEN_OBJS)
	$(OBJCOPY) --keep-global-symbols=$(API_SYMS) $@.tmp $@
	@rm -f $@.tmp

$(BUILD)/api/libvsched.a: $(BUILD)/api/vsched-api.o
	$(make-archive)

$(BUILD)/asan/libvsched.a: $(ASAN_LIB_OBJS) $(GEN_OBJS)
	$(make-archive)

$(CMD_OBJS) $(ASAN_CMD_OBJS) $(BUILD)/tests/unit/test_top.o $(BUILD)/asan/tests/unit/test_top.o: \
	ALL_CFLAGS += $(NCURSES_CFLAGS)

$(BUILD)/libcmd.a: $(CMD_OBJS)
	$(make-archive)

$(BUILD)/asan/libcmd.a: $(ASAN_CMD_OBJS)
	$(make-archive)

$(VSCHED): $(BUILD)/cmd/main.o $(BUILD)/libcmd.a $(BUILD)/libvsched.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/unit-tests: $(TEST_OBJS) $(BUILD)/libcmd.a $(BUILD)/debug/libvsched.a
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(CUNIT_LIBS) $(LDLIBS)

# vsched under ASan+UBSan, for sweeping inputs through the command line (docs/libvirt.md).
$(BUILD)/asan/vsched: $(BUILD)/asan/cmd/main.o $(BUILD)/asan/libcmd.a $(BUILD)/asan/libvsched.a
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

$(BUILD)/asan/unit-tests: $(ASAN_TEST_OBJS) $(BUILD)/asan/libcmd.a $(BUILD)/asan/libvsched.a
	$(CC) $(ALL_CFLAGS) $(SAN) -o $@ $^ $(CUNIT_LIBS) $(LDLIBS)

$(BUILD)/asan/%.o: %.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(SAN) $(DEBUG) -O1 -c -o $@ $<

$(BUILD)/debug/%.o: %.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(DEBUG) -c -o $@ $<

$(TEST_OBJS): ALL_CFLAGS += $(DEBUG)

$(BUILD)/%.o: %.c | $(GEN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

deps:
	@scripts/deps.sh

unit: $(BUILD)/unit-tests
	$(BUILD)/unit-tests

unit-asan: $(BUILD)/asan/unit-tests
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(BUILD)/asan/unit-tests

integration: $(VSCHED)
	tests/integration/run.sh $(VSCHED)

# The folders' include rules (docs/architecture.md): the table is in the script.
layers:
	@scripts/check-layers.sh

# Every relative link and anchor of the docs resolves.
doc-links:
	@scripts/doc-links.py

# The test command: the layering, the docs' links, unit tests, the same under ASan+UBSan, the
# fuzz corpus replayed (fuzz/fuzz.mk), the benchmarks built (not run: timing is `make bench`'s), then integration tests.
check: deps
	@$(MAKE) --no-print-directory layers doc-links unit unit-asan fuzz-replay $(BENCH_BINS) \
		integration

bench: deps
	@$(MAKE) --no-print-directory $(VSCHED) $(BENCH_BINS)
	bench/run.sh $(BUILD)

# The main job: a demo VM whose vCPUs sit in groups, on built-in defaults.
demo: deps
	@$(MAKE) --no-print-directory $(VSCHED)
	$(VSCHED) run

install: $(VSCHED) $(BUILD)/api/libvsched.a
	install -D -m 0755 $(VSCHED) $(DESTDIR)$(BINDIR)/vsched
	@mkdir -p $(DESTDIR)$(UNITDIR)
	sed 's|@BINDIR@|$(BINDIR)|g' host/vsched-host.service > $(DESTDIR)$(UNITDIR)/vsched-host.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/vsched-host.service
	install -D -m 0644 man/vsched.1 $(DESTDIR)$(PREFIX)/share/man/man1/vsched.1
	install -D -m 0644 include/vsched.h $(DESTDIR)$(INCLUDEDIR)/vsched.h
	install -D -m 0644 $(BUILD)/api/libvsched.a $(DESTDIR)$(LIBDIR)/libvsched.a
	@mkdir -p $(DESTDIR)$(LIBDIR)/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|g' \
		-e 's|@INCLUDEDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))|g' \
		-e 's|@LIBDIR@|$(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))|g' \
		vsched.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/vsched.pc
	chmod 0644 $(DESTDIR)$(LIBDIR)/pkgconfig/vsched.pc
	$(if $(wildcard libvirt-hooks/qemu-hook),install -D -m 0755 libvirt-hooks/qemu-hook $(DESTDIR)/etc/libvirt/hooks/qemu.d/vsched)

clean:
	rm -rf $(BUILD)

help:
	@echo "make demo         build and run the demo VM with groups"
	@echo "make check        layering, unit tests (plain and ASan+UBSan), fuzz corpus replay,"
	@echo "                  benchmarks built, integration"
	@echo "make layers       only the layering: no #include crosses a folder boundary it may not"
	@echo "make bench        benchmarks (timing lives here, never in tests), CSV and PNGs"
	@echo "make bench-plots  the PNGs again from the last bench run's CSV (build/plots)"
	@echo "make fuzz-sim     random scenarios against the fluid ideal, reports the worst"
	@echo "make fuzz         libFuzzer targets, FUZZ_SECONDS=60 each (clang; docs/fuzzing.md)"
	@echo "make build/asan/vsched  vsched under ASan+UBSan, to sweep inputs (docs/libvirt.md)"
	@echo "make install PREFIX=/usr/local DESTDIR=  binary, man page, libvirt hook, unit,"
	@echo "                  vsched.h, libvsched.a and vsched.pc"

-include $(LIB_OBJS:.o=.d) $(CMD_OBJS:.o=.d) $(TEST_OBJS:.o=.d) $(ASAN_LIB_OBJS:.o=.d) \
	$(ASAN_CMD_OBJS:.o=.d) $(ASAN_TEST_OBJS:.o=.d) $(BUILD)/cmd/main.d $(wildcard $(BUILD)/bench/*.d)
-include $(DEBUG_LIB_OBJS:.o=.d)
