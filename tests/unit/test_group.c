// SPDX-License-Identifier: GPL-2.0
/* The group tree: mkdir/rmdir rules, limits, paths, membership counters, setters. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "sched/group.h"

static void test_group_create_lookup_path(void)
{
	struct sched *s = sched_create(2, 4);
	struct group *root = sched_root(s), *a, *b, *c;
	char buf[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_TRUE(group_is_root(root));
	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_EQUAL(group_create(s, root, "c", &c), 0);
	CU_ASSERT_EQUAL(a->depth, 1);
	CU_ASSERT_EQUAL(b->depth, 2);
	CU_ASSERT_EQUAL(root->nr_descendants, 3);
	CU_ASSERT_EQUAL(a->nr_descendants, 1);
	CU_ASSERT_PTR_EQUAL(group_lookup(s, "a/b"), b);
	CU_ASSERT_PTR_EQUAL(group_lookup(s, "/a/b/"), b);
	CU_ASSERT_PTR_EQUAL(group_lookup(s, ""), root);
	CU_ASSERT_PTR_EQUAL(group_lookup(s, "/"), root);
	CU_ASSERT_PTR_NULL(group_lookup(s, "a/x"));
	CU_ASSERT_PTR_EQUAL(group_child(root, "c"), c);
	CU_ASSERT_EQUAL(group_path(b, buf, sizeof(buf)), 4);
	CU_ASSERT_STRING_EQUAL(buf, "/a/b");
	CU_ASSERT_EQUAL(group_path(root, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "/");
	CU_ASSERT_EQUAL(group_path(b, buf, 4), -ENAMETOOLONG);
	/* Defaults of a new group. */
	CU_ASSERT_EQUAL(b->shares, NICE_0_LOAD);
	CU_ASSERT_EQUAL(b->quota_us, RUNTIME_INF);
	CU_ASSERT_EQUAL(b->period_us, CPU_PERIOD_DFL_US);
	CU_ASSERT_EQUAL(b->burst_us, 0);
	CU_ASSERT_FALSE(b->idle);
	CU_ASSERT_EQUAL(b->type, GROUP_DOMAIN);
	sched_destroy(s);
}

static void test_group_name_rules(void)
{
	struct sched *s = sched_create(1, 0);
	struct group *root = sched_root(s), *a, *g;
	char longname[GROUP_NAME_MAX + 2];

	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, root, "a", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "", &g), -EINVAL);
	CU_ASSERT_EQUAL(group_create(s, root, "x/y", &g), -EINVAL);
	CU_ASSERT_EQUAL(group_create(s, root, "x\ny", &g), -EINVAL);
	CU_ASSERT_EQUAL(group_create(s, root, ".", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "..", &g), -EEXIST);
	memset(longname, 'n', sizeof(longname));
	longname[GROUP_NAME_MAX + 1] = '\0';
	CU_ASSERT_EQUAL(group_create(s, root, longname, &g), -ENAMETOOLONG);
	longname[GROUP_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(group_create(s, root, longname, &g), 0);
	/* Core files exist everywhere; cgroup.type only off the root. */
	CU_ASSERT_EQUAL(group_create(s, root, "cgroup.procs", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "cpu.stat", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, a, "cgroup.type", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "cgroup.type", &g), 0);
	/* cpu.* files exist in a, whose parent (root) has +cpu, not in root. */
	CU_ASSERT_EQUAL(group_create(s, a, "cpu.weight", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, a, "cpu.max", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "cpu.weight", &g), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "cpu.other", &g), 0);
	CU_ASSERT_EQUAL(root->nr_descendants, 5);
	sched_destroy(s);
}

