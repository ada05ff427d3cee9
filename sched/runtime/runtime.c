// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's vCPU hooks and lane permits. Each vCPU thread calls enter() before KVM_RUN,
 * charge() after it, sleep() for a paravirtual sleep; the core answers with decisions (grant a
 * lane until t, preempt, move a slice end), applied under the lock by rt_decide.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "rt.h"
#include "sched/core.h"
#include "util/compiler.h"
#include "vmm/kick.h"
#include "vmm/vm.h"
#include "vsched.h"

static struct rt_vcpu *rt_of(struct vcpu *vcpu)
{
	return vcpu->sched;
}

/* A lent vCPU runs again: it waits for a lane, unless the core grants one at once. */
void rt_reclaim(struct runtime *rt, struct rt_vcpu *rv, uint64_t woke, uint64_t now)
{
	rt->st.reclaims++;
	rv->halt_woke_at = woke;
	rt_set_state(rv, RT_WAITING, now);
	rt_core_runnable(rt, rv->id, now);
}

/* Out of the runnable states (a sleep, the thread's end): the core hears it blocked. */
static void rt_leave_runnable(struct runtime *rt, struct rt_vcpu *rv, enum rt_state to,
			      uint64_t now)
{
	bool runnable = rv->state != RT_BLOCKED && rv->state != RT_OFF;
	bool held = rv->state == RT_RUNNING;

	rv->halt_woke_at = 0;
	rt_set_state(rv, to, now);
	if (runnable)
		rt_core_blocked(rt, rv->id, now, held);
}

/* The hooks. */

static void rt_thread_start(struct vcpu *vcpu)
{
	struct rt_vcpu *rv = rt_of(vcpu);
	struct runtime *rt = rv->rt;
	char path[64];

	/* Exact paravirtual sleeps and slice timers: no 50 us timer slack on this thread. */
	prctl(PR_SET_TIMERSLACK, 1UL);
	rt_timer_bind_self(vcpu);
	rv->tid = vcpu->tid;
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)rv->tid);
	rv->stat_fd = open(path, O_RDONLY | O_CLOEXEC);
	rt_idle_open(rv);
	rt_watch_open(rv);
	pthread_getcpuclockid(pthread_self(), &rv->cpu_clock);
	rt_account_start(rv);
	rt_timer_create(rv);

	mutex_lock(rt->lock);
	/* Halts this vCPU's watch cannot report are found by polling. */
	if (!rt_watched(rv))
		rt->idle_polls = true;
	rt_core_set_tid(rt, rv->id, rv->tid);
	rt_set_state(rv, RT_BLOCKED, rt_now());
	rt_unlock(rt);
}

static bool rt_must_leave(struct runtime *rt)
{
	return vm_stopping(rt->vm) || vm_pausing(rt->vm);
}

/* A vCPU without a lane waits for one, unless the host kernel schedules or the VM stops. */
static bool rt_must_wait(struct runtime *rt, const struct rt_vcpu *rv)
{
	return rv->state == RT_WAITING && !rt->fallback && !rt_must_leave(rt);
}

