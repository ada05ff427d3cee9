// SPDX-License-Identifier: GPL-2.0
/*
 * Handing out lanes. A lane runs one vCPU until its slice end: the rotation end (slice after it
 * got the lane, only while some vCPU waits) or the moment a capped ancestor's pool runs dry,
 * whichever is first. With nobody waiting and no cap there is no slice end at all, so the
 * runtime never interrupts a vCPU for nothing.
 *
 * When a vCPU starts waiting and every lane is busy, one lane may be taken at once: from a
 * cpu.idle sibling always, otherwise from the vCPU the waiter beats by virtual time, provided
 * that vCPU ran at least min_run on its lane (credit2's ratelimit). The other lanes get a
 * rotation end so that the waiter's turn comes within a slice.
 */
#include <stdlib.h>

#include "internal.h"

static struct lane *lane_of(struct sched *s, unsigned int l)
{
	return &s->core.lanes[l];
}

static void lane_give(struct sched *s, unsigned int l, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, l);

	ln->cur = vc;
	ln->start = s->core.now;
	ln->rot_until = SCHED_TIME_NONE;
	vc->lane = (int)l;
	fair_set_running(s, vc);
}

/* Takes vc off its lane and, if still runnable, queues it again (as a lane given back). */
void lanes_put_back(struct sched *s, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, vc->lane);

	ln->cur = NULL;
	ln->rot_until = SCHED_TIME_NONE;
	vc->lane = -1;
	fair_clear_running(s, vc);
	if (vc->runnable)
		fair_enqueue(s, &vc->se, false);
}

void lanes_repick(struct sched *s, unsigned int l)
{
	struct lane *ln = lane_of(s, l);
	struct vcpu_core *vc;

	if (ln->cur)
		lanes_put_back(s, ln->cur);
	vc = fair_pick(s);
	if (vc)
		lane_give(s, l, vc);
}

static unsigned int se_depth(const struct sched_entity *se)
{
	unsigned int d = 0;

	for (; se->parent; se = &se->parent->se)
		d++;
	return d;
}

/* The two entities under the deepest common ancestor of a and b. */
static void common_level(struct sched_entity **a, struct sched_entity **b)
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

static bool path_throttled(const struct sched_entity *se)
{
	const struct group_core *gc;

	for (gc = se->is_group ? se_group((struct sched_entity *)se) : se->parent; gc;
	     gc = gc->se.parent)
		if (gc->throttled)
			return true;
	return false;
}

void lanes_waiter_arrived(struct sched *s, struct sched_entity *se)
{
	struct sched_core *c = &s->core;
	uint64_t best_key = 0;
	int best = -1;
	unsigned int l;

	if (path_throttled(se))
		return;
	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		struct sched_entity *ew = se, *er;
		uint64_t key;

		if (!ln->cur)
			return;		/* a free lane: lanes_settle() fills it */
		er = &ln->cur->se;
		if (er == se)
			continue;
		common_level(&ew, &er);
		if (er->idle && !ew->idle) {
			best = (int)l;
			break;
		}
		if (c->now < ln->start + c->params.min_run_ns)
			continue;
		if (!vtime_before(ew->vtime, er->vtime))
			continue;
		/* How far behind the waiter is, in its own service. */
		key = (er->vtime - ew->vtime) * ew->weight / NICE_0_LOAD + 1;
		if (key > best_key) {
			best_key = key;
			best = (int)l;
		}
	}
	if (best >= 0)
		lanes_repick(s, (unsigned int)best);
}

void lanes_expire(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);

		if (ln->cur && ln->rot_until <= s->core.now)
			lanes_repick(s, l);
	}
}

/* Fill free lanes, then give every busy lane the slice end the situation calls for. */
void lanes_settle(struct sched *s)
{
	struct sched_core *c = &s->core;
	struct vcpu_core *vc;
	unsigned int l;
	bool waiters;

	for (l = 0; l < s->nr_lanes; l++) {
		if (lane_of(s, l)->cur)
			continue;
		vc = fair_pick(s);
		if (!vc)
			break;
		lane_give(s, l, vc);
	}
	waiters = gcore(&s->root)->queue.nr > 0;
	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);

		if (!ln->cur)
			continue;
		if (!waiters)
			ln->rot_until = SCHED_TIME_NONE;
		else if (ln->rot_until == SCHED_TIME_NONE)
			ln->rot_until = ln->start + c->params.slice_ns > c->now ?
						ln->start + c->params.slice_ns :
						c->now + c->params.slice_ns;
		ln->bw_until = c->nr_bw_groups ? bw_lane_until(s, ln->cur) : SCHED_TIME_NONE;
	}
}

static uint64_t lane_until(const struct lane *ln)
{
	return ln->rot_until < ln->bw_until ? ln->rot_until : ln->bw_until;
}

static void emit_lane(struct sched *s, enum sched_decision_type type, unsigned int l,
		      struct vcpu_core *vc, uint64_t until)
{
	struct sched_decision d = {
		.type = type, .lane = l, .vcpu = vc->v->id, .until = until,
	};
	struct sched_core *c = &s->core;

	if (c->nr_dec == c->cap_dec) {
		size_t cap = c->cap_dec ? 2 * c->cap_dec : 64;
		struct sched_decision *n = realloc(c->dec, cap * sizeof(*n));

		if (!n)
			return;	/* the lane state stays right; sched_lane_*() still tell */
		c->dec = n;
		c->cap_dec = cap;
	}
	c->dec[c->nr_dec++] = d;
}

/*
 * Tell the runtime what changed since it was last told. Lanes are interchangeable permits, so a
 * vCPU that was re-granted a lane is first moved back to the lane it was told about: no kick for
 * a vCPU that keeps running.
 */
void lanes_flush(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);

		while (ln->cur && ln->cur->told_lane >= 0 && ln->cur->told_lane != (int)l) {
			struct lane *other = lane_of(s, ln->cur->told_lane), tmp;

			tmp = *other;
			other->cur = ln->cur;
			other->start = ln->start;
			other->rot_until = ln->rot_until;
			other->bw_until = ln->bw_until;
			ln->cur = tmp.cur;
			ln->start = tmp.start;
			ln->rot_until = tmp.rot_until;
			ln->bw_until = tmp.bw_until;
			other->cur->lane = (int)(other - s->core.lanes);
			if (ln->cur)
				ln->cur->lane = (int)l;
		}
	}
	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		uint64_t until = lane_until(ln);

		if (ln->told_cur != ln->cur) {
			if (ln->told_cur) {
				if (ln->told_cur->runnable)
					emit_lane(s, SCHED_PREEMPT, l, ln->told_cur, 0);
				ln->told_cur->told_lane = -1;
			}
			if (ln->cur) {
				emit_lane(s, SCHED_RUN, l, ln->cur, until);
				ln->cur->told_lane = (int)l;
				s->core.nr_switches++;
			}
			ln->told_cur = ln->cur;
			ln->told_until = until;
		} else if (ln->cur && until != ln->told_until) {
			emit_lane(s, SCHED_RETIME, l, ln->cur, until);
			ln->told_until = until;
		}
	}
}
