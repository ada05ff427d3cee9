// SPDX-License-Identifier: GPL-2.0
/*
 * The rotation slice, planned from what a lane change costs on this host (both embedded
 * runtimes and the host scheduler's daemon, include/sched/slice_plan.h). Every rotation of a
 * lane costs one exit (the slice timer's signal takes the holder out of KVM_RUN) and one handoff
 * (the next vCPU's thread wakes and enters KVM_RUN); the guest work lost meanwhile is the price
 * of the rotation. The core's default 3 ms suits a host where that is a few microseconds; on a
 * nested host where an exit alone is ~45 us it cost 4 % of guest throughput with 4 hogs on 2
 * lanes (make bench: 3 ms 95.8 %, 6 ms 97.4 %, 12 ms 98.6 %, 24 ms 98.9 % in one run).
 *
 * So the runtime measures both (EWMA of each, samples clipped at 1 ms so that a descheduled
 * thread does not count as switch cost) and sets the slice to SLICE_COST_SHARE times their
 * sum, between the core's own slice (its default, 3 ms) and a ceiling. The ceiling is 8 ms
 * while some vCPU sleeps, halts or is throttled (within the last second, SLICE_FINE_NS),
 * because longer rotations cost those: at 12 ms a capped group (caps2, p/c1) left 0.4-0.9 % of
 * its quota unused (it waited a rotation with quota left at a period's end; about 0.1 % at 8 ms),
 * and a duty vCPU with little margin over its share waited up to 29 ms on a level wake
 * (simulator p99; 11 ms at 8 ms). Among hogs only, nothing is due at any moment and only
 * throughput counts: the ceiling is 12 ms (4 hogs in 2 groups on 2 lanes, alternating runs on
 * a loaded host: 8 ms 96.2-97.4 %, 12 ms 96.9-98.6 %; goal 97). A hog's share then comes in
 * lumps of up to 12 ms, which a 5 s window sees as up to 0.12 % of capacity. The caller sets
 * the hogs' ceiling (SLICE_PLAN_MAX_NS for an embedded runtime; the host daemon's is lower,
 * host/host_slice.c).
 */
#include "sched/slice_plan.h"

#define SLICE_COST_SHARE	100		/* slice = 100 x cost: changes cost ~1 % */
#define SLICE_MAX_NS		8000000ULL	/* ceiling while anything is due (above) */
#define SLICE_FINE_NS		1000000000ULL	/* "while": since the last sleep, lend, throttle */
#define SLICE_EVERY_NS		100000000ULL	/* re-plan at most this often */
#define SLICE_CLIP_NS		1000000ULL
#define SLICE_EWMA_SHIFT	4		/* weight 1/16 per sample */

void slice_plan_init(struct slice_plan *p, uint64_t min_ns, uint64_t max_ns)
{
	*p = (struct slice_plan){ .min_ns = min_ns, .max_ns = max_ns };
}

void slice_plan_cost(uint64_t *avg, uint64_t ns)
{
	if (ns > SLICE_CLIP_NS)
		ns = SLICE_CLIP_NS;
	if (!*avg)
		*avg = ns;
	else
		*avg = *avg - (*avg >> SLICE_EWMA_SHIFT) + (ns >> SLICE_EWMA_SHIFT);
}

/* Above the fine ceiling the next plan comes at once rather than up to 100 ms later. */
void slice_plan_fine(struct slice_plan *p, uint64_t now, uint64_t cur)
{
	p->last_fine = now;
	if (cur > SLICE_MAX_NS)
		p->planned = 0;
}

uint64_t slice_plan_due(struct slice_plan *p, uint64_t now, uint64_t cur)
{
	uint64_t slice, ceiling = p->max_ns;

	if (now < p->planned + SLICE_EVERY_NS || !p->exit_cost || !p->handoff_cost)
		return 0;
	p->planned = now;
	slice = (p->exit_cost + p->handoff_cost) * SLICE_COST_SHARE;
	if (slice < p->min_ns)
		slice = p->min_ns;
	if (p->last_fine && now - p->last_fine < SLICE_FINE_NS && ceiling > SLICE_MAX_NS)
		ceiling = SLICE_MAX_NS;
	if (slice > ceiling)
		slice = ceiling;
	/* Within 10 %: not worth touching. */
	if (slice * 10 > cur * 9 && slice * 10 < cur * 11)
		return 0;
	return slice;
}