static void test_group_limits(void)
{
	struct sched *s = sched_create(1, 0);
	struct group *root = sched_root(s), *a, *b, *g;

	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_set_max_depth(s, a, 1), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_EQUAL(group_create(s, b, "c", &g), -EAGAIN);
	CU_ASSERT_EQUAL(group_set_max_depth(s, a, 0), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b2", &g), -EAGAIN);
	CU_ASSERT_EQUAL(group_set_max_depth(s, a, LIMIT_MAX), 0);
	CU_ASSERT_EQUAL(group_create(s, b, "c", &g), 0);
	/* Root counts every descendant: 3 now. */
	CU_ASSERT_EQUAL(group_set_max_descendants(s, root, 3), 0);
	CU_ASSERT_EQUAL(group_create(s, root, "d", &g), -EAGAIN);
	CU_ASSERT_EQUAL(group_create(s, a, "d", &g), -EAGAIN);
	/* An existing name is EEXIST before the limit is looked at (the VFS sees it first). */
	CU_ASSERT_EQUAL(group_create(s, root, "a", &g), -EEXIST);
	/* Lowering below the current count removes nothing. */
	CU_ASSERT_EQUAL(group_set_max_descendants(s, root, 0), 0);
	CU_ASSERT_PTR_NOT_NULL(group_lookup(s, "a/b/c"));
	CU_ASSERT_EQUAL(group_set_max_descendants(s, root, LIMIT_MAX), 0);
	CU_ASSERT_EQUAL(group_set_max_descendants(s, a, 2), 0);
	CU_ASSERT_EQUAL(group_create(s, b, "e", &g), -EAGAIN);
	CU_ASSERT_EQUAL(group_create(s, root, "e", &g), 0);
	sched_destroy(s);
}

/*
 * vsched's own depth limit: GROUP_DEPTH_MAX levels below the root, then EAGAIN as at
 * cgroup.max.depth, whatever cgroup.max.depth says (it stays "max"). Deeper trees were accepted
 * and the core's 64-entry path arrays cut them short.
 */
static void test_group_depth_limit(void)
{
	struct sched *s = sched_create(1, 0);
	struct group *g = sched_root(s), *c;
	unsigned int d;

	for (d = 1; d <= GROUP_DEPTH_MAX; d++) {
		CU_ASSERT_EQUAL_FATAL(group_create(s, g, "d", &c), 0);
		g = c;
	}
	CU_ASSERT_EQUAL(g->depth, GROUP_DEPTH_MAX);
	CU_ASSERT_EQUAL(group_create(s, g, "d", &c), -EAGAIN);
	CU_ASSERT_EQUAL(group_set_max_depth(s, sched_root(s), 100000), 0);
	CU_ASSERT_EQUAL(group_create(s, g, "d", &c), -EAGAIN);
	CU_ASSERT_EQUAL(group_create(s, g, "d", &c), -EAGAIN);
	CU_ASSERT_EQUAL(g->max_depth, LIMIT_MAX);
	/* A name that exists is EEXIST first, as at any limit. */
	CU_ASSERT_EQUAL(group_create(s, g->parent, "d", &c), -EEXIST);
	sched_destroy(s);
}

static void test_group_remove_and_membership(void)
{
	struct sched *s = sched_create(2, 3);
	struct group *root = sched_root(s), *a, *b;

	CU_ASSERT_EQUAL(root->nr_vcpus, 3);
	CU_ASSERT_EQUAL(root->nr_populated, 3);
	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, b), 0);
	CU_ASSERT_PTR_EQUAL(sched_vcpu(s, 1)->group, b);
	CU_ASSERT_EQUAL(root->nr_vcpus, 2);
	CU_ASSERT_EQUAL(root->nr_populated, 3);
	CU_ASSERT_EQUAL(a->nr_vcpus, 0);
	CU_ASSERT_EQUAL(a->nr_populated, 1);
	CU_ASSERT_EQUAL(b->nr_vcpus, 1);
	CU_ASSERT_TRUE(group_is_populated(a));
	/* Moving to the same group is a no-op; an unknown vCPU is ESRCH. */
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, b), 0);
	CU_ASSERT_EQUAL(b->nr_vcpus, 1);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 3, b), -ESRCH);
	/* Populated or with children: EBUSY. The root: EBUSY. */
	CU_ASSERT_EQUAL(group_remove(s, b), -EBUSY);
	CU_ASSERT_EQUAL(group_remove(s, a), -EBUSY);
	CU_ASSERT_EQUAL(group_remove(s, root), -EBUSY);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, a), 0);
	CU_ASSERT_EQUAL(a->nr_vcpus, 1);
	CU_ASSERT_EQUAL(b->nr_populated, 0);
	CU_ASSERT_EQUAL(group_remove(s, b), 0);
	CU_ASSERT_EQUAL(a->nr_descendants, 0);
	CU_ASSERT_EQUAL(group_remove(s, a), -EBUSY);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, root), 0);
	CU_ASSERT_EQUAL(group_remove(s, a), 0);
	CU_ASSERT_EQUAL(root->nr_descendants, 0);
	CU_ASSERT_EQUAL(root->nr_vcpus, 3);
	CU_ASSERT_PTR_NULL(group_lookup(s, "a"));
	sched_destroy(s);
}

