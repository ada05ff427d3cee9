// SPDX-License-Identifier: GPL-2.0
/* Guest CPUID: KVM's supported set, patched per vCPU with its APIC ID and a flat topology. */
#include <errno.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "vmm/linux/cpuid.h"
#include "vmm/vm.h"

#define CPUID1_ECX_CX16 (1U << 13)
#define CPUID1_ECX_XSAVE (1U << 26)
#define CPUID1_ECX_OSXSAVE (1U << 27)
#define CPUID1_ECX_AVX (1U << 28)
#define CPUID1_ECX_HYPERVISOR (1U << 31)
#define CPUID1_EDX_HTT (1U << 28)
#define CPUID6_ECX_EPB (1U << 3)
#define CPUID7_EBX_AVX2 (1U << 5)
#define CPUID7_EBX_AVX512 0xd0230000U	/* F, DQ, IFMA, CD, BW, VL */

#define TOPO_SMT 1
#define TOPO_CORE 2

unsigned int lx_cpuid_core_bits(unsigned int n)
{
	unsigned int s = 0;

	while ((1U << s) < n)
		s++;
	return s;
}

static void topo_leaf(struct kvm_cpuid_entry2 *e, unsigned int apic_id, unsigned int nr_cpus)
{
	/* Subleaf 0: SMT level, one thread per core; subleaf 1: cores; then the end marker. */
	switch (e->index) {
	case 0:
		e->eax = 0;
		e->ebx = 1;
		e->ecx = (TOPO_SMT << 8) | 0;
		break;
	case 1:
		e->eax = lx_cpuid_core_bits(nr_cpus);
		e->ebx = nr_cpus;
		e->ecx = (TOPO_CORE << 8) | 1;
		break;
	default:
		e->eax = 0;
		e->ebx = 0;
		e->ecx = e->index;
		break;
	}
	e->edx = apic_id;
}

void lx_cpuid_patch(struct kvm_cpuid_entry2 *e, unsigned int n, unsigned int apic_id,
		    unsigned int nr_cpus, unsigned int hide)
{
	unsigned int i, bits = lx_cpuid_core_bits(nr_cpus);

	for (i = 0; i < n; i++, e++) {
		switch (e->function) {
		case 1:
			e->ebx &= 0x0000ffff;
			e->ebx |= apic_id << 24;
			e->ebx |= (1U << bits) << 16;	/* addressable logical IDs per package */
			if (nr_cpus > 1)
				e->edx |= CPUID1_EDX_HTT;
			else
				e->edx &= ~CPUID1_EDX_HTT;
			e->ecx |= CPUID1_ECX_HYPERVISOR;
			if (hide & LX_CPUID_HIDE_XSAVE)
				e->ecx &= ~(CPUID1_ECX_XSAVE | CPUID1_ECX_OSXSAVE | CPUID1_ECX_AVX);
			if (hide & LX_CPUID_HIDE_CX16)
				e->ecx &= ~CPUID1_ECX_CX16;
			break;
		case 4:
			/* EAX[31:26]: addressable core IDs per package - 1. */
			if (e->eax & 0x1f) {
				e->eax &= 0x03ffffff;
				e->eax |= ((1U << bits) - 1) << 26;
			}
			break;
		case 6:
			e->ecx &= ~CPUID6_ECX_EPB;	/* no energy-bias MSR behind it */
			break;
		case 7:
			if (e->index == 0 && (hide & LX_CPUID_HIDE_XSAVE))
				e->ebx &= ~(CPUID7_EBX_AVX2 | CPUID7_EBX_AVX512);
			break;
		case 0xd:
			if (hide & LX_CPUID_HIDE_XSAVE)
				e->eax = e->ebx = e->ecx = e->edx = 0;
			break;
		case 0xb:
		case 0x1f:
			topo_leaf(e, apic_id, nr_cpus);
			break;
		}
	}
}

static int cpuid_get_supported(int kvm_fd, struct kvm_cpuid2 **out)
{
	struct kvm_cpuid2 *c;
	int err;

	c = calloc(1, sizeof(*c) + LX_CPUID_MAX_ENTRIES * sizeof(c->entries[0]));
	if (!c)
		return -ENOMEM;
	c->nent = LX_CPUID_MAX_ENTRIES;
	if (ioctl(kvm_fd, KVM_GET_SUPPORTED_CPUID, c) < 0) {
		err = -errno;
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

int lx_cpuid_setup(struct vcpu *vcpu, unsigned int hide)
{
	struct kvm_cpuid2 *c;
	int err;

	err = cpuid_get_supported(vcpu->vm->kvm_fd, &c);
	if (err)
		return err;
	lx_cpuid_patch(c->entries, c->nent, vcpu->id, vcpu->vm->nr_vcpus, hide);
	if (ioctl(vcpu->fd, KVM_SET_CPUID2, c) < 0)
		err = -errno;
	free(c);
	return err;
}

int lx_cpuid_signature(int kvm_fd, uint32_t *eax, uint32_t *edx)
{
	struct kvm_cpuid2 *c;
	unsigned int i;
	int err;

	err = cpuid_get_supported(kvm_fd, &c);
	if (err)
		return err;
	*eax = *edx = 0;
	for (i = 0; i < c->nent; i++) {
		if (c->entries[i].function == 1) {
			*eax = c->entries[i].eax;
			*edx = c->entries[i].edx;
		}
	}
	free(c);
	return 0;
}
