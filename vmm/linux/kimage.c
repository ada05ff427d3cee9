// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel image loading. A bzImage is its real-mode setup ((setup_sects + 1) * 512 bytes, which
 * we skip: we enter at the 64-bit entry) followed by the protected-mode kernel, loaded at 1 MiB.
 * An ELF vmlinux is loaded segment by segment at p_paddr and entered at e_entry (startup_64).
 */
#include <elf.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/compiler.h"
#include "vmm/linux/kimage.h"

#define BZ_LOAD_ADDR 0x100000
#define BZ_ENTRY64_OFFSET 0x200		/* startup_64 = code32_start + 0x200 */
#define KERNEL_HIGH_BASE 0xffffffff80000000ULL

static __thread char kimage_err[160];

const char *kimage_strerror(void)
{
	return kimage_err[0] ? kimage_err : "no error";
}

static int __printf(2, 3) fail(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(kimage_err, sizeof(kimage_err), fmt, ap);
	va_end(ap);
	return err;
}

int bzimage_parse(const void *file, size_t size, struct kimage *img)
{
	const uint8_t *p = file;
	struct setup_header hdr;
	unsigned int hdr_len, setup_sects;
	uint64_t setup_size, kernel_size;

	kimage_err[0] = 0;
	if (size < 0x202 + 6)
		return fail(-ENOEXEC, "bzImage: file too short for a setup header (%zu bytes)", size);
	memset(&hdr, 0, sizeof(hdr));
	/* The header ends where the jump at 0x200 lands: 0x202 + its 8-bit displacement. */
	hdr_len = min_t(unsigned int, 0x202 + p[0x201] - SETUP_HDR_OFFSET, sizeof(hdr));
	if (SETUP_HDR_OFFSET + hdr_len > size)
		return fail(-ENOEXEC, "bzImage: truncated setup header");
	memcpy(&hdr, p + SETUP_HDR_OFFSET, hdr_len);
	if (hdr.header != SETUP_HDR_MAGIC)
		return fail(-ENOEXEC, "bzImage: no \"HdrS\" magic at 0x202");
	if (hdr.boot_flag != SETUP_BOOT_FLAG)
		return fail(-EINVAL, "bzImage: boot_flag 0x%04x is not 0xaa55", hdr.boot_flag);
	if (hdr.version < SETUP_MIN_VERSION)
		return fail(-EINVAL, "bzImage: boot protocol %u.%02u is older than 2.06",
			    hdr.version >> 8, hdr.version & 0xff);
	if (hdr_len < offsetof(struct setup_header, xloadflags) + 2 ||
	    !(hdr.xloadflags & XLF_KERNEL_64))
		return fail(-EINVAL, "bzImage: no 64-bit entry point (XLF_KERNEL_64 clear)");
	if (!(hdr.loadflags & LOADFLAG_LOADED_HIGH))
		return fail(-EINVAL, "bzImage: zImage (loaded low) is not supported");
	setup_sects = hdr.setup_sects ? hdr.setup_sects : 4;
	setup_size = (uint64_t)(setup_sects + 1) * 512;
	if (setup_size >= size)
		return fail(-EINVAL, "bzImage: truncated, %zu bytes but setup alone is %llu", size,
			    (unsigned long long)setup_size);
	kernel_size = size - setup_size;
	if (kernel_size <= BZ_ENTRY64_OFFSET)
		return fail(-EINVAL, "bzImage: truncated, the 64-bit entry at 0x%x is past the "
			    "kernel's %llu bytes", BZ_ENTRY64_OFFSET, (unsigned long long)kernel_size);
	/* syssize counts 16-byte paragraphs of the protected-mode part. */
	if ((uint64_t)hdr.syssize * 16 > kernel_size)
		return fail(-EINVAL, "bzImage: truncated, kernel needs %llu bytes, file has %llu",
			    (unsigned long long)hdr.syssize * 16, (unsigned long long)kernel_size);

	memset(img, 0, sizeof(*img));
	img->kind = KIMAGE_BZIMAGE;
	img->hdr = hdr;
	img->hdr_len = hdr_len;
	img->load_addr = BZ_LOAD_ADDR;
	img->entry = BZ_LOAD_ADDR + BZ_ENTRY64_OFFSET;
	img->load_end = BZ_LOAD_ADDR + kernel_size;
	/*
	 * The decompressor runs at the load address rounded up to kernel_alignment, but never
	 * below LOAD_PHYSICAL_ADDR (pref_address, 2.10+), and needs init_size bytes there.
	 */
	if (hdr.version >= 0x020a) {
		uint64_t align = hdr.kernel_alignment ? hdr.kernel_alignment : 1;
		uint64_t run = (BZ_LOAD_ADDR + align - 1) / align * align;

		run = max_t(uint64_t, run, hdr.pref_address);
		if (hdr.init_size > UINT64_MAX - run)
			return fail(-EINVAL, "bzImage: pref_address 0x%llx + init_size 0x%x wraps "
				    "around", (unsigned long long)run, hdr.init_size);
		img->load_end = max_t(uint64_t, img->load_end, run + hdr.init_size);
	}
	return 0;
}

