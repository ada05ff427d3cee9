// SPDX-License-Identifier: GPL-2.0
/*
 * A vCPU's runtime state changes in one place. rt_set_state() checks each transition against
 * the table drawn in rt.h (an illegal one is a BUG in debug builds) and keeps nr_waiting and
 * nr_lent equal to the number of vCPUs in those states: the helper sleeps without polling
 * while both are 0, so a count that drifted would leave halted lanes lent or waiters stranded.
 */
#include <stdio.h>

#include "rt.h"

static const bool rt_legal[RT_NR_STATES][RT_NR_STATES] = {
	[RT_OFF] = { [RT_BLOCKED] = true },
	[RT_BLOCKED] = { [RT_OFF] = true, [RT_BLOCKED] = true, [RT_WAITING] = true },
	[RT_WAITING] = { [RT_OFF] = true, [RT_BLOCKED] = true, [RT_RUNNING] = true },
	[RT_RUNNING] = { [RT_OFF] = true, [RT_BLOCKED] = true, [RT_WAITING] = true,
			 [RT_RUNNING] = true, [RT_LENT] = true },
	[RT_LENT] = { [RT_OFF] = true, [RT_BLOCKED] = true, [RT_WAITING] = true,
		      [RT_RUNNING] = true },
};

bool rt_state_legal(enum rt_state from, enum rt_state to)
{
	return from < RT_NR_STATES && to < RT_NR_STATES && rt_legal[from][to];
}

#ifdef VSCHED_DEBUG
static void rt_state_bug(const struct rt_vcpu *rv, enum rt_state to)
{
	static const char *const names[RT_NR_STATES] = {
		[RT_OFF] = "OFF", [RT_BLOCKED] = "BLOCKED", [RT_WAITING] = "WAITING",
		[RT_RUNNING] = "RUNNING", [RT_LENT] = "LENT",
	};
	char what[64];

	snprintf(what, sizeof(what), "vcpu%u: illegal state change %s -> %s", rv->id,
		 rv->state < RT_NR_STATES ? names[rv->state] : "?",
		 to < RT_NR_STATES ? names[to] : "?");
	debug_bug(__FILE__, __LINE__, what);
}
#endif

/*
 * Lock held. now: when it becomes WAITING, the start of its wait (the watchdog's measure), and
 * the time of the change on the trace.
 */
void rt_set_state(struct rt_vcpu *rv, enum rt_state to, uint64_t now)
{
	struct runtime *rt = rv->rt;

	assert_held(rt->lock);
#ifdef VSCHED_DEBUG
	if (!rt_state_legal(rv->state, to))
		rt_state_bug(rv, to);
#endif
	if (rv->state == RT_WAITING) {
		BUG_ON(!rt->nr_waiting);
		rt->nr_waiting--;
	} else if (rv->state == RT_LENT) {
		BUG_ON(!rt->nr_lent);
		rt->nr_lent--;
	}
	if (to == RT_WAITING) {
		rt->nr_waiting++;
		rv->wait_since = now;
	} else if (to == RT_LENT) {
		rt->nr_lent++;
	}
	rv->state = to;
	/* RUNNING is traced by rt_grant(), which knows the lane. */
	if (to != RT_RUNNING)
		rt_trace_state(rt, rv, -1, now);
}
