// SPDX-License-Identifier: GPL-2.0
/*
 * Payload boot: the VMM builds what firmware and a kernel would have set up (identity page
 * tables, GDT with a TSS per vCPU, a two-entry IDT) and starts every vCPU straight in
 * 64-bit mode at CPL3 with IOPL 3. Guest work then runs at native speed even where KVM
 * emulates ring 0; only the HLT stub of halt-duty runs at CPL0. On a backend without a CPU
 * (the thread backend) only the work pages and the ports are set up: the backend runs the
 * kinds as host code from the work page (vmm/accel/thread_cpu.c).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <linux/kvm_para.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#include "util/time.h"
#include "vmm/payload.h"
#include "vmm/payload_ports.h"
#include "vmm/vcpu.h"

#define PTE_P 0x1ULL
#define PTE_RW 0x2ULL
#define PTE_US 0x4ULL
#define PTE_PS 0x80ULL

#define CR0_PE 0x1ULL
#define CR0_MP 0x2ULL
#define CR0_ET 0x10ULL
#define CR0_NE 0x20ULL
#define CR0_WP 0x10000ULL
#define CR0_PG 0x80000000ULL
#define CR4_PAE 0x20ULL
#define CR4_OSFXSR 0x200ULL
#define CR4_OSXMMEXCPT 0x400ULL
#define EFER_LME 0x100ULL
#define EFER_LMA 0x400ULL
#define RFLAGS_IOPL3 0x3000ULL
#define RFLAGS_FIXED 0x2ULL

/* LAPIC registers in struct kvm_lapic_state. */
#define APIC_SVR 0xf0
#define APIC_LVTT 0x320
#define APIC_LVT0 0x350
#define APIC_TDCR 0x3e0
#define APIC_SVR_ENABLE 0x100
#define APIC_LVT_MASKED 0x10000
#define APIC_TDCR_DIV1 0xb
#define APIC_TMICT 0x380
#define APIC_TMCCT 0x390
/* Calibration window for the LAPIC timer rate (see payload_lapic_khz). */
#define APIC_CALIBRATE_NS 5000000ULL

static const struct payload_header *payload_header(void)
{
	size_t size;

	return payload_image_data(&size);
}

static uint64_t payload_area(unsigned int id)
{
	return PAYLOAD_VCPU_AREA + (uint64_t)id * PAYLOAD_VCPU_STRIDE;
}

static uint32_t tss_limit(unsigned int id)
{
	uint64_t base = PAYLOAD_TSS + (uint64_t)id * PAYLOAD_TSS_STRIDE;

	return PAYLOAD_IOBITMAP + PAYLOAD_IOBITMAP_SIZE - 1 - base;
}

static void gdt_write(uint64_t *gdt, unsigned int nr_vcpus)
{
	unsigned int i;

	gdt[0] = 0;
	gdt[PAYLOAD_SEL_KCODE / 8] = 0x00af9b000000ffffULL;	/* code, DPL 0, L */
	gdt[PAYLOAD_SEL_KDATA / 8] = 0x00cf93000000ffffULL;	/* data, DPL 0 */
	gdt[PAYLOAD_SEL_UDATA / 8] = 0x00cff3000000ffffULL;	/* data, DPL 3 */
	gdt[PAYLOAD_SEL_UCODE / 8] = 0x00affb000000ffffULL;	/* code, DPL 3, L */
	for (i = 0; i < nr_vcpus; i++) {
		uint64_t base = PAYLOAD_TSS + (uint64_t)i * PAYLOAD_TSS_STRIDE;
		uint64_t *d = &gdt[PAYLOAD_SEL_TSS(i) / 8];

		/* 64-bit TSS, busy (TR is loaded through KVM_SET_SREGS), limit 0x67. */
		uint64_t limit = tss_limit(i);

		d[0] = (limit & 0xffff) | (base & 0xffffff) << 16 | 0x8bULL << 40 |
		       (limit >> 16 & 0xf) << 48 | (base >> 24 & 0xff) << 56;
		d[1] = base >> 32;
	}
}

static void idt_set(uint64_t *idt, unsigned int vec, uint64_t handler, unsigned int dpl)
{
	/* 64-bit interrupt gate (type 0xe, IF cleared on entry), present. */
	idt[vec * 2] = (handler & 0xffff) | (uint64_t)PAYLOAD_SEL_KCODE << 16 |
		       (0x8eULL | (uint64_t)dpl << 5) << 40 | (handler >> 16 & 0xffff) << 48;
	idt[vec * 2 + 1] = handler >> 32;
}