int bzimage_load(const void *file, size_t size, void *mem, uint64_t mem_size, struct kimage *img)
{
	const uint8_t *p = file;
	uint64_t setup_size, kernel_size;
	int err;

	err = bzimage_parse(file, size, img);
	if (err)
		return err;
	setup_size = (uint64_t)((img->hdr.setup_sects ? img->hdr.setup_sects : 4) + 1) * 512;
	kernel_size = size - setup_size;
	if (img->load_end > mem_size)
		return fail(-ENOMEM, "bzImage: kernel needs RAM up to %llu MiB, guest has %llu MiB",
			    (unsigned long long)(img->load_end >> 20) + 1,
			    (unsigned long long)mem_size >> 20);
	memcpy((uint8_t *)mem + img->load_addr, p + setup_size, kernel_size);
	return 0;
}

/* A copy: e_phoff is the file's word, and need not be aligned for an Elf64_Phdr. */
static Elf64_Phdr elf_phdr(const void *file, unsigned int i)
{
	const Elf64_Ehdr *eh = file;
	Elf64_Phdr ph;

	memcpy(&ph, (const uint8_t *)file + eh->e_phoff + (uint64_t)i * eh->e_phentsize, sizeof(ph));
	return ph;
}

int elf_parse(const void *file, size_t size, struct kimage *img)
{
	const Elf64_Ehdr *eh = file;
	uint64_t lo = UINT64_MAX, hi = 0, entry;
	unsigned int i, nr_load = 0;
	bool entry_found = false, phys_in_segment = false;

	kimage_err[0] = 0;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG))
		return fail(-ENOEXEC, "vmlinux: not an ELF file");
	if (eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_ident[EI_DATA] != ELFDATA2LSB ||
	    eh->e_machine != EM_X86_64)
		return fail(-EINVAL, "vmlinux: not a little-endian x86-64 ELF64 file");
	if (eh->e_type != ET_EXEC)
		return fail(-EINVAL, "vmlinux: ELF type %u is not an executable", eh->e_type);
	if (eh->e_phentsize != sizeof(Elf64_Phdr) || !eh->e_phnum ||
	    eh->e_phoff > size || (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size - eh->e_phoff)
		return fail(-EINVAL, "vmlinux: program headers outside the file");

	entry = eh->e_entry;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr phdr = elf_phdr(file, i), *ph = &phdr;

		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		if (ph->p_offset > size || ph->p_filesz > size - ph->p_offset ||
		    ph->p_filesz > ph->p_memsz)
			return fail(-EINVAL, "vmlinux: segment %u lies outside the file (truncated?)", i);
		if (ph->p_paddr + ph->p_memsz < ph->p_paddr)
			return fail(-EINVAL, "vmlinux: segment %u wraps around", i);
		lo = min_t(uint64_t, lo, ph->p_paddr);
		hi = max_t(uint64_t, hi, ph->p_paddr + ph->p_memsz);
		nr_load++;
		if (eh->e_entry >= ph->p_paddr && eh->e_entry - ph->p_paddr < ph->p_memsz)
			phys_in_segment = true;
		/* e_entry is virtual (startup_64 at 0xffffffff81...) or already physical. */
		if (!entry_found && eh->e_entry >= ph->p_vaddr && eh->e_entry - ph->p_vaddr < ph->p_memsz) {
			entry = ph->p_paddr + (eh->e_entry - ph->p_vaddr);
			entry_found = true;
		}
	}
	if (!nr_load)
		return fail(-EINVAL, "vmlinux: no PT_LOAD segment");
	if (!entry_found) {
		if (entry >= KERNEL_HIGH_BASE)
			return fail(-EINVAL, "vmlinux: entry 0x%llx is in no segment",
				    (unsigned long long)entry);
		/* Between segments too: the guest would start in RAM no segment wrote. */
		if (!phys_in_segment)
			return fail(-EINVAL, "vmlinux: entry 0x%llx is in no segment",
				    (unsigned long long)entry);
	}
	memset(img, 0, sizeof(*img));
	img->kind = KIMAGE_ELF;
	img->entry = entry;
	img->load_addr = lo;
	img->load_end = hi;
	return 0;
}

