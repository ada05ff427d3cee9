/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The core's fair queues, private to sched/: a level's V, an entity's request and deadline
 * (inline: every pick and charge reads them), and the functions of fair.c, fair_block.c and
 * pick.c. sched/internal.h includes it.
 */
#ifndef VSCHED_SCHED_INTERNAL_FAIR_H
#define VSCHED_SCHED_INTERNAL_FAIR_H

#include "internal.h"

/* V of a level: the rate-weighted mean vt of the runnable children. */
static inline double fair_vclock(const struct group_core *gc)
{
	return gc->sum_r > 0 ? gc->sum_rvt / gc->sum_r : gc->vbase;
}

/*
 * EEVDF's request: the service se asks for next, which with its rate sets its deadline. A
 * vCPU asks for what it ran, on average, from waking to blocking (a slice if it never blocks),
 * within [min_run, slice]: one that runs short bursts has an early deadline, as the kernel gives
 * a task with a short custom slice. A group asks for what the child at the head of its queue
 * asks (the kernel propagates its children's shortest slice up the hierarchy), and a capped
 * group for no more than its pool holds, which it passes up too: it cannot run more before its
 * refill, so neither can its parent run more for it.
 */
static inline double fair_request(const struct sched *s, struct sched_entity *se, double *base)
{
	const struct sched_core *c = &s->core;
	double req = c->slice;

	if (se->is_group) {
		const struct group_core *gc = se_group(se);
		struct heap_node *n = heap_min(&gc->queue);

		if (n)
			req = container_of(n, struct sched_entity, node)->breq;
		/*
		 * What its pool holds is what the group can run before its refill, and what its
		 * parent asks for it. Passed up as a slice, a capped child at a low rate in a
		 * parent that runs a few ms a period (a capped parent, one lane) had its parent's
		 * deadline a slice / rate on: its turn came after its siblings' slices, the period
		 * ended first, and its own cap kept it from making the lag up in the next one
		 * (10 ms caps seed 755, one lane: 0.81 % of capacity; docs/scheduler.md §4 "A
		 * pool's request is passed up").
		 */
		if (gc->bw_enabled && (double)gc->runtime < req)
			req = (double)gc->runtime;
		*base = req;
		/*
		 * A cpu.idle group that holds no lane gets its next one for a min_run turn beside
		 * non-idle siblings (lanes.c, idle_turn()), so that is what it asks at its level;
		 * above, its parent passes up its children's requests as before. Asking a slice
		 * at its few per mille set its deadline slice / rate ahead: owed a few ms, it lost
		 * every lane to a capped sibling, which ran its pool on them ahead of the
		 * reference, dried early and left lanes idle the reference fills. Holding lanes,
		 * it asks as before: a capped idle group asking min_run for each further lane took
		 * them from hogs ahead by less than a slice and ran its pool early the same way
		 * (docs/scheduler.md §4, "An idle sibling's turns").
		 */
		if (se->idle && !se->nr_running && req > c->min_run)
			req = c->min_run;
		return req;
	}
	if (se_vcpu(se)->burst > 0 && se_vcpu(se)->burst < req) {
		req = se_vcpu(se)->burst;
		if (req < c->min_run)
			req = c->min_run;
	}
	*base = req;
	return req;
}

/* A queued entity's vt, rate or request changed: its deadline moves (the queues' key). */
static inline void fair_set_key(const struct sched *s, struct sched_entity *se)
{
	se->req = fair_request(s, se, &se->breq);
	se->dl = se->vt + se->req / (se->rate > RATE_MIN ? se->rate : RATE_MIN);
}

void fair_requeue(const struct sched *s, struct sched_entity *se);

/* fair.c: per-level virtual time, queues and charging. */
void fair_enqueue(struct sched *s, struct sched_entity *se);
void fair_dequeue(struct sched *s, struct sched_entity *se);
void fair_charge(struct sched *s, struct vcpu_core *vc, uint64_t delta);
void fair_charge_group(struct sched *s, struct group_core *gc, uint64_t delta);
void fair_prepay(struct sched *s, struct vcpu_core *vc, uint64_t slice);
void fair_refund(struct sched *s, struct vcpu_core *vc);
void fair_charge_held(struct sched *s);
void fair_set_running(struct sched *s, struct vcpu_core *vc);
void fair_clear_running(struct sched *s, struct vcpu_core *vc);
bool fair_waiting(const struct vcpu_core *vc);

/* fair_block.c: wakes, blocks and delayed entities. */
void fair_wake(struct sched *s, struct vcpu_core *vc);
void fair_block(struct sched *s, struct vcpu_core *vc, bool sleep);
void fair_sum_leave(struct sched_entity *se);
void fair_undelay_all(struct sched *s, struct vcpu_core *vc);
void fair_release(struct sched *s);

/* pick.c: who gets a lane (earliest eligible virtual deadline). */
struct vcpu_core *fair_pick(struct sched *s);
struct vcpu_core *fair_pick_below(struct sched *s, struct sched_entity *se);
struct vcpu_core *fair_pick_sticky(struct sched *s, struct vcpu_core *r, double gran);
struct vcpu_core *fair_pick_sticky_below(struct sched *s, struct group_core *top,
					 struct vcpu_core *r, double gran);
struct vcpu_core *fair_pick_kept(struct sched *s, struct vcpu_core *r);

#endif
