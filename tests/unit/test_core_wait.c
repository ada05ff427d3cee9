// SPDX-License-Identifier: GPL-2.0
/* Per-vCPU waits for a lane (sched/core_wait.c): what vsched.vcpu.stat and `vsched top` show. */
#include <math.h>

#include "sched/core.h"
#include "sched/group.h"
#include "test.h"
#include "util/compiler.h"

static void drain(struct sched *s)
{
	struct sched_decision d[16];

	while (sched_take_decisions(s, d, ARRAY_SIZE(d)))
		;
}

static void test_wait_buckets(void)
{
	CU_ASSERT_EQUAL(sched_wait_bucket(0), 0);
	CU_ASSERT_EQUAL(sched_wait_bucket(999), 0);
	CU_ASSERT_EQUAL(sched_wait_bucket(1000), 1);		/* [1, 2^0.25) us */
	CU_ASSERT_EQUAL(sched_wait_bucket(1999), 4);		/* [2^0.75, 2) us */
	CU_ASSERT_EQUAL(sched_wait_bucket(2000), 5);
	CU_ASSERT_EQUAL(sched_wait_bucket(3000000), 47);	/* 3 ms: 4 * log2(3000) = 46.2 */
	CU_ASSERT_EQUAL(sched_wait_bucket(UINT64_MAX), SCHED_WAIT_BUCKETS - 1);
	CU_ASSERT_EQUAL(sched_wait_bucket_ceil_ns(0), 1000);
	CU_ASSERT_EQUAL(sched_wait_bucket_ceil_ns(4), 2000);
	/* every wait is below its bucket's upper edge */
	CU_ASSERT_TRUE(3000000 < sched_wait_bucket_ceil_ns(sched_wait_bucket(3000000)));
	CU_ASSERT_TRUE(3000000 >= sched_wait_bucket_ceil_ns(sched_wait_bucket(3000000) - 1));
}

/* The buckets' definition, in floating point (sched_wait_bucket() tables its edges). */
static unsigned int bucket_formula(uint64_t ns)
{
	double b;

	if (ns < 1000)
		return 0;
	b = floor(4.0 * log2((double)ns / 1000.0)) + 1.0;
	return b >= SCHED_WAIT_BUCKETS - 1 ? SCHED_WAIT_BUCKETS - 1 : (unsigned int)b;
}

/*
 * The tabled buckets are the formula's for every ns: both are monotonic, so they agree
 * everywhere if every bucket starts at the same ns in both. Around each edge and at scattered
 * values besides, as a check of the check.
 */
static void test_wait_bucket_edges(void)
{
	uint64_t x = 88172645463325252ULL, ns, lo, hi, mid;
	unsigned int b, i, bad = 0;

	for (b = 1; b < SCHED_WAIT_BUCKETS; b++) {
		/* the formula's edge: the smallest ns it puts in bucket b or above */
		for (lo = 0, hi = UINT64_MAX; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if (bucket_formula(mid) >= b)
				hi = mid;
			else
				lo = mid + 1;
		}
		CU_ASSERT_EQUAL(bucket_formula(lo), b);
		CU_ASSERT_EQUAL(sched_wait_bucket(lo), b);
		CU_ASSERT_EQUAL(sched_wait_bucket(lo - 1), b - 1);
		for (ns = lo - 100; ns < lo + 100; ns++)
			bad += sched_wait_bucket(ns) != bucket_formula(ns);
	}
	for (i = 0; i < 1000000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		ns = x >> (x % 64);
		bad += sched_wait_bucket(ns) != bucket_formula(ns);
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(sched_wait_bucket(UINT64_MAX), bucket_formula(UINT64_MAX));
}

/* One lane, two hogs: they take turns, each waiting a slice while the other runs. */
static void test_wait_turns(void)
{
	struct sched *s = sched_create(1, 2);
	struct sched_wait w;
	uint64_t t, slice;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 0), "idle");
	sched_vcpu_runnable(s, 0, 1000000);
	sched_vcpu_runnable(s, 1, 1000000);
	drain(s);
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 0), "running");
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 1), "waiting");
	/* a wait going on counts up to the time asked for, and has not ended */
	CU_ASSERT_EQUAL(sched_vcpu_wait(s, 1, 1500000, &w), 0);
	CU_ASSERT_EQUAL(w.wait_ns, 500000);
	CU_ASSERT_EQUAL(w.nr_waits, 0);
	sched_vcpu_wait(s, 0, 1500000, &w);
	CU_ASSERT_EQUAL(w.wait_ns, 0);
	CU_ASSERT_EQUAL(w.nr_waits, 1);		/* a wake straight onto a lane: a zero wait */
	CU_ASSERT_EQUAL(w.hist[0], 1);

	t = sched_next_timer(s);
	CU_ASSERT_FATAL(t != SCHED_TIME_NONE && t > 1000000);
	slice = t - 1000000;
	sched_vcpu_ran(s, 0, slice, 0, t);
	sched_timer(s, t);
	drain(s);
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 0), "waiting");
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 1), "running");
	CU_ASSERT_EQUAL(sched_vcpu_lane(s, 1), 0);
	sched_vcpu_wait(s, 1, t, &w);
	CU_ASSERT_EQUAL(w.wait_ns, slice);
	CU_ASSERT_EQUAL(w.nr_waits, 1);
	CU_ASSERT_EQUAL(w.hist[sched_wait_bucket(slice)], 1);

	/* blocking ends a wait: vCPU 0 waited 1 ms, then slept */
	sched_vcpu_blocked(s, 0, t + 1000000);
	drain(s);
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 0), "idle");
	sched_vcpu_wait(s, 0, t + 5000000, &w);
	CU_ASSERT_EQUAL(w.wait_ns, 1000000);
	CU_ASSERT_EQUAL(w.nr_waits, 2);
	CU_ASSERT_EQUAL(w.hist[sched_wait_bucket(1000000)], 1);
	CU_ASSERT_EQUAL(sched_vcpu_wait(s, 2, t, &w), -ESRCH);
	sched_destroy(s);
}

static CU_TestInfo core_wait_tests[] = {
	{ "histogram buckets", test_wait_buckets },
	{ "tabled buckets are the formula's", test_wait_bucket_edges },
	{ "two hogs on one lane take turns", test_wait_turns },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/core wait", core_wait_tests)
