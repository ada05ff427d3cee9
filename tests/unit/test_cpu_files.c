// SPDX-License-Identifier: GPL-2.0
/* cpu.* interface files through the public API: formats, defaults, every errno, kernel tables. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vs_test.h"
#include "sched/files.h"
#include "sched/group.h"
#include "util/compiler.h"

static struct vsched *vs;

static int cpu_init(void)
{
	vs = vs_new(4);
	return !vs || vsched_mkdir(vs, "g");
}

static int cpu_clean(void)
{
	vsched_destroy(vs);
	return 0;
}

/* Back to a fresh cpu css: -cpu/+cpu on the root gives g the defaults (kernel: new css). */
static void cpu_reset(void)
{
	WRITE_OK(vs, "/", "cgroup.subtree_control", "-cpu");
	WRITE_OK(vs, "/", "cgroup.subtree_control", "+cpu");
}

static void test_cpu_defaults(void)
{
	cpu_reset();
	READ_IS(vs, "g", "cpu.weight", "100\n");
	READ_IS(vs, "g", "cpu.weight.nice", "0\n");
	READ_IS(vs, "g", "cpu.idle", "0\n");
	READ_IS(vs, "g", "cpu.max", "max 100000\n");
	READ_IS(vs, "g", "cpu.max.burst", "0\n");
	READ_IS(vs, "g", "cpu.stat",
		"usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
}

static void test_cpu_weight_errnos(void)
{
	static const struct {
		const char *in;
		int ret;
	} bad[] = {
		{ "0", -ERANGE },	{ "10001", -ERANGE },	 { "18446744073709551616", -ERANGE },
		{ "-1", -EINVAL },	{ "abc", -EINVAL },	 { " 100", -EINVAL },
		{ "100 ", -EINVAL },	{ "100\n\n", -EINVAL },	 { "1e2", -EINVAL },
		{ "08", -EINVAL },	{ "\n", -EINVAL },	 { "max", -EINVAL },
	};
	size_t i;

	cpu_reset();
	WRITE_OK(vs, "g", "cpu.weight", "250");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		WRITE_IS(vs, "g", "cpu.weight", bad[i].in, bad[i].ret);
	READ_IS(vs, "g", "cpu.weight", "250\n");	/* unchanged by every failure */
	WRITE_OK(vs, "g", "cpu.weight", "0x64");
	READ_IS(vs, "g", "cpu.weight", "100\n");
	WRITE_OK(vs, "g", "cpu.weight", "+0144\n");
	READ_IS(vs, "g", "cpu.weight", "100\n");
	WRITE_OK(vs, "g", "cpu.weight", "1");
	READ_IS(vs, "g", "cpu.weight", "1\n");
	WRITE_OK(vs, "g", "cpu.weight", "10000");
	READ_IS(vs, "g", "cpu.weight", "10000\n");
}

/* The round trip is exact for every weight, and nice follows the reference table. */
static void test_cpu_weight_all_values(void)
{
	static const struct {
		unsigned int lo;
		int nice;
	} nice_from[] = {
		{ 1, 19 },	  { 2, 18 },	   { 3, 16 },	    { 4, 14 },	     { 5, 13 },
		{ 7, 12 },	  { 8, 11 },	   { 10, 10 },	    { 13, 9 },	     { 16, 8 },
		{ 19, 7 },	  { 24, 6 },	   { 30, 5 },	    { 37, 4 },	     { 47, 3 },
		{ 58, 2 },	  { 73, 1 },	   { 90, 0 },	    { 113, -1 },     { 140, -2 },
		{ 175, -3 },	  { 220, -4 },	   { 275, -5 },	    { 344, -6 },     { 431, -7 },
		{ 538, -8 },	  { 670, -9 },	   { 839, -10 },    { 1048, -11 },   { 1312, -12 },
		{ 1644, -13 },	  { 2049, -14 },   { 2559, -15 },   { 3196, -16 },   { 4032, -17 },
		{ 5018, -18 },	  { 6262, -19 },   { 7838, -20 },   { 10001, 0 },
	};
	unsigned int w, k = 0, bad_weight = 0, bad_nice = 0;
	char in[16], want[16];

	cpu_reset();
	for (w = 1; w <= 10000; w++) {
		char buf[32];

		if (w >= nice_from[k + 1].lo)
			k++;
		snprintf(in, sizeof(in), "%u", w);
		if (vsched_write_str(vs, "g", "cpu.weight", in)) {
			bad_weight++;
			continue;
		}
		snprintf(want, sizeof(want), "%u\n", w);
		if (vsched_read(vs, "g", "cpu.weight", buf, sizeof(buf)) < 0 || strcmp(buf, want))
			bad_weight++;
		snprintf(want, sizeof(want), "%d\n", nice_from[k].nice);
		if (vsched_read(vs, "g", "cpu.weight.nice", buf, sizeof(buf)) < 0 ||
		    strcmp(buf, want))
			bad_nice++;
	}
	CU_ASSERT_EQUAL(bad_weight, 0);
	CU_ASSERT_EQUAL(bad_nice, 0);
}

static void test_cpu_weight_nice(void)
{
	static const unsigned int weight_of[40] = {
		8668, 7007, 5516, 4519, 3544, 2847, 2271, 1827, 1460, 1164,
		932,  744,  596,  479,	381,  305,  244,  194,	155,  125,
		100,  80,   64,	  51,	41,   33,   27,	  21,	17,   13,
		11,   8,    7,	  5,	4,    4,    3,	  2,	2,    1,
	};
	char in[16], want[16];
	int nice;

	cpu_reset();
	for (nice = -20; nice <= 19; nice++) {
		snprintf(in, sizeof(in), "%d", nice);
		WRITE_OK(vs, "g", "cpu.weight.nice", in);
		snprintf(want, sizeof(want), "%u\n", weight_of[nice + 20]);
		READ_IS(vs, "g", "cpu.weight", want);
		snprintf(want, sizeof(want), "%d\n", nice);
		READ_IS(vs, "g", "cpu.weight.nice", want);
	}
	WRITE_OK(vs, "g", "cpu.weight.nice", "-3\n");
	WRITE_IS(vs, "g", "cpu.weight.nice", "-21", -ERANGE);
	WRITE_IS(vs, "g", "cpu.weight.nice", "20", -ERANGE);
	WRITE_IS(vs, "g", "cpu.weight.nice", "9223372036854775808", -ERANGE);
	WRITE_IS(vs, "g", "cpu.weight.nice", "--1", -EINVAL);
	WRITE_IS(vs, "g", "cpu.weight.nice", "1.5", -EINVAL);
	WRITE_IS(vs, "g", "cpu.weight.nice", "abc", -EINVAL);
	WRITE_IS(vs, "g", "cpu.weight.nice", " -1", -EINVAL);
	READ_IS(vs, "g", "cpu.weight.nice", "-3\n");
	READ_IS(vs, "g", "cpu.weight", "194\n");
	/* The conversions themselves, at the table's ends and on a tie. */
	CU_ASSERT_EQUAL(sched_weight_from_cgroup(1), 10);
	CU_ASSERT_EQUAL(sched_weight_from_cgroup(100), 1024);
	CU_ASSERT_EQUAL(sched_weight_from_cgroup(10000), 102400);
	CU_ASSERT_EQUAL(sched_weight_to_cgroup(3), 1);	/* idle: 1 since 6.12, not 0 */
	CU_ASSERT_EQUAL(sched_weight_to_cgroup(262144), 10000);
	CU_ASSERT_EQUAL(cpu_shares_to_nice(3), 19);
	CU_ASSERT_EQUAL(cpu_shares_to_nice(100000), -20);
	CU_ASSERT_EQUAL(cpu_shares_to_nice((1024 + 820) / 2), 0);	/* tie: the lower nice */
}

static void test_cpu_idle(void)
{
	cpu_reset();
	WRITE_OK(vs, "g", "cpu.weight", "500");
	WRITE_IS(vs, "g", "cpu.idle", "2", -EINVAL);
	WRITE_IS(vs, "g", "cpu.idle", "-1", -EINVAL);
	WRITE_IS(vs, "g", "cpu.idle", "x", -EINVAL);
	WRITE_IS(vs, "g", "cpu.idle", "9223372036854775808", -ERANGE);
	READ_IS(vs, "g", "cpu.idle", "0\n");
	READ_IS(vs, "g", "cpu.weight", "500\n");

	WRITE_OK(vs, "g", "cpu.idle", "1\n");
	READ_IS(vs, "g", "cpu.idle", "1\n");
	READ_IS(vs, "g", "cpu.weight", "1\n");
	READ_IS(vs, "g", "cpu.weight.nice", "19\n");
	WRITE_IS(vs, "g", "cpu.weight", "50", -EINVAL);
	WRITE_IS(vs, "g", "cpu.weight", "0", -ERANGE);	/* the range is checked first */
	WRITE_IS(vs, "g", "cpu.weight.nice", "0", -EINVAL);
	WRITE_IS(vs, "g", "cpu.weight.nice", "-21", -ERANGE);
	WRITE_OK(vs, "g", "cpu.idle", "1");	/* same value: no change */
	READ_IS(vs, "g", "cpu.idle", "1\n");

	WRITE_OK(vs, "g", "cpu.idle", "0");
	READ_IS(vs, "g", "cpu.idle", "0\n");
	READ_IS(vs, "g", "cpu.weight", "100\n");	/* not the 500 from before */
	WRITE_OK(vs, "g", "cpu.weight", "50");
}

struct max_case {
	const char *in;
	int ret;
	const char *read;	/* after the write, with the period set to 250000 before */
};

static void test_cpu_max_table(void)
{
	static const struct max_case cases[] = {
		{ "max", 0, "max 250000\n" },
		{ "max\n", 0, "max 250000\n" },
		{ "max 50000", 0, "max 50000\n" },
		{ "1000", 0, "1000 250000\n" },
		{ "1000\n", 0, "1000 250000\n" },
		{ "1000 100000", 0, "1000 100000\n" },
		{ "  1000\t100000\n", 0, "1000 100000\n" },
		{ "1000 100000 5000", 0, "1000 100000\n" },
		{ "1000 abc", 0, "1000 250000\n" },
		{ "1000 -5", 0, "1000 250000\n" },
		{ "1000abc", 0, "1000 250000\n" },
		{ "100000abc 100000", 0, "100000 100000\n" },
		{ "1000 1000000", 0, "1000 1000000\n" },
		{ "200000 100000", 0, "200000 100000\n" },
		{ "17592186044415", 0, "17592186044415 250000\n" },	/* MAX_BW us */
		{ "max 18446744073709651616", 0, "max 100000\n" },	/* %llu wraps */
		{ "-1", -EINVAL, NULL },
		{ "-1 100000", -EINVAL, NULL },
		{ "MAX", -EINVAL, NULL },
		{ "maxx", -EINVAL, NULL },
		{ "unlimited", -EINVAL, NULL },
		{ "\n", -EINVAL, NULL },
		{ "0", -EINVAL, NULL },
		{ "999", -EINVAL, NULL },
		{ "500 100000", -EINVAL, NULL },
		{ "1000 999", -EINVAL, NULL },
		{ "max 999", -EINVAL, NULL },
		{ "1000 0", -EINVAL, NULL },
		{ "1000 1000001", -EINVAL, NULL },
		{ "max 2000000", -EINVAL, NULL },
		{ "17592186044416", -EINVAL, NULL },	/* above MAX_BW */
		{ "18446744073709552", -EINVAL, NULL },	/* overflows in ns */
		{ "18446744073709551615", -EINVAL, NULL },
		{ "1000 18446744073709552", -EINVAL, NULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		cpu_reset();
		WRITE_OK(vs, "g", "cpu.max", "max 250000");
		WRITE_IS(vs, "g", "cpu.max", cases[i].in, cases[i].ret);
		READ_IS(vs, "g", "cpu.max", cases[i].read ? cases[i].read : "max 250000\n");
	}
}

static void test_cpu_max_burst(void)
{
	cpu_reset();
	WRITE_OK(vs, "g", "cpu.max", "10000 100000");
	WRITE_OK(vs, "g", "cpu.max.burst", "5000");
	READ_IS(vs, "g", "cpu.max.burst", "5000\n");
	/* burst > quota, in either order */
	WRITE_IS(vs, "g", "cpu.max", "4000", -EINVAL);
	WRITE_IS(vs, "g", "cpu.max.burst", "10001", -EINVAL);
	READ_IS(vs, "g", "cpu.max", "10000 100000\n");
	READ_IS(vs, "g", "cpu.max.burst", "5000\n");
	WRITE_OK(vs, "g", "cpu.max.burst", "10000");
	WRITE_IS(vs, "g", "cpu.max.burst", "max", -EINVAL);
	WRITE_IS(vs, "g", "cpu.max.burst", "-1", -EINVAL);
	WRITE_IS(vs, "g", "cpu.max.burst", " 1", -EINVAL);
	WRITE_IS(vs, "g", "cpu.max.burst", "18446744073709551616", -ERANGE);
	READ_IS(vs, "g", "cpu.max.burst", "10000\n");

	/* With quota "max" any burst that survives translation to ns is taken. */
	WRITE_OK(vs, "g", "cpu.max", "max");
	WRITE_OK(vs, "g", "cpu.max.burst", "18446744073709551");
	READ_IS(vs, "g", "cpu.max.burst", "18446744073709551\n");
	WRITE_IS(vs, "g", "cpu.max.burst", "18446744073709552", -EINVAL);
	WRITE_IS(vs, "g", "cpu.max", "1000000", -EINVAL);	/* smaller than the burst */
	WRITE_OK(vs, "g", "cpu.max.burst", "1000");
	/* quota + burst above MAX_BW */
	WRITE_IS(vs, "g", "cpu.max", "17592186044415", -EINVAL);
	WRITE_OK(vs, "g", "cpu.max", "17592186043415");
	READ_IS(vs, "g", "cpu.max", "17592186043415 100000\n");
	WRITE_IS(vs, "g", "cpu.max.burst", "1001", -EINVAL);
}

static void test_cpu_files_visibility(void)
{
	char buf[64];
	mode_t mode;

	cpu_reset();
	/* not on the root */
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cpu.weight", buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cpu.max", buf, sizeof(buf)), -ENOENT);
	WRITE_IS(vs, "/", "cpu.weight", "100", -ENOENT);
	/* the root's cpu.stat has every line; bandwidth is always 0 there */
	READ_IS(vs, "/", "cpu.stat",
		"usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	/* cpu.stat.local, a core file too: its line only where the group has a cpu css */
	READ_IS(vs, "/", "cpu.stat.local", "throttled_usec 0\n");
	READ_IS(vs, "g", "cpu.stat.local", "throttled_usec 0\n");
	/* only while the parent has +cpu; cpu.stat loses its bandwidth lines */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g/h"), 0);
	CU_ASSERT_EQUAL(vsched_read(vs, "g/h", "cpu.weight", buf, sizeof(buf)), -ENOENT);
	READ_IS(vs, "g/h", "cpu.stat", "usage_usec 0\nuser_usec 0\nsystem_usec 0\nnice_usec 0\n");
	READ_IS(vs, "g/h", "cpu.stat.local", "");
	CU_ASSERT_EQUAL(vsched_stat(vs, "g/h", "cpu.stat.local", &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFREG | 0444);
	WRITE_IS(vs, "g/h", "cpu.stat.local", "0", -EINVAL);
	WRITE_OK(vs, "g", "cgroup.subtree_control", "+cpu");
	READ_IS(vs, "g/h", "cpu.stat.local", "throttled_usec 0\n");
	READ_IS(vs, "g/h", "cpu.weight", "100\n");
	WRITE_OK(vs, "g/h", "cpu.weight", "7");
	/* -cpu drops the settings: +cpu again gives fresh defaults */
	WRITE_OK(vs, "g", "cgroup.subtree_control", "-cpu");
	CU_ASSERT_EQUAL(vsched_stat(vs, "g/h", "cpu.weight", &mode), -ENOENT);
	WRITE_OK(vs, "g", "cgroup.subtree_control", "+cpu");
	READ_IS(vs, "g/h", "cpu.weight", "100\n");
	/* modes: rw 0644, ro 0444 */
	CU_ASSERT_EQUAL(vsched_stat(vs, "g/h", "cpu.max", &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFREG | 0644);
	CU_ASSERT_EQUAL(vsched_stat(vs, "g/h", "cpu.stat", &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFREG | 0444);
	WRITE_IS(vs, "g/h", "cpu.stat", "0", -EINVAL);
	WRITE_OK(vs, "g", "cgroup.subtree_control", "-cpu");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "g/h"), 0);
}

/*
 * Formatting of non-zero counters: ns truncated to us, counts as %d. The values are planted in
 * the accumulators group_stat() reports for a tree where nothing runs.
 */
static void test_cpu_stat_format(void)
{
	struct vsched *v = vs_new(2);
	struct group *g;

	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(v, "g"), 0);
	vsched_lock(v);
	g = group_lookup(vsched_sched(v), "g");
	g->stat = (struct cpu_stat){ .usage_ns = 1999, .user_ns = 1500, .system_ns = 499,
				     .nr_periods = 7, .nr_throttled = 3,
				     .throttled_ns = 123456789, .nr_bursts = 2, .burst_ns = 999,
				     .local_throttled_ns = 7654321 };
	sched_vcpu(vsched_sched(v), 1)->stat.usage_ns = 5000999;
	sched_vcpu(vsched_sched(v), 1)->stat.user_ns = 4000999;
	sched_vcpu(vsched_sched(v), 1)->stat.system_ns = 1000000;
	vsched_unlock(v);
	READ_IS(v, "g", "cpu.stat",
		"usage_usec 1\nuser_usec 1\nsystem_usec 0\nnice_usec 0\nnr_periods 7\n"
		"nr_throttled 3\nthrottled_usec 123456\nnr_bursts 2\nburst_usec 0\n");
	READ_IS(v, "g", "cpu.stat.local", "throttled_usec 7654\n");
	READ_IS(v, "/", "vsched.vcpu.stat",
		"0 tid=4001 usage_usec=0 user_usec=0 system_usec=0 state=idle lane=-1 wait_usec=0 "
		"nr_waits=0 wait_hist=-\n"
		"1 tid=4002 usage_usec=5000 user_usec=4000 system_usec=1000 state=idle lane=-1 "
		"wait_usec=0 nr_waits=0 wait_hist=-\n");
	vsched_destroy(v);
}

static CU_TestInfo cpu_files_tests[] = {
	{ "defaults byte-exact", test_cpu_defaults },
	{ "cpu.weight errnos", test_cpu_weight_errnos },
	{ "cpu.weight 1..10000 round trip and nice", test_cpu_weight_all_values },
	{ "cpu.weight.nice table and errnos", test_cpu_weight_nice },
	{ "cpu.idle", test_cpu_idle },
	{ "cpu.max write table", test_cpu_max_table },
	{ "cpu.max.burst and quota interplay", test_cpu_max_burst },
	{ "visibility, +cpu, modes", test_cpu_files_visibility },
	{ "cpu.stat and vsched.vcpu.stat formatting", test_cpu_stat_format },
	CU_TEST_INFO_NULL,
};

TEST_SUITE_FULL("sched/cpu_files", cpu_files_tests, cpu_init, cpu_clean)
