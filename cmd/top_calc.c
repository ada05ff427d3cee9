// SPDX-License-Identifier: GPL-2.0
/*
 * What `vsched top` shows for an interval, from two snapshots of a VM: each group's CPU %,
 * throttling and burst deltas, its fluid share at the interval's demand, and per vCPU its CPU %,
 * steal (time runnable without a lane) and the 99th percentile of its waits. Pure functions of
 * the snapshots, so tests/unit/test_top.c checks them on fixed numbers. Formulas: docs/top.md.
 */
#include <stdlib.h>
#include <string.h>

#include "cmd/top.h"
#include "sched/group.h"

#define CGROUP_WEIGHT_DFL	100

/* Counters only grow; one that went back belongs to another group of the same path. */
static double rate_pct(uint64_t before, uint64_t after, double seconds)
{
	return after >= before ? 100.0 * (double)(after - before) / (seconds * 1e6) : 0;
}

static int find_group(const struct top_vm *vm, const char *path, unsigned int hint)
{
	unsigned int i;

	if (hint < vm->nr_groups && !strcmp(vm->groups[hint].path, path))
		return (int)hint;
	for (i = 0; i < vm->nr_groups; i++)
		if (!strcmp(vm->groups[i].path, path))
			return (int)i;
	return -1;
}

static int find_vcpu(const struct top_vm *vm, unsigned int id, unsigned int hint)
{
	unsigned int i;

	if (hint < vm->nr_vcpus && vm->vcpus[hint].id == id)
		return (int)hint;
	for (i = 0; i < vm->nr_vcpus; i++)
		if (vm->vcpus[i].id == id)
			return (int)i;
	return -1;
}

uint64_t top_hist_quantile(const uint64_t *before, const uint64_t *after, double q)
{
	uint64_t nr = 0, need, seen = 0;
	unsigned int b;

	for (b = 0; b < SCHED_WAIT_BUCKETS; b++)
		nr += after[b] >= before[b] ? after[b] - before[b] : 0;
	if (!nr)
		return 0;
	need = (uint64_t)(q * (double)nr);
	if (need >= nr)
		need = nr - 1;
	for (b = 0; b < SCHED_WAIT_BUCKETS; b++) {
		seen += after[b] >= before[b] ? after[b] - before[b] : 0;
		if (seen > need)
			break;
	}
	return sched_wait_bucket_ceil_ns(b);
}

static void vcpu_delta(const struct top_vcpu *a, const struct top_vcpu *b, double seconds,
		       struct top_vstat *v)
{
	v->valid = b->usage_usec >= a->usage_usec && b->wait_usec >= a->wait_usec;
	if (!v->valid)
		return;
	v->cpu_pct = rate_pct(a->usage_usec, b->usage_usec, seconds);
	v->steal_pct = rate_pct(a->wait_usec, b->wait_usec, seconds);
	v->d_waits = b->nr_waits >= a->nr_waits ? b->nr_waits - a->nr_waits : 0;
	v->wait_p99_ns = top_hist_quantile(a->hist, b->hist, 0.99);
}

static void group_delta(const struct top_group *a, const struct top_group *b, double seconds,
			struct top_gstat *g)
{
	g->valid = b->usage_usec >= a->usage_usec;
	if (!g->valid)
		return;
	g->cpu_pct = rate_pct(a->usage_usec, b->usage_usec, seconds);
	g->busy = g->cpu_pct >= TOP_BUSY_PCT;
	g->throttled_pct = rate_pct(a->throttled_usec, b->throttled_usec, seconds);
	g->d_throttled = b->nr_throttled >= a->nr_throttled ? b->nr_throttled - a->nr_throttled : 0;
	g->d_periods = b->nr_periods >= a->nr_periods ? b->nr_periods - a->nr_periods : 0;
	g->d_bursts = b->nr_bursts >= a->nr_bursts ? b->nr_bursts - a->nr_bursts : 0;
	g->burst_ms = b->burst_usec >= a->burst_usec ? (double)(b->burst_usec - a->burst_usec) / 1e3
						      : 0;
}

void top_vm_delta(const struct top_vm *prev, const struct top_vm *cur, double seconds,
		  struct top_gstat *g, struct top_vstat *v)
{
	unsigned int i;
	int j;

	memset(g, 0, cur->nr_groups * sizeof(*g));
	memset(v, 0, cur->nr_vcpus * sizeof(*v));
	if (!prev || seconds <= 0)
		return;
	for (i = 0; i < cur->nr_groups; i++) {
		j = find_group(prev, cur->groups[i].path, i);
		if (j >= 0)
			group_delta(&prev->groups[j], &cur->groups[i], seconds, &g[i]);
	}
	for (i = 0; i < cur->nr_vcpus; i++) {
		const struct top_vcpu *a, *b = &cur->vcpus[i];

		j = find_vcpu(prev, b->id, i);
		if (j < 0)
			continue;
		a = &prev->vcpus[j];
		/* Over the time between its own two reads: its group's file came late or early. */
		vcpu_delta(a, b, a->t_ns && b->t_ns > a->t_ns ? (double)(b->t_ns - a->t_ns) / 1e9
							      : seconds, &v[i]);
	}
	top_fluid(cur, v, g);
}

/*
 * Shares total among n entities by weight, none above its bound; what a bounded one cannot take
 * goes to the others by weight again (progressive filling: max-min fair by weight).
 */
