# Payload guest image: freestanding C + asm, linked flat at 0x10000, embedded with .incbin.
PAYLOAD_OUT := $(BUILD)/payload
PAYLOAD_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -O2 -Iinclude -ffreestanding -fno-pic \
	-fno-pie -mno-red-zone -mgeneral-regs-only -fno-stack-protector -fno-builtin \
	-fno-asynchronous-unwind-tables -fcf-protection=none -mcmodel=small
PAYLOAD_SRCS := vmm/payload/guest/entry.S vmm/payload/guest/payload.c
PAYLOAD_OBJS := $(PAYLOAD_OUT)/entry.o $(PAYLOAD_OUT)/payload.o

$(PAYLOAD_OUT)/%.o: vmm/payload/guest/%.S include/vmm/payload_abi.h
	@mkdir -p $(@D)
	$(CC) $(PAYLOAD_CFLAGS) -c -o $@ $<

$(PAYLOAD_OUT)/%.o: vmm/payload/guest/%.c vmm/payload/guest/work.h include/vmm/payload_abi.h
	@mkdir -p $(@D)
	$(CC) $(PAYLOAD_CFLAGS) -c -o $@ $<

$(PAYLOAD_OUT)/payload.elf: $(PAYLOAD_OBJS) vmm/payload/guest/payload.ld
	$(CC) -nostdlib -static -no-pie -Wl,--build-id=none -Wl,-T,vmm/payload/guest/payload.ld \
		-o $@ $(PAYLOAD_OBJS)

$(PAYLOAD_OUT)/payload.bin: $(PAYLOAD_OUT)/payload.elf
	objcopy -O binary $< $@

$(PAYLOAD_OUT)/blob.o: vmm/payload/image.S $(PAYLOAD_OUT)/payload.bin
	$(CC) -c -DPAYLOAD_BIN='"$(PAYLOAD_OUT)/payload.bin"' -o $@ $<

GEN_OBJS += $(PAYLOAD_OUT)/blob.o
