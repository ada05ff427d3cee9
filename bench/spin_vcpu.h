/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VSCHED_BENCH_SPIN_VCPU_H
#define VSCHED_BENCH_SPIN_VCPU_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * A vCPU that spins where bench-host-preempt's holder runs, kicked as vmm/kick.c kicks
 * (immediate_exit, then VCPU_KICK_SIGNAL to the thread), on either backend:
 *  kvm:    a real KVM vCPU in real mode on `jmp $`: it leaves the guest only when the kick's
 *          signal reaches it (KVM_RUN returns -EINTR), as a payload hog does;
 *  thread: the thread backend's work loop (vmm/accel/thread_cpu.c): about 1 us of work, then
 *          a look at immediate_exit and exit_word, so the store ends it and the signal only
 *          runs the handler.
 */
struct spin_vcpu {
	bool kvm;
	int kvm_fd, vm_fd, vcpu_fd;
	struct kvm_run *run;	/* kvm's mapping, or own below for the thread backend */
	struct kvm_run own;
	void *mem;
	size_t run_size;
	/* As vcpu->exit_word (include/vmm/vm.h): watched by the thread backend only. */
	const uint32_t *exit_word;
	uint32_t exit_val;
};

/* 0, or -errno (kvm: /dev/kvm missing or refusing). Installs the kick's empty handler. */
int spin_vcpu_init(struct spin_vcpu *v, bool kvm);
void spin_vcpu_exit(struct spin_vcpu *v);
/* On the holder's thread: runs until kicked; 0, or -errno other than the kick's EINTR. */
int spin_vcpu_run(struct spin_vcpu *v);
/* Any thread: as vcpu_kick(). */
void spin_vcpu_kick(struct spin_vcpu *v, pthread_t thread);

#endif