/*
 * IOPL 3 should open every port to CPL3, but this machine's KVM runs CPL3 code with IOPL
 * forced to 0, so each TSS also points at a shared all-zero I/O permission bitmap (which
 * the CPU consults when CPL > IOPL). The bitmap must sit within 64 KiB after every TSS.
 */
static void tss_write(uint8_t *tss, unsigned int id, uint64_t rsp0)
{
	uint16_t iomap = PAYLOAD_IOBITMAP - (PAYLOAD_TSS + id * PAYLOAD_TSS_STRIDE);

	memset(tss, 0, PAYLOAD_TSS_STRIDE);
	memcpy(tss + 4, &rsp0, sizeof(rsp0));
	memcpy(tss + 102, &iomap, sizeof(iomap));
}

static void page_tables_write(struct vm *vm)
{
	uint64_t *pml4 = vm_gpa(vm, PAYLOAD_PML4, 4096);
	uint64_t *pdpt = vm_gpa(vm, PAYLOAD_PDPT, 4096);
	uint64_t *pd = vm_gpa(vm, PAYLOAD_PD, 4 * 4096);
	unsigned int i;

	/* 0-4 GiB identity, user-accessible: RAM, the probe MMIO hole and the LAPIC page. */
	pml4[0] = PAYLOAD_PDPT | PTE_P | PTE_RW | PTE_US;
	for (i = 0; i < 4; i++)
		pdpt[i] = (PAYLOAD_PD + i * 4096ULL) | PTE_P | PTE_RW | PTE_US;
	for (i = 0; i < 4 * 512; i++)
		pd[i] = ((uint64_t)i << 21) | PTE_P | PTE_RW | PTE_US | PTE_PS;
}

static int payload_setup_vm(struct vm *vm)
{
	const struct payload_opts *opts = vm->boot_data;
	const struct payload_header *hdr;
	uint8_t *iobitmap;
	unsigned int i;
	size_t size;
	void *dst;

	if (!opts || vm->mem_size < PAYLOAD_MIN_MEM)
		return -EINVAL;
	for (i = 0; i < vm->nr_vcpus; i++) {
		if (!opts->spec[i].kind)
			return -EINVAL;
		if (!vm->aops->cpu && payload_kind_needs_cpu(opts->spec[i].kind))
			return -ENOTSUP;
	}
	if (!vm->aops->cpu)
		return payload_ports_register(vm);
	hdr = payload_image_data(&size);
	if (size < sizeof(*hdr) || size > PAYLOAD_MAX_SIZE || hdr->magic != PAYLOAD_MAGIC)
		return -ENOEXEC;
	dst = vm_gpa(vm, PAYLOAD_LOAD_ADDR, size);
	memcpy(dst, hdr, size);
	gdt_write(vm_gpa(vm, PAYLOAD_GDT, 4096), vm->nr_vcpus);
	idt_set(vm_gpa(vm, PAYLOAD_IDT, 4096), PAYLOAD_VEC_TIMER, hdr->isr_timer, 0);
	idt_set(vm_gpa(vm, PAYLOAD_IDT, 4096), PAYLOAD_VEC_HALT, hdr->isr_halt, 0);
	for (i = 0; i < vm->nr_vcpus; i++)
		tss_write(vm_gpa(vm, PAYLOAD_TSS + i * PAYLOAD_TSS_STRIDE, PAYLOAD_TSS_STRIDE), i,
			  payload_area(i) + PAYLOAD_VCPU_STRIDE);
	iobitmap = vm_gpa(vm, PAYLOAD_IOBITMAP, PAYLOAD_IOBITMAP_SIZE);
	memset(iobitmap, 0, PAYLOAD_IOBITMAP_SIZE - 1);
	iobitmap[PAYLOAD_IOBITMAP_SIZE - 1] = 0xff;
	page_tables_write(vm);
	return payload_ports_register(vm);
}

static void seg(struct kvm_segment *s, uint16_t sel, uint8_t type, bool code)
{
	*s = (struct kvm_segment){
		.base = 0, .limit = 0xffffffff, .selector = sel, .type = type, .present = 1,
		.dpl = sel & 3, .db = !code, .s = 1, .l = code, .g = 1,
	};
}

