// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core under cpu.max, driven by hand with explicit times: throttling when the pool
 * runs dry, refills on the period grid, moves into and out of throttled groups, the statistics.
 */
#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core_test.h"
#include "test.h"

static void test_core_throttle_at_exhaustion(void)
{
	struct sched *s = sched_create(1, 1);
	struct sched_decision d[8];
	struct group *a;
	struct cpu_stat st;
	size_t n;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, a), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 10000, 100000, 0), 0);
	sched_vcpu_runnable(s, 0, 0);
	n = take(s, d, 8);
	/* Alone, but capped: the slice end is when the 10 ms pool runs dry. */
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_EQUAL(d[0].until, 10 * MS);
	sched_vcpu_ran(s, 0, 10 * MS, 0, 10 * MS);
	/* Dry: thrown out at the timer of this instant (sched_next_timer() is now). */
	CU_ASSERT_EQUAL(sched_next_timer(s), 10 * MS);
	sched_timer(s, 10 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_THROTTLE, -1));
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 0));
	CU_ASSERT_TRUE(group_throttled(a));
	CU_ASSERT_EQUAL(sched_next_timer(s), 100 * MS);
	group_stat(s, a, 60 * MS, &st);
	CU_ASSERT_EQUAL(st.throttled_ns, 50 * MS);	/* in progress, counted on read */
	sched_timer(s, 100 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_UNTHROTTLE, -1));
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 0));
	group_stat(s, a, 100 * MS, &st);
	CU_ASSERT_EQUAL(st.nr_periods, 1);
	CU_ASSERT_EQUAL(st.nr_throttled, 1);
	CU_ASSERT_EQUAL(st.throttled_ns, 90 * MS);
	CU_ASSERT_EQUAL(st.usage_ns, 10 * MS);
	/* A cpu.max write unthrottles at once (tg_set_cfs_bandwidth()). */
	sched_vcpu_ran(s, 0, 10 * MS, 0, 110 * MS);
	sched_timer(s, 110 * MS);
	CU_ASSERT_TRUE(group_throttled(a));
	take(s, d, 8);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 20000, 100000, 0), 0);
	CU_ASSERT_FALSE(group_throttled(a));
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_UNTHROTTLE, -1));
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 0));
	CU_ASSERT_EQUAL(d[n - 1].until, 130 * MS);
	/* Back to "max": no slice end any more. */
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, RUNTIME_INF, 100000, 0), 0);
	CU_ASSERT_EQUAL(sched_lane_until(s, 0), SCHED_TIME_NONE);
	sched_destroy(s);
}

static void test_core_move_into_throttled_group(void)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	struct group *a;
	size_t n;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, a), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 1000, 100000, 0), 0);
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_ran(s, 0, MS, 0, MS);
	sched_timer(s, MS);
	CU_ASSERT_TRUE(group_throttled(a));
	sched_vcpu_runnable(s, 1, MS);
	take(s, d, 8);
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 1);
	/* Moving the running vCPU into the throttled group takes its lane away now. */
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, a), 0);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 1));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), -1);
	CU_ASSERT_EQUAL(a->nr_vcpus, 2);
	sched_destroy(s);
}

/*
 * A vCPU that wakes inside a throttled group has no rate (the group demands nothing until its
 * refill); its virtual time must still be a number and its turn must come. It once became NaN
 * (lag / 0): the vCPU then never ran, and with more waiters the pick in that group looped
 * forever, so this runs in a child with an alarm.
 */
