// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's side of a trace (sched/trace.h): what each vCPU's track shows after its state
 * changed. Lock held; a no-op unless recording.
 */
#include "rt.h"
#include "sched/core.h"
#include "sched/trace.h"

static const enum trace_vstate rt_trace_states[] = {
	[RT_OFF] = TRACE_V_OFF,
	[RT_BLOCKED] = TRACE_V_SLEEPING,
	[RT_WAITING] = TRACE_V_WAITING,
	[RT_RUNNING] = TRACE_V_RUNNING,
	[RT_LENT] = TRACE_V_LENT,
};

/* rv's state from now; lane: the lane it holds when RUNNING. */
void rt_trace_state(struct runtime *rt, struct rt_vcpu *rv, int lane, uint64_t now)
{
	enum trace_vstate st;

	if (!rt->trace)
		return;
	st = rt_trace_states[rv->state];
	if (st == TRACE_V_WAITING && rt_core_throttled(rt, rv->id))
		st = TRACE_V_THROTTLED;
	trace_vcpu_state(rt->trace, rv->id, st, lane, now);
}

/* A group was throttled or unthrottled: its waiting vCPUs change tracks. */
void rt_trace_throttle(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	if (!rt->trace)
		return;
	for (i = 0; i < rt->nr_vcpus; i++)
		if (rt->v[i].state == RT_WAITING)
			rt_trace_state(rt, &rt->v[i], -1, now);
}

void rt_trace_kick(struct runtime *rt, struct rt_vcpu *rv, uint64_t now)
{
	if (rt->trace)
		trace_emit(rt->trace, TRACE_KICK, rv->id, 0, now, 0, 0);
}

void runtime_set_trace(struct runtime *rt, struct trace *tr)
{
	mutex_lock(rt->lock);
	rt->trace = tr;
	sched_set_trace(rt->s, tr);
	rt_unlock(rt);
}
