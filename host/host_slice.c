// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's rotation slice, planned as an embedded runtime plans its own
 * (sched/slice_plan.c: about 100 times what a lane change costs, from the core's 3 ms), up to
 * 8 ms. An embedded runtime goes to 12 ms among hogs; here 12 ms gave the VMs 1 % more of the
 * CPUs but left bench-host's 3 s windows of the weights and inside scenarios off by 0.5-1.4 %
 * of capacity in a third of the runs on a loaded host (8 ms: at most 0.2 %; docs/host.md). 8 ms
 * is also the ceiling while anything sleeps or throttles, so the daemon tracks neither.
 *
 * With the core's fixed 3 ms, host mode gave the VMs 2-3 % less CPU than an embedded runtime
 * and the VM beside a capped partition 0.85-0.89 CPU of the 1.0 left: each lane change costs
 * wake-ups of the daemon (the slice end's report, the preempted holder's), of two VMMs' agents
 * (PREEMPT, GRANT) and of the granted thread, each tens of microseconds on a nested host
 * (docs/host.md, "Capacity: the slice"). The daemon sees both halves of a lane change across
 * processes: its exit (a holder's slice end to its VMM's TICK) and the preemption's round trip
 * (PREEMPT sent to the preempted holder's report of its last part).
 */
#include "internal.h"
#include "sched/core.h"

#define HOST_SLICE_MAX_NS	8000000ULL

void host_slice_init(struct host *h)
{
	struct sched_params p;

	sched_get_params(h->s, &p);
	h->slice_ns = p.slice_ns;
	slice_plan_init(&h->slice, p.slice_ns, HOST_SLICE_MAX_NS);
}

/* A decision about to be sent: a preemption's round trip starts, or a grant ends one. */
void host_slice_decided(struct host *h, const struct sched_decision *d, uint64_t now)
{
	if (d->type == SCHED_PREEMPT)
		h->slot[d->vcpu].preempt_at = now;
	else if (d->type == SCHED_RUN)
		h->slot[d->vcpu].preempt_at = 0;
}

/* A report (RAN, BLOCKED) about slot: the end of a preemption's round trip, if one was on. */
void host_slice_reported(struct host *h, unsigned int slot, uint64_t now)
{
	struct host_slot *sl = &h->slot[slot];

	if (sl->preempt_at && now >= sl->preempt_at)
		slice_plan_cost(&h->slice.handoff_cost, now - sl->preempt_at);
	sl->preempt_at = 0;
}

/*
 * c's TICK: each of its holders whose slice had ended took now - its end to say so; then the
 * slice is re-planned (at most every 100 ms), before the core decides.
 */
void host_slice_tick(struct host *h, struct host_client *c, uint64_t now)
{
	struct sched_params p;
	unsigned int l;
	uint64_t slice;

	for (l = 0; l < h->nr_lanes; l++) {
		int v = sched_lane_vcpu(h->s, l);
		uint64_t until = sched_lane_until(h->s, l);

		if (v >= 0 && h->slot[v].client == c && until != SCHED_TIME_NONE && until <= now)
			slice_plan_cost(&h->slice.exit_cost, now - until);
	}
	slice = slice_plan_due(&h->slice, now, h->slice_ns);
	if (!slice)
		return;
	sched_get_params(h->s, &p);
	p.slice_ns = slice;
	p.lag_ns = 2 * slice;	/* as an embedded runtime's rt_core_set_slice() */
	if (!sched_set_params(h->s, &p))
		h->slice_ns = slice;
}

uint64_t host_slice(const struct host *h)
{
	return h->slice_ns;
}
