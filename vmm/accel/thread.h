/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the thread backend (vmm/accel/thread*.c): the per-vCPU state of a vCPU that runs
 * the payload kinds as host code on its own thread.
 */
#ifndef VSCHED_VMM_ACCEL_THREAD_H
#define VSCHED_VMM_ACCEL_THREAD_H

#include <linux/kvm.h>
#include <stdint.h>

#include "vmm/payload.h"
#include "vmm/vm.h"

/* Where the vCPU is in its payload, as a guest's program counter would say. */
enum thread_stage {
	TS_HELLO,	/* the first instruction: the hello port */
	TS_WORK,	/* the kind's loop */
	TS_HALT,	/* halt-duty: halted until the deadline */
	TS_EXIT,	/* the kind ended: the exit port with the status */
	TS_DONE,	/* after the exit port: the guest spins in place; here it waits */
};

struct thread_vcpu {
	struct kvm_run run;	/* vcpu->run: the exit, immediate_exit */
	uint32_t io_data[2];	/* port I/O data (run.io.data_offset points here) */
	struct vcpu *vcpu;
	struct payload_page *page;	/* this vCPU's work page, found at TS_HELLO */
	enum thread_stage stage;
	uint64_t deadline;	/* CLOCK_MONOTONIC ns: end of the busy phase or halt, 0: none */
	uint64_t units;		/* io: units since the last io exit */
	uint32_t status;	/* the exit port's value */
	/* MSR_KVM_STEAL_TIME, kept up to date at each entry as KVM does (thread.c). */
	uint64_t steal_msr;
	uint64_t last_run_delay;	/* the thread's run-queue wait at the last update, ns */
	int schedstat_fd;	/* /proc/thread-self/schedstat, opened on the vCPU thread */
};

/* thread_cpu.c: the payload kinds until an exit; 0 or -errno as accel_ops.vcpu_run. */
int thread_cpu_run(struct thread_vcpu *t);

/* thread.c */
bool thread_kicked(const struct thread_vcpu *t);
/* Blocks until deadline (CLOCK_MONOTONIC ns, UINT64_MAX: none) as a halted CPU does: 0 then,
 * -EINTR as soon as a kick or any signal arrives (none is lost between check and sleep). */
int thread_wait(struct thread_vcpu *t, uint64_t deadline);
/* A port write of value, as the guest's `outl`: the exit the vCPU loop dispatches. */
int thread_out(struct thread_vcpu *t, uint16_t port, uint32_t value);

#endif