static void test_group_vcpu_tid(void)
{
	struct sched *s = sched_create(1, 2);

	CU_ASSERT_PTR_NULL(sched_vcpu_by_tid(s, 1234));
	sched_vcpu_set_tid(s, 1, 1234);
	CU_ASSERT_PTR_EQUAL(sched_vcpu_by_tid(s, 1234), sched_vcpu(s, 1));
	CU_ASSERT_PTR_NULL(sched_vcpu(s, 2));
	CU_ASSERT_PTR_NULL(sched_vcpu_by_tid(s, 0));
	sched_set_pid(s, 99);
	CU_ASSERT_EQUAL(sched_pid(s), 99);
	CU_ASSERT_EQUAL(sched_nr_vcpus(s), 2);
	sched_destroy(s);
	CU_ASSERT_PTR_NULL(sched_create(0, 2));
}

static void test_group_set_shares_idle(void)
{
	struct sched *s = sched_create(1, 0);
	struct group *root = sched_root(s), *a;

	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_set_shares(s, root, 2048), -EINVAL);
	CU_ASSERT_EQUAL(group_set_shares(s, a, sched_weight_from_cgroup(300)), 0);
	CU_ASSERT_EQUAL(sched_weight_to_cgroup(a->shares), 300);
	CU_ASSERT_EQUAL(group_set_idle(s, root, true), -EINVAL);
	CU_ASSERT_EQUAL(group_set_idle(s, a, true), 0);
	CU_ASSERT_EQUAL(a->shares, WEIGHT_IDLEPRIO);
	CU_ASSERT_EQUAL(group_set_shares(s, a, 1024), -EINVAL);
	CU_ASSERT_EQUAL(a->shares, WEIGHT_IDLEPRIO);
	CU_ASSERT_EQUAL(group_set_idle(s, a, true), 0);
	CU_ASSERT_EQUAL(group_set_idle(s, a, false), 0);
	/* Leaving idle gives weight 100, not the weight from before. */
	CU_ASSERT_EQUAL(a->shares, NICE_0_LOAD);
	/* The kernel clamps internal shares rather than failing. */
	CU_ASSERT_EQUAL(group_set_shares(s, a, 1), 0);
	CU_ASSERT_EQUAL(a->shares, 2);
	sched_destroy(s);
}

static void test_group_weight_conversions(void)
{
	unsigned long w;

	CU_ASSERT_EQUAL(sched_weight_from_cgroup(1), 10);
	CU_ASSERT_EQUAL(sched_weight_from_cgroup(100), 1024);
	CU_ASSERT_EQUAL(sched_weight_from_cgroup(10000), 102400);
	for (w = CGROUP_WEIGHT_MIN; w <= CGROUP_WEIGHT_MAX; w++)
		if (sched_weight_to_cgroup(sched_weight_from_cgroup(w)) != w)
			break;
	CU_ASSERT_EQUAL(w, CGROUP_WEIGHT_MAX + 1);
	CU_ASSERT_EQUAL(sched_weight_to_cgroup(WEIGHT_IDLEPRIO), 1);
	CU_ASSERT_EQUAL(sched_prio_to_weight[20], NICE_0_LOAD);
	CU_ASSERT_EQUAL(sched_weight_to_cgroup(sched_prio_to_weight[0]), 8668);
	CU_ASSERT_EQUAL(sched_weight_to_cgroup(sched_prio_to_weight[39]), 1);
}

