// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core's decisions, driven by hand with explicit times: lanes, slices, min_run,
 * idle groups, parameters, incremental rates. Bandwidth (cpu.max) in test_core_bandwidth.c.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "core_test.h"
#include "test.h"
#include "sched/fluid.h"

static void test_core_alone_no_slice_end(void)
{
	struct sched *s = sched_create(2, 2);
	struct sched_decision d[8];
	size_t n;

	CU_ASSERT_EQUAL(sched_vcpu_runnable(s, 0, 0), 0);
	n = take(s, d, 8);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(d[0].type, SCHED_RUN);
	CU_ASSERT_EQUAL(d[0].vcpu, 0);
	CU_ASSERT_EQUAL(d[0].until, SCHED_TIME_NONE);
	/* A second vCPU on the second lane: still nobody waits, no timers at all. */
	CU_ASSERT_EQUAL(sched_vcpu_runnable(s, 1, 5 * MS), 0);
	n = take(s, d, 8);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(d[0].until, SCHED_TIME_NONE);
	CU_ASSERT_EQUAL(sched_next_timer(s), SCHED_TIME_NONE);
	CU_ASSERT_EQUAL(sched_vcpu_ran(s, 0, 100 * MS, 0, 100 * MS), 0);
	CU_ASSERT_EQUAL(take(s, d, 8), 0);
	/* Repeated events are no-ops; unknown vCPUs are ESRCH. */
	CU_ASSERT_EQUAL(sched_vcpu_runnable(s, 0, 100 * MS), 0);
	CU_ASSERT_EQUAL(take(s, d, 8), 0);
	CU_ASSERT_EQUAL(sched_vcpu_runnable(s, 2, 0), -ESRCH);
	CU_ASSERT_EQUAL(sched_vcpu_blocked(s, 2, 0), -ESRCH);
	CU_ASSERT_EQUAL(sched_vcpu_ran(s, 2, 1, 0, 0), -ESRCH);
	CU_ASSERT_EQUAL(sched_vcpu_blocked(s, 1, 100 * MS), 0);
	n = take(s, d, 8);
	CU_ASSERT_EQUAL(n, 0);	/* it left by itself: no preempt */
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0) + sched_lane_vcpu(s, 1), -1 + 0);
	sched_destroy(s);
}

static void test_core_rotation_and_min_run(void)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	size_t n;

	sched_vcpu_runnable(s, 0, 0);
	take(s, d, 8);
	/* v1 wakes 0.5 ms later: v0 ran less than min_run, so no preemption, a slice end. */
	sched_vcpu_ran(s, 0, MS / 2, 0, MS / 2);
	sched_vcpu_runnable(s, 1, MS / 2);
	n = take(s, d, 8);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(d[0].type, SCHED_RETIME);
	CU_ASSERT_EQUAL(d[0].until, SCHED_SLICE_DFL_NS);
	CU_ASSERT_EQUAL(sched_next_timer(s), SCHED_SLICE_DFL_NS);
	/* At the slice end v1 gets the lane. */
	sched_vcpu_ran(s, 0, SCHED_SLICE_DFL_NS - MS / 2, 0, SCHED_SLICE_DFL_NS);
	sched_timer(s, SCHED_SLICE_DFL_NS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 0));
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 1));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 1);
	CU_ASSERT_EQUAL(sched_vcpu_lane(s, 0), -1);
	/* v1 blocks: v0 back, alone again, so no slice end. */
	sched_vcpu_ran(s, 1, MS, 0, SCHED_SLICE_DFL_NS + MS);
	sched_vcpu_blocked(s, 1, SCHED_SLICE_DFL_NS + MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 0));
	CU_ASSERT_FALSE(has(d, n, SCHED_PREEMPT, 1));
	CU_ASSERT_EQUAL(sched_lane_until(s, 0), SCHED_TIME_NONE);
	sched_destroy(s);
}

static void test_core_wake_preempts_after_min_run(void)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	size_t n;

	/*
	 * v1 waits 2.5 ms while v0 runs, then blocks owed its share of them (1.25 ms). Blocking at
	 * once it would be owed nothing in GPS: a slice v0 paid up front and did not run is no
	 * service v0 had.
	 */
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_runnable(s, 1, 0);
	sched_vcpu_ran(s, 0, 5 * MS / 2, 0, 5 * MS / 2);
	sched_vcpu_blocked(s, 1, 5 * MS / 2);
	take(s, d, 8);
	/* v0 ran alone since; v1 wakes owed its share: it takes the lane at once. */
	sched_vcpu_ran(s, 0, 50 * MS - 5 * MS / 2, 0, 50 * MS);
	sched_vcpu_runnable(s, 1, 50 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 0));
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 1));
	sched_destroy(s);
}

/*
 * A waiter that arrives level (no credit) at a lane whose holder ran alone for 2.5 slices waits
 * for the end of the holder's current slice, as if its slices had been renewed since it got the
 * lane, not for a whole new slice from now; never less than min_run though.
 */
