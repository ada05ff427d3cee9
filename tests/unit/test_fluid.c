// SPDX-License-Identifier: GPL-2.0
/* The fluid ideal against values worked out by hand. */
#include <math.h>

#include "test.h"
#include "sched/fluid.h"

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

static void test_fluid_water_filling(void)
{
	/* R{ a(100){ v0 }, b(200){ v1, v2, v3 } } on 2 lanes: a 2/3, b 4/3, b's vCPUs 4/9 each. */
	struct sched *s = sched_create(2, 4);
	double demand[4] = { 1, 1, 1, 1 }, rate[4];
	struct group *a, *b;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "b", &b), 0);
	CU_ASSERT_EQUAL(group_set_shares(s, b, sched_weight_from_cgroup(200)), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, a), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, b), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 2, b), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 3, b), 0);
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	CU_ASSERT_TRUE(NEAR(rate[0], 2.0 / 3));
	CU_ASSERT_TRUE(NEAR(rate[1], 4.0 / 9));
	CU_ASSERT_TRUE(NEAR(fluid_group_rate(s, b, rate), 4.0 / 3));
	/* a one-vCPU group with a huge weight is held at one CPU; b gets the rest. */
	CU_ASSERT_EQUAL(group_set_shares(s, a, sched_weight_from_cgroup(10000)), 0);
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	CU_ASSERT_TRUE(NEAR(rate[0], 1.0));
	CU_ASSERT_TRUE(NEAR(fluid_group_rate(s, b, rate), 1.0));
	/* A cap below the fair share: b may use 0.25 CPU, a takes what is left up to 1. */
	CU_ASSERT_EQUAL(group_set_bandwidth(s, b, 25000, 100000, 0), 0);
	CU_ASSERT_TRUE(NEAR(fluid_group_demand(s, b, demand), 0.25));
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	CU_ASSERT_TRUE(NEAR(fluid_group_rate(s, b, rate), 0.25));
	CU_ASSERT_TRUE(NEAR(rate[0], 1.0));
	/* A duty vCPU asks for 0.3: it gets it, a's hog the rest of a's share. */
	demand[0] = 0.3;
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	CU_ASSERT_TRUE(NEAR(rate[0], 0.3));
	CU_ASSERT_TRUE(NEAR(fluid_group_rate(s, sched_root(s), rate), 0.55));
	sched_destroy(s);
}

static void test_fluid_nested_and_internal_vcpus(void)
{
	/* R{ v0, a(300){ v1, x(100){ v2, v3 } } } on 3 lanes: root splits 1024:3072. */
	struct sched *s = sched_create(3, 4);
	double demand[4] = { 1, 1, 1, 1 }, rate[4];
	struct group *a, *x;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "x", &x), 0);
	/* x threaded, so that a may hold vCPUs beside it once a enables cpu. */
	CU_ASSERT_EQUAL(group_enable_threaded(s, x), 0);
	CU_ASSERT_EQUAL(group_set_shares(s, a, sched_weight_from_cgroup(300)), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, a), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 2, x), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 3, x), 0);
	/* Without "cpu" in a's subtree_control, x has no task group: v1..v3 share a's 9/4. */
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	CU_ASSERT_TRUE(NEAR(rate[0], 0.75));
	CU_ASSERT_TRUE(NEAR(rate[1], 0.75));
	CU_ASSERT_TRUE(NEAR(rate[3], 0.75));
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, true), 0);
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	/* v0 3/4 CPU, a 9/4: v1 and x split 9/4 equally -> v1 capped at 1, x 5/4. */
	CU_ASSERT_TRUE(NEAR(rate[0], 0.75));
	CU_ASSERT_TRUE(NEAR(rate[1], 1.0));
	CU_ASSERT_TRUE(NEAR(rate[2], 0.625));
	CU_ASSERT_TRUE(NEAR(rate[3], 0.625));
	/* Nothing runnable: nothing owed. */
	demand[0] = demand[1] = demand[2] = demand[3] = 0;
	CU_ASSERT_EQUAL(fluid_solve(s, demand, rate), 0);
	CU_ASSERT_TRUE(NEAR(rate[0] + rate[1] + rate[2] + rate[3], 0));
	sched_destroy(s);
}

static CU_TestInfo fluid_tests[] = {
	{ "water-filling, caps, demand", test_fluid_water_filling },
	{ "nesting and vCPUs beside groups", test_fluid_nested_and_internal_vcpus },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/fluid", fluid_tests)
