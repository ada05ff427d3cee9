/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's lanes, private to sched/: the inline rules of who keeps a lane and where two
 * paths meet, and the functions of lanes.c, lanes_repick.c and lanes_wake*.c. sched/internal.h
 * includes it.
 */
#ifndef VSCHED_SCHED_INTERNAL_LANES_H
#define VSCHED_SCHED_INTERNAL_LANES_H

#include "internal.h"

/* lanes.c: handing out lanes, slice ends, decisions; lanes_repick.c: a rotation end's pick;
 * lanes_wake.c: a waiter's claim on a lane; lanes_wake_idle.c: its cpu.idle rule, read only. */
static inline struct lane *lane_of(struct sched *s, unsigned int l)
{
	return &s->core.lanes[l];
}

/* A group at or above se (se itself if a group) is throttled. */
static inline bool lanes_path_throttled(const struct sched_entity *se)
{
	const struct group_core *gc;

	for (gc = se->is_group ? se_group((struct sched_entity *)se) : se->parent; gc;
	     gc = gc->se.parent)
		if (gc->throttled)
			return true;
	return false;
}

/*
 * A vCPU owed a whole CPU by the fluid ideal keeps its lane while others wait: rotating it out
 * would only cost kicks and hand the lane to whoever's lag swung last (a sibling whose rate
 * just dropped when some vCPU woke). Only its caps can end its run.
 */
static inline bool owns_lane(const struct vcpu_core *vc)
{
	return vc->se.rate >= 1.0 - 1e-9;
}

/*
 * A holder weight-driven preemption must leave alone: one owed a whole CPU, or one that started
 * running less than min_run ago. A lane handed out at this very moment, which the runtime has
 * not been told about, costs nothing to take back: protecting it let the first of several lanes
 * re-picked at one rotation end shield itself, and the others were taken from vCPUs behind it.
 */
static inline bool lane_kept(const struct sched *s, const struct lane *ln)
{
	return owns_lane(ln->cur) ||
	       (ln->cur->told_lane >= 0 && s->core.now < ln->start + s->core.params.min_run_ns);
}

/*
 * How far behind a holder that has run (vt, at the level where their paths part) a waking vCPU's
 * side must be, on several lanes, for the wake to take the lane: min_run of service at the
 * side's rate, min_run of time for a side owed a whole lane or more. A vt gap is a time lag: a
 * side at rate r behind by d is owed only r d, and the lane it takes serves it at least min_run
 * (a slice, mostly) at a whole lane. A low-rate side (a nice-19 group beside a hog owed 0.99 of
 * its lane) took a lane for a slice on 72 us of lag, its work was done long before GPS does it,
 * and a lane idled later where GPS keeps it busy, while the hog lost what it can never make up
 * (`make fuzz-sim` kind 3 seed 1756, 0.83 % of capacity; docs/scheduler.md §3 "Wakes").
 */
static inline double wake_gran(double min_run, double rate)
{
	return rate > 0 && rate < 1.0 ? min_run / rate : min_run;
}

/*
 * A lane a waiter of this very moment deferred to its min_run (lanes_defer()): promised to it,
 * so the next waiter of the moment (a refill wakes several at once) claims another.
 */
static inline bool lane_deferred(const struct sched *s, const struct lane *ln)
{
	return ln->deferred_at == s->core.now;
}

static inline unsigned int se_depth(const struct sched_entity *se)
{
	unsigned int d = 0;

	for (; se->parent; se = &se->parent->se)
		d++;
	return d;
}

/* The two entities under the deepest common ancestor of a and b. */
static inline void common_level(struct sched_entity **a, struct sched_entity **b)
{
	unsigned int da = se_depth(*a), db = se_depth(*b);

	while (da > db) {
		*a = &(*a)->parent->se;
		da--;
	}
	while (db > da) {
		*b = &(*b)->parent->se;
		db--;
	}
	while ((*a)->parent != (*b)->parent) {
		*a = &(*a)->parent->se;
		*b = &(*b)->parent->se;
	}
}

void lanes_give(struct sched *s, unsigned int l, struct vcpu_core *vc);
void lanes_defer(struct sched *s, struct lane *ln);
void lanes_end_turn(struct sched *s, struct lane *ln, uint64_t end);

/* True if se is below gc (gc itself excluded). */
static inline bool se_under(const struct sched_entity *se, const struct group_core *gc)
{
	for (; se->parent; se = &se->parent->se)
		if (se->parent == gc)
			return true;
	return false;
}
void lanes_put_back(struct sched *s, struct vcpu_core *vc);
void lanes_repick(struct sched *s, unsigned int l);
bool lanes_waiter_arrived(struct sched *s, struct sched_entity *se);
bool lanes_waker_arrived(struct sched *s, struct vcpu_core *vc);
bool lanes_refill_claim(struct sched *s, struct group_core *gc);
bool lanes_window_claim(struct sched *s, struct group_core *gc);
/* The lane's next end: rotation, bandwidth, pace or a promised claim, whichever comes first. */
uint64_t lanes_until(const struct lane *ln);
void lanes_settle(struct sched *s);
void lanes_unpay(struct sched *s);
void lanes_repay(struct sched *s);
void lanes_flush(struct sched *s);
void lanes_expire(struct sched *s);

#endif
