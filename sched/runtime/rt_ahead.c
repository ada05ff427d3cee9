// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: decisions the daemon made ahead of a slice end (HOST_HELLO_AHEAD, host/host_ahead.c,
 * docs/host.md). A grant-page entry (or a PREEMPT's datagram) may name the moment `at` from which
 * it holds: "PREEMPT at until" for a holder, "GRANT from until" for its successor. The holder
 * keeps running and is preempted by its own slice end there (its timer moved to `at` if it was
 * later); the successor's thread waits on its entry until `at` (rt_page_wait()), then takes the
 * grant. A newer decision about the vCPU replaces one pending. What the page says is checked as
 * anything read there: an `at` far ahead only keeps this VMM's own vCPU on (or off) its lane,
 * and the daemon preempts a holder whose published end was not applied by the grace after it.
 */
#include "host/proto.h"
#include "rt.h"

/*
 * A decision newer than the one applied, about to be applied: true if it is one to apply later
 * (a PREEMPT at `at` of a running holder, recorded and counted applied; a GRANT from `at` to a
 * waiting vCPU, left for its thread). False: apply it now; whatever was pending is replaced.
 * Lock held.
 */
bool rt_ahead_defer(struct runtime *rt, struct rt_vcpu *rv, uint32_t seq, uint32_t lane,
		    uint64_t at)
{
	uint64_t now = rt_now();

	/*
	 * A published end that has come and was not applied: its thread had no CPU at it (on the
	 * thread backend the successor, woken at `at` on the lane's CPU, runs first and the holder
	 * waits behind it, out of the guest; seen 3 ms, until its next grant). It is off the lane
	 * since `at`: applied before the newer decision, which then holds from its own `at`.
	 */
	if (rv->ahead_seq && rv->state == RT_RUNNING && now >= rv->ahead_at &&
	    rv->ahead_seq == rv->seq_applied) {
		rv->ahead_seq = 0;
		rt->st.ahead_preempts++;
		rt_preempt(rt, rv->id);
	}
	/* Its moment passed already (read late): applied now as any, counted as published. */
	if (at && at != HOST_TIME_INF && at <= now && lane == HOST_LANE_NONE &&
	    rv->state == RT_RUNNING)
		rt->st.ahead_preempts++;
	if (!at || at == HOST_TIME_INF || at <= now ||
	    (lane == HOST_LANE_NONE ? rv->state != RT_RUNNING :
	     rv->state != RT_WAITING || rv->in_guest)) {
		rv->ahead_seq = 0;
		return false;
	}
	if (lane != HOST_LANE_NONE)
		return true;
	rv->seq_applied = seq;
	rv->ahead_seq = seq;
	rv->ahead_at = at;
	if (rv->until > at)
		rt_set_until(rt, rv->id, at);
	if (rt->remote)		/* a holder without a timer of its own: the helper's */
		rt_poke_helper(rt, now);
	return true;
}

/*
 * A GRANT datagram for a vCPU whose entry holds it from a later `at`: its thread takes it then
 * from the page (woken to look now). True: not applied here. Lock held.
 */
bool rt_ahead_grant_msg(struct runtime *rt, struct rt_vcpu *rv, uint32_t seq)
{
	struct host_grant e;

	if (!rt_page_entry(rt, rv, &e) || e.seq != seq || e.lane == HOST_LANE_NONE ||
	    !rt_ahead_defer(rt, rv, seq, e.lane, e.at))
		return false;
	rt_vcpu_wake(rv);
	return true;
}

/*
 * A slice end at now: each holder whose published end has come is preempted, as the daemon
 * decided. False if a holder's slice ended with no decision published: the daemon is asked
 * (TICK). Lock held.
 */
bool rt_ahead_tick(struct runtime *rt, uint64_t now)
{
	bool all = true;
	unsigned int i;

	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if (rv->ahead_seq && (rv->state != RT_RUNNING || rv->ahead_seq != rv->seq_applied))
			rv->ahead_seq = 0;	/* blocked meanwhile, or replaced */
		if (rv->ahead_seq && now >= rv->ahead_at) {
			rv->ahead_seq = 0;
			rt->st.ahead_preempts++;
			rt_preempt(rt, rv->id);
		}
		if (rv->state == RT_RUNNING && rv->until <= now)
			all = false;
	}
	return all;
}

/* Until when rv's thread waits for the grant in entry e (a GRANT from a later `at`), 0: none. */
uint64_t rt_ahead_wait(struct runtime *rt, struct rt_vcpu *rv, const struct host_grant *e)
{
	if (e->lane == HOST_LANE_NONE || !rt_ahead_defer(rt, rv, e->seq, e->lane, e->at))
		return 0;
	return e->at;
}
