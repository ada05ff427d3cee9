// SPDX-License-Identifier: GPL-2.0
/* Kernel image loading, e820 and the zero page, on synthetic images and plain buffers. */
#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "vmm/linux/bootparam.h"
#include "vmm/linux.h"
#include "vmm/linux/kimage.h"

#define MiB (1ULL << 20)
#define BZ_SETUP 1024	/* setup_sects = 1: boot sector + one sector */
#define BZ_SIZE (BZ_SETUP + 4096)

static uint8_t *bz_make(void)
{
	uint8_t *f = calloc(1, BZ_SIZE);
	struct setup_header *h = (struct setup_header *)(f + SETUP_HDR_OFFSET);
	unsigned int i;

	h->setup_sects = 1;
	h->boot_flag = SETUP_BOOT_FLAG;
	h->jump = 0x6aeb;	/* jmp to 0x26c: the header is 0x7b bytes long */
	h->header = SETUP_HDR_MAGIC;
	h->version = 0x020f;
	h->loadflags = LOADFLAG_LOADED_HIGH;
	h->xloadflags = XLF_KERNEL_64;
	h->syssize = (BZ_SIZE - BZ_SETUP) / 16;
	h->code32_start = 0x100000;
	h->kernel_alignment = 0x200000;
	h->pref_address = 0x1000000;
	h->init_size = 0x400000;
	h->cmdline_size = 2047;
	h->initrd_addr_max = 0x7fffffff;
	for (i = BZ_SETUP; i < BZ_SIZE; i++)
		f[i] = i * 7;
	return f;
}

static struct setup_header *bz_hdr(uint8_t *f)
{
	return (struct setup_header *)(f + SETUP_HDR_OFFSET);
}

static void test_bzimage_parse_and_load(void)
{
	uint8_t *f = bz_make(), *mem = calloc(1, 32 * MiB);
	struct kimage img;

	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), 0);
	CU_ASSERT_EQUAL(img.kind, KIMAGE_BZIMAGE);
	CU_ASSERT_EQUAL(img.hdr_len, 0x26c - SETUP_HDR_OFFSET);
	CU_ASSERT_EQUAL(img.entry, 0x100200);	/* startup_64 = code32_start + 0x200 */
	CU_ASSERT_EQUAL(img.load_addr, 0x100000);
	/* Decompressed at max(1 MiB aligned to 2 MiB, pref_address), init_size bytes from there. */
	CU_ASSERT_EQUAL(img.load_end, 0x1000000 + 0x400000);
	CU_ASSERT_EQUAL(img.hdr.cmdline_size, 2047);

	CU_ASSERT_EQUAL(kimage_load(f, BZ_SIZE, mem, 32 * MiB, &img), 0);
	CU_ASSERT_EQUAL(memcmp(mem + 0x100000, f + BZ_SETUP, BZ_SIZE - BZ_SETUP), 0);
	CU_ASSERT_EQUAL(mem[0x100000 + BZ_SIZE - BZ_SETUP], 0);
	free(mem);
	free(f);
}

static void test_bzimage_refuses_bad_images(void)
{
	uint8_t *f = bz_make(), *mem = calloc(1, 32 * MiB);
	struct kimage img;

	mem[0x100000] = 0x5a;
	/* Too little RAM for init_size: refused before anything is copied. */
	CU_ASSERT_EQUAL(bzimage_load(f, BZ_SIZE, mem, 16 * MiB, &img), -ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "MiB"));
	CU_ASSERT_EQUAL(mem[0x100000], 0x5a);

	/* Truncated: the protected-mode part is shorter than syssize says. */
	CU_ASSERT_EQUAL(bzimage_load(f, BZ_SIZE - 16, mem, 32 * MiB, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "truncated"));
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SETUP, &img), -EINVAL);
	CU_ASSERT_EQUAL(bzimage_parse(f, 0x100, &img), -ENOEXEC);
	CU_ASSERT_EQUAL(mem[0x100000], 0x5a);

	bz_hdr(f)->version = 0x0205;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "2.05"));
	bz_hdr(f)->version = 0x020f;

	bz_hdr(f)->xloadflags = 0;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "XLF_KERNEL_64"));
	bz_hdr(f)->xloadflags = XLF_KERNEL_64;

	bz_hdr(f)->boot_flag = 0;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), -EINVAL);
	bz_hdr(f)->boot_flag = SETUP_BOOT_FLAG;

	bz_hdr(f)->header = 0x12345678;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), -ENOEXEC);
	CU_ASSERT_EQUAL(kimage_load(f, BZ_SIZE, mem, 32 * MiB, &img), -ENOEXEC);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "neither"));
	CU_ASSERT_EQUAL(mem[0x100000], 0x5a);
	free(mem);
	free(f);
}