static uint64_t level_waiter_until(uint64_t arrive)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	uint64_t until = 0;
	size_t n, i;

	sched_vcpu_runnable(s, 0, 0);
	take(s, d, 8);
	sched_vcpu_ran(s, 0, arrive, 0, arrive);
	sched_vcpu_runnable(s, 1, arrive);
	n = take(s, d, 8);
	CU_ASSERT_FALSE(has(d, n, SCHED_PREEMPT, 0));
	for (i = 0; i < n; i++)
		if (d[i].type == SCHED_RETIME && d[i].vcpu == 0)
			until = d[i].until;
	sched_destroy(s);
	return until;
}

static void test_core_waiter_ends_renewed_slice(void)
{
	CU_ASSERT_EQUAL(level_waiter_until(5 * SCHED_SLICE_DFL_NS / 2), 3 * SCHED_SLICE_DFL_NS);
	CU_ASSERT_EQUAL(level_waiter_until(3 * SCHED_SLICE_DFL_NS - MS / 2),
			3 * SCHED_SLICE_DFL_NS - MS / 2 + SCHED_MIN_RUN_DFL_NS);
}

/*
 * Two lanes, /h's two hogs hold both alone; a vCPU of /d wakes level (a new group, no lag).
 * /d's rate is now a lane and it holds none, /h holds two at a rate of one: the lane moves at
 * once, where a level waker waited for a hog's rotation end (docs/scheduler.md §10, halt-duty).
 * A level waker whose side is not a whole lane short still waits (the test above).
 */
static void test_core_level_waker_takes_misplaced_lane(void)
{
	struct sched *s = sched_create(2, 3);
	struct sched_decision d[8];
	struct group *dg, *hg;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(group_create(s, sched_root(s), "d", &dg), 0);
	CU_ASSERT_EQUAL_FATAL(group_create(s, sched_root(s), "h", &hg), 0);
	sched_vcpu_move(s, 0, dg);
	sched_vcpu_move(s, 1, hg);
	sched_vcpu_move(s, 2, hg);
	sched_vcpu_runnable(s, 1, 0);
	sched_vcpu_runnable(s, 2, 0);
	take(s, d, 8);
	sched_vcpu_ran(s, 1, 10 * MS, 0, 10 * MS);
	sched_vcpu_ran(s, 2, 10 * MS, 0, 10 * MS);
	sched_vcpu_runnable(s, 0, 10 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 1) || has(d, n, SCHED_PREEMPT, 2));
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 0));
	CU_ASSERT_TRUE(sched_vcpu_lane(s, 0) >= 0);
	sched_destroy(s);
}

static void test_core_idle_group_preempted_at_once(void)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	struct group *batch;
	size_t n;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "batch", &batch), 0);
	CU_ASSERT_EQUAL(group_set_idle(s, batch, true), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, batch), 0);
	sched_vcpu_runnable(s, 0, 0);
	take(s, d, 8);
	/* 0.1 ms into the idle vCPU's run, a normal vCPU wakes: no slice protection. */
	sched_vcpu_ran(s, 0, MS / 10, 0, MS / 10);
	sched_vcpu_runnable(s, 1, MS / 10);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 0));
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 1));
	sched_destroy(s);
}

/*
 * One lane, a normal vCPU beside a cpu.idle group's vCPU: whenever the idle one gets the lane
 * while the normal one waits, its turn ends after min_run, not a slice. Two idle siblings
 * alone rotate in whole slices.
 */
static void idle_turns(bool beside_normal, uint64_t want)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	struct group *bg;
	uint64_t t = 0;
	unsigned int turns = 0, i;
	size_t n, k;

	group_create(s, sched_root(s), "bg", &bg);
	group_set_idle(s, bg, true);
	sched_vcpu_move(s, 1, bg);
	if (!beside_normal)
		sched_vcpu_move(s, 0, bg);
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_runnable(s, 1, 0);
	take(s, d, 8);
	for (i = 0; i < 20000 && turns < 3; i++) {
		int v = sched_lane_vcpu(s, 0);
		uint64_t until = sched_lane_until(s, 0);

		CU_ASSERT_FATAL(v >= 0 && until != SCHED_TIME_NONE && until > t);
		sched_vcpu_ran(s, (unsigned int)v, until - t, 0, until);
		t = until;
		sched_timer(s, t);
		n = take(s, d, 8);
		for (k = 0; k < n; k++)
			if (d[k].type == SCHED_RUN && d[k].vcpu == 1) {
				CU_ASSERT_EQUAL(d[k].until - t, want);
				turns++;
			}
	}
	CU_ASSERT_EQUAL(turns, 3);
	sched_destroy(s);
}

static void test_core_idle_group_short_turns(void)
{
	idle_turns(true, SCHED_MIN_RUN_DFL_NS);
	idle_turns(false, SCHED_SLICE_DFL_NS);
}

