// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical fairness by fluid rates and per-level virtual time.
 *
 * Rates. Whenever the set of runnable vCPUs or the configuration changes, the fluid ideal is
 * solved for the current demand (1 CPU per runnable vCPU; weights, water-filling and cpu.max caps
 * as in sched/fluid.c). Every runnable entity, vCPU or group, gets its rate: the CPUs it is owed
 * right now; a group's rate is the sum of its children's.
 *
 * Virtual time. Every group keeps its runnable children in a sum and the ones with a waiting
 * vCPU below in a queue ordered by vt; service d advances an entity's vt by d / rate at every
 * level. A lane goes to the vCPU reached by taking the smallest vt at each level from the root
 * down (fair_pick()). Siblings served exactly at their rates keep equal vt, so vt differences
 * are time lags, and every group's usage follows its fluid share at every level.
 *
 * Why rates and not weights: with P lanes, a child whose demand is below its weighted share
 * (one vCPU, or a cap) would under weights fall behind in vt and build up credit; with its
 * rate being what water-filling gives it, it keeps pace, and its siblings' rates already
 * include what it leaves over. A group owed 1.2 CPUs whose one-vCPU child is owed 0.9 keeps a
 * lane as long as that child needs it, because the child's vt, not the group's lane history,
 * decides inside the group.
 *
 * Lag. L = rate * (V - vt) is service owed, V being the rate-weighted mean vt of the runnable
 * siblings. A rate change keeps every L. An entity that stops being runnable keeps its L and
 * gets it back when it becomes runnable again, bounded to [-lag, +lag]: no hoard of credit for
 * a long sleeper, no debt kept forever either.
 *
 * Cost: pick, charge, enqueue are O(depth * log n). Rates are recomputed, O(n), only when
 * runnability or configuration changes.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "sched/fluid.h"

#define RATE_MIN	1e-12
#define RATE_EPS	1e-12
#define DEMAND_TAU_NS	100e6

int fair_init(struct sched *s)
{
	struct sched_core *c = &s->core;

	c->demand = calloc(s->nr_vcpus + 1, sizeof(double));
	c->rate = calloc(s->nr_vcpus + 1, sizeof(double));
	if (!c->demand || !c->rate)
		return -ENOMEM;
	return fair_reserve(s);
}

void fair_exit(struct sched *s)
{
	struct sched_core *c = &s->core;

	free(c->demand);
	free(c->rate);
	free(c->claims);
}

/* Scratch for the rate computation, grown as groups are created so events never allocate. */
int fair_reserve(struct sched *s)
{
	struct sched_core *c = &s->core;
	size_t n = fluid_scratch_size(s) + 1;
	struct fluid_claim *cl;

	if (n <= c->nr_claims)
		return 0;
	n *= 2;
	cl = realloc(c->claims, n * fluid_claim_size());
	if (!cl)
		return -ENOMEM;
	c->claims = cl;
	c->nr_claims = n;
	return 0;
}

static double vclock(const struct group_core *gc)
{
	return gc->sum_r > 0 ? gc->sum_rvt / gc->sum_r : gc->vbase;
}

void fair_rates_changed(struct sched *s)
{
	s->core.rates_dirty = true;
}

/* Only vc's runnability changed: the rates can be redone along its path. */
static void fair_path_changed(struct sched *s, struct vcpu_core *vc)
{
	struct sched_core *c = &s->core;

	if (c->path_dirty && c->path_dirty != vc)
		c->rates_dirty = true;
	c->path_dirty = vc;
}

/*
 * A vCPU's demand in the rates: a whole CPU while runnable; while blocked, the share of recent
 * time it was runnable (an average over DEMAND_TAU_NS). The fluid ideal counts a duty-cycle vCPU
 * by its long-run demand, so its group keeps that part of its share while it sleeps, and when
 * it wakes its group is owed the lane it needs instead of finding its share given away. Too
 * high an estimate costs nothing: service is still work-conserving, and an entity that cannot
 * use its rate only piles up lag, which is bounded (set_rate()).
 */
static double vcpu_demand(const struct vcpu_core *vc)
{
	return vc->se.runnable ? 1.0 : vc->est;
}

static void est_update(struct sched *s, struct vcpu_core *vc, bool was_runnable)
{
	uint64_t now = s->core.now;
	double a = exp(-(double)(now - vc->est_stamp) / DEMAND_TAU_NS);

	vc->est = vc->est * a + (was_runnable ? 1.0 - a : 0.0);
	vc->est_stamp = now;
}

double fair_vcpu_demand(const struct vcpu_core *vc)
{
	return vcpu_demand(vc);
}

