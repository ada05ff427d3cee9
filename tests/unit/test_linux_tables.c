// SPDX-License-Identifier: GPL-2.0
/* MP table layout and checksums, CPUID APIC ID patching, the boot GDT and page tables. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "util/compiler.h"
#include "vmm/linux/bootparam.h"
#include "vmm/linux/cpu.h"
#include "vmm/linux/cpuid.h"
#include "vmm/linux/mptable.h"

static void test_mptable_layout(void)
{
	const unsigned int ncpu = 4;
	size_t size = mptable_size(ncpu);
	uint8_t *buf = calloc(1, 4096);
	struct mpf_intel *mpf = (struct mpf_intel *)buf;
	struct mpc_table *mpc = (struct mpc_table *)(buf + 16);
	uint8_t *p, *end;
	unsigned int nr_cpu = 0, nr_bsp = 0, nr_bus = 0, nr_ioapic = 0, nr_int = 0, nr_lint = 0;
	uint8_t ioapic_id = 0xff;
	uint32_t apic_seen = 0;

	CU_ASSERT_EQUAL(mptable_write(buf, 4096, 0xf0000, ncpu, 0x806f8, 0x178bfbff), (int)size);
	CU_ASSERT_EQUAL(memcmp(mpf->signature, "_MP_", 4), 0);
	CU_ASSERT_EQUAL(mpf->length, 1);
	CU_ASSERT_EQUAL(mpf->specification, 4);
	CU_ASSERT_EQUAL(mpf->physptr, 0xf0010);
	CU_ASSERT_EQUAL(mpf->feature1, 0);
	CU_ASSERT_EQUAL(mp_checksum(mpf, 16), 0);
	CU_ASSERT_EQUAL(memcmp(mpc->signature, "PCMP", 4), 0);
	CU_ASSERT_EQUAL(mpc->length, size - 16);
	CU_ASSERT_EQUAL(mpc->lapic, MP_LAPIC_ADDR);
	CU_ASSERT_EQUAL(mp_checksum(mpc, mpc->length), 0);

	/* Walk the entries as the kernel's MP parser does: type byte, fixed sizes. */
	p = (uint8_t *)(mpc + 1);
	end = (uint8_t *)mpc + mpc->length;
	while (p < end) {
		switch (*p) {
		case MP_PROCESSOR: {
			struct mpc_cpu *c = (struct mpc_cpu *)p;

			CU_ASSERT_TRUE(c->cpuflag & CPU_ENABLED);
			CU_ASSERT_EQUAL(c->cpufeature, 0x806f8);
			apic_seen |= 1U << c->apicid;
			nr_bsp += !!(c->cpuflag & CPU_BOOTPROCESSOR);
			if (c->cpuflag & CPU_BOOTPROCESSOR)
				CU_ASSERT_EQUAL(c->apicid, 0);
			nr_cpu++;
			p += sizeof(*c);
			break;
		}
		case MP_BUS:
			CU_ASSERT_EQUAL(memcmp(((struct mpc_bus *)p)->bustype, "ISA   ", 6), 0);
			nr_bus++;
			p += 8;
			break;
		case MP_IOAPIC:
			ioapic_id = ((struct mpc_ioapic *)p)->apicid;
			CU_ASSERT_EQUAL(((struct mpc_ioapic *)p)->apicaddr, MP_IOAPIC_ADDR);
			nr_ioapic++;
			p += 8;
			break;
		case MP_INTSRC: {
			struct mpc_intsrc *s = (struct mpc_intsrc *)p;

			CU_ASSERT_EQUAL(s->srcbusirq, s->dstirq);	/* ISA IRQ n -> pin n */
			CU_ASSERT_EQUAL(s->dstapic, ncpu);
			CU_ASSERT_EQUAL(s->irqtype, MP_INT);
			nr_int++;
			p += 8;
			break;
		}
		case MP_LINTSRC:
			nr_lint++;
			p += 8;
			break;
		default:
			CU_FAIL("unknown MP entry type");
			p = end;
			break;
		}
	}
	CU_ASSERT_PTR_EQUAL(p, end);
	CU_ASSERT_EQUAL(nr_cpu, ncpu);
	CU_ASSERT_EQUAL(apic_seen, 0xf);	/* APIC IDs 0..3, each once */
	CU_ASSERT_EQUAL(nr_bsp, 1);
	CU_ASSERT_EQUAL(nr_bus, 1);
	CU_ASSERT_EQUAL(nr_ioapic, 1);
	CU_ASSERT_EQUAL(ioapic_id, ncpu);	/* no clash with a CPU's APIC ID */
	CU_ASSERT_EQUAL(nr_int, MP_ISA_IRQS);
	CU_ASSERT_EQUAL(nr_lint, 2);
	free(buf);
}

