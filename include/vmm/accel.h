/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vCPU backends (accelerators, as QEMU calls them): what runs a vCPU between two exits.
 *
 *	kvm	KVM_RUN on /dev/kvm: guest machine code, any boot method (payloads, Linux)
 *	thread	host code on the vCPU thread: the payload kinds' work, with the same work-unit
 *		counters and the same exits (vmm/accel/thread_cpu.c), where /dev/kvm is missing
 *
 * vm_create() picks the backend from vm->accel. Everything above it (the vCPU loop in
 * vmm/vcpu.c, the scheduler runtime, the control directory) sees only what both share:
 *
 *  - vcpu->run, a struct kvm_run: the exit (reason, port I/O data) is written there, and
 *    immediate_exit asks the backend to return -EINTR before (or soon after) it runs;
 *  - VCPU_KICK_SIGNAL and the runtime's timer signal: a signal sent to the vCPU thread makes
 *    vcpu_run() return -EINTR soon, also out of a blocking wait (a halted guest);
 *  - the vCPU thread is the thread that runs the vCPU: its CPU clock is the vCPU's time.
 *
 * Kicks are therefore the same for every backend (vmm/kick.h): no kick operation here.
 */
#ifndef VSCHED_VMM_ACCEL_H
#define VSCHED_VMM_ACCEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/diag.h"

struct vm;
struct vcpu;

enum vm_accel {
	VM_ACCEL_AUTO,		/* kvm where /dev/kvm works, else thread */
	VM_ACCEL_KVM,
	VM_ACCEL_THREAD,
};

struct accel_ops {
	const char *name;
	/* Runs guest machine code: boot methods with needs_cpu (Linux) and the payload kinds
	 * that test the CPU itself (probe, fault, emufail) need it. */
	bool cpu;
	/* After guest RAM exists, before the boot method: 0 or -errno (the VM is torn down). */
	int (*vm_init)(struct vm *vm);
	void (*vm_exit)(struct vm *vm);
	/* vcpu->vm and vcpu->id are set; must set vcpu->run. 0 or -errno. */
	int (*vcpu_init)(struct vcpu *vcpu);
	void (*vcpu_exit)(struct vcpu *vcpu);
	/* On the vCPU thread: run until an exit. 0 with vcpu->run->exit_reason set, -EINTR
	 * (immediate_exit or a signal), or another -errno (the VM ends with an error). */
	int (*vcpu_run)(struct vcpu *vcpu);
	/* One MSR as the host sets or reads it: 0, -EINVAL if refused, or -errno. */
	int (*set_msr)(struct vcpu *vcpu, uint32_t index, uint64_t data);
	int (*get_msr)(struct vcpu *vcpu, uint32_t index, uint64_t *data);
};

extern const struct accel_ops accel_kvm_ops;
extern const struct accel_ops accel_thread_ops;

/* "kvm", "thread", "auto". */
const char *accel_name(enum vm_accel accel);
/* The reverse: 0 or -EINVAL. */
int accel_parse(const char *s, enum vm_accel *accel);
const struct accel_ops *accel_ops_of(enum vm_accel accel);
/*
 * Whether KVM can run a VM here: /dev/kvm opens and answers KVM_GET_API_VERSION. 0, or -errno
 * with why ("/dev/kvm: No such file or directory") in d (may be NULL).
 */
int accel_kvm_probe(struct diag *d);
/*
 * VM_ACCEL_AUTO becomes kvm where the probe succeeds, else thread, with the probe's answer
 * in d (may be NULL; left as it was when nothing fell back). Other values are returned as they
 * are.
 */
enum vm_accel accel_resolve(enum vm_accel accel, struct diag *d);

#endif
