// SPDX-License-Identifier: GPL-2.0
/*
 * Random scenarios for the simulator, from a seed: the core must be exact on trees nobody chose
 * (issue 13). The output is scenario text, so a failing seed is a file `vsched sim` runs.
 *
 * Trees of any shape (a parent drawn among the groups so far, now and then a chain), weights
 * log-uniform in [1, 10000], nice values, idle groups, vCPUs at every level, 1 to max_lanes
 * lanes and 1 to max_vcpus vCPUs (log-uniform: most scenarios are small), and up to three
 * timed events: moves, weights, nice values, idle flags, and with caps new cpu.max values.
 * Small capped trees (gen_small()) are a kind of their own: few lanes, vCPUs and groups, every
 * scenario capped, weights and quotas drawn at the edges where the core's rules round.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sim_types.h"
#include "util/compiler.h"

#define GEN_MAX_GROUPS	32

struct gen {
	uint64_t rng;
	char *buf;
	size_t len, pos;
	bool overflow;
	unsigned int nr_groups;
	char path[GEN_MAX_GROUPS + 1][GROUP_PATH_MAX];	/* [0] is the root */
	unsigned int depth[GEN_MAX_GROUPS + 1];
	bool idle[GEN_MAX_GROUPS + 1];
	unsigned int parent[GEN_MAX_GROUPS + 1];
	uint64_t weight[GEN_MAX_GROUPS + 1];
};

static __printf(2, 3) void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(g->buf + g->pos, g->len - g->pos, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= g->len - g->pos)
		g->overflow = true;
	else
		g->pos += (size_t)n;
}

/* Uniform in [lo, hi]. */
static uint64_t pick(struct gen *g, uint64_t lo, uint64_t hi)
{
	return lo + sim_rng_next(&g->rng) % (hi - lo + 1);
}

/* Log-uniform in [lo, hi]: small values as often as large ones, per octave. */
static uint64_t pick_log(struct gen *g, uint64_t lo, uint64_t hi)
{
	double u = (double)(sim_rng_next(&g->rng) >> 11) / (double)(1ULL << 53);
	uint64_t v = (uint64_t)floor(exp(log((double)lo) + u * (log((double)hi + 1) - log(lo))));

	return v < lo ? lo : v > hi ? hi : v;
}

static bool chance(struct gen *g, unsigned int pct)
{
	return pick(g, 0, 99) < pct;
}

/*
 * "QUOTA PERIOD [burst B]" of cpu.max, between 5 % of a CPU and every lane; a new value in an
 * event always sets the burst, which may not exceed the quota.
 */
static void gen_max(struct gen *g, const struct sim_gen_opts *o, unsigned int lanes, bool event)
{
	static const unsigned int periods_ms[] = { 10, 20, 50, 100, 250 };
	unsigned int first = o->coarse_caps ? 3 : 0;
	uint64_t period = periods_ms[pick(g, first, ARRAY_SIZE(periods_ms) - 1)] * 1000;
	uint64_t quota = pick_log(g, period / 20, period * lanes);
	uint64_t min = o->coarse_caps ? 5000 : CPU_QUOTA_MIN_US;

	if (quota < min)
		quota = min;
	emit(g, " %lluus %lluus", (unsigned long long)quota, (unsigned long long)period);
	if (chance(g, 25))
		emit(g, " burst %lluus", (unsigned long long)pick(g, 0, quota));
	else if (event)
		emit(g, " burst 0");
}

static void gen_groups(struct gen *g, const struct sim_gen_opts *o, unsigned int lanes)
{
	unsigned int n = (unsigned int)pick(g, 0, o->max_groups), i;

	strcpy(g->path[0], "");
	for (i = 1; i <= n; i++) {
		/* Now and then a chain: the last group's child, for depth. */
		unsigned int p = chance(g, 30) ? i - 1 : (unsigned int)pick(g, 0, i - 1);
		unsigned int w = (unsigned int)pick(g, 0, 99);

		size_t len;

		if (g->depth[p] >= o->max_depth || strlen(g->path[p]) + 8 >= GROUP_PATH_MAX)
			p = 0;
		g->depth[i] = g->depth[p] + 1;
		len = strlen(g->path[p]);
		memcpy(g->path[i], g->path[p], len);
		snprintf(g->path[i] + len, sizeof(g->path[i]) - len, "/g%u", i);
		emit(g, "group %s", g->path[i]);
		if (w < 30)
			emit(g, " weight %llu", (unsigned long long)pick_log(g, 1, 10000));
		else if (w < 50)
			emit(g, " nice %d", (int)pick(g, 0, 39) - 20);
		else if (w < 60) {
			emit(g, " idle 1");
			g->idle[i] = true;
		}
		if (o->kind == SIM_GEN_CAPS && chance(g, 40)) {
			emit(g, " max");
			gen_max(g, o, lanes, false);
		}
		emit(g, "\n");
	}
	g->nr_groups = n;
}

static const char *any_group(struct gen *g)
{
	unsigned int i = (unsigned int)pick(g, 0, g->nr_groups);

	return i ? g->path[i] : "/";
}