/*
 * Offsets a hostile header names stay in bounds (fuzz/kimage.c found both): a protected-mode part
 * that ends before the 64-bit entry at +0x200, and pref_address + init_size wrapping around.
 */
static void test_bzimage_refuses_wild_offsets(void)
{
	uint8_t *f = bz_make();
	struct kimage img;

	bz_hdr(f)->syssize = 0;
	bz_hdr(f)->version = 0x0209;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SETUP + 0x200, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "entry"));
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SETUP + 0x201, &img), 0);
	CU_ASSERT(img.entry < img.load_end);
	bz_hdr(f)->version = 0x020f;
	bz_hdr(f)->syssize = (BZ_SIZE - BZ_SETUP) / 16;

	bz_hdr(f)->pref_address = UINT64_MAX - 0xfff;
	bz_hdr(f)->init_size = 0x2000;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "pref_address"));
	bz_hdr(f)->init_size = 0x1000;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), -EINVAL);
	bz_hdr(f)->init_size = 0xfff;
	CU_ASSERT_EQUAL(bzimage_parse(f, BZ_SIZE, &img), 0);
	CU_ASSERT_EQUAL(img.load_end, UINT64_MAX);
	free(f);
}

/* A vmlinux with text at virtual 0xffffffff81000000 / physical 16 MiB and data + bss after. */
#define ELF_SIZE 0x3000

static uint8_t *elf_make(void)
{
	uint8_t *f = calloc(1, ELF_SIZE);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Phdr *ph = (Elf64_Phdr *)(f + sizeof(*eh));

	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_entry = 0xffffffff81000040ULL;
	eh->e_phoff = sizeof(*eh);
	eh->e_phentsize = sizeof(*ph);
	eh->e_phnum = 3;
	ph[0].p_type = PT_LOAD;
	ph[0].p_offset = 0x1000;
	ph[0].p_vaddr = 0xffffffff81000000ULL;
	ph[0].p_paddr = 0x1000000;
	ph[0].p_filesz = 0x1000;
	ph[0].p_memsz = 0x1000;
	ph[1].p_type = PT_NOTE;
	ph[1].p_offset = 0x1000;
	ph[1].p_filesz = 0x10;
	ph[2].p_type = PT_LOAD;
	ph[2].p_offset = 0x2000;
	ph[2].p_vaddr = 0xffffffff81200000ULL;
	ph[2].p_paddr = 0x1200000;
	ph[2].p_filesz = 0x800;
	ph[2].p_memsz = 0x2000;	/* 0x1800 bytes of bss */
	memset(f + 0x1000, 0xc3, 0x1000);
	memset(f + 0x2000, 0x11, 0x1000);
	return f;
}

