// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's only contact with the scheduler core (sched/core.h): events in, decisions out.
 * Every function runs with the lock held, feeds one event and then drains the decisions into
 * rt_grant / rt_preempt / rt_set_until. In host mode (rt->remote) the events go to the daemon
 * instead (rt_remote.c), whose decisions come back to the same functions from the agent thread;
 * the VM's own core then only keeps its accounting (cpu.stat of the VM's directory).
 */
#include <errno.h>

#include "host/proto.h"
#include "rt.h"
#include "sched/core.h"
#include "sched/group.h"

#define RT_CORE_BATCH	16

static void rt_core_drain(struct runtime *rt)
{
	struct sched_decision d[RT_CORE_BATCH];
	size_t n, i;

	assert_held(rt->lock);
	/* Only take when there is something: an empty queue may not be allocated yet. */
	while (sched_pending_decisions(rt->s) && (n = sched_take_decisions(rt->s, d, RT_CORE_BATCH))) {
		/* Host mode: the VM's own core only accounts; the daemon decides. */
		for (i = 0; i < n && !rt->remote; i++) {
			switch (d[i].type) {
			case SCHED_RUN:
				rt_grant(rt, d[i].vcpu, d[i].lane, d[i].until);
				break;
			case SCHED_PREEMPT:
				rt_preempt(rt, d[i].vcpu);
				break;
			case SCHED_RETIME:
				rt_set_until(rt, d[i].vcpu, d[i].until);
				break;
			case SCHED_THROTTLE:
				rt->st.throttles++;
				rt_slice_fine(rt, rt_now());
				rt_trace_throttle(rt, rt_now());
				break;
			case SCHED_UNTHROTTLE:
				rt_trace_throttle(rt, rt_now());
				break;
			}
		}
	}
}

/* The core starts with its own parameters; the runtime only ever lengthens the slice. */
int rt_core_create(struct runtime *rt)
{
	struct sched_params p;

	rt->core = rt->s;
	sched_get_params(rt->s, &p);
	rt->st.slice_ns = p.slice_ns;
	slice_plan_init(&rt->slice, p.slice_ns, SLICE_PLAN_MAX_NS);
	rt_core_drain(rt);
	return 0;
}

/* A new rotation slice (rt_slice.c); the lag bound follows it, twice as long as by default. */
int rt_core_set_slice(struct runtime *rt, uint64_t slice)
{
	struct sched_params p;

	assert_held(rt->lock);
	if (rt->remote)
		return 0;	/* the daemon's slice serves every VM */
	sched_get_params(rt->s, &p);
	p.slice_ns = slice;
	p.lag_ns = 2 * slice;
	return sched_set_params(rt->s, &p);
}

void rt_core_destroy(struct runtime *rt)
{
	rt->core = NULL;
}

void rt_core_set_tid(struct runtime *rt, unsigned int id, pid_t tid)
{
	sched_vcpu_set_tid(rt->s, id, tid);
	if (rt->remote)
		rt_remote_event(rt, HOST_MSG_TID, id, (uint64_t)tid, 0);
}

/*
 * A decision compares vCPUs that hold lanes: each first gets charged what it ran so far. With
 * a holder's current slice uncharged (up to a whole slice), a lane's pick saw its group as that
 * much behind and gave it the other lane too (caps2: p/c2 on both lanes while p/c1, owed as
 * much, waited; p/c1 missed its quota in 3-9 of 50 periods).
 */
void rt_core_runnable(struct runtime *rt, unsigned int id, uint64_t now)
{
	if (rt->remote) {
		/*
		 * A lane offered to this VM is taken at once; the daemon hears it after. Before the
		 * holders' reports: one sent first is a datagram the daemon has not read, which voids
		 * the offer (a held lane's always: its holder is this VM's), and the daemon charges
		 * holders at its own decision; the reports follow with the holders' exits.
		 */
		if (rt_offer_take(rt, id))
			return;
		rt_charge_running(rt, now);
		rt_remote_event(rt, HOST_MSG_RUNNABLE, id, 0, 0);
		return;
	}
	rt_charge_running(rt, now);
	sched_vcpu_runnable(rt->s, id, now);
	rt_core_drain(rt);
}

/* held: id held a lane until now (it blocks or is lent), which may be handed on. */
void rt_core_blocked(struct runtime *rt, unsigned int id, uint64_t now, bool held)
{
	if (rt->remote) {
		/* The successor the daemon published takes the lane at once: no BLOCKED, the
		 * claim stands for it (rt_hand.c). */
		if (held && rt_hand_off(rt, id))
			return;
		rt_remote_event(rt, HOST_MSG_BLOCKED, id, 0, 0);
		return;
	}
	sched_vcpu_blocked(rt->s, id, now);
	rt_core_drain(rt);
}

void rt_core_ran(struct runtime *rt, unsigned int id, uint64_t user_ns, uint64_t sys_ns,
		 uint64_t now)
{
	if (!user_ns && !sys_ns)
		return;
	if (rt->remote)
		rt_remote_event(rt, HOST_MSG_RAN, id, user_ns, sys_ns);
	sched_vcpu_ran(rt->s, id, user_ns, sys_ns, now);
	rt_core_drain(rt);
	sched_trace_sample(rt->s, now);
}

void rt_core_tick(struct runtime *rt, uint64_t now)
{
	rt_charge_running(rt, now);
	if (rt->remote) {
		/* Ends the daemon published ahead are applied here; any other asks it (TICK). */
		if (!rt_ahead_tick(rt, now))
			rt_remote_tick(rt, now);
		return;
	}
	sched_timer(rt->s, now);
	rt_core_drain(rt);
	sched_trace_sample(rt->s, now);
}

void rt_core_config(struct runtime *rt, uint64_t now)
{
	if (rt->remote) {
		rt_remote_config(rt);
		return;
	}
	/* The change already acted at the core's last time; bring the clock up and re-decide. */
	sched_advance(rt->s, now);
	sched_timer(rt->s, now);
	rt_core_drain(rt);
	sched_trace_sample(rt->s, now);
}

uint64_t rt_core_next_timer(struct runtime *rt)
{
	uint64_t t;

	assert_held(rt->lock);
	if (rt->remote)
		return RT_INF;	/* the daemon's */
	t = sched_next_timer(rt->s);
	return t == SCHED_TIME_NONE ? RT_INF : t;
}

uint64_t rt_core_next_group_timer(struct runtime *rt)
{
	uint64_t t;

	assert_held(rt->lock);
	if (rt->remote)
		return RT_INF;
	t = sched_next_group_timer(rt->s);
	return t == SCHED_TIME_NONE ? RT_INF : t;
}

bool rt_core_throttled(struct runtime *rt, unsigned int id)
{
	assert_held(rt->lock);
	return !rt->remote && sched_vcpu_throttled(rt->s, id);
}
