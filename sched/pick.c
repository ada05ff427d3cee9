// SPDX-License-Identifier: GPL-2.0
/*
 * Who gets a lane: EEVDF's earliest eligible virtual deadline, level by level from the root
 * (the queues, virtual times and rates are sched/fair.c's and sched/rates.c's).
 *
 * Eligible: not ahead of the level by more than a slice of its own service, V being the level's
 * rate-weighted mean vt, or the mean over the other children that can still change their lag,
 * if that is further on. When nothing waiting is eligible, lanes still do not idle: the lane
 * goes to the waiting vCPU whose path becomes eligible first. docs/scheduler.md §3 has the
 * reasons.
 */
#include <math.h>

#include "internal.h"
#include "util/compiler.h"

#define HELD_EPS	1e-9	/* lanes held vs rate: equal up to rounding */
#define PACED_AHEAD	1e300	/* ahead() of a paced group: after any other waiter */

/*
 * A level as the pick sees it. Its V is the rate-weighted mean vt of every runnable child; the
 * competing V leaves out the children holding lanes with nothing waiting below them at no more
 * lanes than their rate: they are served at most at their rate, so their credit cannot be
 * repaid while they stay so (a vCPU owed a whole CPU is the common case), and counted in V it
 * made every waiting sibling look ahead. Its sums are computed only when needed (a scan of the
 * running children: at most one per lane).
 */
struct level {
	const struct group_core *gc;
	double V, rvt_c, r_c;
	double slice;		/* the slice, as eligible() compares it */
	bool has_vc;
};

static void level_init(struct level *lv, const struct sched *s, const struct group_core *gc)
{
	lv->gc = gc;
	lv->V = fair_vclock(gc);
	lv->slice = s->core.slice;
	lv->has_vc = false;
}

/* The competing V: the mean over the children that can still change their lag, or V. */
static double level_vc(struct level *lv)
{
	struct sched_entity *c;

	if (!lv->has_vc) {
		lv->rvt_c = lv->gc->sum_rvt;
		lv->r_c = lv->gc->sum_r;
		list_for_each_entry(c, &lv->gc->running, run_node) {
			if (heap_queued(&c->node) || c->rate <= 0 ||
			    c->nr_running > c->rate + HELD_EPS)
				continue;
			lv->rvt_c -= c->rate * c->vt;
			lv->r_c -= c->rate;
		}
		lv->has_vc = true;
	}
	return lv->r_c > RATE_MIN && lv->rvt_c / lv->r_c > lv->V ? lv->rvt_c / lv->r_c : lv->V;
}

/*
 * The competing V a waiting child e is measured against: the mean over the *other* children
 * that can still change their lag, or V if that is not further on. Never against itself: when
 * all its siblings hold lanes at their rate, the mean that counted e was e's own vt, and e was
 * eligible however far ahead. A group holding more lanes than its rate then took another by its
 * deadline and handed it, inside, to a cpu.idle child deep in debt (docs/scheduler.md §10).
 * e is queued, hence in its level's sums.
 */
static __noinline double level_vc_others(struct level *lv, const struct sched_entity *e)
{
	double rvt, r;

	level_vc(lv);
	rvt = lv->rvt_c - e->rate * e->vt;
	r = lv->r_c - e->rate;
	return r > RATE_MIN && rvt / r > lv->V ? rvt / r : lv->V;
}

/*
 * Eligible (EEVDF's word): not ahead of its level's V, or of the competing V, by more than a
 * slice of its own service. A group whose only waiters are far ahead does not take a lane for
 * them while anyone else is eligible; otherwise a child that is the only one waiting in a group
 * owed lanes (say, while a sibling in debt is delayed) would take the group's whole share.
 */
/*
 * A capped group paced by its pool whose pool would not carry one more lane for min_run
 * (bw_pool_paced()): it takes none while anyone else waits, eligible or not (its vCPUs would
 * draw the pool early and leave a lane idle at the throttle that the reference uses).
 */
static bool paced(const struct sched *s, const struct sched_entity *e)
{
	const struct group_core *gc = container_of(e, struct group_core, se);

	return e->is_group && gc->bw_enabled && bw_pool_paced(s, gc, e->nr_running);
}

/*
 * On every level of every pick: inline, the rare parts (a capped group, an entity ahead of V)
 * out of line, and the slice in the level, converted once.
 */
static inline bool eligible(const struct sched *s, struct level *lv, const struct sched_entity *e)
{
	if (paced(s, e))
		return false;
	return e->rate <= 0 || (e->vt - lv->V) * e->rate <= lv->slice ||
	       (e->vt - level_vc_others(lv, e)) * e->rate <= lv->slice;
}

