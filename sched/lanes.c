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

/* Takes vc off its lane and, if it may still run, makes it wait for one again. */
void lanes_put_back(struct sched *s, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, vc->lane);

	ln->cur = NULL;
	ln->rot_until = SCHED_TIME_NONE;
	vc->lane = -1;
	fair_clear_running(s, vc);
	if (vc->runnable && !fair_path_throttled(vc->v))
		fair_enqueue(s, vc);
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

/* The deepest group holding both a and b. */
static const struct group *common_group(const struct group *a, const struct group *b)
{
	while (a->depth > b->depth)
		a = a->parent;
	while (b->depth > a->depth)
		b = b->parent;
	while (a != b) {
		a = a->parent;
		b = b->parent;
	}
	return a;
}

/* The child of anc on the way down to g, or NULL if g is anc. */
static const struct group *child_towards(const struct group *anc, const struct group *g)
{
	if (g == anc)
		return NULL;
	while (g->parent != anc)
		g = g->parent;
	return g;
}

/*
 * cpu.idle: where the waiter's and the runner's paths part, a non-idle waiter side beats an idle
 * runner side at once, whatever the runner's slice protection (check_preempt_wakeup_fair()).
 */
static bool idle_preempts(const struct vcpu_core *w, const struct vcpu_core *r)
{
	const struct group *c = common_group(w->v->group, r->v->group);
	const struct group *gw = child_towards(c, w->v->group);
	const struct group *gr = child_towards(c, r->v->group);

	return gr && gr->idle && !(gw && gw->idle);
}

/*
 * A vCPU is waiting while every lane is busy: take a lane at once from a cpu.idle side, or from
 * the running vCPU furthest ahead in virtual time if the waiter is behind it and it ran at least
 * min_run. Repeats while that changes something (several may have started waiting at once).
 */
void lanes_preempt_check(struct sched *s)
{
	struct sched_core *c = &s->core;
	unsigned int l, rounds;

	for (rounds = 0; rounds < s->nr_lanes; rounds++) {
		struct vcpu_core *w = fair_pick(s);
		int victim = -1;

		if (!w)
			return;
		for (l = 0; l < s->nr_lanes; l++) {
			struct lane *ln = lane_of(s, l);

			if (!ln->cur)
				return;		/* a free lane: lanes_settle() fills it */
			if (c->nr_idle_groups && idle_preempts(w, ln->cur)) {
				lanes_put_back(s, ln->cur);
				lane_give(s, l, w);
				victim = -2;
				break;
			}
			if (c->now < ln->start + c->params.min_run_ns || !(w->vt < ln->cur->vt))
				continue;
			if (victim < 0 || lane_of(s, victim)->cur->vt < ln->cur->vt)
				victim = (int)l;
		}
		if (victim == -1)
			return;
		if (victim >= 0)
			lanes_repick(s, (unsigned int)victim);
	}
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
	waiters = c->waiting.nr > 0;
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