static int payload_setup_sregs(struct vcpu *vcpu)
{
	struct kvm_sregs sr;

	if (ioctl(vcpu->fd, KVM_GET_SREGS, &sr) < 0)
		return -errno;
	seg(&sr.cs, PAYLOAD_SEL_UCODE, 0xb, true);
	seg(&sr.ss, PAYLOAD_SEL_UDATA, 0x3, false);
	sr.ds = sr.es = sr.fs = sr.gs = sr.ss;
	sr.tr = (struct kvm_segment){
		.base = PAYLOAD_TSS + (uint64_t)vcpu->id * PAYLOAD_TSS_STRIDE,
		.limit = tss_limit(vcpu->id),
		.selector = PAYLOAD_SEL_TSS(vcpu->id), .type = 0xb, .present = 1,
	};
	sr.ldt = (struct kvm_segment){ .type = 0x2, .present = 1, .unusable = 1 };
	sr.gdt.base = PAYLOAD_GDT;
	sr.gdt.limit = PAYLOAD_SEL_TSS(vcpu->vm->nr_vcpus) - 1;
	sr.idt.base = PAYLOAD_IDT;
	sr.idt.limit = 256 * 16 - 1;
	sr.cr0 = CR0_PE | CR0_MP | CR0_ET | CR0_NE | CR0_WP | CR0_PG;
	sr.cr3 = PAYLOAD_PML4;
	sr.cr4 = CR4_PAE | CR4_OSFXSR | CR4_OSXMMEXCPT;
	sr.efer = EFER_LME | EFER_LMA;
	return ioctl(vcpu->fd, KVM_SET_SREGS, &sr) < 0 ? -errno : 0;
}

static void lapic_set(struct kvm_lapic_state *l, unsigned int reg, uint32_t v)
{
	memcpy(&l->regs[reg], &v, sizeof(v));
}

static uint32_t lapic_get(const struct kvm_lapic_state *l, unsigned int reg)
{
	uint32_t v;

	memcpy(&v, &l->regs[reg], sizeof(v));
	return v;
}

/*
 * LAPIC timer ticks per millisecond at divide-by-1. Upstream KVM's APIC bus runs at 1 GHz
 * unless KVM_CAP_X86_APIC_BUS_CYCLES_NS changed it; this machine's KVM does not report that
 * cap, so measure rather than assume: start a masked one-shot count on a vCPU that has not
 * run yet, wait a few ms, and read the current count back (about 1 GHz here).
 */
static int payload_lapic_khz(struct vcpu *vcpu, uint64_t *khz)
{
	struct kvm_lapic_state l;
	uint64_t t0, t1, ticks;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &l) < 0)
		return -errno;
	lapic_set(&l, APIC_SVR, APIC_SVR_ENABLE | 0xff);
	lapic_set(&l, APIC_LVTT, APIC_LVT_MASKED | PAYLOAD_VEC_TIMER);
	lapic_set(&l, APIC_TDCR, APIC_TDCR_DIV1);
	lapic_set(&l, APIC_TMICT, 0xffffffffU);
	lapic_set(&l, APIC_TMCCT, 0xffffffffU);	/* KVM_SET_LAPIC starts counting from here */
	t0 = time_mono_ns();
	if (ioctl(vcpu->fd, KVM_SET_LAPIC, &l) < 0)
		return -errno;
	do
		t1 = time_mono_ns();
	while (t1 - t0 < APIC_CALIBRATE_NS);
	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &l) < 0)
		return -errno;
	t1 = time_mono_ns();
	ticks = 0xffffffffULL - lapic_get(&l, APIC_TMCCT);
	if (!ticks)
		return -EIO;
	*khz = ticks * 1000000ULL / (t1 - t0);
	lapic_set(&l, APIC_TMICT, 0);
	lapic_set(&l, APIC_TMCCT, 0);
	return ioctl(vcpu->fd, KVM_SET_LAPIC, &l) < 0 ? -errno : 0;
}

static int payload_setup_lapic(struct vcpu *vcpu)
{
	struct kvm_lapic_state l;

	if (ioctl(vcpu->fd, KVM_GET_LAPIC, &l) < 0)
		return -errno;
	lapic_set(&l, APIC_SVR, APIC_SVR_ENABLE | 0xff);
	lapic_set(&l, APIC_LVTT, PAYLOAD_VEC_TIMER);	/* one-shot, unmasked */
	lapic_set(&l, APIC_LVT0, APIC_LVT_MASKED);	/* the PIC never interrupts */
	lapic_set(&l, APIC_TDCR, APIC_TDCR_DIV1);
	return ioctl(vcpu->fd, KVM_SET_LAPIC, &l) < 0 ? -errno : 0;
}