static int rt_enter(struct vcpu *vcpu)
{
	struct rt_vcpu *rv = rt_of(vcpu);
	struct runtime *rt = rv->rt;
	uint64_t now;

	mutex_lock(rt->lock);
	now = rt_now();
	if (!rt_hands_off(rt) && rv->state == RT_RUNNING && now >= rv->until &&
	    now >= rv->steal_recheck_at) {
		/*
		 * The slice ended: the core may hand the lane on now, and the next holder, woken on
		 * this host CPU, often runs before this thread gets it back to park (measured: up
		 * to 6 ms per lane change, in some runs most of the wait). Flagged preempted only
		 * then, the vCPU looked running to the guest meanwhile. So it is flagged before the
		 * core decides; if it keeps the lane, its next entry clears the flag (as KVM's
		 * record_steal_time() does).
		 */
		rt_unlock(rt);
		rt_steal_park(rv, now);
		mutex_lock(rt->lock);
		now = rt_now();
	}
	if (!rt_hands_off(rt)) {
		/* Host mode: parked before its RUNNABLE leaves, so that a grant decided while it
		 * parks its steal time (unlocked, below) comes by the page alone (rt_page.c). */
		if (rv->state != RT_RUNNING)
			rt_page_park(rt, rv);
		switch (rv->state) {
		case RT_OFF:
		case RT_BLOCKED:
		case RT_LENT:
			rt_set_state(rv, RT_WAITING, now);
			rt_core_runnable(rt, rv->id, now);
			break;
		case RT_RUNNING:
			/* Back from an exit; a slice that ended lets the core decide again. */
			if (now >= rv->until)
				rt_core_tick(rt, now);
			break;
		case RT_WAITING:
			break;
		}
		rt_poke_helper(rt, now);
		if (rt_must_wait(rt, rv) && (rv->steal_area || now >= rv->steal_recheck_at)) {
			/* An ioctl and guest memory: not under the lock. A grant meanwhile is seen
			 * by the loop below. Unlocked even if flagged already: a thread preempted
			 * by the new holder's taking the lock waits for a CPU here, which KVM
			 * counts itself, not after parked_at. */
			rt_unlock(rt);
			if (!rv->steal_area)
				rt_steal_park(rv, now);
			mutex_lock(rt->lock);
			/* From here on it sleeps; before, a host preemption was KVM's steal. */
			rv->parked_at = rt_now();
		}
		while (rt_must_wait(rt, rv)) {
			if (rt->page)
				rt_page_wait(rt, rv);	/* host mode: the daemon wakes it */
			else if (!rt_unlock_send(rt))	/* its RUNNABLE out first */
				mutex_cond_wait(&rv->cond, rt->lock);
		}
	}
	rt_page_park_end(rt, rv);	/* also when the daemon was lost since its exit parked it */
	now = rt_now();
	/* The wait ended when the lane was granted; what follows is the handoff. */
	rt_steal_unpark(rv, rv->granted_at && rv->granted_at < now ? rv->granted_at : now);
	if (rv->state == RT_RUNNING || rt_hands_off(rt)) {
		rt_hist_halt_wake(rt, rv, now);
		if (rv->wake_deadline) {
			rt_hist_add(rt->st.wake_hist, &rt->st.nr_wake,
				    now > rv->wake_deadline ? now - rv->wake_deadline : 0);
			rv->wake_deadline = 0;
		}
		if (rv->granted_at) {
			uint64_t d = now > rv->granted_at ? now - rv->granted_at : 0;

			rt_hist_add(rt->st.handoff_hist, &rt->st.nr_handoff, d);
			rt->st.handoff_ns += d;
			rt_slice_handoff(rt, d);
			rv->granted_at = 0;
		}
		if (!rt_hands_off(rt)) {
			rt_timer_arm(rv, rv->until);
			rt_watch_holder(rv, now);
		}
		rt_page_watch(rt, rv);
		rt_page_guest(rt, rv, true);
		rv->in_guest = true;
		if (rt->remote && rt->report_at == RT_INF) {
			rt->report_at = now + RT_REPORT_NS;
			rt_poke_helper(rt, now);
		}
		rt_unlock(rt);
		return 0;
	}
	rt_unlock(rt);
	return 1;
}

/*
 * After KVM_RUN. The hook's cpu_ns is the loop's own difference; the runtime charges from its
 * clock bookkeeping instead, because the helper may already have charged part of that time.
 */
static void rt_charge(struct vcpu *vcpu, uint64_t cpu_ns __attribute__((unused)))
{
	struct rt_vcpu *rv = rt_of(vcpu);
	struct runtime *rt = rv->rt;
	uint64_t now;

	mutex_lock(rt->lock);
	now = rt_now();
	rv->in_guest = false;
	rt_watch_set(rv, WATCH_NONE);
	rt_page_guest(rt, rv, false);	/* before the entry's read: a PREEMPT kicked is there */
	rt_page_exit(rt, rv);
	if (!rt_hands_off(rt)) {
		rt_slice_exit(rt, rv, now);
		rt_slice_plan(rt, now);
	}
	rt_charge_upto(rt, rv, time_thread_ns(), true, now);
	if (rv->state == RT_LENT && !rt_hands_off(rt)) {
		/*
		 * A lent vCPU left KVM_RUN by itself: it runs again and needs a lane. Parked before
		 * its RUNNABLE is queued, as at an entry: a grant decided while this thread handles
		 * the exit comes by the page alone (taken at the entry, or before a sleep).
		 */
		rt_page_park(rt, rv);
		rt_reclaim(rt, rv, rt_halt_woke_est(rv, time_thread_ns(), now), now);
	}
	rt_poke_helper(rt, now);
	rt_unlock_exit(rt);	/* the exit's report: with the next datagram (rt_remote.c) */
}

