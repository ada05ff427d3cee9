// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of a scheduling decision in the core: 16, 256 and 1024 vCPUs in 4, 64 and 256 groups
 * (two levels), 8 lanes, every vCPU a hog, so every slice end re-picks a lane. A decision is one
 * slice end: the vCPU's run is reported (sched_vcpu_ran) and the timer event re-picks its lane
 * (sched_timer), decisions drained. Also timed: a block plus a wake of one vCPU, which changes
 * the runnable set and recomputes the fluid rates (O(n), by design off the pick path).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sched/core.h"
#include "sched/group.h"
#include "util/time.h"

#define LANES		8
#define SLICE_NS	3000000ULL

static double now_s(void)
{
	return (double)time_mono_ns() / 1e9;
}

static struct sched *build(unsigned int nv, unsigned int ng)
{
	struct sched *s = sched_create(LANES, nv);
	unsigned int top = ng / 8 ? ng / 8 : 1, i;
	struct group **g = calloc(ng, sizeof(*g));
	char name[32];

	if (!s || !g)
		exit(1);
	for (i = 0; i < ng; i++) {
		struct group *parent = i < top ? sched_root(s) : g[i % top];

		snprintf(name, sizeof(name), "g%u", i);
		if (group_create(s, parent, name, &g[i]))
			exit(1);
		group_set_shares(s, g[i], sched_weight_from_cgroup(1 + (i * 37) % 400));
	}
	for (i = 0; i < nv; i++)
		if (sched_vcpu_move(s, i, g[top + i % (ng - top)]))
			exit(1);
	for (i = 0; i < nv; i++)
		sched_vcpu_runnable(s, i, 0);
	free(g);
	return s;
}

static void drain(struct sched *s)
{
	struct sched_decision d[64];

	while (sched_take_decisions(s, d, 64))
		;
}

static void bench(unsigned int nv, unsigned int ng)
{
	struct sched *s = build(nv, ng);
	uint64_t t = 0, start[LANES] = { 0 }, decisions = 0;
	unsigned int l, i, iters = 200000;
	double t0, pick_ns, wake_us;

	drain(s);
	t0 = now_s();
	for (i = 0; i < iters; i++) {
		uint64_t next = sched_next_timer(s);

		if (next == SCHED_TIME_NONE)
			break;
		for (l = 0; l < LANES; l++) {
			int v = sched_lane_vcpu(s, l);

			if (v >= 0 && sched_lane_until(s, l) <= next) {
				sched_vcpu_ran(s, v, next - start[l], 0, next);
				start[l] = next;
				decisions++;
			}
		}
		t = next;
		sched_timer(s, t);
		drain(s);
		for (l = 0; l < LANES; l++)
			start[l] = start[l] < t ? t : start[l];
	}
	pick_ns = (now_s() - t0) * 1e9 / (double)decisions;

	t0 = now_s();
	for (i = 0; i < 2000; i++) {
		unsigned int v = (i * 7919) % nv;

		sched_vcpu_blocked(s, v, t);
		sched_vcpu_runnable(s, v, t);
		drain(s);
	}
	wake_us = (now_s() - t0) * 1e6 / 2000;
	printf("%5u vCPUs %4u groups %u lanes: %7.0f ns per decision (%llu decisions), "
	       "block+wake %7.2f us\n",
	       nv, ng, LANES, pick_ns, (unsigned long long)decisions, wake_us);
	sched_destroy(s);
}

/* bench-decision [N]: every configuration, or only the N-th (0-2), e.g. to profile one. */
int main(int argc, char **argv)
{
	static const unsigned int cfg[][2] = { { 16, 4 }, { 256, 64 }, { 1024, 256 } };
	unsigned int i, n = sizeof(cfg) / sizeof(cfg[0]), only = n;

	if (argc > 1) {
		only = (unsigned int)strtoul(argv[1], NULL, 10);
		if (argc > 2 || only >= n) {
			fprintf(stderr, "usage: bench-decision [0-%u]\n", n - 1);
			return 2;
		}
	}
	printf("scheduler core decision cost (goal <= 1 us per decision, O(log n))\n");
	for (i = 0; i < n; i++)
		if (only == n || i == only)
			bench(cfg[i][0], cfg[i][1]);
	return 0;
}
