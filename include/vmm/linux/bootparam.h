/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The x86 Linux boot protocol (Documentation/arch/x86/boot.rst): the setup header a bzImage
 * carries at 0x1f1, the zero page (struct boot_params) a 64-bit loader hands the kernel in
 * RSI, and its e820 memory map. Only the fields vsched reads or writes are named.
 */
#ifndef VSCHED_VMM_LINUX_BOOTPARAM_H
#define VSCHED_VMM_LINUX_BOOTPARAM_H

#include <stddef.h>
#include <stdint.h>

#define SETUP_HDR_OFFSET 0x1f1
#define SETUP_HDR_MAGIC 0x53726448	/* "HdrS" */
#define SETUP_BOOT_FLAG 0xaa55
#define SETUP_MIN_VERSION 0x0206	/* cmdline_size and a 64-bit safe header */

#define LOADFLAG_LOADED_HIGH (1 << 0)
#define LOADFLAG_KEEP_SEGMENTS (1 << 6)
#define LOADFLAG_CAN_USE_HEAP (1 << 7)
#define XLF_KERNEL_64 (1 << 0)
#define XLF_CAN_BE_LOADED_ABOVE_4G (1 << 1)

#define E820_RAM 1
#define E820_RESERVED 2
#define E820_MAX_ENTRIES 128

struct setup_header {
	uint8_t setup_sects;
	uint16_t root_flags;
	uint32_t syssize;
	uint16_t ram_size;
	uint16_t vid_mode;
	uint16_t root_dev;
	uint16_t boot_flag;
	uint16_t jump;
	uint32_t header;
	uint16_t version;
	uint32_t realmode_swtch;
	uint16_t start_sys_seg;
	uint16_t kernel_version;
	uint8_t type_of_loader;
	uint8_t loadflags;
	uint16_t setup_move_size;
	uint32_t code32_start;
	uint32_t ramdisk_image;
	uint32_t ramdisk_size;
	uint32_t bootsect_kludge;
	uint16_t heap_end_ptr;
	uint8_t ext_loader_ver;
	uint8_t ext_loader_type;
	uint32_t cmd_line_ptr;
	uint32_t initrd_addr_max;
	uint32_t kernel_alignment;
	uint8_t relocatable_kernel;
	uint8_t min_alignment;
	uint16_t xloadflags;
	uint32_t cmdline_size;
	uint32_t hardware_subarch;
	uint64_t hardware_subarch_data;
	uint32_t payload_offset;
	uint32_t payload_length;
	uint64_t setup_data;
	uint64_t pref_address;
	uint32_t init_size;
	uint32_t handover_offset;
	uint32_t kernel_info_offset;
} __attribute__((packed));

struct e820_entry {
	uint64_t addr;
	uint64_t size;
	uint32_t type;
} __attribute__((packed));

/* The zero page: 4 KiB, with the setup header at 0x1f1 and the e820 table at 0x2d0. */
struct boot_params {
	uint8_t screen_info[0x40];
	uint8_t pad0[0xc0 - 0x40];
	uint32_t ext_ramdisk_image;
	uint32_t ext_ramdisk_size;
	uint32_t ext_cmd_line_ptr;
	uint8_t pad1[0x1e8 - 0xcc];
	uint8_t e820_entries;
	uint8_t pad2[0x1ef - 0x1e9];
	uint8_t sentinel;
	uint8_t pad3;
	struct setup_header hdr;
	uint8_t pad4[0x2d0 - 0x1f1 - sizeof(struct setup_header)];
	struct e820_entry e820_table[E820_MAX_ENTRIES];
	uint8_t pad5[0x1000 - 0x2d0 - E820_MAX_ENTRIES * sizeof(struct e820_entry)];
} __attribute__((packed));

_Static_assert(offsetof(struct boot_params, hdr) == SETUP_HDR_OFFSET, "setup header at 0x1f1");
_Static_assert(offsetof(struct boot_params, hdr.header) == 0x202, "HdrS at 0x202");
_Static_assert(offsetof(struct boot_params, hdr.cmd_line_ptr) == 0x228, "cmd_line_ptr");
_Static_assert(offsetof(struct boot_params, hdr.pref_address) == 0x258, "pref_address");
_Static_assert(offsetof(struct boot_params, hdr.kernel_info_offset) == 0x268, "hdr end");
_Static_assert(offsetof(struct boot_params, e820_table) == 0x2d0, "e820 at 0x2d0");
_Static_assert(sizeof(struct boot_params) == 4096, "zero page is one page");

/* Guest-physical layout of the Linux boot path below 1 MiB (docs/linux-boot.md). */
#define LX_GDT_ADDR 0x500
#define LX_ZERO_PAGE 0x7000
#define LX_STACK_TOP 0x8ff0
#define LX_PML4 0x9000		/* PML4, PDPT, then 4 PDs of 2 MiB pages: 4 GiB identity */
#define LX_CMDLINE 0x20000
#define LX_CMDLINE_MAX 4096
#define LX_EBDA_START 0x9fc00
#define LX_HOLE_START 0xa0000	/* VGA + option ROM hole, never RAM */
#define LX_BIOS_START 0xf0000	/* reserved; the MP table lives here */
#define LX_HIGH_START 0x100000
#define LX_GAP_START 0xc0000000ULL	/* 32-bit MMIO gap: LAPIC, IOAPIC */
#define LX_GAP_END 0x100000000ULL

/*
 * Builds the e820 map of a guest with ram_size bytes of RAM at [0, ram_size) (RAM above
 * LX_GAP_START is placed above 4 GiB). Returns the entry count, or -EINVAL.
 */
int e820_build(struct e820_entry *table, unsigned int max, uint64_t ram_size);

/*
 * Fills a zero page: the kernel's setup header (hdr, may be NULL for an ELF vmlinux), e820,
 * the command line pointer and the initrd. The caller zeroed bp.
 */
struct zero_page_args {
	const struct setup_header *hdr;
	unsigned int hdr_len;		/* bytes of hdr the image really has */
	uint64_t ram_size;
	uint32_t cmdline_addr;
	uint32_t cmdline_len;		/* without the NUL */
	uint32_t initrd_addr;
	uint32_t initrd_size;
};
int zero_page_fill(struct boot_params *bp, const struct zero_page_args *a);

#endif