/*
 * How far (vt) e is from eligible, 0 if it is: the time it takes at its level's pace. Measured
 * from the level's competing V, one mark for every waiter, so that pick_soonest() ranks them
 * alike: from each one's own mark of the others, a waiter far ahead beside siblings that held
 * credit looked further off than it was (`make fuzz-sim` caps of 10 ms, seeds 0-499: 17 over
 * 0.5 % against 13).
 */
static double ahead(const struct sched *s, struct level *lv, const struct sched_entity *e)
{
	double d;

	if (paced(s, e))
		return PACED_AHEAD;
	if (eligible(s, lv, e))
		return 0;
	d = e->vt - lv->slice / e->rate - level_vc(lv);
	return d > 0 ? d : 0;
}

static struct vcpu_core *pick_in(struct sched *s, struct group_core *gc);

static struct vcpu_core *pick_entity(struct sched *s, struct level *lv, struct sched_entity *se)
{
	if (!eligible(s, lv, se))
		return NULL;
	return se->is_group ? pick_in(s, se_group(se)) : se_vcpu(se);
}

/* pick_in() on a level already set up, whose queue is not empty. */
static struct vcpu_core *pick_level(struct sched *s, struct level *lv)
{
	const struct group_core *gc = lv->gc;
	struct sched_entity *first, *prev;
	struct vcpu_core *vc;
	unsigned int i;

	first = container_of(heap_min(&gc->queue), struct sched_entity, node);
	vc = pick_entity(s, lv, first);
	if (vc)
		return vc;
	/*
	 * Rare: try the others in deadline order (a scan per try; queues are short). The heap
	 * breaks deadline ties by its history, so first need not lead its ties in dl_before().
	 */
	for (prev = first;;) {
		struct sched_entity *next = NULL;

		for (i = 0; i < gc->queue.nr; i++) {
			struct sched_entity *e = container_of(gc->queue.a[i], struct sched_entity,
							      node);

			if (!dl_before(prev, e))
				continue;
			if (!next || dl_before(e, next))
				next = e;
		}
		if (!next)
			return NULL;
		vc = pick_entity(s, lv, next);
		if (vc)
			return vc;
		prev = next;
	}
}

/* The eligible waiting vCPU reached by the earliest eligible deadline at every level, or NULL. */
static struct vcpu_core *pick_in(struct sched *s, struct group_core *gc)
{
	struct level lv;

	if (!gc->queue.nr)
		return NULL;
	level_init(&lv, s, gc);
	return pick_level(s, &lv);
}

/*
 * Nothing eligible: the waiting vCPU whose whole path becomes eligible first. An entity ahead()
 * of eligibility by d gets there in about d of time (its level's V advances at the pace of real
 * time while the level is served at its rate); a path gets there when its last entity does. Ties
 * by deadline. The earliest deadline regardless of eligibility (the first design) went on down
 * into children far ahead: a group that got a lane beyond its rate handed it, inside, to a child
 * owed a few per mille (issue 13: an idle group got a third of a lane).
 */
static struct vcpu_core *pick_soonest(struct sched *s, struct group_core *gc, double *when)
{
	double best = HUGE_VAL;
	struct sched_entity *bse = NULL;
	struct vcpu_core *pick = NULL;
	struct level lv;
	unsigned int i;

	level_init(&lv, s, gc);
	for (i = 0; i < gc->queue.nr; i++) {
		struct sched_entity *e = container_of(gc->queue.a[i], struct sched_entity, node);
		double t = ahead(s, &lv, e);
		struct vcpu_core *vc;

		if (t > best || (t == best && bse && !dl_before(e, bse)))
			continue;
		if (e->is_group) {
			double below;

			vc = pick_soonest(s, se_group(e), &below);
			if (!vc)
				continue;
			if (below > t)
				t = below;
			if (t > best || (t == best && bse && !dl_before(e, bse)))
				continue;
		} else {
			vc = se_vcpu(e);
		}
		pick = vc;
		best = t;
		bse = e;
	}
	*when = best;
	return pick;
}

/* fair_pick() inside se's subtree: the waiting vCPU se or the pick below group se, or NULL. */
struct vcpu_core *fair_pick_below(struct sched *s, struct sched_entity *se)
{
	struct vcpu_core *vc;
	double when;

	if (!se->is_group)
		return heap_queued(&se->node) ? se_vcpu(se) : NULL;
	vc = pick_in(s, se_group(se));
	return vc ? vc : pick_soonest(s, se_group(se), &when);
}

struct vcpu_core *fair_pick(struct sched *s)
{
	struct vcpu_core *vc = pick_in(s, gcore(&s->root));
	double when;

	return vc ? vc : pick_soonest(s, gcore(&s->root), &when);
}

/*
 * A side holding fewer lanes than the whole lanes its rate gives it (a group owed 1.24 CPUs
 * holding none): GPS serves it at least that many lanes at every instant.
 */
static bool owed_whole_lane(const struct sched_entity *p)
{
	return p->is_group && p->nr_running + 1 <= p->rate + HELD_EPS;
}