static void test_group_set_bandwidth_errors(void)
{
	struct sched *s = sched_create(1, 0);
	struct group *root = sched_root(s), *a;

	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, root, 50000, 100000, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 999, 100000, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 0, 100000, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 1000, 999, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, RUNTIME_INF, 999, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 1000, 1000001, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, MAX_BW_US + 1, 100000, 0), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 1000, 100000, 1001), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, MAX_BW_US, 100000, 1), -EINVAL);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, RUNTIME_INF, 100000, UINT64_MAX / 1000 + 1),
			-EINVAL);
	/* Nothing changed. */
	CU_ASSERT_EQUAL(a->quota_us, RUNTIME_INF);
	CU_ASSERT_EQUAL(a->period_us, CPU_PERIOD_DFL_US);
	CU_ASSERT_EQUAL(a->burst_us, 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 1000, 1000000, 0), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 200000, 100000, 50000), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, MAX_BW_US, 100000, 0), 0);
	/* With "max" quota any burst up to U64_MAX/1000 us is accepted ... */
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, RUNTIME_INF, 100000, 500000), 0);
	/* ... and a later finite quota below it fails: cpu.max and cpu.max.burst have an order. */
	CU_ASSERT_EQUAL(group_set_bandwidth(s, a, 100000, 100000, a->burst_us), -EINVAL);
	CU_ASSERT_EQUAL(a->quota_us, RUNTIME_INF);
	CU_ASSERT_EQUAL(a->burst_us, 500000);
	sched_destroy(s);
}

/* The rule each bad triple breaks, in the kernel's order: the edges name it from this alone. */
static void test_group_bandwidth_rule(void)
{
	CU_ASSERT_EQUAL(group_bandwidth_rule(1000, 1000, 0), BW_OK);
	CU_ASSERT_EQUAL(group_bandwidth_rule(RUNTIME_INF, CPU_PERIOD_MAX_US, 1), BW_OK);
	CU_ASSERT_EQUAL(group_bandwidth_rule(999, 999, 0), BW_QUOTA);	/* quota first */
	CU_ASSERT_EQUAL(group_bandwidth_rule(MAX_BW_US + 1, 999, 0), BW_PERIOD);	/* then period */
	CU_ASSERT_EQUAL(group_bandwidth_rule(MAX_BW_US + 1, 100000, 0), BW_QUOTA);
	CU_ASSERT_EQUAL(group_bandwidth_rule(RUNTIME_INF, 1000001, 0), BW_PERIOD);
	CU_ASSERT_EQUAL(group_bandwidth_rule(1000, 100000, 1001), BW_BURST);
	CU_ASSERT_EQUAL(group_bandwidth_rule(MAX_BW_US, 100000, 1), BW_BURST);
	CU_ASSERT_EQUAL(group_bandwidth_rule(RUNTIME_INF, 100000, UINT64_MAX / 1000 + 1), BW_BURST);
	CU_ASSERT_STRING_EQUAL(group_bandwidth_rule_str(BW_PERIOD), "the cpu.max period is 1ms to 1s");
	CU_ASSERT_STRING_EQUAL(group_bandwidth_rule_str(BW_QUOTA),
			       "the cpu.max quota is max or 1ms to 17592186s");
	CU_ASSERT_EQUAL(MAX_BW_US / 1000000, 17592186);
}