/* KVM_GET_TSC_KHZ, or a 50 ms measurement against CLOCK_MONOTONIC_RAW. */
static uint64_t payload_tsc_khz(struct vcpu *vcpu)
{
	uint64_t t0, t1, a, ns;
	int khz = ioctl(vcpu->fd, KVM_GET_TSC_KHZ, 0);

	if (khz > 0)
		return khz;
	a = time_now_on(CLOCK_MONOTONIC_RAW);
	t0 = __builtin_ia32_rdtsc();
	do
		ns = time_now_on(CLOCK_MONOTONIC_RAW) - a;
	while (ns < 50 * NSEC_PER_MSEC);
	t1 = __builtin_ia32_rdtsc();
	return (t1 - t0) * 1000000ULL / ns;
}

/*
 * Steal time, enabled as a guest kernel does at boot (here the VMM writes the MSR for it):
 * the area's GPA, or 0 where KVM offers none (no schedstats on the host).
 */
static uint64_t payload_setup_steal(struct vcpu *vcpu, uint64_t gpa)
{
	return vcpu_set_msr(vcpu, MSR_KVM_STEAL_TIME, gpa | KVM_MSR_ENABLED) ? 0 : gpa;
}

/* Registers, LAPIC and MP state of a vCPU that runs the image (a backend with a CPU). */
static int payload_setup_cpu(struct vcpu *vcpu, const struct payload_spec *spec,
			     struct payload_page *page)
{
	struct payload_opts *opts = vcpu->vm->boot_data;
	uint64_t area = payload_area(vcpu->id);
	struct kvm_mp_state mp = { .mp_state = KVM_MP_STATE_RUNNABLE };
	struct kvm_regs regs = {
		.rip = payload_header()->user_entry,
		.rsp = area + PAYLOAD_VCPU_STRIDE - 4096,	/* top of the user stack */
		.rdi = area,
		.rflags = RFLAGS_FIXED | RFLAGS_IOPL3,
	};
	int ret;

	ret = payload_setup_sregs(vcpu);
	if (!ret && ioctl(vcpu->fd, KVM_SET_REGS, &regs) < 0)
		ret = -errno;
	/* Every LAPIC of a VM counts at the same rate: measure once, on the first vCPU that
	 * needs it. */
	if (!ret && spec->kind == PAYLOAD_HALT_DUTY && !opts->lapic_khz)
		ret = payload_lapic_khz(vcpu, &opts->lapic_khz);
	if (!ret)
		page->lapic_khz = opts->lapic_khz;
	if (!ret)
		ret = payload_setup_lapic(vcpu);
	/* With the in-kernel irqchip, vCPUs other than 0 wait for INIT/SIPI; these start now. */
	if (!ret && ioctl(vcpu->fd, KVM_SET_MP_STATE, &mp) < 0)
		ret = -errno;
	return ret;
}

static int payload_setup_vcpu(struct vcpu *vcpu)
{
	struct payload_opts *opts = vcpu->vm->boot_data;
	const struct payload_spec *spec = &opts->spec[vcpu->id];
	uint64_t area = payload_area(vcpu->id);
	unsigned int peer = (vcpu->id + 1) % vcpu->vm->nr_vcpus;
	struct payload_page *page = vm_gpa(vcpu->vm, area, 4096);
	bool cpu = vcpu->vm->aops->cpu;
	int ret;

	*page = (struct payload_page){
		.magic = PAYLOAD_PAGE_MAGIC, .vcpu_id = vcpu->id, .kind = spec->kind,
		.arg = { spec->arg[0], spec->arg[1] }, .tsc_khz = cpu ? payload_tsc_khz(vcpu) : 0,
	};
	vcpu->work_units = &page->units;
	vcpu->boot = &opts->vcpu[vcpu->id];
	opts->vcpu[vcpu->id].page = page;
	ret = cpu ? vcpu_setup_cpuid(vcpu) : 0;
	/* Only the steal kind: with steal time on, a lane change costs more guest time on this
	 * nested host (docs/runtime.md), which would skew every other kind's figures. */
	if (!ret && spec->kind == PAYLOAD_STEAL)
		page->steal_gpa = payload_setup_steal(vcpu, area + PAYLOAD_STEAL_OFFSET);
	if (page->steal_gpa && peer != vcpu->id && opts->spec[peer].kind == PAYLOAD_STEAL)
		page->peer_steal_gpa = payload_area(peer) + PAYLOAD_STEAL_OFFSET;
	if (!ret && cpu)
		ret = payload_setup_cpu(vcpu, spec, page);
	return ret;
}

const struct boot_ops payload_boot_ops = {
	.name = "payload",
	.setup_vm = payload_setup_vm,
	.setup_vcpu = payload_setup_vcpu,
};
