// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the kernel image a user names (`vsched run --kernel FILE`), a file of any bytes:
 * kimage_parse() and kimage_load() (vmm/linux/kimage.c: a bzImage's setup header or an ELF
 * vmlinux's program headers) into KI_RAM bytes of guest RAM, as lx_load_kernel() loads it.
 * Seeds: fuzz/kimage_seeds.py.
 *
 * Input: the file.
 *
 * Invariants: no crash, leak or undefined behaviour; a refused file gives -ENOEXEC (not a kernel),
 * -EINVAL (one we cannot boot) or -ENOMEM (too big for the RAM) and a message naming the format
 * ("bzImage: ", "vmlinux: ", "kernel: "); parse and load agree; an accepted kernel starts at or
 * above 1 MiB, its entry point lies in what is loaded (the protected-mode part a bzImage's file
 * holds, a PT_LOAD segment of an ELF file), its end covers what the loader wrote and, for a
 * bzImage of boot protocol 2.10+, the decompressor's init_size at pref_address without
 * wrapping, and fits the RAM; the load wrote nothing outside [load_addr, load_end).
 */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "vmm/linux.h"
#include "vmm/linux/kimage.h"

#define KI_RAM (2ULL << 20)
#define KI_CANARY 0xcc

static bool ki_untouched(const uint8_t *p, uint64_t len)
{
	uint64_t i;

	for (i = 0; i < len; i++)
		if (p[i] != KI_CANARY)
			return false;
	return true;
}

static void ki_refused(int err)
{
	const char *msg = kimage_strerror();

	FUZZ_CHECK(err == -ENOEXEC || err == -EINVAL || err == -ENOMEM, "refused with %d", err);
	FUZZ_CHECK(!strncmp(msg, "bzImage: ", 9) || !strncmp(msg, "vmlinux: ", 9) ||
		   !strncmp(msg, "kernel: ", 8), "refused (%d) with the message \"%s\"", err, msg);
}

/* The entry point is in a PT_LOAD segment. */
static bool ki_elf_entry_loaded(const uint8_t *data, const struct kimage *img)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)data;
	unsigned int i;

	Elf64_Phdr ph;

	for (i = 0; i < eh->e_phnum; i++) {
		memcpy(&ph, data + eh->e_phoff + i * sizeof(ph), sizeof(ph));
		if (ph.p_type == PT_LOAD && ph.p_memsz && img->entry >= ph.p_paddr &&
		    img->entry - ph.p_paddr < ph.p_memsz)
			return true;
	}
	return false;
}

static void ki_bz_check(const struct kimage *img, size_t size)
{
	const struct setup_header *h = &img->hdr;
	uint64_t setup = ((uint64_t)(h->setup_sects ? h->setup_sects : 4) + 1) * 512;
	uint64_t kernel = size - setup;

	FUZZ_CHECK(img->entry - img->load_addr < kernel,
		   "bzImage: entry %#llx outside the %llu bytes of kernel loaded at %#llx",
		   (unsigned long long)img->entry, (unsigned long long)kernel,
		   (unsigned long long)img->load_addr);
	FUZZ_CHECK(img->load_end - img->load_addr >= kernel, "bzImage: load_end %#llx short",
		   (unsigned long long)img->load_end);
	if (h->version >= 0x020a)
		FUZZ_CHECK(img->load_end >= h->pref_address &&
			   img->load_end - h->pref_address >= h->init_size,
			   "bzImage: load_end %#llx below pref_address %#llx + init_size %#x",
			   (unsigned long long)img->load_end, (unsigned long long)h->pref_address,
			   h->init_size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t *ram;
	struct kimage a, b;
	int err;

	if (!ram && !(ram = malloc(KI_RAM)))
		abort();
	err = kimage_parse(data, size, &a);
	if (err) {
		ki_refused(err);
		return 0;
	}
	FUZZ_CHECK(a.load_addr <= a.entry && a.entry < a.load_end,
		   "accepted: load %#llx, entry %#llx, end %#llx", (unsigned long long)a.load_addr,
		   (unsigned long long)a.entry, (unsigned long long)a.load_end);
	if (a.kind == KIMAGE_ELF)
		FUZZ_CHECK(ki_elf_entry_loaded(data, &a), "vmlinux: entry %#llx in no file bytes",
			   (unsigned long long)a.entry);
	else
		ki_bz_check(&a, size);

	memset(ram, KI_CANARY, KI_RAM);
	err = kimage_load(data, size, ram, KI_RAM, &b);
	if (err) {
		ki_refused(err);
		FUZZ_CHECK(err == -ENOMEM || err == -EINVAL, "parsed but load says %d", err);
		FUZZ_CHECK(ki_untouched(ram, KI_RAM), "a refused load wrote guest RAM");
		return 0;
	}
	FUZZ_CHECK(!memcmp(&a, &b, sizeof(a)), "parse and load disagree");
	FUZZ_CHECK(b.load_addr >= LX_HIGH_START && b.load_end <= KI_RAM,
		   "loaded at [%#llx, %#llx), RAM ends at %#llx", (unsigned long long)b.load_addr,
		   (unsigned long long)b.load_end, KI_RAM);
	FUZZ_CHECK(ki_untouched(ram, b.load_addr) &&
		   ki_untouched(ram + b.load_end, KI_RAM - b.load_end),
		   "the load wrote outside [%#llx, %#llx)", (unsigned long long)b.load_addr,
		   (unsigned long long)b.load_end);
	return 0;
}
