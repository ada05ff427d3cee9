/* SPDX-License-Identifier: GPL-2.0 */
/* vCPU creation, the vCPU thread and its run loop with the exit dispatcher. */
#ifndef VSCHED_VMM_VCPU_H
#define VSCHED_VMM_VCPU_H

#include <stdint.h>

#include "vmm/vm.h"

/* The backend's vCPU (KVM: KVM_CREATE_VCPU and the kvm_run mapping); 0 or -errno. */
int vcpu_create(struct vm *vm, struct vcpu *vcpu, unsigned int id);
void vcpu_destroy(struct vcpu *vcpu);
/*
 * What the vCPU loop does with the exit the backend left in vcpu->run: port I/O and MMIO to
 * their handlers (a malformed exit, e.g. port data outside vcpu->run_size, ends the VM), the
 * rest counted or ending the VM. On the vCPU's thread; the guest_io fuzz target calls it too.
 */
void vcpu_exit_dispatch(struct vcpu *vcpu);
/* The vCPU thread body (arg is the struct vcpu). */
void *vcpu_thread(void *arg);
/* The thread's CPU time so far, readable from any thread while it runs. */
uint64_t vcpu_cpu_ns(const struct vcpu *vcpu);
/* Paravirtual sleep on the vCPU thread: the scheduler's sleep hook, else a timed wait;
 * returns early when the VM stops or pauses. The vCPU is idle meanwhile. */
void vcpu_sleep(struct vcpu *vcpu, uint64_t ns);
/* CPUID from KVM_GET_SUPPORTED_CPUID with this vCPU's APIC ID (leaf 1, 0xb, 0x1f). */
int vcpu_setup_cpuid(struct vcpu *vcpu);
/* One MSR, set or read as the host, through the backend (KVM_SET_MSRS/KVM_GET_MSRS; the
 * thread backend knows MSR_KVM_STEAL_TIME only); 0, or -EINVAL if refused, or -errno. */
int vcpu_set_msr(struct vcpu *vcpu, uint32_t index, uint64_t data);
int vcpu_get_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data);
/* Registers, segments and the code bytes around RIP, on stderr. */
void vcpu_dump(struct vcpu *vcpu);

#endif
