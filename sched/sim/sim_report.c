// SPDX-License-Identifier: GPL-2.0
/* The simulator's report and result accessors. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim_types.h"

double sim_capacity_ns(const struct sim_result *r)
{
	return (double)r->lanes * (double)r->duration;
}

static double err_pct(const struct sim_result *r, double usage, double ideal)
{
	return fabs(usage - ideal) * 100.0 / sim_capacity_ns(r);
}

double sim_max_group_error(const struct sim_result *r)
{
	double m = 0;
	unsigned int i;

	for (i = 1; i < r->nr_groups; i++) {
		double e = err_pct(r, r->groups[i].usage, r->groups[i].ideal);

		if (e > m)
			m = e;
	}
	return m;
}

/*
 * Each vCPU against its own ideal: a group's metric cannot see a vCPU in the root (the root's
 * usage is everything run) nor one vCPU of a group shorted to its siblings' gain.
 */
double sim_max_vcpu_error(const struct sim_result *r)
{
	double m = 0;
	unsigned int i;

	for (i = 0; i < r->nr_vcpus; i++) {
		double e = err_pct(r, r->vcpus[i].usage, r->vcpus[i].ideal);

		if (e > m)
			m = e;
	}
	return m;
}

static const struct sim_group_result *find(const struct sim_result *r, const char *path)
{
	unsigned int i;

	for (i = 0; i < r->nr_groups; i++)
		if (!strcmp(r->groups[i].path, path))
			return &r->groups[i];
	return NULL;
}

int sim_group_usage(const struct sim_result *r, const char *path, double *usage_ns,
		    double *ideal_ns)
{
	const struct sim_group_result *g = find(r, path);

	if (!g)
		return -ENOENT;
	*usage_ns = g->usage;
	*ideal_ns = g->ideal;
	return 0;
}

int sim_group_stat(const struct sim_result *r, const char *path, struct cpu_stat *st)
{
	const struct sim_group_result *g = find(r, path);

	if (!g)
		return -ENOENT;
	*st = g->stat;
	return 0;
}

size_t sim_group_periods(const struct sim_result *r, const char *path, const double **usage)
{
	const struct sim_group_result *g = find(r, path);

	if (!g)
		return 0;
	*usage = g->period_usage;
	return g->nr_periods;
}

int sim_vcpu_usage(const struct sim_result *r, unsigned int id, double *usage_ns,
		   double *ideal_ns)
{
	if (id >= r->nr_vcpus)
		return -ENOENT;
	*usage_ns = r->vcpus[id].usage;
	*ideal_ns = r->vcpus[id].ideal;
	return 0;
}

unsigned long sim_preemptions(const struct sim_result *r)
{
	return r->preemptions;
}