static void wake_into_throttled_group(void)
{
	struct sched *s = sched_create(2, 3);
	struct sched_decision d[16];
	struct group *a;
	uint64_t t;
	size_t n;
	bool ran0 = false, ran1 = false;

	group_create(s, sched_root(s), "a", &a);
	sched_vcpu_move(s, 0, a);
	sched_vcpu_move(s, 1, a);
	group_set_bandwidth(s, a, 1000, 100000, 0);
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_runnable(s, 2, 0);
	take(s, d, 16);
	sched_vcpu_ran(s, 0, MS, 0, MS);
	sched_timer(s, MS);
	if (!group_throttled(a))
		exit(2);
	sched_vcpu_runnable(s, 1, 2 * MS);
	take(s, d, 16);
	/* Each period, whoever of a holds a lane uses the 1 ms quota up. */
	for (t = 100 * MS; t <= 400 * MS; t += 100 * MS) {
		sched_timer(s, t);
		n = take(s, d, 16);
		ran0 |= has(d, n, SCHED_RUN, 0);
		ran1 |= has(d, n, SCHED_RUN, 1);
		if (sched_vcpu_lane(s, 0) >= 0)
			sched_vcpu_ran(s, 0, MS, 0, t + MS);
		if (sched_vcpu_lane(s, 1) >= 0)
			sched_vcpu_ran(s, 1, MS, 0, t + MS);
		sched_timer(s, t + MS);
		take(s, d, 16);
	}
	exit(ran0 && ran1 ? 0 : 3);
}

static void test_core_wake_into_throttled_group(void)
{
	int status;
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (!pid) {
		alarm(5);
		wake_into_throttled_group();
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));	/* not killed by the alarm: no endless pick */
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);	/* and both vCPUs ran after refills */
}

static void test_core_remove_capped_group(void)
{
	struct sched *s = sched_create(2, 2);
	struct sched_decision d[16];
	struct cpu_stat st;
	struct group *a;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 5000, 50000, 0), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, a), 0);
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_runnable(s, 1, 0);
	sched_vcpu_ran(s, 0, 5 * MS, 0, 5 * MS);
	sched_timer(s, 5 * MS);
	CU_ASSERT_TRUE(group_throttled(a));
	/* Leaving a throttled group gives the vCPU its lane back at once. */
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, sched_root(s)), 0);
	CU_ASSERT_TRUE(sched_vcpu_lane(s, 0) >= 0);
	CU_ASSERT_EQUAL(group_remove(s, a), 0);
	sched_timer(s, 50 * MS);
	take(s, d, 16);
	/* The removed group's usage stays in the root. */
	group_stat(s, sched_root(s), 50 * MS, &st);
	CU_ASSERT_EQUAL(st.usage_ns, 5 * MS);
	CU_ASSERT_EQUAL(sched_next_timer(s), SCHED_TIME_NONE);
	sched_destroy(s);
}

/* nr_periods counts active periods plus one trailing idle one; the grid keeps its phase. */
static void test_core_period_timer_stops_and_restarts(void)
{
	struct sched *s = sched_create(1, 1);
	struct cpu_stat st;
	struct group *a;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, a), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 10000, 100000, 0), 0);
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_ran(s, 0, 5 * MS, 0, 5 * MS);
	sched_vcpu_blocked(s, 0, 5 * MS);
	CU_ASSERT_EQUAL(sched_next_timer(s), 100 * MS);
	sched_timer(s, 100 * MS);
	CU_ASSERT_EQUAL(sched_next_timer(s), 200 * MS);
	sched_timer(s, 200 * MS);
	/* A whole period without a draw: the timer stops, after counting it. */
	CU_ASSERT_EQUAL(sched_next_timer(s), SCHED_TIME_NONE);
	group_stat(s, a, 500 * MS, &st);
	CU_ASSERT_EQUAL(st.nr_periods, 2);
	CU_ASSERT_EQUAL(st.nr_throttled, 0);
	/* Drawing again restarts it on the same grid. */
	sched_vcpu_runnable(s, 0, 1050 * MS);
	sched_vcpu_ran(s, 0, MS, 0, 1051 * MS);
	sched_vcpu_blocked(s, 0, 1051 * MS);
	CU_ASSERT_EQUAL(sched_next_timer(s), 1100 * MS);
	sched_timer(s, 1100 * MS);
	group_stat(s, a, 1100 * MS, &st);
	CU_ASSERT_EQUAL(st.nr_periods, 3);
	CU_ASSERT_EQUAL(st.usage_ns, 6 * MS);
	sched_destroy(s);
}