static void gen_vcpus(struct gen *g, const struct sim_gen_opts *o, unsigned int nv)
{
	unsigned int i;

	for (i = 0; i < nv; i++) {
		unsigned int k = (unsigned int)pick(g, 0, 99);

		emit(g, "vcpu %u %s ", i, any_group(g));
		if (k < 5) {
			emit(g, "idle\n");
		} else if (o->kind != SIM_GEN_DUTY || (k < 50 && !o->bursts_only)) {
			emit(g, "hog\n");
		} else {
			uint64_t busy = pick_log(g, o->coarse_duty ? 1000 : 200, 20000);
			uint64_t period = pick_log(g, o->coarse_duty && busy < 10000 ? 10000 : busy,
						   100000);

			bool duty = o->bursts_only ? k < 50 : k < 80;

			emit(g, "%s %lluus %lluus", duty ? "duty" : "bursty",
			     (unsigned long long)busy, (unsigned long long)period);
			emit(g, duty ? " phase %lluus\n" : " seed %llu\n",
			     (unsigned long long)pick(g, 0, period));
		}
	}
}

/* Events apart from each other and from the ends, so each stretch settles. */
static void gen_events(struct gen *g, const struct sim_gen_opts *o, unsigned int nv,
		       unsigned int lanes)
{
	unsigned int n = (unsigned int)pick(g, 0, 3), i;
	uint64_t step = o->duration_ns / (n + 1);

	for (i = 0; i < n; i++) {
		uint64_t at = step * (i + 1) + pick(g, 0, step / 4);
		unsigned int k = (unsigned int)pick(g, 0, 99), t;

		emit(g, "at %lluus ", (unsigned long long)(at / 1000));
		if (k < 40 || !g->nr_groups) {
			emit(g, "move %u %s\n", (unsigned int)pick(g, 0, nv - 1), any_group(g));
			continue;
		}
		t = (unsigned int)pick(g, 1, g->nr_groups);
		if (o->kind == SIM_GEN_CAPS && k < 55) {
			emit(g, "max %s", g->path[t]);
			if (chance(g, 30))
				emit(g, " max");
			else
				gen_max(g, o, lanes, true);
		} else if (k < 75) {
			g->idle[t] = !g->idle[t];
			emit(g, "idle %s %d", g->path[t], g->idle[t]);
		} else if (g->idle[t]) {
			/* cpu.weight of an idle group is EINVAL: make it a normal one first. */
			g->idle[t] = false;
			emit(g, "idle %s 0", g->path[t]);
		} else if (k < 90) {
			emit(g, "weight %s %llu", g->path[t],
			     (unsigned long long)pick_log(g, 1, 10000));
		} else {
			emit(g, "nice %s %d", g->path[t], (int)pick(g, 0, 39) - 20);
		}
		emit(g, "\n");
	}
}

/*
 * A small group's weight: often set against an earlier sibling's so that, the parent holding
 * every lane, its share is at or next to a multiple of half a lane, where the core rounds a rate
 * to whole lanes (a lane is misplaced past rate + 0.5; docs/scheduler.md §10, "A capped group
 * beside a sibling owed half a lane or more": weights 300 and 100 on two lanes). Else the ends
 * of the range, the default (0 leaves it) or log-uniform, in the same shares with or without an
 * earlier sibling.
 */
static uint64_t small_weight(struct gen *g, unsigned int i, unsigned int lanes)
{
	unsigned int s, k = (unsigned int)pick(g, 0, 99);
	uint64_t h, w;

	for (s = i - 1; s > 0 && g->parent[s] != g->parent[i]; s--)
		;
	if (s && k < 50) {
		h = pick(g, 1, 2 * lanes - 1);
		w = (g->weight[s] * h + (2 * lanes - h) / 2) / (2 * lanes - h);
		w += pick(g, 0, 2);	/* on the edge, or one either side (less 1 below) */
		return w <= 1 ? 1 : w > 10001 ? 10000 : w - 1;
	}
	k = (unsigned int)pick(g, 0, 99);	/* a group without a sibling draws here too */
	if (k < 20)
		return chance(g, 50) ? 1 : 10000;
	if (k < 40)
		return 0;
	return pick_log(g, 1, 10000);
}

/*
 * cpu.max of a small group: a period of 5-100 ms (a round one a third of the time), a quota of
 * 10-150 % of a lane (now and then exactly a half-lane multiple), at least CPU_QUOTA_MIN_US; a
 * quarter with a burst up to the quota.
 */
