// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime charges the vCPUs inside KVM_RUN before the core decides (sched/runtime/rt_core.c,
 * rt_account.c): a vCPU that never exits is still charged at a timer and at another vCPU's
 * wake-up. White-box: a runtime rig whose "vCPU threads" are this test thread's CPU clock,
 * hands off (no pinning, timers or kicks), driven by hand.
 */
#include <pthread.h>
#include <string.h>

#include "../../sched/runtime/rt.h"
#include "sched/core.h"
#include "sched/group.h"
#include "test.h"

#define MS 1000000ULL

struct charge_rig {
	pthread_mutex_t lock;	/* held throughout, as by the runtime's callers */
	struct runtime rt;
	struct rt_vcpu v[2];
	uint64_t now;
};

static void rig_init(struct charge_rig *g)
{
	unsigned int i;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	mutex_lock(&g->lock);
	g->rt.lock = &g->lock;
	g->rt.s = sched_create(1, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g->rt.s);
	CU_ASSERT_EQUAL(rt_core_create(&g->rt), 0);
	g->rt.v = g->v;
	g->rt.nr_vcpus = 2;
	g->rt.unscheduled = true;	/* decisions only move states: no pins, timers, kicks */
	for (i = 0; i < 2; i++) {
		g->v[i].rt = &g->rt;
		g->v[i].id = i;
		g->v[i].state = RT_BLOCKED;
		pthread_getcpuclockid(pthread_self(), &g->v[i].cpu_clock);
	}
	g->now = 1000 * MS;
}

static void rig_exit(struct charge_rig *g)
{
	sched_destroy(g->rt.s);
	mutex_unlock(&g->lock);
	pthread_mutex_destroy(&g->lock);
}

/* vCPU 0 gets the lane and "enters KVM_RUN": its clock counts from here. */
static void rig_run_vcpu0(struct charge_rig *g)
{
	struct rt_vcpu *rv = &g->v[0];

	rt_set_state(rv, RT_WAITING, g->now);
	rt_core_runnable(&g->rt, 0, g->now);
	CU_ASSERT_EQUAL_FATAL(rv->state, RT_RUNNING);
	rv->clock_charged = time_thread_ns();
	rv->in_guest = true;
}

static uint64_t usage(struct charge_rig *g, unsigned int id)
{
	return sched_vcpu(g->rt.s, id)->stat.usage_ns;
}

/* Spends about ns of this thread's CPU time: what the "vCPU" ran inside KVM_RUN. */
static void burn(uint64_t ns)
{
	uint64_t end = time_thread_ns() + ns;

	while (time_thread_ns() < end)
		;
}

static void test_charge_before_timer(void)
{
	struct charge_rig g;

	rig_init(&g);
	rig_run_vcpu0(&g);
	burn(20 * MS);
	CU_ASSERT_EQUAL(usage(&g, 0), 0);
	g.now += 20 * MS;
	rt_core_tick(&g.rt, g.now);
	CU_ASSERT_TRUE(usage(&g, 0) >= 20 * MS);
	rig_exit(&g);
}

static void test_charge_before_wake(void)
{
	struct charge_rig g;

	rig_init(&g);
	rig_run_vcpu0(&g);
	burn(20 * MS);
	/* vCPU 1 wakes: the core compares it with vCPU 0 as vCPU 0 really is. */
	g.now += 20 * MS;
	rt_set_state(&g.v[1], RT_WAITING, g.now);
	rt_core_runnable(&g.rt, 1, g.now);
	CU_ASSERT_TRUE(usage(&g, 0) >= 20 * MS);
	CU_ASSERT_EQUAL(usage(&g, 1), 0);
	rig_exit(&g);
}

static CU_TestInfo rt_charge_tests[] = {
	{ "a vCPU inside KVM_RUN is charged before a timer decision", test_charge_before_timer },
	{ "a vCPU inside KVM_RUN is charged before a wake-up decision", test_charge_before_wake },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/charge", rt_charge_tests);
