// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon counts the preemptions its core makes by what made it decide (host_pre_count()
 * in host/host_lanes.c; logged as a VM leaves with VSCHED_HOST_PRE_STATS): the classes that
 * still cost a round trip, measured before choosing which to take off it (docs/host.md,
 * "Latency: which preemptions still go through the daemon"). Time is driven.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "sched/core.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

static uint64_t pre_now;

static uint64_t pre_clock(void)
{
	return pre_now;
}

/* VM name of nr vCPUs, its group cpu.idle if idle, quota_us per 100 ms (UINT64_MAX: max). */
static int pre_join(struct host *h, const char *name, unsigned int nr, bool idle,
		    uint64_t quota_us, struct host_client **c)
{
	return host_test_join_vm(h, name, nr, (struct host_settings){ .shares = 1024,
				 .quota_us = quota_us, .period_us = 100000, .idle = idle }, c);
}

static struct host *pre_host(unsigned int lanes)
{
	struct host_opts o = { .nr_lanes = lanes, .max_vcpus = 8 };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	pre_now = time_mono_ns() + NSEC_PER_SEC;
	host_set_clock(h, pre_clock);
	return h;
}

/* Every count of c but those in want[] (HOST_PRE_MAX ends it) is 0; those are n each. */
static bool pre_only(const struct host_client *c, const enum host_pre_cause *want,
		     const uint64_t *n)
{
	unsigned int k, i;

	for (k = 0; k < HOST_PRE_MAX; k++) {
		uint64_t x = 0;

		for (i = 0; want[i] != HOST_PRE_MAX; i++)
			if (want[i] == k)
				x = n[i];
		if (host_client_preempts(c, k) != x)
			return false;
	}
	return true;
}

/*
 * One lane. a's group is cpu.idle: b's wake takes a's holder at once (a wake of another VM);
 * a rotation at a's own slice end (its TICK) preempts a's holder for a's waiter (a slice end
 * of its own VM); b's TICK at a's next slice end, another VM's.
 */
static void test_host_pre_causes(void)
{
	struct host *h = pre_host(1);
	struct sched *s = vsched_sched(host_vsched(h));
	struct host_client *a, *b;
	int fa = pre_join(h, "a", 2, true, UINT64_MAX, &a);
	int fb = pre_join(h, "b", 1, false, UINT64_MAX, &b);

	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);	/* granted */
	pre_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(pre_only(a, (enum host_pre_cause[]){ HOST_PRE_WAKE_XVM, HOST_PRE_MAX },
				(uint64_t[]){ 1 }));
	CU_ASSERT_TRUE(pre_only(b, (enum host_pre_cause[]){ HOST_PRE_MAX }, NULL));
	/* b blocks: a's vCPU 0 again, its vCPU 1 waits; 20 ms on, a's slice end rotates. */
	pre_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), (int)0);
	vsched_unlock(host_vsched(h));
	pre_now += 20 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RAN, 0, 0, 20 * NSEC_PER_MSEC, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_TICK, 0, 0, 0, 0), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), (int)1);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_TRUE(pre_only(a, (enum host_pre_cause[]){ HOST_PRE_WAKE_XVM, HOST_PRE_TICK,
							     HOST_PRE_MAX },
				(uint64_t[]){ 1, 1 }));
	/* a's vCPU 1 past its slice; the TICK that decides comes from b's VMM (another lane's). */
	pre_now += 20 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_TICK, 0, 0, 0, 0), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), (int)0);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_TRUE(pre_only(a, (enum host_pre_cause[]){ HOST_PRE_WAKE_XVM, HOST_PRE_TICK,
							     HOST_PRE_TICK_XVM, HOST_PRE_MAX },
				(uint64_t[]){ 1, 1, 1 }));
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
}

/* A holder whose VM ran past its quota is counted as throttled, whatever event found it. */
static void test_host_pre_throttle(void)
{
	struct host *h = pre_host(1);
	struct host_client *c, *f;
	int fc = pre_join(h, "c", 1, false, 10000, &c);	/* 10 ms per 100 ms */
	int ff = pre_join(h, "f", 1, false, UINT64_MAX, &f);

	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, f, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	pre_now += 12 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(host_test_ev(h, f, HOST_MSG_TICK, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(pre_only(c, (enum host_pre_cause[]){ HOST_PRE_THROTTLE, HOST_PRE_MAX },
				(uint64_t[]){ 1 }));
	CU_ASSERT_TRUE(pre_only(f, (enum host_pre_cause[]){ HOST_PRE_MAX }, NULL));
	host_test_leave(h, c, fc);
	host_test_leave(h, f, ff);
	host_destroy(h);
}

static CU_TestInfo host_pre_tests[] = {
	{ "preemptions are counted by the event that made them", test_host_pre_causes },
	{ "a throttled holder's preemption is counted as such", test_host_pre_throttle },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_pre", host_pre_tests);