static void test_core_params(void)
{
	struct sched *s = sched_create(1, 1);
	struct sched_params p;

	sched_get_params(s, &p);
	CU_ASSERT_TRUE(p.min_run_ns >= SCHED_MIN_RUN_MIN_NS);
	p.min_run_ns = MS / 2;
	CU_ASSERT_EQUAL(sched_set_params(s, &p), -EINVAL);
	p.min_run_ns = 2 * MS;
	p.slice_ns = MS;
	CU_ASSERT_EQUAL(sched_set_params(s, &p), -EINVAL);
	p.slice_ns = 4 * MS;
	p.lag_ns = MS;
	CU_ASSERT_EQUAL(sched_set_params(s, &p), -EINVAL);
	p.lag_ns = 8 * MS;
	CU_ASSERT_EQUAL(sched_set_params(s, &p), 0);
	sched_get_params(s, &p);
	CU_ASSERT_EQUAL(p.slice_ns, 4 * MS);
	sched_destroy(s);
}

/* The fluid ideal without caps, as the core's rates are (caps are the pools' business). */
static void solve_uncapped(struct sched *s, const double *demand, double *rate)
{
	struct fluid_claim *scratch = calloc(fluid_scratch_size(s), fluid_claim_size());

	CU_ASSERT_PTR_NOT_NULL_FATAL(scratch);
	fluid_solve_scratch(s, demand, rate, scratch, FLUID_NO_CAPS);
	free(scratch);
}

/* Rates kept up to date along one path at a time equal a full solve of the fluid ideal. */
static void test_core_incremental_rates(void)
{
	enum { NV = 24 };
	struct sched *s = sched_create(3, NV);
	struct group *g[6];
	double demand[NV], rate[NV], worst = 0;
	unsigned int i, k, seed = 7;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &g[0]), 0);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "b", &g[1]), 0);
	CU_ASSERT_EQUAL(group_create(s, g[0], "c", &g[2]), 0);
	CU_ASSERT_EQUAL(group_create(s, g[0], "d", &g[3]), 0);
	CU_ASSERT_EQUAL(group_create(s, g[3], "e", &g[4]), 0);
	CU_ASSERT_EQUAL(group_create(s, g[1], "f", &g[5]), 0);
	/* vCPU groups of one VM are a threaded subtree: vCPUs may sit at every level. */
	for (i = 0; i < 6; i++)
		CU_ASSERT_EQUAL(group_enable_threaded(s, g[i]), 0);
	/* a and d enable cpu for their children; b does not: f's vCPUs run in b. */
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, g[0], true), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, g[3], true), 0);
	CU_ASSERT_EQUAL(group_set_shares(s, g[1], 3000), 0);
	CU_ASSERT_EQUAL(group_set_shares(s, g[4], 200), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, g[3], 40000, 100000, 0), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, g[1], 150000, 100000, 0), 0);
	CU_ASSERT_EQUAL(group_set_shares(s, g[5], 200), -ENOENT);
	for (i = 0; i < NV; i++)
		CU_ASSERT_EQUAL(sched_vcpu_move(s, i, i % 7 == 6 ? sched_root(s) : g[i % 7 % 6]), 0);
	for (k = 0; k < 400; k++) {
		unsigned int v = rand_r(&seed) % NV;

		if (sched_vcpu_is_runnable(s, v))
			sched_vcpu_blocked(s, v, k * MS);
		else
			sched_vcpu_runnable(s, v, k * MS);
		for (i = 0; i < NV; i++)
			demand[i] = sched_vcpu_demand(s, i);
		solve_uncapped(s, demand, rate);
		for (i = 0; i < NV; i++) {
			double d;

			if (!sched_vcpu_is_runnable(s, i))
				continue;	/* a sleeper's share is held by its groups */
			d = sched_vcpu_rate(s, i) - rate[i];

			if (d < 0)
				d = -d;
			if (d > worst)
				worst = d;
		}
	}
	CU_ASSERT_TRUE(worst < 1e-9);
	/* Taking cpu away from d (and giving it back) reschedules e's vCPUs in d, and back. */
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, g[3], false), 0);
	CU_ASSERT_EQUAL(g[4]->shares, NICE_0_LOAD);
	for (i = 0; i < NV; i++)
		demand[i] = sched_vcpu_demand(s, i);
	solve_uncapped(s, demand, rate);
	for (i = 0; i < NV; i++)
		if (sched_vcpu_is_runnable(s, i))
			CU_ASSERT_TRUE(fabs(sched_vcpu_rate(s, i) - rate[i]) < 1e-9);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, g[3], true), 0);
	sched_destroy(s);
}

static CU_TestInfo core_tests[] = {
	{ "incremental rates equal the fluid ideal", test_core_incremental_rates },
	{ "a vCPU alone gets no slice end", test_core_alone_no_slice_end },
	{ "rotation and min_run", test_core_rotation_and_min_run },
	{ "a waker owed service preempts after min_run", test_core_wake_preempts_after_min_run },
	{ "a level waiter ends the holder's renewed slice", test_core_waiter_ends_renewed_slice },
	{ "a level waker takes a misplaced lane", test_core_level_waker_takes_misplaced_lane },
	{ "idle group preempted at once", test_core_idle_group_preempted_at_once },
	{ "idle group takes min_run turns beside others", test_core_idle_group_short_turns },
	{ "parameters", test_core_params },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/core", core_tests)
