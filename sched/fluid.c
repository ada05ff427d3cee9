// SPDX-License-Identifier: GPL-2.0
/* The fluid ideal by recursive water-filling; see include/sched/fluid.h. */
#include <errno.h>
#include <stdlib.h>

#include "internal.h"
#include "sched/fluid.h"

/*
 * How caps count: as demand limits of quota / period at `deliver` CPU per lane, or not at all
 * (FLUID_NO_CAPS) with the groups off() says are throttled demanding nothing.
 */
struct fluid_mode {
	double deliver;
	fluid_off_fn off;
	void *arg;
};

/* A group's cap in lanes; -1: none. */
static double cap_of(const struct group *g, const struct fluid_mode *m)
{
	if (g->quota_us == RUNTIME_INF || m->deliver == FLUID_NO_CAPS)
		return -1.0;
	return (double)g->quota_us / (double)g->period_us / m->deliver;
}

/* The vCPUs of g and, when g has no "cpu" in subtree_control, of all its descendants. */
static unsigned int add_vcpu_claims(const struct group *g, const double *demand,
				    struct fluid_claim *cl, unsigned int n)
{
	const struct sched_vcpu *v;
	const struct group *c;

	list_for_each_entry(v, &g->vcpus, group_node) {
		cl[n] = (struct fluid_claim){ .weight = NICE_0_LOAD, .vcpu = v->id };
		cl[n].demand = demand[v->id] > 1.0 ? 1.0 : demand[v->id];
		cl[n].done = cl[n].demand <= 0;
		n++;
	}
	if (!g->subtree_cpu)
		list_for_each_entry(c, &g->children, sibling)
			n = add_vcpu_claims(c, demand, cl, n);
	return n;
}

/*
 * What g competes with inside, as the kernel schedules it: its vCPUs at weight 1024 each, with
 * those of descendants that have no cpu controller (they run in g's task group), and, when g
 * enabled "cpu" for its children, each child group by its weight. Group claims get demand -1:
 * the caller knows it.
 */
unsigned int fluid_claims(const struct group *g, const double *demand, struct fluid_claim *cl)
{
	unsigned int n = add_vcpu_claims(g, demand, cl, 0);
	const struct group *c;

	if (g->subtree_cpu)
		list_for_each_entry(c, &g->children, sibling) {
			cl[n] = (struct fluid_claim){ .weight = (double)c->shares, .g = c };
			cl[n].demand = -1;
			n++;
		}
	return n;
}

static double demand_of(const struct group *g, const double *demand, struct fluid_claim *cl,
			const struct fluid_mode *m)
{
	unsigned int n = fluid_claims(g, demand, cl), i;
	double d = 0, cap = cap_of(g, m);

	if (g->parent && m->off && m->off(g, m->arg))
		return 0;
	for (i = 0; i < n; i++)
		d += cl[i].g ? demand_of(cl[i].g, demand, cl + n, m) : cl[i].demand;
	return g->parent && cap >= 0 && cap < d ? cap : d;
}

double fluid_group_demand(struct sched *s, const struct group *g, const double *demand)
{
	struct fluid_claim *cl = calloc(fluid_scratch_size(s), sizeof(*cl));
	struct fluid_mode m = { .deliver = 1.0 };
	double d;

	if (!cl)
		return 0;
	d = demand_of(g, demand, cl, &m);
	free(cl);
	return d;
}

static double open_weight(const struct fluid_claim *cl, unsigned int n)
{
	double w = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!cl[i].done)
			w += cl[i].weight;
	return w;
}

/*
 * Water-filling of cap among the claims, in place: settle every claim whose demand fits in its
 * weighted share of what is left, until none does; the others split the rest by weight.
 */
void fluid_water_fill(struct fluid_claim *cl, unsigned int n, double cap)
{
	unsigned int i;
	bool again = true;
	double w;

	while (again) {
		again = false;
		w = open_weight(cl, n);
		if (w <= 0)
			return;
		for (i = 0; i < n; i++) {
			if (cl[i].done || cl[i].demand > cap * cl[i].weight / w)
				continue;
			cl[i].got = cl[i].demand;
			cl[i].done = true;
			cap -= cl[i].demand;
			again = true;
		}
		if (cap < 0)
			cap = 0;
	}
	w = open_weight(cl, n);
	for (i = 0; i < n; i++)
		if (!cl[i].done)
			cl[i].got = cap * cl[i].weight / w;
}