static double group_demand(const struct group *g)
{
	const struct sched_vcpu *v;
	const struct group *c;
	double d = 0;

	list_for_each_entry(v, &g->vcpus, group_node)
		d += vcpu_demand(vcore(v));
	list_for_each_entry(c, &g->children, sibling)
		d += gcore(c)->demand;
	if (g->parent && g->quota_us != RUNTIME_INF) {
		double cap = (double)g->quota_us / (double)g->period_us;

		if (cap < d)
			d = cap;
	}
	return d;
}

static void cache_demands(struct group *g)
{
	struct group *c;

	list_for_each_entry(c, &g->children, sibling)
		cache_demands(c);
	gcore(g)->demand = group_demand(g);
}

/* A child's rate changes to r (0 if not runnable): keep its lag around the level's V. */
/*
 * Lag (service) kept across a rate change, bounded by bound (lag_ns), scaled up for entities
 * owed several CPUs: an entity that could not use its rate (demand below it, a reservation of
 * a sleeping vCPU) must not hoard the difference.
 */
static double clamp_lag(double bound, double lag, double r)
{
	double b = bound * (r > 1.0 ? r : 1.0);

	return lag > b ? b : lag < -b ? -b : lag;
}

static void set_rate(struct group_core *gc, struct sched_entity *e, double r, double V,
		     double bound)
{
	if (!e->runnable)
		return;
	if (r < RATE_MIN)
		r = RATE_MIN;
	if (e->rate > 0) {
		gc->sum_rvt -= e->rate * e->vt;
		gc->sum_r -= e->rate;
		e->vt = V - clamp_lag(bound, e->rate * (V - e->vt), r) / r;
	} else {
		e->vt = V;
	}
	e->rate = r;
	gc->sum_rvt += r * e->vt;
	gc->sum_r += r;
	if (heap_queued(&e->node))
		heap_fix(&gc->queue, &e->node);
}

/*
 * Water-fill cap among g's children from the cached demands and change the rates that moved;
 * go down only where a child's capacity moved or its demand changed below it. A wake or a block
 * thus costs the siblings along one path, unless it shifts capacity across whole subtrees.
 */
static void refill_group(struct group *g, double cap, struct fluid_claim *cl, double bound)
{
	struct group_core *gc = gcore(g);
	double V = vclock(gc);
	struct sched_vcpu *v;
	struct group *c;
	unsigned int n = 0, i;

	list_for_each_entry(v, &g->vcpus, group_node) {
		cl[n] = (struct fluid_claim){ .weight = NICE_0_LOAD, .vcpu = v->id };
		cl[n].demand = vcpu_demand(vcore(v));
		cl[n].done = cl[n].demand <= 0;
		n++;
	}
	list_for_each_entry(c, &g->children, sibling) {
		cl[n] = (struct fluid_claim){ .weight = (double)c->shares, .g = c };
		cl[n].demand = gcore(c)->demand;
		cl[n].done = cl[n].demand <= 0;
		n++;
	}
	fluid_water_fill(cl, n, cap);
	i = 0;
	list_for_each_entry(v, &g->vcpus, group_node) {
		struct sched_entity *e = &vcore(v)->se;

		if (fabs(cl[i].got - e->rate) > RATE_EPS)
			set_rate(gc, e, cl[i].got, V, bound);
		i++;
	}
	list_for_each_entry(c, &g->children, sibling) {
		struct group_core *cc = gcore(c);
		bool moved = fabs(cl[i].got - cc->se.rate) > RATE_EPS;

		if (moved || cc->on_path)
			refill_group(c, cl[i].got, cl + n, bound);
		if (moved)
			set_rate(gc, &cc->se, cl[i].got, V, bound);
		cc->on_path = false;
		i++;
	}
	if (gc->sum_r <= RATE_MIN) {
		gc->sum_r = 0;
		gc->sum_rvt = 0;
		gc->vbase = V;
	}
}

static void update_path(struct sched *s, struct vcpu_core *vc)
{
	struct group *g, *root = &s->root;
	double cap;

	for (g = vc->v->group; g; g = g->parent) {
		gcore(g)->demand = group_demand(g);
		gcore(g)->on_path = true;
	}
	cap = gcore(root)->demand < s->nr_lanes ? gcore(root)->demand : s->nr_lanes;
	refill_group(root, cap, s->core.claims, (double)s->core.params.lag_ns);
	gcore(root)->on_path = false;
}

static void zero_rates(struct group *g)
{
	struct group *c;

	gcore(g)->se.new_rate = 0;
	list_for_each_entry(c, &g->children, sibling)
		zero_rates(c);
}

