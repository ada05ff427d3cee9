/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest CPUID for the Linux path: what KVM supports, with each vCPU's own APIC ID (leaf 1
 * EBX[31:24], x2APIC ID in every subleaf of 0xB and 0x1F), a flat topology (one package, one
 * core per vCPU, no SMT) and the hypervisor bit, so the kernel finds kvmclock and KVM's PV leaves.
 */
#ifndef VSCHED_VMM_LINUX_CPUID_H
#define VSCHED_VMM_LINUX_CPUID_H

#include <stdint.h>
#include <linux/kvm.h>

struct vcpu;

#define LX_CPUID_MAX_ENTRIES 256

/* Features a guest can be told it lacks (bits of lx_cpuid_patch's hide argument). */
#define LX_CPUID_HIDE_XSAVE (1U << 0)	/* XSAVE/OSXSAVE, AVX*: the kernel falls back to FXSAVE */
#define LX_CPUID_HIDE_CX16 (1U << 1)	/* CMPXCHG16B */

/* Rewrites entries in place for vCPU apic_id of nr_cpus. */
void lx_cpuid_patch(struct kvm_cpuid_entry2 *e, unsigned int n, unsigned int apic_id,
		    unsigned int nr_cpus, unsigned int hide);

/* Smallest s with (1 << s) >= n: bits of the APIC ID that number the cores. */
unsigned int lx_cpuid_core_bits(unsigned int n);

/* KVM_GET_SUPPORTED_CPUID, lx_cpuid_patch(), KVM_SET_CPUID2 on this vCPU. */
int lx_cpuid_setup(struct vcpu *vcpu, unsigned int hide);

/* CPUID 1 EAX and EDX as KVM reports them, for the MP table's processor entries. */
int lx_cpuid_signature(int kvm_fd, uint32_t *eax, uint32_t *edx);

#endif