static void rt_sleep(struct vcpu *vcpu, uint64_t ns)
{
	struct rt_vcpu *rv = rt_of(vcpu);
	struct runtime *rt = rv->rt;
	struct timespec ts;
	uint64_t now, end;

	mutex_lock(rt->lock);
	now = rt_now();
	end = now + ns;
	/* Parked since its exit (a lent vCPU's reclaim): a grant by the page alone is taken
	 * before the sleep, so the lane it held goes back with the BLOCKED. */
	rt_page_park_end(rt, rv);
	/* Host mode: the waker makes it runnable at end if this thread is late (rt_xwait.c). */
	rt_xwait_arm(rt, rv, end);
	/*
	 * Off the lane's CPU before it releases the lane: its wake-up not behind the lane's next
	 * holder, and the rest of this path not either. Floated after the claim, a releaser that
	 * the successor it woke preempted there (on the lane's CPU, pinned) waited out the
	 * successor's run with the lane's CPU shared between them (traced, t-host-xhand).
	 */
	rt_pin_float(rt, rv);
	rt_leave_runnable(rt, rv, RT_BLOCKED, now);
	rt_slice_fine(rt, now);
	rv->until = RT_INF;
	rt_timer_arm(rv, RT_INF);
	rt_poke_helper(rt, now);
	ts = time_ns_to_ts(end);
	while (!rt_must_leave(rt) && rv->state == RT_BLOCKED) {
		if (rt_unlock_send(rt))	/* its BLOCKED out first */
			continue;
		if (mutex_cond_timedwait(&rv->cond, rt->lock, &ts) == ETIMEDOUT)
			break;
	}
	rv->sleep_end = 0;
	rv->wake_deadline = rt_must_leave(rt) ? 0 : end;
	rt_unlock(rt);
}

static void rt_wake(struct vcpu *vcpu)
{
	struct rt_vcpu *rv = rt_of(vcpu);

	if (!rv)
		return;
	mutex_lock(rv->rt->lock);
	rt_vcpu_wake(rv);
	rt_unlock(rv->rt);
}

static void rt_thread_exit(struct vcpu *vcpu)
{
	struct rt_vcpu *rv = rt_of(vcpu);
	struct runtime *rt = rv->rt;
	uint64_t now;

	mutex_lock(rt->lock);
	now = rt_now();
	/* What ran after the last charge (exit handling, the last wait) belongs to the vCPU too. */
	rt_charge_upto(rt, rv, time_thread_ns(), true, now);
	rt_page_park_end(rt, rv);	/* parked since its exit: see rt_sleep() */
	rt_leave_runnable(rt, rv, RT_OFF, now);
	rv->in_guest = false;
	/* Gone: a rejoin must not send its TID (the daemon refuses a dead thread's and hangs
	 * up, every 200 ms again), nor a lane's pin reach a thread that reuses the number. */
	rv->tid = 0;
	rt_page_guest(rt, rv, false);
	rt_timer_delete(rv);
	if (rv->stat_fd >= 0)
		close(rv->stat_fd);
	rv->stat_fd = -1;
	rt_idle_close(rv);
	rt_watch_close(rv);
	rt_unlock(rt);
}

const struct vcpu_sched_ops runtime_vcpu_ops = {
	.thread_start = rt_thread_start,
	.enter = rt_enter,
	.charge = rt_charge,
	.sleep = rt_sleep,
	.wake = rt_wake,
	.thread_exit = rt_thread_exit,
};
