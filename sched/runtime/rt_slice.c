// SPDX-License-Identifier: GPL-2.0
/*
 * An embedded runtime's rotation slice: its two costs measured here, planned by
 * sched/slice_plan.c (why and the figures behind it are there).
 */
#include "rt.h"
#include "sched/slice_plan.h"

/* After KVM_RUN: if the slice end had passed, the exit took now - deadline. Lock held. */
void rt_slice_exit(struct runtime *rt, const struct rt_vcpu *rv, uint64_t now)
{
	if (rv->armed && now >= rv->armed)
		slice_plan_cost(&rt->slice.exit_cost, now - rv->armed);
}

void rt_slice_handoff(struct runtime *rt, uint64_t ns)
{
	slice_plan_cost(&rt->slice.handoff_cost, ns);
}

/* A vCPU slept, halted or was throttled: the hogs' ceiling no longer applies. Lock held. */
void rt_slice_fine(struct runtime *rt, uint64_t now)
{
	slice_plan_fine(&rt->slice, now, rt->st.slice_ns);
}

/* Re-plans the slice from the costs measured so far; at most every 100 ms. */
void rt_slice_plan(struct runtime *rt, uint64_t now)
{
	uint64_t slice = slice_plan_due(&rt->slice, now, rt->st.slice_ns);

	if (slice && !rt_core_set_slice(rt, slice))
		rt->st.slice_ns = slice;
}