static void retag_child(struct group_core *gc, struct sched_entity *e, double V, double bound)
{
	double r = e->new_rate > RATE_MIN ? e->new_rate : RATE_MIN;

	if (!e->runnable) {
		e->rate = 0;
		return;
	}
	/* Keep the lag rate * (V - vt); an entity new to the sum starts at V. */
	e->vt = e->rate > 0 ? V - clamp_lag(bound, e->rate * (V - e->vt), r) / r : V;
	e->rate = r;
	gc->sum_rvt += r * e->vt;
	gc->sum_r += r;
	if (heap_queued(&e->node))
		heap_fix(&gc->queue, &e->node);
}

static void retag_group(struct group *g, double bound)
{
	struct group_core *gc = gcore(g);
	double V = vclock(gc);
	struct sched_vcpu *v;
	struct group *c;

	gc->sum_rvt = 0;
	gc->sum_r = 0;
	list_for_each_entry(v, &g->vcpus, group_node)
		retag_child(gc, &vcore(v)->se, V, bound);
	list_for_each_entry(c, &g->children, sibling) {
		retag_child(gc, &gcore(c)->se, V, bound);
		retag_group(c, bound);
	}
	if (gc->sum_r <= 0)
		gc->vbase = V;
}

void fair_update_rates(struct sched *s)
{
	struct sched_core *c = &s->core;
	unsigned int i;

	if (!c->rates_dirty) {
		if (c->path_dirty)
			update_path(s, c->path_dirty);
		c->path_dirty = NULL;
		return;
	}
	c->rates_dirty = false;
	c->path_dirty = NULL;
	cache_demands(&s->root);
	for (i = 0; i < s->nr_vcpus; i++)
		c->demand[i] = vcpu_demand(&c->vcpus[i]);
	fluid_solve_scratch(s, c->demand, c->rate, c->claims);
	zero_rates(&s->root);
	for (i = 0; i < s->nr_vcpus; i++) {
		struct group *g;

		c->vcpus[i].se.new_rate = c->rate[i];
		for (g = s->vcpus[i].group; g; g = g->parent)
			gcore(g)->se.new_rate += c->rate[i];
	}
	retag_group(&s->root, (double)c->params.lag_ns);
}

/* Queue se in its parent and, where the parent had nobody waiting, the parent in its own
 * parent, up to the root or a throttled group. */
void fair_enqueue(struct sched *s, struct sched_entity *se)
{
	struct group_core *p;

	(void)s;
	while ((p = se->parent)) {
		bool was_empty = !p->queue.nr;

		heap_insert(&p->queue, &se->node);
		if (!was_empty || p->throttled || !p->se.parent)
			break;
		se = &p->se;
	}
}

void fair_dequeue(struct sched *s, struct sched_entity *se)
{
	struct group_core *gc;

	(void)s;
	while ((gc = se->parent)) {
		heap_remove(&gc->queue, &se->node);
		if (gc->queue.nr)
			break;
		se = &gc->se;
		if (!heap_queued(&se->node))
			break;
	}
}

bool fair_waiting(const struct vcpu_core *vc)
{
	return heap_queued(&vc->se.node);
}

static void sum_remove(struct sched_entity *e)
{
	struct group_core *p = e->parent;
	double V = vclock(p);

	p->sum_rvt -= e->rate * e->vt;
	p->sum_r -= e->rate;
	if (p->sum_r <= RATE_MIN) {
		p->sum_r = 0;
		p->sum_rvt = 0;
		p->vbase = V;
	}
}

/*
 * vc became runnable. Entities on its path that were not runnable become so; after the new
 * rates are in, each gets its saved lag back, bounded by lag (in service).
 */
void fair_wake(struct sched *s, struct vcpu_core *vc)
{
	double bound = (double)s->core.params.lag_ns;
	struct sched_entity *se, *woken[64];
	unsigned int n = 0;

	est_update(s, vc, false);
	for (se = &vc->se; se->parent && !se->runnable; se = &se->parent->se) {
		se->runnable = true;
		se->rate = 0;
		if (n < 64)
			woken[n++] = se;
	}
	fair_path_changed(s, vc);
	fair_update_rates(s);
	while (n--) {
		struct group_core *p;
		double lag;
		double V;

		se = woken[n];
		p = se->parent;
		V = vclock(p);
		lag = se->lag > bound ? bound : se->lag < -bound ? -bound : se->lag;
		p->sum_rvt -= se->rate * se->vt;
		se->vt = V - lag / se->rate;
		p->sum_rvt += se->rate * se->vt;
		if (heap_queued(&se->node))
			heap_fix(&p->queue, &se->node);
	}
}