/* throttled_usec: time throttled times min(runnable vCPUs below, lanes). */
static void test_core_throttled_time_width(void)
{
	struct sched *s = sched_create(2, 3);
	struct sched_params p = { .slice_ns = 50 * MS, .min_run_ns = MS, .lag_ns = 100 * MS };
	struct cpu_stat st;
	struct group *a;
	unsigned int i;

	/* Slices longer than the pool lasts, so the slice end is the pool's. */
	CU_ASSERT_EQUAL(sched_set_params(s, &p), 0);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sched_vcpu_move(s, i, a), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 20000, 100000, 0), 0);
	for (i = 0; i < 3; i++)
		sched_vcpu_runnable(s, i, 0);
	/* Two lanes drain the 20 ms pool in 10 ms. */
	CU_ASSERT_EQUAL(sched_lane_until(s, 0), 10 * MS);
	sched_vcpu_ran(s, sched_lane_vcpu(s, 0), 10 * MS, 0, 10 * MS);
	sched_vcpu_ran(s, sched_lane_vcpu(s, 1), 10 * MS, 0, 10 * MS);
	CU_ASSERT_FALSE(group_throttled(a));	/* at the timer of this instant */
	sched_timer(s, 10 * MS);
	CU_ASSERT_TRUE(group_throttled(a));
	/* 3 runnable vCPUs on 2 lanes count as 2 "CPUs"; one blocks at 50 ms: then 2. */
	sched_vcpu_blocked(s, 2, 50 * MS);
	sched_vcpu_blocked(s, 1, 60 * MS);
	group_stat(s, a, 100 * MS, &st);
	CU_ASSERT_EQUAL(st.throttled_ns, 2 * 40 * MS + 2 * 10 * MS + 1 * 40 * MS);
	sched_timer(s, 100 * MS);
	group_stat(s, a, 100 * MS, &st);
	CU_ASSERT_EQUAL(st.nr_throttled, 1);
	CU_ASSERT_FALSE(group_throttled(a));
	sched_destroy(s);
}

/*
 * cpu.stat.local's throttled_usec: time a group's runnable vCPUs were held by its own pool or an
 * ancestor's (tg_throttle_down() stamps every descendant), times min(runnable below, lanes).
 * cpu.stat's throttled_usec counts only the group's own pool.
 */
static void test_core_throttled_local(void)
{
	struct sched *s = sched_create(2, 3);
	struct sched_params p = { .slice_ns = 50 * MS, .min_run_ns = MS, .lag_ns = 100 * MS };
	struct group *a, *b, *c, *d;
	struct cpu_stat st;
	unsigned int i;

	CU_ASSERT_EQUAL(sched_set_params(s, &p), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, sched_root(s), true), 0);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, true), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "c", &c), 0);
	for (i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sched_vcpu_move(s, i, b), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 20000, 100000, 0), 0);
	for (i = 0; i < 3; i++)
		sched_vcpu_runnable(s, i, 0);
	sched_vcpu_ran(s, sched_lane_vcpu(s, 0), 10 * MS, 0, 10 * MS);
	sched_vcpu_ran(s, sched_lane_vcpu(s, 1), 10 * MS, 0, 10 * MS);
	sched_timer(s, 10 * MS);
	CU_ASSERT_TRUE(group_throttled(a));
	/* made while a is throttled: held from its first runnable vCPU on */
	CU_ASSERT_EQUAL(group_create(s, a, "d", &d), 0);
	sched_vcpu_blocked(s, 2, 50 * MS);
	sched_vcpu_blocked(s, 1, 60 * MS);
	group_stat(s, b, 80 * MS, &st);	/* in progress, counted on read */
	CU_ASSERT_EQUAL(st.throttled_ns, 0);
	CU_ASSERT_EQUAL(st.local_throttled_ns, 2 * 40 * MS + 2 * 10 * MS + 1 * 20 * MS);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 2, d), 0);
	sched_vcpu_runnable(s, 2, 90 * MS);
	sched_timer(s, 100 * MS);
	CU_ASSERT_FALSE(group_throttled(a));
	group_stat(s, a, 200 * MS, &st);
	CU_ASSERT_EQUAL(st.throttled_ns, 2 * 40 * MS + 2 * 10 * MS + 1 * 30 * MS + 2 * 10 * MS);
	CU_ASSERT_EQUAL(st.local_throttled_ns, st.throttled_ns);
	group_stat(s, b, 200 * MS, &st);
	CU_ASSERT_EQUAL(st.local_throttled_ns, 2 * 40 * MS + 2 * 10 * MS + 1 * 40 * MS);
	group_stat(s, d, 200 * MS, &st);
	CU_ASSERT_EQUAL(st.local_throttled_ns, 10 * MS);
	group_stat(s, c, 200 * MS, &st);
	CU_ASSERT_EQUAL(st.local_throttled_ns, 0);
	group_stat(s, sched_root(s), 200 * MS, &st);
	CU_ASSERT_EQUAL(st.local_throttled_ns, 0);
	/* -cpu on a: b, c, d lose their task groups, and with them the counter */
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, false), 0);
	group_stat(s, b, 200 * MS, &st);
	CU_ASSERT_EQUAL(st.local_throttled_ns, 0);
	sched_destroy(s);
}

