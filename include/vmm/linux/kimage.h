/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel image loading: a bzImage through the 64-bit boot protocol, or an uncompressed ELF
 * vmlinux placed at its physical addresses. Both work on a file already read into memory and
 * on guest RAM given as [mem, mem + mem_size) from guest-physical 0, so they can be tested
 * without KVM.
 */
#ifndef VSCHED_VMM_LINUX_KIMAGE_H
#define VSCHED_VMM_LINUX_KIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "vmm/linux/bootparam.h"

enum kimage_kind {
	KIMAGE_BZIMAGE,
	KIMAGE_ELF,
};

/* What a loaded kernel needs for its zero page and its first instruction. */
struct kimage {
	enum kimage_kind kind;
	uint64_t entry;			/* guest-physical 64-bit entry point */
	uint64_t load_addr;		/* lowest byte loaded */
	uint64_t load_end;		/* first byte the kernel may still claim (init_size) */
	struct setup_header hdr;	/* bzImage: its header; ELF: zero */
	unsigned int hdr_len;		/* bytes of hdr present in the image */
};

/* Error text for the last failing kimage_*() call in this thread (for the CLI to print). */
const char *kimage_strerror(void);

/*
 * Checks a bzImage setup header: magic "HdrS", boot protocol >= 2.06, XLF_KERNEL_64, a
 * protected-mode part inside the file. Fills img (entry relative to load 0). -ENOEXEC if
 * this is not a bzImage, -EINVAL if it is one we cannot boot.
 */
int bzimage_parse(const void *file, size_t size, struct kimage *img);

/* Parses and copies the protected-mode kernel to guest memory. */
int bzimage_load(const void *file, size_t size, void *mem, uint64_t mem_size, struct kimage *img);

/* Checks an x86-64 ELF vmlinux: header, PT_LOAD segments inside the file. */
int elf_parse(const void *file, size_t size, struct kimage *img);

/* Copies PT_LOAD segments to their physical addresses, zeroes their bss. */
int elf_load(const void *file, size_t size, void *mem, uint64_t mem_size, struct kimage *img);

/* Either format, chosen by magic; -ENOEXEC for anything else. */
int kimage_parse(const void *file, size_t size, struct kimage *img);
int kimage_load(const void *file, size_t size, void *mem, uint64_t mem_size, struct kimage *img);

/*
 * Where an initrd of size bytes goes: the highest 1 MiB-aligned address whose end is at most
 * min(ram_top, addr_max + 1) and which starts at or above floor. -ENOMEM if none.
 */
int initrd_place(uint64_t size, uint64_t floor, uint64_t ram_top, uint64_t addr_max,
		 uint64_t *addr);

#endif
