// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon on a host whose CPUs other work also wants (issue 17: two VMs at 200:100 beside a
 * busy loop split 2.9:1, or one got nothing for 2 s). There a vCPU thread runs late: a waiter
 * granted a lane wakes some time after the grant, a holder reports some time after it ran.
 * Neither may cost its VM the lane or CPU time it did not use (docs/host.md, "Weight split
 * beside a busy loop"). Time is driven (host_set_clock()); revocation is called as the timer
 * would.
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

static uint64_t load_now;

static uint64_t load_clock(void)
{
	return load_now;
}

static struct host *load_host(unsigned int lanes)
{
	struct host_opts o = { .nr_lanes = lanes, .max_vcpus = 4, .grace_ns = 10 * NSEC_PER_MSEC };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	/* The core never goes back: start the driven clock past the real one at creation. */
	load_now = time_mono_ns() + NSEC_PER_SEC;
	host_set_clock(h, load_clock);
	return h;
}

/*
 * b's vCPU waits 50 ms (five graces) behind a's holder, which reports all along; then it is
 * granted the lane. Waiting, it had nothing to say: its silence on the lane starts at the
 * grant. Before, the daemon counted it from b's RUNNABLE and revoked the grant at its next
 * timer, before b's thread could wake (142 revocations in 6 s of a loaded t-host split).
 */
static void test_host_load_grant_not_revoked(void)
{
	struct host *h = load_host(1);
	struct sched *s = vsched_sched(host_vsched(h));
	struct host_client *a, *b;
	int fa, fb, i;

	fa = host_test_join(h, "a", 2, UINT64_MAX, &a);
	fb = host_test_join(h, "b", 1, UINT64_MAX, &b);
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	for (i = 0; i < 10; i++) {
		load_now += 5 * NSEC_PER_MSEC;
		CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RAN, 0, 0, 5000000, 0), 0);
	}
	vsched_lock(host_vsched(h));
	host_revoke_due(h, load_now);
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 0);	/* a's holder reported: not revoked */
	vsched_unlock(host_vsched(h));
	/* a's holder blocks; its second vCPU waits behind b's, which gets the lane now. */
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL_FATAL(sched_lane_vcpu(s, 0), 2);
	/* 1 ms later (its thread not woken yet), with a's vCPU waiting: b keeps the lane. */
	host_revoke_due(h, load_now + NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 2);
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 2), "running");
	/* Silent on the lane for the grace, it is revoked as any holder. */
	host_revoke_due(h, load_now + 10 * NSEC_PER_MSEC);
	CU_ASSERT_NOT_EQUAL(sched_lane_vcpu(s, 0), 2);
	vsched_unlock(host_vsched(h));
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
}

/*
 * a's holder was granted, ran 2 ms and then its thread did not get the host CPU for 300 ms:
 * its VMM said nothing. Charged its wall time at another VM's event, a was charged 300 ms it
 * never ran in one lump, and a later, paid back by its reports while it ran uncharged: 333 ms
 * in one 75 ms sample of a loaded t-host split, then 2.3 s with no lane for that VM. A holder
 * that runs reports at least every HOST_REPORT_NS: past that the estimate stops.
 */
static void test_host_load_silent_holder_charge(void)
{
	struct host *h = load_host(2);
	struct host_client *a, *b;
	long long u;
	int fa, fb;

	fa = host_test_join(h, "a", 1, UINT64_MAX, &a);
	fb = host_test_join(h, "b", 1, UINT64_MAX, &b);
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);	/* granted */
	load_now += 300 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	u = host_test_usage_us(h, "/machine/a");
	CU_ASSERT(u > 0 && u <= (long long)(HOST_REPORT_NS / 1000));
	/* Its report of what it ran: charged so far covers it, nothing more. */
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RAN, 0, 0, 2000000, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), u);
	/* Running again, its reports charge it what it ran (the rest of the estimate first). */
	load_now += HOST_REPORT_NS;
	CU_ASSERT_EQUAL(host_test_ev(h, a, HOST_MSG_RAN, 0, 0, HOST_REPORT_NS, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 2000 + (long long)(HOST_REPORT_NS / 1000));
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
}

static CU_TestInfo host_load_tests[] = {
	{ "a waiter granted after a long wait is not revoked at once",
	  test_host_load_grant_not_revoked },
	{ "a holder the host did not run is charged at most a report interval ahead",
	  test_host_load_silent_holder_charge },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_load", host_load_tests);
