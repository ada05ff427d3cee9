/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Taking a vCPU out of KVM_RUN: set kvm_run->immediate_exit, then signal the thread.
 * immediate_exit closes the race with a thread that checked its flags and is about to
 * enter; the signal interrupts one that is already inside. The handler sets the receiving
 * vCPU thread's immediate_exit, for kicks from another process (the host daemon's).
 */
#ifndef VSCHED_VMM_KICK_H
#define VSCHED_VMM_KICK_H

#include <signal.h>

#include "vmm/vm.h"

/* The kick signal; the scheduler runtime's per-vCPU timers should use it too. */
#define VCPU_KICK_SIGNAL (SIGRTMIN + 1)

/* Installs the (empty) handler, process-wide, without SA_RESTART. Idempotent. */
int kick_init(void);
/* Any thread; async-signal-safe apart from the optional wake hook. */
void vcpu_kick(struct vcpu *vcpu);
/* The vCPU thread, before its first entry: the kick signal sets its immediate_exit. */
void vcpu_kick_thread(struct vcpu *vcpu);
/* The same for a bare kvm_run (bench/spin_vcpu.c). */
void kick_thread_run(struct kvm_run *run);
/* The vCPU thread, after KVM_RUN returned: consume a pending kick. */
void vcpu_kick_clear(struct vcpu *vcpu);

#endif
