// SPDX-License-Identifier: GPL-2.0
/*
 * A lend (sched/runtime/rt_helper.c, rt_lend()): the core hears a halted lane holder blocked,
 * having been charged first what it ran since its last charge. White-box: private to the
 * runtime; no vCPU threads (no timer, no watch ring: those steps do nothing here).
 */
#include <stdlib.h>
#include <string.h>

#include "../../sched/runtime/rt.h"
#include "sched/core.h"
#include "test.h"

#define MS 1000000ULL

/*
 * One lane, two vCPUs of one group: v0 holds the lane from 0 while v1 waits, runs 2 ms
 * without any core event (a busy phase inside KVM_RUN) and halts. Charged first, it ran 2 ms
 * where its share was 1: it blocks ahead of its share and stays delayed, demanding its rate
 * until its sibling has caught up (docs/scheduler.md §2). Charged after the block (before the
 * fix), the core saw it run nothing, let it leave level, and took the 2 ms off its saved lag
 * later: it woke in debt, and on the runtime a halt-duty vCPU waited for a lane it was owed.
 */
static void test_lend_charges_first(void)
{
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v[2];
	struct sched_decision d[8];

	memset(&rt, 0, sizeof(rt));
	memset(v, 0, sizeof(v));
	pthread_mutex_init(&lock, NULL);
	mutex_lock(&lock);
	rt.lock = &lock;
	rt.s = sched_create(1, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rt.s);
	CU_ASSERT_EQUAL(rt_core_create(&rt), 0);
	rt.nr_vcpus = 2;
	rt.v = v;
	v[0].rt = v[1].rt = &rt;
	v[1].id = 1;
	sched_vcpu_runnable(rt.s, 0, 0);
	sched_vcpu_runnable(rt.s, 1, 0);
	while (sched_take_decisions(rt.s, d, 8))
		;
	CU_ASSERT_EQUAL(sched_vcpu_lane(rt.s, 0), 0);
	v[0].state = RT_RUNNING;	/* v1 stays RT_OFF: its grant does nothing here */
	rt_lend(&rt, &v[0], 2 * MS, 2 * MS);
	CU_ASSERT_EQUAL(v[0].state, RT_LENT);
	CU_ASSERT_FALSE(sched_vcpu_is_runnable(rt.s, 0));
	CU_ASSERT_EQUAL(sched_vcpu_lane(rt.s, 1), 0);
	/* Delayed: still in the rates (a sleeper that left owed nothing has rate 0). */
	CU_ASSERT_TRUE(sched_vcpu_rate(rt.s, 0) > 0);
	sched_destroy(rt.s);
	mutex_unlock(&lock);
	pthread_mutex_destroy(&lock);
}

static CU_TestInfo lend_tests[] = {
	{ "a lend charges what the vCPU ran before its block", test_lend_charges_first },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/lend", lend_tests);