static void test_mptable_limits(void)
{
	uint8_t *buf = calloc(1, 8192);

	buf[0] = 0x77;
	CU_ASSERT_EQUAL(mptable_write(buf, 8192, 0xf0000, 0, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(mptable_write(buf, 8192, 0xf0000, MP_MAX_CPUS + 1, 0, 0), -EINVAL);
	CU_ASSERT_EQUAL(mptable_write(buf, mptable_size(8) - 1, 0xf0000, 8, 0, 0), -ENOSPC);
	CU_ASSERT_EQUAL(buf[0], 0x77);	/* refused tables write nothing */
	CU_ASSERT_EQUAL(mptable_write(buf, 8192, 0xf0000, MP_MAX_CPUS, 0, 0),
			(int)mptable_size(MP_MAX_CPUS));
	CU_ASSERT_EQUAL(mp_checksum(buf + 16, ((struct mpc_table *)(buf + 16))->length), 0);
	free(buf);
}

static struct kvm_cpuid_entry2 *cpuid_find(struct kvm_cpuid_entry2 *e, unsigned int n,
					   unsigned int fn, unsigned int idx)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (e[i].function == fn && e[i].index == idx)
			return &e[i];
	return NULL;
}

static void test_cpuid_apic_ids(void)
{
	struct kvm_cpuid_entry2 e[] = {
		{ .function = 1, .eax = 0x806f8, .ebx = 0x3f200800, .ecx = 0x7ffafbff, .edx = 0x178bfbff },
		{ .function = 4, .index = 0, .eax = 0xfc004121 },
		{ .function = 4, .index = 4, .eax = 0 },
		{ .function = 7, .index = 0, .ebx = 0xffffffff },
		{ .function = 0xb, .index = 0, .edx = 0x3f },
		{ .function = 0xb, .index = 1, .edx = 0x3f },
		{ .function = 0xb, .index = 2, .edx = 0x3f },
		{ .function = 0xd, .index = 0, .eax = 0x2e7, .ebx = 0x440 },
		{ .function = 0x1f, .index = 1, .edx = 0x3f },
	};
	struct kvm_cpuid_entry2 c[ARRAY_SIZE(e)];
	struct kvm_cpuid_entry2 *l1 = &c[0];
	unsigned int i;

	CU_ASSERT_EQUAL(lx_cpuid_core_bits(1), 0);
	CU_ASSERT_EQUAL(lx_cpuid_core_bits(2), 1);
	CU_ASSERT_EQUAL(lx_cpuid_core_bits(3), 2);
	CU_ASSERT_EQUAL(lx_cpuid_core_bits(8), 3);
	CU_ASSERT_EQUAL(lx_cpuid_core_bits(9), 4);

	memcpy(c, e, sizeof(e));
	lx_cpuid_patch(c, ARRAY_SIZE(c), 5, 6, 0);
	CU_ASSERT_EQUAL(l1->ebx >> 24, 5);		/* initial APIC ID */
	CU_ASSERT_EQUAL((l1->ebx >> 16) & 0xff, 8);	/* 6 vCPUs: 3 bits of core ID */
	CU_ASSERT_EQUAL(l1->ebx & 0xffff, 0x0800);	/* CLFLUSH size and brand kept */
	CU_ASSERT_TRUE(l1->ecx & (1U << 31));		/* hypervisor */
	CU_ASSERT_TRUE(l1->edx & (1U << 28));		/* HTT: several logical CPUs */
	CU_ASSERT_TRUE(l1->ecx & (1U << 26));		/* XSAVE kept unless hidden */
	for (i = 0; i < ARRAY_SIZE(c); i++)
		if (c[i].function == 0xb || c[i].function == 0x1f)
			CU_ASSERT_EQUAL(c[i].edx, 5);	/* x2APIC ID in every subleaf */
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 0xb, 0)->ebx, 1);
	CU_ASSERT_EQUAL((cpuid_find(c, ARRAY_SIZE(c), 0xb, 0)->ecx >> 8) & 0xff, 1);
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 0xb, 1)->eax, 3);
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 0xb, 1)->ebx, 6);
	CU_ASSERT_EQUAL((cpuid_find(c, ARRAY_SIZE(c), 0xb, 1)->ecx >> 8) & 0xff, 2);
	CU_ASSERT_EQUAL((cpuid_find(c, ARRAY_SIZE(c), 0xb, 2)->ecx >> 8) & 0xff, 0);
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 4, 0)->eax >> 26, 7);
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 4, 0)->eax & 0x3ffffff, 0x4121);
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 4, 4)->eax, 0);	/* no cache: untouched */

	/* A single vCPU: no HTT; vCPU 0 gets APIC ID 0 whatever the host said. */
	memcpy(c, e, sizeof(e));
	lx_cpuid_patch(c, ARRAY_SIZE(c), 0, 1, 0);
	CU_ASSERT_EQUAL(l1->ebx >> 24, 0);
	CU_ASSERT_FALSE(l1->edx & (1U << 28));
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 0xb, 1)->eax, 0);

	/* Hiding XSAVE removes it, its AVX users and leaf 0xd. */
	memcpy(c, e, sizeof(e));
	lx_cpuid_patch(c, ARRAY_SIZE(c), 1, 2, LX_CPUID_HIDE_XSAVE | LX_CPUID_HIDE_CX16);
	CU_ASSERT_FALSE(l1->ecx & ((1U << 26) | (1U << 27) | (1U << 28) | (1U << 13)));
	CU_ASSERT_EQUAL(cpuid_find(c, ARRAY_SIZE(c), 0xd, 0)->eax, 0);
	CU_ASSERT_FALSE(cpuid_find(c, ARRAY_SIZE(c), 7, 0)->ebx & (1U << 5));
}