/* Claims of g's children go to cl[0..n), deeper levels use the space after them. */
static void fill_group(const struct group *g, double cap, const double *demand, double *rate,
		       struct fluid_claim *cl, const struct fluid_mode *m)
{
	unsigned int n = fluid_claims(g, demand, cl), i;

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		if (cl[i].g) {
			cl[i].demand = demand_of(cl[i].g, demand, cl + n, m);
			cl[i].done = cl[i].demand <= 0;
		}
	}
	fluid_water_fill(cl, n, cap);
	for (i = 0; i < n; i++) {
		if (cl[i].g)
			fill_group(cl[i].g, cl[i].got, demand, rate, cl + n, m);
		else
			rate[cl[i].vcpu] = cl[i].got;
	}
}

size_t fluid_claim_size(void)
{
	return sizeof(struct fluid_claim);
}

size_t fluid_scratch_size(struct sched *s)
{
	/* Every vCPU and every group is a claim once; root's own entry is not needed. */
	return (size_t)s->nr_vcpus + s->root.nr_descendants + 1;
}

static void solve(struct sched *s, const double *demand, double *rate,
		  struct fluid_claim *scratch, const struct fluid_mode *m)
{
	struct group *root = sched_root(s);
	double total = demand_of(root, demand, scratch, m);
	unsigned int i;

	for (i = 0; i < s->nr_vcpus; i++)
		rate[i] = 0;
	fill_group(root, total < s->nr_lanes ? total : s->nr_lanes, demand, rate, scratch, m);
}

/*
 * The core's rates: a throttled group demands nothing until its refill, unless the reference
 * would not have throttled it (sched/bandwidth_ref.c, bw_ref_throttle_credit()).
 */
static bool core_throttled(const struct group *g, void *arg)
{
	(void)arg;
	return gcore(g)->throttled && !gcore(g)->throttle_kept;
}

void fluid_solve_scratch(struct sched *s, const double *demand, double *rate,
			 struct fluid_claim *scratch, double deliver)
{
	struct fluid_mode m = { .deliver = deliver };

	if (deliver == FLUID_NO_CAPS)
		m.off = core_throttled;
	solve(s, demand, rate, scratch, &m);
}

int fluid_solve(struct sched *s, const double *demand, double *rate)
{
	return fluid_solve_delivered(s, demand, rate, 1.0);
}

/*
 * Solved in lanes and converted back: a vCPU can use at most one lane (deliver CPUs), its demand
 * in lanes is demand / deliver; caps (when m counts them) are absolute, quota / period / deliver
 * lanes.
 */
static int solve_delivered(struct sched *s, const double *demand, double *rate, double deliver,
			   struct fluid_mode *m)
{
	struct fluid_claim *scratch;
	double *d;
	unsigned int i;

	if (!(deliver > 0 && deliver <= 1))
		return -EINVAL;
	scratch = calloc(fluid_scratch_size(s), sizeof(*scratch));
	d = calloc(s->nr_vcpus + 1, sizeof(*d));
	if (!scratch || !d) {
		free(scratch);
		free(d);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_vcpus; i++)
		d[i] = demand[i] / deliver > 1.0 ? 1.0 : demand[i] / deliver;
	if (m->deliver != FLUID_NO_CAPS)
		m->deliver = deliver;
	solve(s, d, rate, scratch, m);
	for (i = 0; i < s->nr_vcpus; i++)
		rate[i] *= deliver;
	free(scratch);
	free(d);
	return 0;
}

int fluid_solve_delivered(struct sched *s, const double *demand, double *rate, double deliver)
{
	struct fluid_mode m = { .deliver = deliver };

	return solve_delivered(s, demand, rate, deliver, &m);
}

int fluid_solve_pools(struct sched *s, const double *demand, double *rate, double deliver,
		      fluid_off_fn off, void *arg)
{
	struct fluid_mode m = { .deliver = FLUID_NO_CAPS, .off = off, .arg = arg };

	return solve_delivered(s, demand, rate, deliver, &m);
}

double fluid_group_rate(struct sched *s, const struct group *g, const double *rate)
{
	const struct sched_vcpu *v;
	const struct group *c;
	double r = 0;

	list_for_each_entry(v, &g->vcpus, group_node)
		r += rate[v->id];
	list_for_each_entry(c, &g->children, sibling)
		r += fluid_group_rate(s, c, rate);
	return r;
}
