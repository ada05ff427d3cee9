// SPDX-License-Identifier: GPL-2.0
/*
 * The rotation slice, planned from what a lane change costs on this host. Every rotation of a
 * lane costs one exit (the slice timer's signal takes the holder out of KVM_RUN) and one handoff
 * (the next vCPU's thread wakes and enters KVM_RUN); the guest work lost meanwhile is the price
 * of the rotation. The core's default 3 ms suits a host where that is a few microseconds; on a
 * nested host where an exit alone is ~45 us it cost 4 % of guest throughput with 4 hogs on 2
 * lanes (make bench: 3 ms 95.8 %, 6 ms 97.4 %, 12 ms 98.6 %, 24 ms 98.9 % in one run).
 *
 * So the runtime measures both (EWMA of each, samples clipped at 1 ms so that a descheduled
 * thread does not count as switch cost) and sets the slice to RT_SLICE_COST_SHARE times their
 * sum, between the core's own slice (its default, 3 ms) and a ceiling. The ceiling is 8 ms
 * while some vCPU sleeps, halts or is throttled (within the last second, RT_SLICE_FINE_NS),
 * because longer rotations cost those: at 12 ms a capped group (caps2, p/c1) left 0.4-0.9 % of
 * its quota unused (it waited a rotation with quota left at a period's end; about 0.1 % at 8 ms),
 * and a duty vCPU with little margin over its share waited up to 29 ms on a level wake
 * (simulator p99; 11 ms at 8 ms). Among hogs only, nothing is due at any moment and only
 * throughput counts: the ceiling is 12 ms (4 hogs in 2 groups on 2 lanes, alternating runs on
 * a loaded host: 8 ms 96.2-97.4 %, 12 ms 96.9-98.6 %; goal 97). A hog's share then comes in
 * lumps of up to 12 ms, which a 5 s window sees as up to 0.12 % of capacity.
 */
#include "rt.h"

#define RT_SLICE_COST_SHARE	100		/* slice = 100 x cost: changes cost ~1 % */
#define RT_SLICE_MAX_NS		8000000ULL	/* ceiling while anything is due (above) */
#define RT_SLICE_HOGS_MAX_NS	12000000ULL	/* ceiling among hogs */
#define RT_SLICE_FINE_NS	1000000000ULL	/* "while": since the last sleep, lend, throttle */
#define RT_SLICE_EVERY_NS	100000000ULL	/* re-plan at most this often */
#define RT_SLICE_CLIP_NS	1000000ULL
#define RT_SLICE_EWMA_SHIFT	4		/* weight 1/16 per sample */

static void rt_slice_ewma(uint64_t *avg, uint64_t ns)
{
	if (ns > RT_SLICE_CLIP_NS)
		ns = RT_SLICE_CLIP_NS;
	if (!*avg)
		*avg = ns;
	else
		*avg = *avg - (*avg >> RT_SLICE_EWMA_SHIFT) + (ns >> RT_SLICE_EWMA_SHIFT);
}

/* After KVM_RUN: if the slice end had passed, the exit took now - deadline. Lock held. */
void rt_slice_exit(struct runtime *rt, const struct rt_vcpu *rv, uint64_t now)
{
	if (rv->armed && now >= rv->armed)
		rt_slice_ewma(&rt->exit_cost, now - rv->armed);
}

void rt_slice_handoff(struct runtime *rt, uint64_t ns)
{
	rt_slice_ewma(&rt->handoff_cost, ns);
}

/*
 * A vCPU slept, halted or was throttled: the hogs' ceiling no longer applies. Above the fine
 * ceiling the next exit re-plans at once rather than up to 100 ms later. Lock held.
 */
void rt_slice_fine(struct runtime *rt, uint64_t now)
{
	rt->last_fine = now;
	if (rt->st.slice_ns > RT_SLICE_MAX_NS)
		rt->slice_planned = 0;
}

/* Re-plans the slice from the costs measured so far; at most every RT_SLICE_EVERY_NS. */
void rt_slice_plan(struct runtime *rt, uint64_t now)
{
	uint64_t slice, cur = rt->st.slice_ns, ceiling = RT_SLICE_HOGS_MAX_NS;

	if (now < rt->slice_planned + RT_SLICE_EVERY_NS || !rt->exit_cost || !rt->handoff_cost)
		return;
	rt->slice_planned = now;
	slice = (rt->exit_cost + rt->handoff_cost) * RT_SLICE_COST_SHARE;
	if (slice < rt->slice_min)
		slice = rt->slice_min;
	if (rt->last_fine && now - rt->last_fine < RT_SLICE_FINE_NS)
		ceiling = RT_SLICE_MAX_NS;
	if (slice > ceiling)
		slice = ceiling;
	/* Within 10 %: not worth touching. */
	if (slice * 10 > cur * 9 && slice * 10 < cur * 11)
		return;
	if (!rt_core_set_slice(rt, slice))
		rt->st.slice_ns = slice;
}
