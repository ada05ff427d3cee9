// SPDX-License-Identifier: GPL-2.0
/*
 * Initial vCPU state for the 64-bit boot protocol. There is no firmware: the VMM does what the
 * boot loader would have done (long mode, paging, GDT), and leaves the APs to the kernel's
 * INIT/SIPI sequence through the in-kernel LAPICs.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/kvm.h>

#include "vmm/linux/bootparam.h"
#include "vmm/linux/cpu.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

#define CR0_PE (1ULL << 0)
#define CR0_MP (1ULL << 1)
#define CR0_ET (1ULL << 4)
#define CR0_NE (1ULL << 5)
#define CR0_PG (1ULL << 31)
#define CR4_PAE (1ULL << 5)
#define EFER_LME (1ULL << 8)
#define EFER_LMA (1ULL << 10)

#define PTE_P (1ULL << 0)
#define PTE_RW (1ULL << 1)
#define PTE_PS (1ULL << 7)

#define MSR_IA32_MISC_ENABLE 0x1a0
#define MISC_ENABLE_FAST_STRING (1ULL << 0)

#define APIC_LVT0 0x350
#define APIC_LVT1 0x360
#define APIC_MODE_NMI 0x4
#define APIC_MODE_EXTINT 0x7

uint64_t lx_gdt_entry(uint16_t flags, uint32_t base, uint32_t limit)
{
	return ((uint64_t)(base & 0xff000000) << 32) | ((uint64_t)(flags & 0xf0ff) << 40) |
	       ((uint64_t)(limit & 0x000f0000) << 32) | ((uint64_t)(base & 0x00ffffff) << 16) |
	       (uint64_t)(limit & 0x0000ffff);
}

void lx_boot_tables_write(void *mem)
{
	uint64_t *gdt = (uint64_t *)((uint8_t *)mem + LX_GDT_ADDR);
	uint64_t *pml4 = (uint64_t *)((uint8_t *)mem + LX_PML4);
	uint64_t *pdpt = pml4 + 512;
	uint64_t *pd = pdpt + 512;
	unsigned int i;

	gdt[0] = 0;
	gdt[1] = 0;
	gdt[LX_BOOT_CS / 8] = lx_gdt_entry(0xa09b, 0, 0xfffff);	/* 64-bit code, present, DPL0 */
	gdt[LX_BOOT_DS / 8] = lx_gdt_entry(0xc093, 0, 0xfffff);	/* 4 GiB data */
	gdt[LX_BOOT_TSS / 8] = lx_gdt_entry(0x808b, 0, 0xfffff);	/* busy TSS: VMX wants one */

	memset(pml4, 0, 4096 * (2 + LX_IDENTITY_GIB));
	pml4[0] = (LX_PML4 + 0x1000) | PTE_P | PTE_RW;
	for (i = 0; i < LX_IDENTITY_GIB; i++)
		pdpt[i] = (LX_PML4 + 0x2000 + i * 0x1000ULL) | PTE_P | PTE_RW;
	for (i = 0; i < 512 * LX_IDENTITY_GIB; i++)
		pd[i] = ((uint64_t)i << 21) | PTE_P | PTE_RW | PTE_PS;
}

static void seg_set(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code64)
{
	memset(s, 0, sizeof(*s));
	s->selector = sel;
	s->base = 0;
	s->limit = 0xffffffff;
	s->type = type;
	s->present = 1;
	s->dpl = 0;
	s->s = type != 11;
	s->l = code64;
	s->db = !code64 && type != 11;
	s->g = 1;
}

static int lx_set_msrs(struct vcpu *vcpu)
{
	return vcpu_set_msr(vcpu, MSR_IA32_MISC_ENABLE, MISC_ENABLE_FAST_STRING) ? -EIO : 0;
}

int lx_cpu_setup_bsp(struct vcpu *vcpu, uint64_t entry, uint64_t zero_page)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	struct kvm_fpu fpu;

	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0)
		return -errno;
	seg_set(&sregs.cs, LX_BOOT_CS, 11, true);	/* execute/read, accessed */
	seg_set(&sregs.ds, LX_BOOT_DS, 3, false);	/* read/write, accessed */
	sregs.es = sregs.fs = sregs.gs = sregs.ss = sregs.ds;
	seg_set(&sregs.tr, LX_BOOT_TSS, 11, false);
	sregs.gdt.base = LX_GDT_ADDR;
	sregs.gdt.limit = 5 * 8 - 1;
	sregs.idt.base = 0;
	sregs.idt.limit = 0;
	sregs.cr3 = LX_PML4;
	sregs.cr4 = CR4_PAE;
	sregs.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_PG;
	sregs.efer = EFER_LME | EFER_LMA;
	if (ioctl(vcpu->fd, KVM_SET_SREGS, &sregs) < 0)
		return -errno;

	memset(&regs, 0, sizeof(regs));
	regs.rflags = 0x2;
	regs.rip = entry;
	regs.rsi = zero_page;
	regs.rsp = LX_STACK_TOP;
	regs.rbp = LX_STACK_TOP;
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0)
		return -errno;

	memset(&fpu, 0, sizeof(fpu));
	fpu.fcw = 0x37f;
	fpu.mxcsr = 0x1f80;
	if (ioctl(vcpu->fd, KVM_SET_FPU, &fpu) < 0)
		return -errno;
	return lx_set_msrs(vcpu);
}

int lx_cpu_setup_ap(struct vcpu *vcpu)
{
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_INIT_RECEIVED };

	if (ioctl(vcpu->fd, KVM_SET_MP_STATE, &mp) < 0)
		return -errno;
	return lx_set_msrs(vcpu);
}