static void test_elf_vmlinux_load(void)
{
	uint8_t *f = elf_make(), *mem = malloc(32 * MiB);
	struct kimage img;

	memset(mem, 0xaa, 32 * MiB);
	CU_ASSERT_EQUAL(kimage_load(f, ELF_SIZE, mem, 32 * MiB, &img), 0);
	CU_ASSERT_EQUAL(img.kind, KIMAGE_ELF);
	CU_ASSERT_EQUAL(img.entry, 0x1000040);	/* virtual entry turned physical */
	CU_ASSERT_EQUAL(img.load_addr, 0x1000000);
	CU_ASSERT_EQUAL(img.load_end, 0x1202000);
	CU_ASSERT_EQUAL(mem[0x1000000], 0xc3);
	CU_ASSERT_EQUAL(mem[0x1000fff], 0xc3);
	CU_ASSERT_EQUAL(mem[0x1001000], 0xaa);	/* between segments: untouched */
	CU_ASSERT_EQUAL(mem[0x12007ff], 0x11);
	CU_ASSERT_EQUAL(mem[0x1200800], 0);	/* bss zeroed */
	CU_ASSERT_EQUAL(mem[0x1201fff], 0);
	CU_ASSERT_EQUAL(mem[0x1202000], 0xaa);

	/* An entry already physical (as Debian's vmlinux has) is kept. */
	((Elf64_Ehdr *)f)->e_entry = 0x1000000;
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), 0);
	CU_ASSERT_EQUAL(img.entry, 0x1000000);
	free(mem);
	free(f);
}

/*
 * Program headers at an offset that is not 8-byte aligned are read as well (fuzz/kimage.c: they
 * were read in place, a misaligned access UBSan reports).
 */
static void test_elf_misaligned_phdrs(void)
{
	uint8_t *f = elf_make(), *mem = malloc(32 * MiB);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	struct kimage img;

	memmove(f + sizeof(*eh) + 4, f + sizeof(*eh), 3 * sizeof(Elf64_Phdr));
	eh->e_phoff = sizeof(*eh) + 4;
	memset(mem, 0xaa, 32 * MiB);
	CU_ASSERT_EQUAL(kimage_load(f, ELF_SIZE, mem, 32 * MiB, &img), 0);
	CU_ASSERT_EQUAL(img.entry, 0x1000040);
	CU_ASSERT_EQUAL(img.load_end, 0x1202000);
	CU_ASSERT_EQUAL(mem[0x12007ff], 0x11);
	CU_ASSERT_EQUAL(mem[0x1200800], 0);
	free(mem);
	free(f);
}

/*
 * A physical entry between two segments (fuzz/kimage.c's invariant: the entry lies in what is
 * loaded) is refused, as a virtual one in no segment is: it would start the guest in RAM no
 * segment wrote.
 */
static void test_elf_entry_between_segments(void)
{
	uint8_t *f = elf_make();
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	struct kimage img;

	eh->e_entry = 0x1100000;
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "segment"));
	eh->e_entry = 0x1201fff;	/* the last byte of the bss: in a segment */
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), 0);
	CU_ASSERT_EQUAL(img.entry, 0x1201fff);
	free(f);
}

static void test_elf_refuses_bad_images(void)
{
	uint8_t *f = elf_make(), *mem = calloc(1, 32 * MiB);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)f;
	Elf64_Phdr *ph = (Elf64_Phdr *)(f + sizeof(*eh));
	struct kimage img;

	/* Truncated: the second segment's bytes are missing. */
	CU_ASSERT_EQUAL(elf_load(f, 0x2400, mem, 32 * MiB, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "outside the file"));
	CU_ASSERT_EQUAL(mem[0x1000000], 0);
	CU_ASSERT_EQUAL(elf_parse(f, 32, &img), -ENOEXEC);

	CU_ASSERT_EQUAL(elf_load(f, ELF_SIZE, mem, 16 * MiB, &img), -ENOMEM);
	CU_ASSERT_EQUAL(mem[0x1000000], 0);

	eh->e_entry = 0xffffffff90000000ULL;
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(kimage_strerror(), "entry"));
	eh->e_entry = 0xffffffff81000040ULL;

	ph[0].p_filesz = 0x2000;	/* more file bytes than memory bytes */
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), -EINVAL);
	ph[0].p_filesz = 0x1000;

	ph[0].p_paddr = 0x8000;		/* on top of the zero page and page tables */
	CU_ASSERT_EQUAL(elf_load(f, ELF_SIZE, mem, 32 * MiB, &img), -EINVAL);
	ph[0].p_paddr = 0x1000000;

	eh->e_machine = EM_386;
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), -EINVAL);
	eh->e_machine = EM_X86_64;
	eh->e_phnum = 0;
	CU_ASSERT_EQUAL(elf_parse(f, ELF_SIZE, &img), -EINVAL);
	CU_ASSERT_EQUAL(mem[0x1000000], 0);
	free(mem);
	free(f);
}

