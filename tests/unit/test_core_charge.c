// SPDX-License-Identifier: GPL-2.0
/*
 * Group-level charges (sched_group_charge()): CPU a group's own threads used, no vCPU's (host
 * mode: a VMM's agent and helper charged to its VM group). It must count in cpu.stat, against
 * cpu.max and in virtual time, as the kernel charges every thread of a cgroup.
 */
#include <stdlib.h>

#include "core_test.h"
#include "test.h"

/* Usage, quota and throttling: a charge draws the pool the vCPUs draw. */
static void test_core_group_charge_quota(void)
{
	struct sched *s = sched_create(1, 1);
	struct sched_decision d[8];
	struct group *a, *b;
	struct cpu_stat st;
	size_t n;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, b), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 10000, 100000, 0), 0);
	sched_vcpu_runnable(s, 0, 0);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 0));
	CU_ASSERT_EQUAL(sched_lane_until(s, 0), 10 * MS);
	/* b's own threads used 4 ms: the pool has 6 left, the holder's slice end moves there. */
	CU_ASSERT_EQUAL(sched_group_charge(s, b, 3 * MS, MS, MS), 0);
	take(s, d, 8);
	CU_ASSERT_EQUAL(sched_lane_until(s, 0), 7 * MS);
	group_stat(s, b, MS, &st);
	CU_ASSERT_EQUAL(st.usage_ns, 4 * MS);
	CU_ASSERT_EQUAL(st.user_ns, 3 * MS);
	CU_ASSERT_EQUAL(st.system_ns, MS);
	group_stat(s, a, MS, &st);
	CU_ASSERT_EQUAL(st.usage_ns, 4 * MS);
	group_stat(s, sched_root(s), MS, &st);
	CU_ASSERT_EQUAL(st.usage_ns, 4 * MS);
	/* The vCPU runs the rest: dry, thrown out at this instant's timer. */
	sched_vcpu_ran(s, 0, 6 * MS, 0, 7 * MS);
	CU_ASSERT_EQUAL(sched_next_timer(s), 7 * MS);
	sched_timer(s, 7 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_THROTTLE, -1));
	CU_ASSERT_TRUE(has(d, n, SCHED_PREEMPT, 0));
	group_stat(s, a, 7 * MS, &st);
	CU_ASSERT_EQUAL(st.usage_ns, 10 * MS);
	/* Refilled; a charge alone that dries the pool throttles the group too. */
	sched_timer(s, 100 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_RUN, 0));
	CU_ASSERT_EQUAL(sched_group_charge(s, a, 0, 12 * MS, 101 * MS), 0);
	CU_ASSERT_EQUAL(sched_next_timer(s), 101 * MS);
	sched_timer(s, 101 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_THROTTLE, -1));
	CU_ASSERT_TRUE(group_throttled(a));
	/* 2 ms of debt: the next period's pool holds 8. */
	sched_timer(s, 200 * MS);
	take(s, d, 8);
	CU_ASSERT_FALSE(group_throttled(a));
	sched_vcpu_ran(s, 0, 8 * MS, 0, 208 * MS);
	CU_ASSERT_EQUAL(sched_next_timer(s), 208 * MS);
	sched_timer(s, 208 * MS);
	n = take(s, d, 8);
	CU_ASSERT_TRUE(has(d, n, SCHED_THROTTLE, -1));
	sched_destroy(s);
}

/* Nothing outside s's own tree, no overflow. */
static void test_core_group_charge_checks(void)
{
	struct sched *s = sched_create(1, 1), *t = sched_create(1, 1);
	struct group *a;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(sched_group_charge(t, a, MS, 0, MS), -EINVAL);
	CU_ASSERT_EQUAL(sched_group_charge(t, NULL, MS, 0, MS), -EINVAL);
	CU_ASSERT_EQUAL(sched_group_charge(s, a, UINT64_MAX, 2, MS), -EINVAL);
	CU_ASSERT_EQUAL(sched_group_charge(s, sched_root(s), MS, 0, MS), 0);
	CU_ASSERT_EQUAL(sched_root(s)->stat.usage_ns, MS);
	sched_destroy(s);
	sched_destroy(t);
}

/*
 * Virtual time: two groups of one hog each on one lane, a's own threads using a fifth of a CPU
 * besides. As the kernel would, a's whole usage (its vCPU and its threads) keeps pace with b's:
 * over 3 s of the lane plus 0.6 s of a's threads, a's vCPU gets 1.2 s and b's 1.8 s.
 */
static void test_core_group_charge_vt(void)
{
	struct sched *s = sched_create(1, 2);
	struct sched_decision d[8];
	struct group *a, *b;
	struct cpu_stat sa, sb;
	uint64_t t;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "b", &b), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, a), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, b), 0);
	sched_vcpu_runnable(s, 0, 0);
	sched_vcpu_runnable(s, 1, 0);
	take(s, d, 8);
	for (t = MS; t <= 3000 * MS; t += MS) {
		int v = sched_lane_vcpu(s, 0);

		if (v >= 0)
			sched_vcpu_ran(s, (unsigned int)v, MS, 0, t);
		if (t % (10 * MS) == 0)
			CU_ASSERT_EQUAL(sched_group_charge(s, a, MS, MS, t), 0);
		if (sched_next_timer(s) <= t)
			sched_timer(s, t);
		take(s, d, 8);
	}
	group_stat(s, a, t, &sa);
	group_stat(s, b, t, &sb);
	CU_ASSERT_TRUE(llabs((long long)sa.usage_ns - (long long)sb.usage_ns) < 30 * (long long)MS);
	CU_ASSERT_TRUE(llabs((long long)sb.usage_ns - 1800 * (long long)MS) < 30 * (long long)MS);
	sched_destroy(s);
}

static CU_TestInfo core_charge_tests[] = {
	{ "a group's own CPU counts in cpu.stat and against cpu.max",
	  test_core_group_charge_quota },
	{ "a group charge checks its group", test_core_group_charge_checks },
	{ "a group's own CPU counts in its virtual time", test_core_group_charge_vt },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/core group charge", core_charge_tests)
