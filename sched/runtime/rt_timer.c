// SPDX-License-Identifier: GPL-2.0
/*
 * Slice timers and kicks. Each vCPU thread owns a POSIX timer on CLOCK_MONOTONIC delivered to
 * that thread alone (SIGEV_THREAD_ID). Its handler only sets the thread's own
 * kvm_run->immediate_exit: inside KVM_RUN the signal makes it return EINTR, and a timer that fires
 * just before the next entry still makes that entry return at once, so no slice end is lost.
 * Other threads arm or move the timer with timer_settime(); when a decision must take effect at
 * once they kick instead (vcpu_kick(): immediate_exit + signal).
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"
#include "vmm/kick.h"
#include "vmm/vm.h"

#define RT_TIMER_SIGNAL	(SIGRTMIN + 2)

static __thread struct kvm_run *rt_self_run;

static void rt_timer_handler(int sig __attribute__((unused)))
{
	struct kvm_run *run = rt_self_run;

	if (run)
		__atomic_store_n(&run->immediate_exit, 1, __ATOMIC_RELAXED);
}

int rt_timer_init(void)
{
	struct sigaction sa;
	int err;

	err = kick_init();
	if (err)
		return err;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rt_timer_handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: KVM_RUN must come back with EINTR. */
	return sigaction(RT_TIMER_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

/* On the vCPU thread: let the handler find this thread's kvm_run, and take the signal. */
void rt_timer_bind_self(struct vcpu *vcpu)
{
	sigset_t set;

	rt_self_run = vcpu->run;
	sigemptyset(&set);
	sigaddset(&set, RT_TIMER_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

int rt_timer_create(struct rt_vcpu *rv)
{
	struct sigevent sev;

	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = RT_TIMER_SIGNAL;
	sev._sigev_un._tid = rv->tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &rv->timer) < 0)
		return -errno;
	rv->has_timer = true;
	rv->armed = 0;
	return 0;
}

void rt_timer_delete(struct rt_vcpu *rv)
{
	if (!rv->has_timer)
		return;
	timer_delete(rv->timer);
	rv->has_timer = false;
	rv->armed = 0;
}

/* Arms the slice end (absolute CLOCK_MONOTONIC ns), RT_INF disarms. Lock held. */
void rt_timer_arm(struct rt_vcpu *rv, uint64_t until)
{
	struct itimerspec its;
	uint64_t want = until == RT_INF ? 0 : until;

	assert_held(rv->rt->lock);
	/* A deadline already armed and still ahead needs nothing; one that has passed is armed
	 * again, so a vCPU never re-enters KVM_RUN with its slice end silently spent. */
	if (!rv->has_timer || (rv->armed == want && (!want || want > rt_now())))
		return;
	memset(&its, 0, sizeof(its));
	if (want) {
		/* 0 would disarm; a deadline already past fires at once. */
		its.it_value = time_ns_to_ts(want);
		rv->rt->st.timer_arms++;
	}
	if (timer_settime(rv->timer, TIMER_ABSTIME, &its, NULL) == 0)
		rv->armed = want;
}

void rt_kick(struct rt_vcpu *rv)
{
	vcpu_kick(rv->vcpu);
}