/* vc stopped being runnable: it, and groups left with nothing runnable, save their lag. */
void fair_block(struct sched *s, struct vcpu_core *vc)
{
	struct sched_entity *se = &vc->se;

	est_update(s, vc, true);
	for (; se->parent; se = &se->parent->se) {
		if (se->is_group && se_group(se)->nr_runnable)
			break;
		se->lag = se->rate * (vclock(se->parent) - se->vt);
		sum_remove(se);
		se->runnable = false;
		se->rate = 0;
	}
	fair_path_changed(s, vc);
	fair_update_rates(s);
}

static void charge_path(struct vcpu_core *vc, double d)
{
	struct sched_entity *se;

	for (se = &vc->se; se->parent; se = &se->parent->se) {
		if (se->rate <= 0) {
			/* Reported after it stopped being runnable: its saved lag pays. */
			se->lag -= d;
			continue;
		}
		se->vt += d / se->rate;
		se->parent->sum_rvt += d;
		if (heap_queued(&se->node))
			heap_fix(&se->parent->queue, &se->node);
	}
}

/*
 * Charge first (scx_flatcg): a vCPU given a lane with a slice end pays for the slice at once,
 * at every level. Lanes handed out at the same moment then see each other: they spread over
 * groups by share instead of all going to whoever was behind, so a group holds its lanes as
 * evenly over time as its share allows. Service first uses up the prepayment; what is left is
 * refunded when the vCPU leaves the lane or nobody waits any more.
 */
void fair_prepay(struct sched *s, struct vcpu_core *vc, uint64_t slice)
{
	(void)s;
	vc->resv += slice;
	charge_path(vc, (double)slice);
}

void fair_refund(struct sched *s, struct vcpu_core *vc)
{
	(void)s;
	if (!vc->resv)
		return;
	charge_path(vc, -(double)vc->resv);
	vc->resv = 0;
}

void fair_charge(struct sched *s, struct vcpu_core *vc, uint64_t delta)
{
	uint64_t used = delta < vc->resv ? delta : vc->resv;

	(void)s;
	vc->resv -= used;
	if (delta > used)
		charge_path(vc, (double)(delta - used));
}

struct vcpu_core *fair_pick(struct sched *s)
{
	struct group_core *gc = gcore(&s->root);

	for (;;) {
		struct heap_node *n = heap_min(&gc->queue);
		struct sched_entity *se;

		if (!n)
			return NULL;
		se = container_of(n, struct sched_entity, node);
		if (!se->is_group)
			return se_vcpu(se);
		gc = se_group(se);
	}
}

/*
 * fair_pick() for a lane whose vCPU r was just put back: at every level where r's path is still
 * queued, r's side keeps the lane unless the first entity is ahead of it by more than gran
 * (time). A near tie is not worth a switch (a kick), and a lane kept inside a group is still
 * handed out by vt further down.
 */
struct vcpu_core *fair_pick_sticky(struct sched *s, struct vcpu_core *r, double gran)
{
	struct sched_entity *path[64], *e;
	struct group_core *gc = gcore(&s->root);
	unsigned int n = 0;
	bool sticky = true;

	for (e = &r->se; e->parent && n < 64; e = &e->parent->se)
		path[n++] = e;
	for (;;) {
		struct heap_node *hn = heap_min(&gc->queue);
		struct sched_entity *se;

		if (!hn)
			return NULL;
		se = container_of(hn, struct sched_entity, node);
		if (sticky && n) {
			struct sched_entity *p = path[--n];

			if (p->parent != gc || !heap_queued(&p->node))
				sticky = false;
			else if (p != se && p->vt - se->vt <= gran)
				se = p;
			else if (p != se)
				sticky = false;
		}
		if (!se->is_group)
			return se_vcpu(se);
		gc = se_group(se);
	}
}

static void running_inc(struct sched_entity *se)
{
	for (; se; se = se->parent ? &se->parent->se : NULL)
		if (!se->nr_running++ && se->parent)
			list_add_tail(&se->run_node, &se->parent->running);
}

static void running_dec(struct sched_entity *se)
{
	for (; se; se = se->parent ? &se->parent->se : NULL)
		if (!--se->nr_running && se->parent)
			list_del(&se->run_node);
}

void fair_set_running(struct sched *s, struct vcpu_core *vc)
{
	if (heap_queued(&vc->se.node))
		fair_dequeue(s, &vc->se);
	running_inc(&vc->se);
}

void fair_clear_running(struct sched *s, struct vcpu_core *vc)
{
	(void)s;
	running_dec(&vc->se);
}
