/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rotation slice planned from what a lane change costs (sched/slice_plan.c): an embedded
 * runtime (sched/runtime/rt_slice.c) and the host scheduler's daemon (host/host_slice.c) feed
 * it the two halves of each lane change they measure and apply what it plans. Pure: time is
 * given, nothing is locked.
 */
#ifndef VSCHED_SCHED_SLICE_PLAN_H
#define VSCHED_SCHED_SLICE_PLAN_H

#include <stdint.h>

struct slice_plan {
	uint64_t exit_cost;	/* EWMA: slice end to the holder off its lane (or reported) */
	uint64_t handoff_cost;	/* EWMA: the lane handed on to the next holder */
	uint64_t min_ns;	/* the core's own slice: never shorter */
	uint64_t max_ns;	/* the ceiling among hogs: never longer */
	uint64_t planned;	/* when the slice was last planned */
	uint64_t last_fine;	/* last sleep, lend or throttle */
};

#define SLICE_PLAN_MAX_NS	12000000ULL	/* an embedded runtime's ceiling among hogs */

/* max_ns: the ceiling among hogs (the one while anything is due is at most 8 ms). */
void slice_plan_init(struct slice_plan *p, uint64_t min_ns, uint64_t max_ns);
/* One sample of either half (clipped, so that a descheduled thread is not a switch cost). */
void slice_plan_cost(uint64_t *avg, uint64_t ns);
/* A vCPU slept, halted, lent its lane or was throttled at now; cur is the slice now. */
void slice_plan_fine(struct slice_plan *p, uint64_t now, uint64_t cur);
/* The slice to use from now, or 0 to keep cur (too soon, no costs yet, or within 10 %). */
uint64_t slice_plan_due(struct slice_plan *p, uint64_t now, uint64_t cur);

#endif