static void small_max(struct gen *g)
{
	static const unsigned int round_ms[] = { 5, 10, 20, 50, 100 };
	static const unsigned int edge_pct[] = { 50, 100, 150 };
	uint64_t period = (chance(g, 33) ? round_ms[pick(g, 0, ARRAY_SIZE(round_ms) - 1)] :
			   pick(g, 5, 100)) * 1000;
	uint64_t pct = chance(g, 30) ? edge_pct[pick(g, 0, ARRAY_SIZE(edge_pct) - 1)] :
		       pick(g, 10, 150);
	uint64_t quota = period * pct / 100;

	if (quota < CPU_QUOTA_MIN_US)
		quota = CPU_QUOTA_MIN_US;
	emit(g, " max %lluus %lluus", (unsigned long long)quota, (unsigned long long)period);
	if (chance(g, 25))
		emit(g, " burst %lluus", (unsigned long long)pick(g, 0, quota));
}

/*
 * Small capped trees: 1 to max_lanes lanes (uniform), 2 to max_vcpus vCPUs, 1 to max_groups
 * groups at depth up to max_depth, at least one capped; mostly hogs, a fifth duty vCPUs; no
 * events, so a seed over its bound is a static shape to reduce.
 */
static void gen_small(struct gen *g, const struct sim_gen_opts *o, unsigned int lanes,
		      unsigned int nv)
{
	unsigned int n = (unsigned int)pick(g, 1, o->max_groups), must = (unsigned int)pick(g, 1, n);
	unsigned int i;

	g->weight[0] = 100;
	for (i = 1; i <= n; i++) {
		unsigned int p = chance(g, 40) ? (unsigned int)pick(g, 0, i - 1) : 0;
		size_t len;
		uint64_t w;

		if (g->depth[p] >= o->max_depth)
			p = 0;
		g->parent[i] = p;
		g->depth[i] = g->depth[p] + 1;
		len = strlen(g->path[p]);	/* p < i: not one buffer twice, as gen_groups() */
		memcpy(g->path[i], g->path[p], len);
		snprintf(g->path[i] + len, sizeof(g->path[i]) - len, "/g%u", i);
		w = small_weight(g, i, lanes);
		g->weight[i] = w ? w : 100;
		emit(g, "group %s", g->path[i]);
		if (w)
			emit(g, " weight %llu", (unsigned long long)w);
		if (i == must || chance(g, 50))
			small_max(g);
		emit(g, "\n");
	}
	g->nr_groups = n;
	for (i = 0; i < nv; i++) {
		const char *at = chance(g, 85) ? g->path[pick(g, 1, n)] : "/";

		if (chance(g, 80)) {
			emit(g, "vcpu %u %s hog\n", i, at);
		} else {
			uint64_t busy = pick_log(g, 200, 20000);
			uint64_t period = pick_log(g, busy, 100000);

			emit(g, "vcpu %u %s duty %lluus %lluus phase %lluus\n", i, at,
			     (unsigned long long)busy, (unsigned long long)period,
			     (unsigned long long)pick(g, 0, period));
		}
	}
}

int sim_gen(uint64_t seed, const struct sim_gen_opts *o, char *buf, size_t len)
{
	struct gen g = { .rng = sim_rng_seed(seed ^ 0x5EED), .buf = buf, .len = len };
	unsigned int lanes, nv;

	if (!o->max_lanes || !o->max_vcpus || o->max_groups > GEN_MAX_GROUPS || !o->duration_ns ||
	    !len)
		return -EINVAL;
	buf[0] = '\0';
	if (o->kind == SIM_GEN_SMALL_CAPS) {
		if (!o->max_groups || !o->max_depth)
			return -EINVAL;
		lanes = (unsigned int)pick(&g, 1, o->max_lanes);
		nv = (unsigned int)pick(&g, o->max_vcpus < 2 ? 1 : 2, o->max_vcpus);
	} else {
		lanes = (unsigned int)pick_log(&g, 1, o->max_lanes);
		nv = (unsigned int)pick_log(&g, 1, o->max_vcpus);
	}
	emit(&g, "# sim_gen seed %llu\nlanes %u\nduration %lluus\n", (unsigned long long)seed,
	     lanes, (unsigned long long)(o->duration_ns / 1000));
	if (o->kind == SIM_GEN_SMALL_CAPS) {
		gen_small(&g, o, lanes, nv);
		return g.overflow ? -ENOSPC : (int)g.pos;
	}
	gen_groups(&g, o, lanes);
	gen_vcpus(&g, o, nv);
	gen_events(&g, o, nv, lanes);
	return g.overflow ? -ENOSPC : (int)g.pos;
}

int sim_gen_run(uint64_t seed, const struct sim_gen_opts *o, struct sim_gen_result *res,
		char *text, size_t len, struct diag *d)
{
	struct sim_scenario *sc;
	struct sim_result *r;
	int ret;

	ret = sim_gen(seed, o, text, len);
	if (ret < 0)
		return diag_set(d, ret, "seed %llu: cannot generate: %s", (unsigned long long)seed,
				strerror(-ret));
	ret = sim_parse(text, &sc, d);
	if (ret)
		return ret;
	ret = sim_run(sc, &r, d);
	sim_scenario_free(sc);
	if (ret)
		return ret;
	res->group_error = sim_max_group_error(r);
	res->vcpu_error = sim_max_vcpu_error(r);
	res->violations = sim_min_run_violations(r);
	sim_result_free(r);
	return 0;
}
