// SPDX-License-Identifier: GPL-2.0
/*
 * Fluid rates of every entity, kept up to date (see sched/fair.c for how they are used).
 *
 * The rates are the fluid ideal (sched/fluid.c) solved for the current demand: a runnable vCPU
 * demands a whole CPU, a blocked one keeps the share of recent time it was runnable. A wake or a
 * block changes demands along one path only, so the water-filling is redone level by level along
 * that path, going down into another subtree only where its capacity moved. Configuration
 * changes and moves redo everything. Every rate change keeps the entity's lag, bounded.
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

void fair_rates_changed(struct sched *s)
{
	s->core.rates_dirty = true;
}

/* Only vc's runnability changed: the rates can be redone along its path. */
void fair_path_changed(struct sched *s, struct vcpu_core *vc)
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

void fair_est_update(struct sched *s, struct vcpu_core *vc, bool was_runnable)
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
 * Lag (service) kept across a rate change or a sleep: credit at most bound (lag_ns) of the
 * entity's own rate, debt at most bound (times the rate above one CPU). Credit must scale with
 * the rate: an entity owed 0.1 % of a CPU would otherwise turn a few ms of credit, gained while
 * its rate was briefly high, into seconds of priority. And an entity that could not use its
 * rate (demand below it, a sleeper's reservation) must not hoard the difference.
 */
double fair_clamp_lag(double bound, double lag, double r)
{
	double credit = bound * r, debt = bound * (r > 1.0 ? r : 1.0);

	return lag > credit ? credit : lag < -debt ? -debt : lag;
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
		e->vt = V - fair_clamp_lag(bound, e->rate * (V - e->vt), r) / r;
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
	double V = fair_vclock(gc);
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
	e->vt = e->rate > 0 ? V - fair_clamp_lag(bound, e->rate * (V - e->vt), r) / r : V;
	e->rate = r;
	gc->sum_rvt += r * e->vt;
	gc->sum_r += r;
	if (heap_queued(&e->node))
		heap_fix(&gc->queue, &e->node);
}

static void retag_group(struct group *g, double bound)
{
	struct group_core *gc = gcore(g);
	double V = fair_vclock(gc);
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