int elf_load(const void *file, size_t size, void *mem, uint64_t mem_size, struct kimage *img)
{
	const Elf64_Ehdr *eh = file;
	unsigned int i;
	int err;

	err = elf_parse(file, size, img);
	if (err)
		return err;
	if (img->load_end > mem_size)
		return fail(-ENOMEM, "vmlinux: kernel needs RAM up to %llu MiB, guest has %llu MiB",
			    (unsigned long long)(img->load_end >> 20) + 1,
			    (unsigned long long)mem_size >> 20);
	if (img->load_addr < LX_HIGH_START)
		return fail(-EINVAL, "vmlinux: segment at 0x%llx overlaps the boot tables below 1 MiB",
			    (unsigned long long)img->load_addr);
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr phdr = elf_phdr(file, i), *ph = &phdr;
		uint8_t *dst;

		if (ph->p_type != PT_LOAD || !ph->p_memsz)
			continue;
		dst = (uint8_t *)mem + ph->p_paddr;
		memcpy(dst, (const uint8_t *)file + ph->p_offset, ph->p_filesz);
		memset(dst + ph->p_filesz, 0, ph->p_memsz - ph->p_filesz);
	}
	return 0;
}

int kimage_parse(const void *file, size_t size, struct kimage *img)
{
	if (size >= SELFMAG && !memcmp(file, ELFMAG, SELFMAG))
		return elf_parse(file, size, img);
	if (size >= 0x206 && !memcmp((const uint8_t *)file + 0x202, "HdrS", 4))
		return bzimage_parse(file, size, img);
	kimage_err[0] = 0;
	return fail(-ENOEXEC, "kernel: neither a bzImage (no \"HdrS\") nor an ELF vmlinux");
}

int kimage_load(const void *file, size_t size, void *mem, uint64_t mem_size, struct kimage *img)
{
	if (size >= SELFMAG && !memcmp(file, ELFMAG, SELFMAG))
		return elf_load(file, size, mem, mem_size, img);
	if (size >= 0x206 && !memcmp((const uint8_t *)file + 0x202, "HdrS", 4))
		return bzimage_load(file, size, mem, mem_size, img);
	kimage_err[0] = 0;
	return fail(-ENOEXEC, "kernel: neither a bzImage (no \"HdrS\") nor an ELF vmlinux");
}

int initrd_place(uint64_t size, uint64_t floor, uint64_t ram_top, uint64_t addr_max,
		 uint64_t *addr)
{
	uint64_t top = ram_top, a;

	kimage_err[0] = 0;
	if (!size)
		return fail(-EINVAL, "initrd: empty file");
	if (addr_max < UINT64_MAX && addr_max + 1 < top)
		top = addr_max + 1;
	if (size > top)
		return fail(-ENOMEM, "initrd: %llu bytes do not fit below 0x%llx",
			    (unsigned long long)size, (unsigned long long)top);
	a = (top - size) & ~((1ULL << 20) - 1);
	if (a < floor)
		return fail(-ENOMEM, "initrd: %llu KiB do not fit between the kernel (ends 0x%llx) and 0x%llx",
			    (unsigned long long)size >> 10, (unsigned long long)floor,
			    (unsigned long long)top);
	*addr = a;
	return 0;
}
