// SPDX-License-Identifier: GPL-2.0
/*
 * Fairness by flattened fluid rates (flatcg's idea, made exact).
 *
 * The hierarchy is folded into one number per runnable vCPU: its rate, the CPUs it is owed
 * right now by the fluid ideal (fluid_solve_scratch() with demand 1 per runnable vCPU: weights
 * at every level, water-filling, cpu.max caps as demand limits, at most one CPU per vCPU).
 * Each vCPU then has a virtual time vt that service d advances by d / rate, and a lane goes to
 * the waiting vCPU with the smallest vt. Because rates already are the hierarchical shares, any
 * vCPU's lag stays within about a slice, so every group's usage tracks the ideal at every level,
 * however lanes come and go; a per-level scheme cannot guarantee that with P lanes (a group
 * holding 1.2 CPUs gets its lanes in whole units, and a one-vCPU child owed 0.9 of them loses
 * whenever the group is down to none).
 *
 * Lag L = rate * (V - vt) is service owed; V is the rate-weighted mean of the runnable vCPUs'
 * vt, so the L sum to zero. A rate change keeps every L. A vCPU that blocks keeps its L and gets
 * it back on wake, bounded to [-lag, +lag]: no hoard of credit for a long sleeper, no debt kept
 * forever either.
 *
 * Cost: a pick, a charge, an enqueue are O(log n) on one heap. Rates are recomputed, O(n), when
 * the set of runnable vCPUs or the configuration changes, not on picks.
 */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "sched/fluid.h"

#define RATE_MIN	1e-9

static bool waiting_less(const struct heap_node *a, const struct heap_node *b)
{
	const struct vcpu_core *x = container_of(a, struct vcpu_core, node);
	const struct vcpu_core *y = container_of(b, struct vcpu_core, node);

	if (x->vt != y->vt)
		return x->vt < y->vt;
	return x->v->id < y->v->id;
}

int fair_init(struct sched *s)
{
	struct sched_core *c = &s->core;

	heap_init(&c->waiting, waiting_less);
	c->demand = calloc(s->nr_vcpus + 1, sizeof(double));
	c->rate = calloc(s->nr_vcpus + 1, sizeof(double));
	if (!c->demand || !c->rate || heap_reserve(&c->waiting, s->nr_vcpus))
		return -ENOMEM;
	return fair_reserve(s);
}

void fair_exit(struct sched *s)
{
	struct sched_core *c = &s->core;

	heap_free(&c->waiting);
	free(c->demand);
	free(c->rate);
	free(c->claims);
}

/* Scratch for the rate computation, grown when groups are created so picks never allocate. */
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

static double vclock(const struct sched_core *c)
{
	return c->sum_r > 0 ? c->sum_rvt / c->sum_r : (double)c->now;
}

void fair_rates_changed(struct sched *s)
{
	s->core.rates_dirty = true;
}

void fair_update_rates(struct sched *s)
{
	struct sched_core *c = &s->core;
	double V = vclock(c);
	unsigned int i;

	if (!c->rates_dirty)
		return;
	c->rates_dirty = false;
	for (i = 0; i < s->nr_vcpus; i++)
		c->demand[i] = c->vcpus[i].runnable ? 1.0 : 0.0;
	fluid_solve_scratch(s, c->demand, c->rate, c->claims);
	c->sum_rvt = 0;
	c->sum_r = 0;
	for (i = 0; i < s->nr_vcpus; i++) {
		struct vcpu_core *vc = &c->vcpus[i];
		double r = c->rate[i] > RATE_MIN ? c->rate[i] : RATE_MIN;

		if (!vc->runnable)
			continue;
		/* Keep the lag: rate * (V - vt) before and after. */
		vc->vt = V - (V - vc->vt) * vc->rate / r;
		vc->rate = r;
		c->sum_rvt += r * vc->vt;
		c->sum_r += r;
		if (heap_queued(&vc->node))
			heap_fix(&c->waiting, &vc->node);
	}
}

bool fair_path_throttled(const struct sched_vcpu *v)
{
	const struct group *g;

	for (g = v->group; g; g = g->parent)
		if (gcore(g)->throttled)
			return true;
	return false;
}

void fair_enqueue(struct sched *s, struct vcpu_core *vc)
{
	heap_insert(&s->core.waiting, &vc->node);
}

void fair_dequeue(struct sched *s, struct vcpu_core *vc)
{
	heap_remove(&s->core.waiting, &vc->node);
}

bool fair_waiting(const struct vcpu_core *vc)
{
	return heap_queued(&vc->node);
}

/* vc became runnable: new rates, then its saved lag back, bounded. */
void fair_wake(struct sched *s, struct vcpu_core *vc)
{
	struct sched_core *c = &s->core;
	double bound = (double)c->params.lag_ns, lag = vc->lag;

	vc->runnable = true;
	vc->rate = 0;
	fair_rates_changed(s);
	fair_update_rates(s);
	if (lag > bound)
		lag = bound;
	if (lag < -bound)
		lag = -bound;
	c->sum_rvt -= vc->rate * vc->vt;
	vc->vt = vclock(c) - lag / vc->rate;
	c->sum_rvt += vc->rate * vc->vt;
}

void fair_block(struct sched *s, struct vcpu_core *vc)
{
	struct sched_core *c = &s->core;

	vc->lag = vc->rate * (vclock(c) - vc->vt);
	vc->runnable = false;
	fair_rates_changed(s);
	fair_update_rates(s);
	vc->rate = 0;
}

void fair_charge(struct sched *s, struct vcpu_core *vc, uint64_t delta)
{
	struct sched_core *c = &s->core;
	double d = (double)delta;

	if (!vc->runnable || vc->rate <= 0) {
		/* Late report after a block: its saved lag pays for it. */
		vc->lag -= d;
		return;
	}
	vc->vt += d / vc->rate;
	c->sum_rvt += d;
	if (heap_queued(&vc->node))
		heap_fix(&c->waiting, &vc->node);
}

struct vcpu_core *fair_pick(struct sched *s)
{
	struct heap_node *n = heap_min(&s->core.waiting);

	return n ? container_of(n, struct vcpu_core, node) : NULL;
}

void fair_set_running(struct sched *s, struct vcpu_core *vc)
{
	struct group *g;

	if (heap_queued(&vc->node))
		fair_dequeue(s, vc);
	for (g = vc->v->group; g; g = g->parent)
		gcore(g)->nr_running++;
}

void fair_clear_running(struct sched *s, struct vcpu_core *vc)
{
	struct group *g;

	(void)s;
	for (g = vc->v->group; g; g = g->parent)
		gcore(g)->nr_running--;
}