static void test_initrd_place(void)
{
	uint64_t a = 0;

	/* Highest 1 MiB-aligned spot below the end of RAM. */
	CU_ASSERT_EQUAL(initrd_place(MiB + 1, 20 * MiB, 64 * MiB, 0x7fffffff, &a), 0);
	CU_ASSERT_EQUAL(a, 62 * MiB);
	CU_ASSERT_EQUAL(initrd_place(MiB, 20 * MiB, 64 * MiB, 0x7fffffff, &a), 0);
	CU_ASSERT_EQUAL(a, 63 * MiB);
	/* initrd_addr_max below the end of RAM wins. */
	CU_ASSERT_EQUAL(initrd_place(4096, 20 * MiB, 2048 * MiB, 0x2fffffff, &a), 0);
	CU_ASSERT_EQUAL(a, 0x2ff00000);
	/* Would overlap the kernel: refused, a unchanged. */
	a = 1;
	CU_ASSERT_EQUAL(initrd_place(50 * MiB, 20 * MiB, 64 * MiB, 0x7fffffff, &a), -ENOMEM);
	CU_ASSERT_EQUAL(initrd_place(100 * MiB, 20 * MiB, 64 * MiB, 0x7fffffff, &a), -ENOMEM);
	CU_ASSERT_EQUAL(initrd_place(0, 20 * MiB, 64 * MiB, 0x7fffffff, &a), -EINVAL);
	CU_ASSERT_EQUAL(a, 1);
}

static void test_e820_map(void)
{
	struct e820_entry t[8];
	uint64_t ram = 0;
	int n, i;

	n = e820_build(t, 8, 64 * MiB);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	CU_ASSERT(t[0].addr == 0 && t[0].size == 0x9fc00 && t[0].type == E820_RAM);
	CU_ASSERT(t[1].addr == 0x9fc00 && t[1].size == 0x400 && t[1].type == E820_RESERVED);
	CU_ASSERT(t[2].addr == 0xf0000 && t[2].size == 0x10000 && t[2].type == E820_RESERVED);
	CU_ASSERT(t[3].addr == MiB && t[3].size == 63 * MiB && t[3].type == E820_RAM);
	for (i = 0; i < n; i++) {
		if (t[i].type == E820_RAM)
			ram += t[i].size;
		if (i)	/* sorted, no overlap */
			CU_ASSERT(t[i].addr >= t[i - 1].addr + t[i - 1].size);
	}
	CU_ASSERT_EQUAL(ram, 64 * MiB - 0x400 - 0x60000);

	/* RAM beyond the 32-bit gap moves above 4 GiB. */
	n = e820_build(t, 8, 4096 * MiB);
	CU_ASSERT_EQUAL_FATAL(n, 5);
	CU_ASSERT(t[3].addr == MiB && t[3].addr + t[3].size == LX_GAP_START);
	CU_ASSERT(t[4].addr == LX_GAP_END && t[4].size == 4096 * MiB - LX_GAP_START);

	CU_ASSERT_EQUAL(e820_build(t, 8, MiB), -EINVAL);
	CU_ASSERT_EQUAL(e820_build(t, 3, 64 * MiB), -EINVAL);
}

