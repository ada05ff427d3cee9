// SPDX-License-Identifier: GPL-2.0
/*
 * Kicks, stop, pause and resume. A kick sets kvm_run->immediate_exit and then signals the
 * vCPU thread. The handler sets the receiving vCPU thread's own immediate_exit too (nothing
 * else, and nothing ever blocks in it): a kick by a process that cannot write kvm_run (the host
 * daemon's, HOST_HELLO_KICK) that lands between the thread's last look at its requests and
 * KVM_RUN then still makes the entry fail at once. The vCPU thread clears
 * immediate_exit after each KVM_RUN and then re-reads the request flags, so a request set
 * before the kick is always seen: either before the next entry, or by the entry failing
 * at once with EINTR.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "vmm/kick.h"
#include "vmm/vm.h"

/* The calling vCPU thread's kvm_run (vcpu_kick_thread()); NULL in other threads. */
static __thread struct kvm_run *kick_run;

static void kick_handler(int sig __attribute__((unused)))
{
	struct kvm_run *run = kick_run;

	if (run)
		__atomic_store_n(&run->immediate_exit, 1, __ATOMIC_RELAXED);
}

void kick_thread_run(struct kvm_run *run)
{
	kick_run = run;
}

void vcpu_kick_thread(struct vcpu *vcpu)
{
	kick_thread_run(vcpu->run);
}

int kick_init(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = kick_handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: a kicked blocking call returns EINTR and the loop re-checks. */
	return sigaction(VCPU_KICK_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

void vcpu_kick(struct vcpu *vcpu)
{
	if (vcpu->run)
		__atomic_store_n(&vcpu->run->immediate_exit, 1, __ATOMIC_SEQ_CST);
	if (vcpu->thread_started)
		pthread_kill(vcpu->thread, VCPU_KICK_SIGNAL);
}

void vcpu_kick_clear(struct vcpu *vcpu)
{
	__atomic_store_n(&vcpu->run->immediate_exit, 0, __ATOMIC_SEQ_CST);
}

static void vm_wake_all(struct vm *vm)
{
	unsigned int i;

	pthread_mutex_lock(&vm->lock);
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
	for (i = 0; vm->vcpus && i < vm->nr_vcpus; i++) {
		if (vm->sched && vm->sched->wake)
			vm->sched->wake(&vm->vcpus[i]);
		vcpu_kick(&vm->vcpus[i]);
	}
}

void vm_stop(struct vm *vm, enum vm_exit_reason reason)
{
	int none = VM_EXIT_NONE;
	uint64_t one = 1;

	if (!__atomic_compare_exchange_n(&vm->exit_reason, &none, reason, false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return;
	if (vm->stop_fd >= 0 && write(vm->stop_fd, &one, sizeof(one)) < 0) {
		/* The counter cannot overflow from one write; nothing to do. */
	}
	vm_wake_all(vm);
}

void vm_pause(struct vm *vm)
{
	unsigned int running = 0, i;

	__atomic_store_n(&vm->pause_req, 1, __ATOMIC_SEQ_CST);
	vm_wake_all(vm);
	for (i = 0; i < vm->nr_vcpus; i++)
		running += vm->vcpus[i].thread_started;
	pthread_mutex_lock(&vm->lock);
	/* vCPU threads only end when the VM stops, which also ends the wait. */
	while (vm->nr_parked < running && !vm_stopping(vm))
		pthread_cond_wait(&vm->cond, &vm->lock);
	pthread_mutex_unlock(&vm->lock);
}

void vm_resume(struct vm *vm)
{
	pthread_mutex_lock(&vm->lock);
	__atomic_store_n(&vm->pause_req, 0, __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&vm->cond);
	pthread_mutex_unlock(&vm->lock);
}
