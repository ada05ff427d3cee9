// SPDX-License-Identifier: GPL-2.0
/*
 * The zero page a 64-bit boot protocol loader builds: the kernel's own setup header with the
 * loader fields filled in, and an e820 map, since there is no BIOS to ask (int 15h, e820).
 */
#include <errno.h>
#include <string.h>

#include "util/compiler.h"
#include "vmm/linux/bootparam.h"

static int e820_add(struct e820_entry *table, unsigned int max, unsigned int *n, uint64_t addr,
		    uint64_t size, uint32_t type)
{
	if (!size)
		return 0;
	if (*n >= max)
		return -EINVAL;
	table[*n].addr = addr;
	table[*n].size = size;
	table[*n].type = type;
	(*n)++;
	return 0;
}

int e820_build(struct e820_entry *table, unsigned int max, uint64_t ram_size)
{
	unsigned int n = 0;
	int err = 0;

	/* Below 1 MiB: base memory, the EBDA, the VGA/ROM hole (absent), the BIOS area. */
	if (ram_size < 2 * LX_HIGH_START)
		return -EINVAL;
	err |= e820_add(table, max, &n, 0, LX_EBDA_START, E820_RAM);
	err |= e820_add(table, max, &n, LX_EBDA_START, LX_HOLE_START - LX_EBDA_START, E820_RESERVED);
	err |= e820_add(table, max, &n, LX_BIOS_START, LX_HIGH_START - LX_BIOS_START, E820_RESERVED);
	err |= e820_add(table, max, &n, LX_HIGH_START,
			min_t(uint64_t, ram_size, LX_GAP_START) - LX_HIGH_START, E820_RAM);
	if (ram_size > LX_GAP_START)
		err |= e820_add(table, max, &n, LX_GAP_END, ram_size - LX_GAP_START, E820_RAM);
	return err ? -EINVAL : (int)n;
}

int zero_page_fill(struct boot_params *bp, const struct zero_page_args *a)
{
	int n;

	/* The kernel states its own cmdline_size; the loader must respect, not rewrite it. */
	if (a->hdr && a->hdr->cmdline_size && a->cmdline_len > a->hdr->cmdline_size)
		return -E2BIG;
	if (a->hdr && (a->hdr_len > sizeof(bp->hdr) || a->hdr_len < 0x202 + 4 - SETUP_HDR_OFFSET))
		return -EINVAL;
	n = e820_build(bp->e820_table, E820_MAX_ENTRIES, a->ram_size);
	if (n < 0)
		return n;
	bp->e820_entries = n;

	/* A bzImage's header goes in verbatim: the kernel reads its own fields back from here. */
	if (a->hdr) {
		memcpy(&bp->hdr, a->hdr, a->hdr_len);
	} else {
		bp->hdr.boot_flag = SETUP_BOOT_FLAG;
		bp->hdr.header = SETUP_HDR_MAGIC;
		bp->hdr.version = 0x020f;
		bp->hdr.kernel_alignment = 0x1000000;
		bp->hdr.loadflags = LOADFLAG_LOADED_HIGH;
		bp->hdr.initrd_addr_max = 0x7fffffff;
		bp->hdr.cmdline_size = a->cmdline_len;
	}
	bp->hdr.type_of_loader = 0xff;		/* undefined loader, no ID assigned */
	bp->hdr.vid_mode = 0xffff;		/* "normal": no mode change */
	bp->hdr.loadflags |= LOADFLAG_CAN_USE_HEAP;
	bp->hdr.heap_end_ptr = 0xfe00;
	bp->hdr.cmd_line_ptr = a->cmdline_addr;
	bp->hdr.ramdisk_image = a->initrd_addr;
	bp->hdr.ramdisk_size = a->initrd_size;
	bp->ext_ramdisk_image = 0;
	bp->ext_ramdisk_size = 0;
	bp->ext_cmd_line_ptr = 0;
	return 0;
}