static void lapic_lvt_set(struct kvm_lapic_state *l, unsigned int reg, uint32_t mode)
{
	uint32_t *v = (uint32_t *)&l->regs[reg];

	/* Delivery mode in bits 8-10; unmask. */
	*v = (*v & ~0x10700U) | (mode << 8);
}

int lx_cpu_setup_lapic(struct vcpu *vcpu)
{
	struct kvm_lapic_state l;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &l) < 0)
		return -errno;
	lapic_lvt_set(&l, APIC_LVT0, APIC_MODE_EXTINT);
	lapic_lvt_set(&l, APIC_LVT1, APIC_MODE_NMI);
	if (ioctl(vcpu->fd, KVM_SET_LAPIC, &l) < 0)
		return -errno;
	return 0;
}

/* Guest-virtual to host pointer through the guest's own 4-level page tables, or NULL. */
static void *lx_gva(struct vcpu *vcpu, uint64_t cr3, uint64_t va)
{
	uint64_t table = cr3 & 0x000ffffffffff000ULL, e = 0;
	int level;

	for (level = 3; level >= 0; level--) {
		uint64_t *t = vm_gpa(vcpu->vm, table, 4096);

		if (!t)
			return NULL;
		e = t[(va >> (12 + 9 * level)) & 511];
		if (!(e & PTE_P))
			return NULL;
		if (level && level < 3 && (e & PTE_PS)) {
			uint64_t size = 1ULL << (12 + 9 * level);

			return vm_gpa(vcpu->vm, (e & 0x000ffffffffff000ULL & ~(size - 1)) + (va & (size - 1)), 1);
		}
		table = e & 0x000ffffffffff000ULL;
	}
	return vm_gpa(vcpu->vm, table + (va & 0xfff), 1);
}

static __u64 *lx_gpr(struct kvm_regs *r, unsigned int n)
{
	__u64 *map[16] = { &r->rax, &r->rcx, &r->rdx, &r->rbx, &r->rsp, &r->rbp, &r->rsi,
			      &r->rdi, &r->r8, &r->r9, &r->r10, &r->r11, &r->r12, &r->r13,
			      &r->r14, &r->r15 };

	return map[n & 15];
}

/* POPCNT r, r (F3 [REX] 0F B8 /r, register source only); returns its length or 0. */
static unsigned int lx_emulate_popcnt(struct kvm_regs *regs, const uint8_t *p)
{
	unsigned int rex = 0, len = 1, modrm;
	uint64_t src;

	if (p[0] != 0xf3)
		return 0;
	if ((p[1] & 0xf0) == 0x40)
		rex = p[len++];
	if (p[len] != 0x0f || p[len + 1] != 0xb8)
		return 0;
	modrm = p[len + 2];
	if ((modrm >> 6) != 3)
		return 0;
	src = *lx_gpr(regs, (modrm & 7) | ((rex & 1) << 3));
	if (!(rex & 8))
		src &= 0xffffffff;
	*lx_gpr(regs, ((modrm >> 3) & 7) | ((rex & 4) << 1)) = __builtin_popcountll(src);
	/* ZF if the source was zero; CF, OF, SF, AF, PF cleared. */
	regs->rflags &= ~(0x1ULL | 0x4 | 0x10 | 0x40 | 0x80 | 0x800);
	if (!src)
		regs->rflags |= 0x40;
	return len + 3;
}

static int lx_inject_bp(struct vcpu *vcpu)
{
	struct kvm_vcpu_events ev;

	if (ioctl(vcpu->fd, KVM_GET_VCPU_EVENTS, &ev) < 0)
		return -errno;
	ev.exception.injected = 1;
	ev.exception.nr = 3;
	ev.exception.has_error_code = 0;
	ev.exception.error_code = 0;
	ev.flags = 0;
	return ioctl(vcpu->fd, KVM_SET_VCPU_EVENTS, &ev) < 0 ? -errno : 0;
}

int lx_cpu_emulate(struct vcpu *vcpu)
{
	struct kvm_sregs sregs;
	struct kvm_regs regs;
	unsigned int len = 0, i;
	bool bp = false;
	uint8_t insn[16];

	if (ioctl(vcpu->fd, KVM_GET_REGS, &regs) < 0 || ioctl(vcpu->fd, KVM_GET_SREGS, &sregs) < 0)
		return -errno;
	if (!(sregs.cr0 & CR0_PG) || !(sregs.efer & EFER_LMA) || sregs.cs.dpl != 0)
		return -ENOTSUP;
	/* Byte by byte: the instruction may cross a page boundary. */
	for (i = 0; i < sizeof(insn); i++) {
		uint8_t *b = lx_gva(vcpu, sregs.cr3, regs.rip + i);

		if (!b)
			break;
		insn[i] = *b;
	}
	if (i < 4)
		return -ENOTSUP;
	if (insn[0] == 0xcc) {
		len = 1;	/* INT3 is a trap: the handler sees RIP after it */
		bp = true;
	} else if (insn[0] == 0x9b) {
		/* FWAIT: only traps for a pending unmasked x87 exception; the kernel runs with
		 * none pending (it uses it right after FNINIT), so it is a no-op here. */
		len = 1;
	} else if (insn[0] == 0x0f && insn[1] == 0x01 && (insn[2] == 0xca || insn[2] == 0xcb)) {
		/* CLAC / STAC: RFLAGS.AC, the SMAP override. */
		if (insn[2] == 0xca)
			regs.rflags &= ~(1ULL << 18);
		else
			regs.rflags |= 1ULL << 18;
		len = 3;
	} else if (i >= 5) {
		len = lx_emulate_popcnt(&regs, insn);
	}
	if (!len)
		return -ENOTSUP;
	regs.rip += len;
	if (ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0)
		return -errno;
	return bp ? lx_inject_bp(vcpu) : 0;
}