/*
 * What v is owed in all, from the level where top competes down: top's lag there, then at every
 * level below the lag against its group's V moved by the group's own lag (what the children's
 * lags add up to), as rates.c's due clock. A group ahead of its siblings may hold a vCPU owed
 * service: the group's surplus lies with another child. Negative for a v not below top.
 */
static double owed_from(const struct sched_entity *top, const struct vcpu_core *v)
{
	const struct sched_entity *path[SE_PATH_MAX], *e;
	double W = fair_vclock(top->parent), lag = 0;
	unsigned int n = 0;

	for (e = &v->se; e != top; e = &e->parent->se) {
		if (!e->parent)
			return -1;	/* not below top: the pick went elsewhere */
		path[n++] = e;
	}
	path[n++] = top;
	while (n) {
		const struct group_core *gc;

		e = path[--n];
		lag = e->rate * (W - e->vt);
		if (!e->is_group)
			break;
		gc = container_of(e, struct group_core, se);
		W = fair_vclock(gc) + (gc->sum_r > RATE_MIN ? lag / gc->sum_r : 0);
	}
	return lag;
}

/*
 * fair_pick_below(from) for a lane whose vCPU r, below the group from, was just put back: at
 * every level where r's path is still queued, r's side keeps the lane unless the first entity is
 * ahead of it by more than gran (time). A near tie is not worth a switch (a kick), and a lane
 * kept inside a group is still handed out by vt further down. With whole, a side owed a whole
 * lane it would lose keeps it too (*top: the first such side the rule above would not have
 * kept).
 */
static struct vcpu_core *pick_sticky(struct sched *s, struct group_core *from,
				     struct vcpu_core *r, double gran, bool whole,
				     struct sched_entity **top)
{
	struct sched_entity *path[SE_PATH_MAX], *e;
	struct group_core *gc = from;
	struct vcpu_core *vc;
	struct level lv;
	unsigned int n = 0;

	for (e = &r->se; e != &from->se; e = &e->parent->se)
		path[n++] = e;
	/* r's path ends at r, which is returned or breaks the loop: lv is gc's at the break. */
	for (;;) {
		struct heap_node *hn = heap_min(&gc->queue);
		struct sched_entity *first, *p = path[--n];

		if (!hn)
			return NULL;
		level_init(&lv, s, gc);
		first = container_of(hn, struct sched_entity, node);
		if (p->parent != gc || !heap_queued(&p->node))
			break;
		if (!eligible(s, &lv, p) || (p != first && p->vt - first->vt > gran)) {
			if (!whole || !owed_whole_lane(p))
				break;
			if (!*top)
				*top = p;
		}
		if (!p->is_group)
			return se_vcpu(p);
		gc = se_group(p);
	}
	vc = pick_level(s, &lv);
	return vc ? vc : fair_pick_below(s, &from->se);
}

struct vcpu_core *fair_pick_sticky_below(struct sched *s, struct group_core *top,
					 struct vcpu_core *r, double gran)
{
	return pick_sticky(s, top, r, gran, false, NULL);
}

/*
 * A side owed a whole lane keeps it at a rotation end when the vCPU it goes to below is owed
 * service in all: taken for the side's surplus, it went to a vCPU that could never catch up
 * (one vCPU runs on one lane at most), and the side's catch-up went to the sibling whose
 * surplus it was (`make fuzz-sim` kind 2 seed 1390: docs/scheduler.md §10).
 */
struct vcpu_core *fair_pick_sticky(struct sched *s, struct vcpu_core *r, double gran)
{
	struct sched_entity *top = NULL;
	struct vcpu_core *vc = pick_sticky(s, gcore(&s->root), r, gran, true, &top);

	if (top && (!vc || owed_from(top, vc) < 0))
		vc = pick_sticky(s, gcore(&s->root), r, gran, false, NULL);
	return vc;
}

/*
 * fair_pick() for a lane r just left by blocking: from the root down r's path, a side with a
 * waiter owed a whole lane it no longer holds keeps the lane, for a vCPU below owed service in
 * all (fair_pick_sticky()).
 */
struct vcpu_core *fair_pick_kept(struct sched *s, struct vcpu_core *r)
{
	struct sched_entity *path[SE_PATH_MAX], *e, *p = NULL, *top = NULL;
	struct vcpu_core *vc;
	unsigned int n = 0;

	for (e = &r->se; e->parent; e = &e->parent->se)
		path[n++] = e;
	while (n) {
		e = path[--n];
		if (!heap_queued(&e->node) || !owed_whole_lane(e))
			break;
		if (!top)
			top = e;
		p = e;
	}
	if (!p)
		return fair_pick(s);
	vc = fair_pick_below(s, p);
	return vc && owed_from(top, vc) >= 0 ? vc : fair_pick(s);
}