/*
 * A vCPU busy in bursts inside a group capped at 0.3 CPU, beside two hogs of a sibling group on
 * two lanes. Its burst is within the quota, so it runs at the full CPU its weight gives it: it
 * gets a lane within a rotation slice of waking (the sibling held both while it slept) and then
 * keeps it to the end of the burst, and nothing is throttled. Rates capped at quota / period held
 * it to 0.3 CPU while it ran: it lost the lane again at every rotation.
 */
static void test_core_burst_within_quota_runs_at_weight(void)
{
	struct sched *s = sched_create(2, 3);
	struct sched_decision d[8];
	struct group *b, *h;
	uint64_t t, first = 0;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "b", &b), 0);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "h", &h), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, b, 30000, 100000, 0), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, b), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, h), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 2, h), 0);
	sched_vcpu_runnable(s, 1, 0);
	sched_vcpu_runnable(s, 2, 0);
	take(s, d, 8);
	sched_vcpu_ran(s, 1, 50 * MS, 0, 50 * MS);
	sched_vcpu_ran(s, 2, 50 * MS, 0, 50 * MS);
	sched_vcpu_runnable(s, 0, 50 * MS);
	take(s, d, 8);
	CU_ASSERT_TRUE(fabs(sched_vcpu_rate(s, 0) - 1.0) < 1e-9);
	/* 20 ms of its burst while the hogs share the other lane. */
	for (t = 51 * MS; t <= 70 * MS; t += MS) {
		unsigned int v;

		for (v = 0; v < 3; v++)
			if (sched_vcpu_lane(s, v) >= 0)
				sched_vcpu_ran(s, v, MS, 0, t);
		if (sched_next_timer(s) <= t)
			sched_timer(s, t);
		take(s, d, 8);
		if (!first && sched_vcpu_lane(s, 0) >= 0)
			first = t;
		if (first)
			CU_ASSERT_TRUE(sched_vcpu_lane(s, 0) >= 0);
	}
	CU_ASSERT_TRUE(first && first <= 50 * MS + SCHED_SLICE_DFL_NS);
	CU_ASSERT_FALSE(group_throttled(b));
	sched_destroy(s);
}

static CU_TestInfo core_bandwidth_tests[] = {
	{ "a burst within its quota runs at its weight's rate",
	  test_core_burst_within_quota_runs_at_weight },
	{ "throttle when the pool runs dry", test_core_throttle_at_exhaustion },
	{ "move into a throttled group", test_core_move_into_throttled_group },
	{ "wake into a throttled group", test_core_wake_into_throttled_group },
	{ "remove a capped group", test_core_remove_capped_group },
	{ "period timer stops and restarts", test_core_period_timer_stops_and_restarts },
	{ "throttled time counts runnable vCPUs per lane", test_core_throttled_time_width },
	{ "cpu.stat.local: throttled by itself or an ancestor", test_core_throttled_local },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/core bandwidth", core_bandwidth_tests)