unsigned long sim_timer_wakeups(const struct sim_result *r)
{
	return r->timer_wakeups;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t sim_wake_quantile(const struct sim_result *r, double q, size_t *nr)
{
	uint64_t *a, v;
	size_t i;

	*nr = r->nr_wake;
	if (!r->nr_wake)
		return 0;
	a = malloc(r->nr_wake * sizeof(*a));
	if (!a)
		return 0;
	memcpy(a, r->wake_ns, r->nr_wake * sizeof(*a));
	qsort(a, r->nr_wake, sizeof(*a), cmp_u64);
	i = (size_t)(q * (double)r->nr_wake);
	v = a[i < r->nr_wake ? i : r->nr_wake - 1];
	free(a);
	return v;
}

unsigned long sim_min_run_violations(const struct sim_result *r)
{
	return r->min_run_violations;
}

static void fmt_max(char *buf, size_t len, const struct sim_group_result *g)
{
	if (g->quota_us == RUNTIME_INF)
		snprintf(buf, len, "max %llu", (unsigned long long)g->period_us);
	else
		snprintf(buf, len, "%llu %llu", (unsigned long long)g->quota_us,
			 (unsigned long long)g->period_us);
}

void sim_report(const struct sim_result *r, FILE *f)
{
	unsigned int i;

	fprintf(f, "simulated %.3f s on %u lanes (capacity %.3f CPU-s)", (double)r->duration / 1e9,
		r->lanes, sim_capacity_ns(r) / 1e9);
	if (r->deliver_pct < 100)
		fprintf(f, ", each lane delivering %u %% of wall time", r->deliver_pct);
	fprintf(f, "\n\n");
	fprintf(f, "%-20s %6s %-16s %6s %4s %11s %11s %8s\n", "group", "weight", "cpu.max",
		"burst", "idle", "usage_ms", "ideal_ms", "err_%cap");
	for (i = 0; i < r->nr_groups; i++) {
		const struct sim_group_result *g = &r->groups[i];
		char max[48];

		fmt_max(max, sizeof(max), g);
		fprintf(f, "%-20s %6lu %-16s %6llu %4d %11.3f %11.3f %8.4f\n", g->path,
			i ? g->weight : 0, i ? max : "-", (unsigned long long)g->burst_us, g->idle,
			g->usage / 1e6, g->ideal / 1e6, err_pct(r, g->usage, g->ideal));
	}
	fprintf(f, "\n%-6s %-20s %-7s %11s %11s %8s\n", "vcpu", "group", "pattern", "usage_ms",
		"ideal_ms", "err_%cap");
	for (i = 0; i < r->nr_vcpus; i++) {
		const struct sim_vcpu_result *v = &r->vcpus[i];

		fprintf(f, "%-6u %-20s %-7s %11.3f %11.3f %8.4f\n", i, v->path,
			sim_pattern_name(v->kind), v->usage / 1e6, v->ideal / 1e6,
			err_pct(r, v->usage, v->ideal));
	}
	fprintf(f, "\ncpu.stat counters (usec, as the kernel prints them)\n");
	fprintf(f, "%-20s %12s %12s %12s %10s %12s %14s %9s %11s\n", "group", "usage_usec",
		"user_usec", "system_usec", "nr_periods", "nr_throttled", "throttled_usec",
		"nr_bursts", "burst_usec");
	for (i = 0; i < r->nr_groups; i++) {
		const struct cpu_stat *st = &r->groups[i].stat;

		fprintf(f, "%-20s %12llu %12llu %12llu %10llu %12llu %14llu %9llu %11llu\n",
			r->groups[i].path, (unsigned long long)(st->usage_ns / 1000),
			(unsigned long long)(st->user_ns / 1000),
			(unsigned long long)(st->system_ns / 1000),
			(unsigned long long)st->nr_periods, (unsigned long long)st->nr_throttled,
			(unsigned long long)(st->throttled_ns / 1000),
			(unsigned long long)st->nr_bursts, (unsigned long long)(st->burst_ns / 1000));
	}
	fprintf(f, "\nmax group error vs the fluid ideal: %.4f %% of capacity\n",
		sim_max_group_error(r));
	fprintf(f, "max vCPU error vs the fluid ideal: %.4f %% of capacity\n", sim_max_vcpu_error(r));
	fprintf(f, "decisions %lu, lane switches %lu, preemptions (kicks) %lu, timer wakeups %lu, "
		   "min-run violations %lu\n",
		r->decisions, r->switches, r->preemptions, r->timer_wakeups, r->min_run_violations);
	if (r->nr_wake) {
		size_t n = 0;
		double p50 = (double)sim_wake_quantile(r, 0.5, &n) / 1e3;
		double p99 = (double)sim_wake_quantile(r, 0.99, &n) / 1e3;
		double max = (double)sim_wake_quantile(r, 1.0, &n) / 1e3;

		fprintf(f, "wake-to-lane: p50 %.0f us, p99 %.0f us, max %.0f us (%zu wakes)\n",
			p50, p99, max, n);
	}
}
