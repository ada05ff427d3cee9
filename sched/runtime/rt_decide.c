// SPDX-License-Identifier: GPL-2.0
/*
 * The core's decisions applied to the vCPUs, with the lock held: a lane granted until a slice
 * end, a lane taken (kicking a vCPU inside KVM_RUN), a slice end moved. Called back from
 * rt_core.c (embedded) or from the host agent (rt_remote.c, host mode) alike.
 */
#include "rt.h"
#include "vmm/kick.h"

void rt_grant(struct runtime *rt, unsigned int id, unsigned int lane, uint64_t until)
{
	struct rt_vcpu *rv = &rt->v[id];
	uint64_t now = rt_now();

	assert_held(rt->lock);
	if (rv->state == RT_WAITING) {
		rt->last_grant = now;
		/* A handoff is the wait of a parked thread; one still in KVM_RUN has none. */
		if (!rv->in_guest)
			rv->granted_at = now;
	} else if (rv->state != RT_LENT && rv->state != RT_RUNNING) {
		return;
	}
	rt_set_state(rv, RT_RUNNING, now);
	/* A lent vCPU woken and granted its lane while it runs on its own: its wait ends here. */
	if (rv->in_guest)
		rt_hist_halt_wake(rt, rv, now);
	rv->until = until;
	rt->st.grants++;
	rt_trace_state(rt, rv, (int)lane, now);
	if (!rt_hands_off(rt))
		rt_pin_lane(rt, rv, lane);
	/* A lent vCPU that was running on its own keeps going, with its slice end armed now. */
	if (rv->in_guest && !rt_hands_off(rt)) {
		rt_timer_arm(rv, until);
		rt_watch_holder(rv, now);
	}
	rt_vcpu_wake(rv);
}

void rt_preempt(struct runtime *rt, unsigned int id)
{
	struct rt_vcpu *rv = &rt->v[id];
	uint64_t now;

	assert_held(rt->lock);
	if (rv->state != RT_RUNNING)
		return;
	now = rt_now();
	rt_set_state(rv, RT_WAITING, now);
	rv->until = RT_INF;
	/*
	 * Kick only a vCPU inside KVM_RUN whose own slice timer is not about to take it out anyway:
	 * lanes often end in step, and the core then expires the second lane while its vCPU is
	 * already on its way out.
	 */
	if (rv->in_guest && !rt_hands_off(rt) &&
	    !(rv->armed && rv->armed <= now + RT_KICK_SLACK_NS)) {
		rt->st.kicks++;
		rt_trace_kick(rt, rv, now);
		rt_kick(rv);
	}
}

/* Re-times per second: a core that re-timed a lane again and again would show here. */
static void rt_count_retime(struct runtime *rt)
{
	struct runtime_stats *st = &rt->st;
	uint64_t sec = rt_now() / NSEC_PER_SEC;

	st->retimes++;
	if (sec != st->retime_sec) {
		st->retime_sec = sec;
		st->retime_in_sec = 0;
	}
	if (++st->retime_in_sec > st->retimes_peak)
		st->retimes_peak = st->retime_in_sec;
}

void rt_set_until(struct runtime *rt, unsigned int id, uint64_t until)
{
	struct rt_vcpu *rv = &rt->v[id];

	assert_held(rt->lock);
	if (rv->state != RT_RUNNING || rv->until == until)
		return;
	rt_count_retime(rt);
	rv->until = until;
	if (rv->in_guest && !rt_hands_off(rt)) {
		rt_timer_arm(rv, until);
		rt_watch_set(rv, rv->watch_mode);	/* no slice end: no raise (rt_watch.c) */
	}
}