/* Walks 4-level paging with 2 MiB pages the way the MMU does. */
static int walk(const uint8_t *mem, uint64_t va, uint64_t *pa)
{
	uint64_t pml4e = ((const uint64_t *)(mem + LX_PML4))[(va >> 39) & 511];
	uint64_t pdpte, pde;

	if (!(pml4e & 1))
		return -1;
	pdpte = ((const uint64_t *)(mem + (pml4e & ~0xfffULL)))[(va >> 30) & 511];
	if (!(pdpte & 1))
		return -1;
	pde = ((const uint64_t *)(mem + (pdpte & ~0xfffULL)))[(va >> 21) & 511];
	if (!(pde & 1) || !(pde & 0x80))
		return -1;
	*pa = (pde & ~0x1fffffULL) | (va & 0x1fffff);
	return 0;
}

static void test_boot_tables(void)
{
	uint8_t *mem = calloc(1, 0x100000);
	const uint64_t *gdt = (const uint64_t *)(mem + LX_GDT_ADDR);
	uint64_t va[] = { 0, 0x7000, 0x1000000, 0x12345678, 0xbfffffff, 0xfee00000, 0xffffffff };
	uint64_t pa;
	unsigned int i;

	lx_boot_tables_write(mem);
	CU_ASSERT_EQUAL(gdt[0], 0);
	CU_ASSERT_EQUAL(gdt[LX_BOOT_CS / 8], 0x00af9b000000ffffULL);	/* L=1, P, DPL0, code */
	CU_ASSERT_EQUAL(gdt[LX_BOOT_DS / 8], 0x00cf93000000ffffULL);
	CU_ASSERT_EQUAL(lx_gdt_entry(0xc093, 0x12345678, 0xabcde), 0x12ca93345678bcdeULL);
	for (i = 0; i < ARRAY_SIZE(va); i++) {
		CU_ASSERT_EQUAL(walk(mem, va[i], &pa), 0);
		CU_ASSERT_EQUAL(pa, va[i]);
	}
	CU_ASSERT_EQUAL(walk(mem, 0x100000000ULL, &pa), -1);	/* only 4 GiB mapped */
	/* The tables stay clear of the zero page and the command line. */
	CU_ASSERT_TRUE(LX_PML4 + (2 + LX_IDENTITY_GIB) * 4096 <= LX_CMDLINE);
	CU_ASSERT_TRUE(LX_ZERO_PAGE + 4096 <= LX_STACK_TOP && LX_STACK_TOP < LX_PML4);
	free(mem);
}

static CU_TestInfo linux_tables_tests[] = {
	{ "MP table layout and checksums", test_mptable_layout },
	{ "MP table limits", test_mptable_limits },
	{ "CPUID APIC ID patching", test_cpuid_apic_ids },
	{ "boot GDT and identity page tables", test_boot_tables },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("linux_tables", linux_tables_tests);
