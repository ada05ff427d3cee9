// SPDX-License-Identifier: GPL-2.0
/*
 * A lane picked again at its rotation end (lanes_repick()): sticky to its holder on a near tie,
 * and where it goes elsewhere, the subtree losing it gives up the lane of its child furthest
 * ahead (lane_victim()). docs/scheduler.md has the reasons.
 */
#include <stdbool.h>

#include "internal.h"

/* e is further ahead than f: larger vt, ties by se_before() (reversed: a total order). */
static bool se_ahead(const struct sched_entity *e, const struct sched_entity *f)
{
	return e->vt > f->vt || (e->vt == f->vt && se_before(f, e));
}

/* e comes after prev in order of vt, furthest ahead first; prev NULL: first. */
static bool ahead_order_after(const struct sched_entity *e, const struct sched_entity *prev)
{
	return !prev || se_ahead(prev, e);
}

static struct vcpu_core *most_served(const struct sched *s, struct sched_entity *se);

/*
 * Among gc's running children ahead of floor (any if NULL), furthest ahead first, the first whose
 * subtree has a lane that may be taken; the vCPU holding it, or NULL.
 */
static struct vcpu_core *served_child(const struct sched *s, struct group_core *gc,
				      const struct sched_entity *floor)
{
	struct sched_entity *e, *best, *prev = NULL;
	struct vcpu_core *x;

	for (;;) {
		best = NULL;
		list_for_each_entry(e, &gc->running, run_node)
			if (ahead_order_after(e, prev) && (!floor || e->vt > floor->vt) &&
			    (!best || se_ahead(e, best)))
				best = e;
		if (!best)
			return NULL;
		x = most_served(s, best);
		if (x)
			return x;
		prev = best;
	}
}

/*
 * Below a running entity, the vCPU reached by the running child furthest ahead at each level,
 * passing over lanes that must be kept (lane_kept()); NULL if every lane below is kept.
 */
static struct vcpu_core *most_served(const struct sched *s, struct sched_entity *se)
{
	struct vcpu_core *vc;

	if (se->is_group)
		return served_child(s, se_group(se), NULL);
	vc = se_vcpu(se);
	return lane_kept(s, &s->core.lanes[vc->lane]) ? NULL : vc;
}

/*
 * r's lane is going to v, so the subtree under their common ancestor on r's side loses a lane.
 * Inside it the lane should come from the child furthest ahead at each level, which need not be
 * r: when a lane's slice ends says nothing about who is ahead. Returns the vCPU that should give
 * its lane up: r, or one ahead of r's side whose lane may be taken (a child whose lanes are all
 * kept is passed over for the next one ahead, not given up for r: the vCPUs behind would pay).
 * *side: the entity on r's path (r itself, or a group above it) that keeps its lane then.
 */
static struct vcpu_core *lane_victim(struct sched *s, struct vcpu_core *r, struct vcpu_core *v,
				     struct sched_entity **side)
{
	struct sched_entity *ev = &v->se, *er = &r->se, *path[SE_PATH_MAX], *e;
	unsigned int n = 0;

	common_level(&ev, &er);
	for (e = &r->se; e != er; e = &e->parent->se)
		path[n++] = e;
	/* path[n - 1] is r's entity just inside er, path[0] is r itself. */
	while (er->is_group && n) {
		struct sched_entity *c = path[--n];
		struct vcpu_core *x = served_child(s, se_group(er), c);

		*side = c;
		if (x)
			return x;
		er = c;
	}
	*side = &r->se;
	return r;
}

void lanes_repick(struct sched *s, unsigned int l)
{
	struct lane *ln = lane_of(s, l);
	struct vcpu_core *r = ln->cur, *v, *x;
	double gran = s->core.min_run;
	struct sched_entity *side;

	if (r)
		lanes_put_back(s, r);
	v = r ? fair_pick_sticky(s, r, gran) : fair_pick(s);
	if (!v)
		return;
	if (r && v != r && (x = lane_victim(s, r, v, &side)) != r) {
		/*
		 * r's side keeps its lane, x gives up its own to whoever is first now. r's turn is
		 * over all the same: inside its side the lane is picked again, as it would have been
		 * had the side been first. Given back to r as such, a vCPU under a group that kept a
		 * lane this way at every rotation end held it for 36 ms, 12 slices, while its 16
		 * siblings waited (`make fuzz-sim` hog-only seed 426: 45 ms where 15.6 are owed).
		 */
		unsigned int lx = (unsigned int)x->lane;
		bool spent = lane_of(s, lx)->pace_spent;

		lanes_put_back(s, x);
		v = side->is_group ? fair_pick_sticky_below(s, se_group(side), r, gran) : r;
		lanes_give(s, l, v ? v : r);
		v = fair_pick(s);
		if (v)
			lanes_give(s, lx, v);
		/*
		 * x given its lane back at once is the same turn: a pace end it spent stays spent.
		 * Cleared, two paced lanes each named the other's holder the victim at their pace
		 * ends, at one instant for ever (`fuzz-sim --kind 4` seed 2287, kind 5 seed 3068).
		 */
		if (v == x)
			lane_of(s, lx)->pace_spent = spent;
		return;
	}
	lanes_give(s, l, v);
}