static void test_zero_page(void)
{
	uint8_t *f = bz_make();
	struct boot_params *bp = calloc(1, sizeof(*bp));
	struct zero_page_args a = {
		.hdr = bz_hdr(f),
		.hdr_len = 0x26c - SETUP_HDR_OFFSET,
		.ram_size = 128 * MiB,
		.cmdline_addr = LX_CMDLINE,
		.cmdline_len = 20,
		.initrd_addr = 0x7e00000,
		.initrd_size = 12345,
		.acpi_rsdp = LX_ACPI_ADDR,
	};

	CU_ASSERT_EQUAL(zero_page_fill(bp, &a), 0);
	CU_ASSERT_EQUAL(bp->hdr.header, SETUP_HDR_MAGIC);
	CU_ASSERT_EQUAL(bp->hdr.version, 0x020f);
	CU_ASSERT_EQUAL(bp->hdr.type_of_loader, 0xff);
	CU_ASSERT_EQUAL(bp->hdr.vid_mode, 0xffff);
	CU_ASSERT_EQUAL(bp->hdr.cmd_line_ptr, LX_CMDLINE);
	CU_ASSERT_EQUAL(bp->hdr.cmdline_size, 2047);	/* the kernel's own limit, kept */
	CU_ASSERT_EQUAL(bp->hdr.ramdisk_image, 0x7e00000);
	CU_ASSERT_EQUAL(bp->hdr.ramdisk_size, 12345);
	CU_ASSERT_EQUAL(bp->hdr.kernel_alignment, 0x200000);
	CU_ASSERT_TRUE(bp->hdr.loadflags & LOADFLAG_LOADED_HIGH);
	CU_ASSERT_EQUAL(bp->e820_entries, 4);
	CU_ASSERT_EQUAL(bp->e820_table[3].addr + bp->e820_table[3].size, 128 * MiB);
	CU_ASSERT_EQUAL(bp->sentinel, 0);
	/* The raw bytes where the kernel looks for them. */
	CU_ASSERT_EQUAL(((uint8_t *)bp)[0x210], 0xff);
	CU_ASSERT_EQUAL(*(uint32_t *)((uint8_t *)bp + 0x228), LX_CMDLINE);
	CU_ASSERT_EQUAL(((uint8_t *)bp)[0x1e8], 4);
	CU_ASSERT_EQUAL(*(uint64_t *)((uint8_t *)bp + 0x70), LX_ACPI_ADDR);

	a.cmdline_len = 2048;
	CU_ASSERT_EQUAL(zero_page_fill(bp, &a), -E2BIG);

	/* An ELF vmlinux has no header of its own: the loader provides one. */
	memset(bp, 0, sizeof(*bp));
	a.hdr = NULL;
	a.cmdline_len = 30;
	CU_ASSERT_EQUAL(zero_page_fill(bp, &a), 0);
	CU_ASSERT_EQUAL(bp->hdr.boot_flag, SETUP_BOOT_FLAG);
	CU_ASSERT_EQUAL(bp->hdr.header, SETUP_HDR_MAGIC);
	CU_ASSERT_TRUE(bp->hdr.version >= 0x0206);
	CU_ASSERT_EQUAL(bp->hdr.cmdline_size, 30);
	CU_ASSERT_EQUAL(bp->hdr.ramdisk_image, 0x7e00000);
	free(bp);
	free(f);
}

/* A refused setup says why in the options' diag, each setup afresh. */
static void test_linux_setup_diag(void)
{
	struct linux_opts o = { .kernel = NULL };
	struct vm vm = { .boot_data = &o };

	CU_ASSERT_EQUAL(linux_boot_ops.setup_vm(&vm), -EINVAL);
	CU_ASSERT_STRING_EQUAL(o.diag.msg, "no kernel given (--kernel)");
	o.kernel = "vmlinux";
	CU_ASSERT_EQUAL(linux_boot_ops.setup_vm(&vm), -EINVAL);
	CU_ASSERT_STRING_EQUAL(o.diag.msg, "guest RAM must start at 0 and be at least 2 MiB");
}

static CU_TestInfo linux_image_tests[] = {
	{ "bzImage parse and load", test_bzimage_parse_and_load },
	{ "bzImage bad and truncated images refused", test_bzimage_refuses_bad_images },
	{ "bzImage wild offsets refused", test_bzimage_refuses_wild_offsets },
	{ "ELF vmlinux load", test_elf_vmlinux_load },
	{ "ELF bad and truncated images refused", test_elf_refuses_bad_images },
	{ "ELF program headers at an odd offset", test_elf_misaligned_phdrs },
	{ "ELF physical entry between segments refused", test_elf_entry_between_segments },
	{ "initrd placement", test_initrd_place },
	{ "e820 map", test_e820_map },
	{ "zero page", test_zero_page },
	{ "setup refusals explained", test_linux_setup_diag },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("linux_image", linux_image_tests);
