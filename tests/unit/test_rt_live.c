// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's liveness of the daemon (sched/runtime/rt_remote_live.c), with explicit times: no
 * question while the daemon spoke lately; a PING after RT_LIVE_QUIET_NS of silence, whether or
 * not a vCPU waits (a VMM whose vCPUs all hold lanes asks too), one at a time; the daemon taken
 * as gone RT_LIVE_REPLY_NS after an unanswered PING, not before; any word from it (the PONG)
 * clears the question. rt_remote_live_next() is when the agent must look next: it sleeps until
 * then, so it must name each of those moments exactly.
 */
#include "../../sched/runtime/rt_remote_live.h"
#include "test.h"

#define MS	1000000ULL

static void test_rt_live_due(void)
{
	struct rt_remote_live l = { 0 };
	uint64_t t0 = 1000 * MS;

	rt_remote_live_heard(&l, t0);
	/* Quiet for less than the bound, nothing; then one PING, whoever waits. */
	CU_ASSERT_EQUAL(rt_remote_live_next(&l), t0 + RT_LIVE_QUIET_NS);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_QUIET_NS - 1), RT_LIVE_OK);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_QUIET_NS), RT_LIVE_PING);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_QUIET_NS + MS), RT_LIVE_OK);
	CU_ASSERT_EQUAL(rt_remote_live_next(&l), t0 + RT_LIVE_QUIET_NS + RT_LIVE_REPLY_NS);
	/* Answered: quiet again from the answer. */
	rt_remote_live_heard(&l, t0 + RT_LIVE_QUIET_NS + 2 * MS);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_QUIET_NS + 3 * MS), RT_LIVE_OK);
	t0 += RT_LIVE_QUIET_NS + 2 * MS;
	CU_ASSERT_EQUAL(rt_remote_live_next(&l), t0 + RT_LIVE_QUIET_NS);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_QUIET_NS), RT_LIVE_PING);
	/* Unanswered: gone RT_LIVE_REPLY_NS after the PING, not a nanosecond before. */
	t0 += RT_LIVE_QUIET_NS;
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_REPLY_NS - 1), RT_LIVE_OK);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_REPLY_NS), RT_LIVE_LOST);
	/* A new join is a word from the daemon. */
	rt_remote_live_heard(&l, t0 + RT_LIVE_REPLY_NS + MS);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, t0 + RT_LIVE_REPLY_NS + 2 * MS), RT_LIVE_OK);
	CU_ASSERT_EQUAL(rt_remote_live_next(&l), t0 + RT_LIVE_REPLY_NS + MS + RT_LIVE_QUIET_NS);
}

/*
 * A daemon that waits for a CPU (a loaded host: at load 27 a live one missed the 300 ms) gets
 * RT_LIVE_REPLY_NS more at a time, up to RT_LIVE_LATE_NS after the PING, then is gone; a word
 * from it ends the extension, and the next PING starts without one.
 */
static void test_rt_live_late(void)
{
	struct rt_remote_live l = { 0 };
	uint64_t t0 = 1000 * MS, ping = t0 + RT_LIVE_QUIET_NS, n = 0;

	rt_remote_live_heard(&l, t0);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, ping), RT_LIVE_PING);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, ping + RT_LIVE_REPLY_NS), RT_LIVE_LOST);
	while (rt_remote_live_wait_more(&l)) {
		n++;
		CU_ASSERT_EQUAL(rt_remote_live_next(&l), ping + (n + 1) * RT_LIVE_REPLY_NS);
		CU_ASSERT_EQUAL(rt_remote_live_due(&l, ping + (n + 1) * RT_LIVE_REPLY_NS - 1),
				RT_LIVE_OK);
		CU_ASSERT_EQUAL(rt_remote_live_due(&l, ping + (n + 1) * RT_LIVE_REPLY_NS),
				RT_LIVE_LOST);
	}
	CU_ASSERT(n >= 1);
	CU_ASSERT((n + 1) * RT_LIVE_REPLY_NS <= RT_LIVE_LATE_NS);
	CU_ASSERT((n + 2) * RT_LIVE_REPLY_NS > RT_LIVE_LATE_NS);
	/* Answered: quiet again; the next question has the plain bound. */
	rt_remote_live_heard(&l, ping + RT_LIVE_LATE_NS);
	ping += RT_LIVE_LATE_NS + RT_LIVE_QUIET_NS;
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, ping), RT_LIVE_PING);
	CU_ASSERT_EQUAL(rt_remote_live_due(&l, ping + RT_LIVE_REPLY_NS), RT_LIVE_LOST);
}

static CU_TestInfo rt_live_tests[] = {
	{ "a silent daemon is asked, then given up on", test_rt_live_due },
	{ "a daemon waiting for a CPU is given more time, bounded", test_rt_live_late },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/remote liveness", rt_live_tests);
