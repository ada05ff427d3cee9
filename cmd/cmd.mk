# Subcommands in cmd/ (kvmtool's builtin-*.c pattern): their objects go into libvsched like every
# other folder's, under stricter warnings.
CMD_SRCS := $(sort $(wildcard cmd/*.c))
CMD_OBJS := $(CMD_SRCS:%.c=$(BUILD)/%.o)
CMD_WARN := -Wmissing-prototypes -Wformat=2 -Wshadow

LIB_SRCS += $(CMD_SRCS)
LIB_OBJS += $(CMD_OBJS)
ASAN_LIB_OBJS += $(CMD_SRCS:%.c=$(BUILD)/asan/%.o)

$(CMD_OBJS) $(CMD_SRCS:%.c=$(BUILD)/asan/%.o) $(BUILD)/tests/unit/test_top.o \
	$(BUILD)/asan/tests/unit/test_top.o: ALL_CFLAGS += $(CMD_WARN) $(NCURSES_CFLAGS)