static void water_fill(double total, unsigned int n, const double *w, const double *bound,
		       double *out, bool *fixed)
{
	unsigned int i;
	double sumw;
	bool again = true;

	memset(fixed, 0, n * sizeof(*fixed));
	while (again) {
		again = false;
		sumw = 0;
		for (i = 0; i < n; i++)
			if (!fixed[i])
				sumw += w[i];
		if (sumw <= 0)
			return;
		for (i = 0; i < n; i++) {
			if (fixed[i] || total * w[i] / sumw <= bound[i])
				continue;
			out[i] = bound[i];
			fixed[i] = true;
			total -= bound[i];
			again = true;
		}
	}
	for (i = 0; i < n; i++)
		if (!fixed[i])
			out[i] = total * w[i] / sumw;
}

/* cpu.weight, or for a cpu.idle group the kernel's idle weight (3 of 1024 load units). */
static double group_weight(const struct top_group *grp)
{
	if (grp->idle)
		return (double)CGROUP_WEIGHT_DFL * WEIGHT_IDLEPRIO / NICE_0_LOAD;
	return grp->weight ? grp->weight : CGROUP_WEIGHT_DFL;
}

/* A group's bound: its cpu.max, and what its busy vCPUs asked for. */
static double group_bound(const struct top_group *grp, const struct top_gstat *g)
{
	double b = g->demand_pct;

	if (grp->quota_us != TOP_QUOTA_MAX && grp->period_us) {
		double cap = 100.0 * (double)grp->quota_us / (double)grp->period_us;

		if (cap < b)
			b = cap;
	}
	return b;
}

/*
 * What one lane delivered: what the VM got over the lanes its busy vCPUs could use (the host may
 * give a lane less than a CPU); a CPU without vsched.lanes.
 */
static double lane_pct(const struct top_vm *vm, const struct top_gstat *root, unsigned int busy)
{
	double lane;

	if (!vm->lanes || !busy)
		return 100.0;
	lane = root->cpu_pct / (busy < vm->lanes ? busy : vm->lanes);
	return lane < 100.0 ? lane : 100.0;
}

/*
 * A busy vCPU's demand: the CPU it got plus what its waits for a lane would have given it, at
 * most one lane. A line without the scheduler's fields (no state) asks for a lane.
 */
static double vcpu_demand(const struct top_vcpu *vc, const struct top_vstat *v, double lane)
{
	double d = v->cpu_pct + v->steal_pct * lane / 100.0;

	return !vc->state[0] || d > lane ? lane : d;
}

/*
 * Runnable for 1 % of the interval: ran or waited for a lane. A vCPU starved all along (steal
 * 100, CPU 0) wants a lane: counted by its CPU alone it was idle, and its group's fluid share 0.
 */
static bool vcpu_busy(const struct top_vstat *v)
{
	return v->valid && v->cpu_pct + v->steal_pct >= TOP_BUSY_PCT;
}

void top_fluid(const struct top_vm *vm, struct top_vstat *v, struct top_gstat *g)
{
	unsigned int n = vm->nr_groups + vm->nr_vcpus, p, i, k, busy = 0;
	double *w = calloc(n ? n : 1, 3 * sizeof(double));
	bool *fixed = calloc(n ? n : 1, sizeof(bool));
	int *who = calloc(n ? n : 1, sizeof(int));	/* group index, or -1 - vCPU index */
	double *bound, *out, lane;
	int a;

	for (i = 0; i < vm->nr_groups; i++) {
		g[i].fluid_pct = g[i].demand_pct = 0;
		g[i].nr_busy_vcpus = 0;
	}
	for (i = 0; i < vm->nr_vcpus; i++)
		busy += vcpu_busy(&v[i]);
	lane = vm->nr_groups ? lane_pct(vm, &g[0], busy) : 100.0;
	for (i = 0; i < vm->nr_vcpus; i++) {
		v[i].demand_pct = vcpu_busy(&v[i]) ? vcpu_demand(&vm->vcpus[i], &v[i], lane) : 0;
		for (a = (int)vm->vcpus[i].group; v[i].demand_pct > 0 && a >= 0;
		     a = vm->groups[a].parent) {
			g[a].nr_busy_vcpus++;
			g[a].demand_pct += v[i].demand_pct;
		}
	}
	if (!w || !fixed || !who || !vm->nr_groups || !g[0].valid)
		goto out;
	bound = w + n;
	out = w + 2 * n;
	/* The root's share is what the VM got: the tree splits that. */
	g[0].fluid_pct = g[0].cpu_pct;
	for (p = 0; p < vm->nr_groups; p++) {
		k = 0;
		for (i = p + 1; i < vm->nr_groups; i++) {
			if (vm->groups[i].parent != (int)p || !g[i].valid ||
			    (!g[i].busy && !g[i].nr_busy_vcpus))
				continue;
			w[k] = group_weight(&vm->groups[i]);
			/* busy on its own but no busy vCPU below (each under 1 %): a lane */
			bound[k] = g[i].nr_busy_vcpus ? group_bound(&vm->groups[i], &g[i]) : lane;
			who[k++] = (int)i;
		}
		/* vCPUs right in p compete with p's child groups, each as a weight-100 entity. */
		for (i = 0; i < vm->nr_vcpus; i++) {
			if (vm->vcpus[i].group != p || v[i].demand_pct <= 0)
				continue;
			w[k] = CGROUP_WEIGHT_DFL;
			bound[k] = v[i].demand_pct;
			who[k++] = -1 - (int)i;
		}
		water_fill(g[p].fluid_pct, k, w, bound, out, fixed);
		for (i = 0; i < k; i++)
			if (who[i] >= 0)
				g[who[i]].fluid_pct = out[i];
	}
out:
	free(w);
	free(fixed);
	free(who);
}