static void test_group_threaded_mode(void)
{
	struct sched *s = sched_create(1, 2);
	struct group *root = sched_root(s), *gp, *p, *c, *d;

	CU_ASSERT_EQUAL(group_create(s, root, "gp", &gp), 0);
	CU_ASSERT_EQUAL(group_create(s, gp, "p", &p), 0);
	CU_ASSERT_EQUAL(group_create(s, p, "c", &c), 0);
	CU_ASSERT_EQUAL(group_type_of(p), GROUP_DOMAIN);
	/* test_cgcore_invalid_domain: P threaded makes C an invalid domain. */
	CU_ASSERT_EQUAL(group_enable_threaded(s, p), 0);
	CU_ASSERT_EQUAL(group_enable_threaded(s, p), 0);
	CU_ASSERT_EQUAL(group_type_of(p), GROUP_THREADED);
	CU_ASSERT_EQUAL(group_type_of(gp), GROUP_DOMAIN_THREADED);
	CU_ASSERT_EQUAL(group_type_of(c), GROUP_DOMAIN_INVALID);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, c), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(c->nr_vcpus, 0);
	CU_ASSERT_PTR_EQUAL(group_dom(p), gp);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, p), 0);
	/* A populated group cannot become threaded; the root never. */
	CU_ASSERT_EQUAL(group_create(s, root, "d", &d), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, d), 0);
	CU_ASSERT_EQUAL(group_enable_threaded(s, d), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(group_enable_threaded(s, root), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(group_type_of(d), GROUP_DOMAIN);
	/* C can be made threaded, which makes it valid again. */
	CU_ASSERT_EQUAL(group_enable_threaded(s, c), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, c), 0);
	sched_destroy(s);
}

static void test_group_subtree_cpu(void)
{
	struct sched *s = sched_create(1, 1);
	struct group *root = sched_root(s), *a, *b;

	CU_ASSERT_TRUE(root->subtree_cpu);
	CU_ASSERT_EQUAL(group_create(s, root, "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_FALSE(a->subtree_cpu);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, b, true), -ENOENT);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, true), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, b, true), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, false), -EBUSY);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, root, false), -EBUSY);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, b, false), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, b, false), 0);
	/* +cpu on a populated domain group is allowed: it becomes a thread root. */
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 0, b), 0);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, b, true), 0);
	CU_ASSERT_EQUAL(group_type_of(b), GROUP_DOMAIN_THREADED);
	sched_destroy(s);
}

static void test_group_setters_need_the_controller(void)
{
	struct sched *s = sched_create(1, 0);
	struct group *a, *b;

	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "a", &a), 0);
	CU_ASSERT_EQUAL(group_create(s, a, "b", &b), 0);
	CU_ASSERT_FALSE(group_has_cpu(b));
	CU_ASSERT_PTR_EQUAL(group_cpu_group(b), a);
	CU_ASSERT_EQUAL(group_set_shares(s, b, 2048), -ENOENT);
	CU_ASSERT_EQUAL(group_set_idle(s, b, true), -ENOENT);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, b, 999, 100000, 0), -ENOENT);
	CU_ASSERT_EQUAL(b->shares, NICE_0_LOAD);
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, true), 0);
	CU_ASSERT_PTR_EQUAL(group_cpu_group(b), b);
	CU_ASSERT_EQUAL(group_set_shares(s, b, 2048), 0);
	CU_ASSERT_EQUAL(group_set_bandwidth(s, b, 50000, 100000, 1000), 0);
	/* -cpu: b's settings die with its css; enabling again gives fresh defaults. */
	CU_ASSERT_EQUAL(group_set_subtree_cpu(s, a, false), 0);
	CU_ASSERT_EQUAL(b->shares, NICE_0_LOAD);
	CU_ASSERT_EQUAL(b->quota_us, RUNTIME_INF);
	CU_ASSERT_EQUAL(b->burst_us, 0);
	sched_destroy(s);
}

static CU_TestInfo group_tests[] = {
	{ "setters need the cpu controller", test_group_setters_need_the_controller },
	{ "threaded mode", test_group_threaded_mode },
	{ "cpu in subtree_control", test_group_subtree_cpu },
	{ "create, lookup, path", test_group_create_lookup_path },
	{ "name rules", test_group_name_rules },
	{ "max.depth and max.descendants", test_group_limits },
	{ "depth limit", test_group_depth_limit },
	{ "remove and membership counters", test_group_remove_and_membership },
	{ "vCPU thread IDs", test_group_vcpu_tid },
	{ "shares and idle setters", test_group_set_shares_idle },
	{ "weight conversions", test_group_weight_conversions },
	{ "cpu.max rules named", test_group_bandwidth_rule },
	{ "bandwidth setter errors", test_group_set_bandwidth_errors },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/group", group_tests)
