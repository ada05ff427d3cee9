/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The vCPU hook interface: how a scheduler (sched/runtime/) plugs into the VMM's vCPU loop.
 * With vm.h (struct vm, struct vcpu: what the hooks are handed), vcpu.h and kick.h (preempting
 * a vCPU), it is all of vmm/ that sched/runtime/ may include (scripts/check-layers.sh).
 */
#ifndef VSCHED_VMM_VCPU_SCHED_H
#define VSCHED_VMM_VCPU_SCHED_H

#include <stdint.h>

struct vcpu;

/*
 * Scheduler runtime hooks into the vCPU loop (NULL ops: unscheduled, every vCPU runs
 * whenever the host lets it). All are called on the vCPU's own thread, so they may block,
 * except wake() which any thread may call. The loop is:
 *
 *	thread_start()
 *	while the VM runs:
 *		park here while vm_pause() holds the VM
 *		enter()			blocks until the vCPU may use a lane
 *		run			the backend: KVM_RUN, or the thread backend's payload
 *		charge(cpu_ns)		thread CPU time since the previous charge
 *		dispatch the exit	a paravirtual sleep calls sleep(ns)
 *	thread_exit()
 *
 * enter() returns 0 to run, or nonzero to make the loop re-check stop/pause first.
 * enter() and sleep() must return soon after wake(): the core calls it after vm_stop() and
 * vm_pause() set their flag, so a blocked vCPU notices. A preemption is vcpu_kick()
 * (vmm/kick.h; per-vCPU timers should raise VCPU_KICK_SIGNAL the same way): the vCPU
 * leaves its run, charges, and calls enter() again, where the runtime may hold it.
 * A paravirtual sleep (payload sleep port) reaches sleep() through vcpu_sleep()
 * (vmm/vcpu.h). A halt stays inside the backend's run (KVM: HLT with the in-kernel irqchip;
 * thread backend: a blocking wait): the runtime sees it only as the thread sleeping with its
 * CPU clock standing still (or, on KVM, from KVM's "blocking" statistic).
 */
struct vcpu_sched_ops {
	void (*thread_start)(struct vcpu *vcpu);
	int (*enter)(struct vcpu *vcpu);
	void (*charge)(struct vcpu *vcpu, uint64_t cpu_ns);
	void (*sleep)(struct vcpu *vcpu, uint64_t ns);
	void (*wake)(struct vcpu *vcpu);
	void (*thread_exit)(struct vcpu *vcpu);
};

#endif
