// SPDX-License-Identifier: GPL-2.0
/*
 * The rotation slice planned from measured lane-change costs (sched/runtime/rt_slice.c), fed
 * by hand: the core's own slice is the floor, 12 ms the ceiling among hogs and 8 ms within a
 * second of a sleep, lend or throttle, about 100 times the cost in between; outliers are
 * clipped; plans come at most every 100 ms. White-box: private to the runtime.
 */
#include <string.h>

#include "../../sched/runtime/rt.h"
#include "sched/core.h"
#include "test.h"

#define US 1000ULL
#define MS 1000000ULL

struct slice_rig {
	pthread_mutex_t lock;	/* held throughout, as by the runtime's callers */
	struct runtime rt;
	struct rt_vcpu rv;
	uint64_t now;
};

static void rig_init(struct slice_rig *g)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	mutex_lock(&g->lock);
	g->rt.lock = &g->lock;
	g->rt.s = sched_create(2, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g->rt.s);
	CU_ASSERT_EQUAL(rt_core_create(&g->rt), 0);
	g->now = 1000 * MS;
}

static void rig_exit(struct slice_rig *g)
{
	sched_destroy(g->rt.s);
	mutex_unlock(&g->lock);
	pthread_mutex_destroy(&g->lock);
}

/* n lane changes, each an exit `exit` after its slice end and a handoff `handoff` long. */
static void feed(struct slice_rig *g, unsigned int n, uint64_t exit, uint64_t handoff)
{
	while (n--) {
		g->rv.armed = g->now;
		rt_slice_exit(&g->rt, &g->rv, g->now + exit);
		rt_slice_handoff(&g->rt, handoff);
	}
}

static uint64_t plan(struct slice_rig *g)
{
	struct sched_params p;

	g->now += 100 * MS;
	rt_slice_plan(&g->rt, g->now);
	sched_get_params(g->rt.s, &p);
	CU_ASSERT_EQUAL(p.slice_ns, g->rt.st.slice_ns);
	CU_ASSERT_EQUAL(p.lag_ns, 2 * p.slice_ns);
	return p.slice_ns;
}

static void test_slice_follows_cost(void)
{
	struct slice_rig g;
	uint64_t slice;

	rig_init(&g);
	CU_ASSERT_EQUAL(g.rt.st.slice_ns, SCHED_SLICE_DFL_NS);
	/* Cheap changes (bare metal): the core's own 3 ms stays. */
	feed(&g, 200, 5 * US, 5 * US);
	CU_ASSERT_EQUAL(plan(&g), SCHED_SLICE_DFL_NS);
	/* 25 + 20 us per change: about 4.5 ms. */
	feed(&g, 200, 25 * US, 20 * US);
	slice = plan(&g);
	CU_ASSERT_TRUE(slice > 4300 * US && slice < 4600 * US);
	/* Costly changes: capped at 12 ms among hogs. */
	feed(&g, 200, 100 * US, 80 * US);
	CU_ASSERT_EQUAL(plan(&g), 12 * MS);
	/* A vCPU sleeps: 8 ms at the next exit, not 100 ms later; 12 ms again a second on. */
	rt_slice_fine(&g.rt, g.now + MS);
	g.now -= 99 * MS;
	CU_ASSERT_EQUAL(plan(&g), 8 * MS);
	g.now += 1000 * MS;
	CU_ASSERT_EQUAL(plan(&g), 12 * MS);
	/* Cheap again: back down to the floor, never below. */
	feed(&g, 400, 2 * US, 2 * US);
	CU_ASSERT_EQUAL(plan(&g), SCHED_SLICE_DFL_NS);
	rig_exit(&g);
}

/* A thread descheduled for 50 ms in its exit counts as at most 1 ms; plans wait 100 ms. */
static void test_slice_clips_and_waits(void)
{
	struct slice_rig g;

	rig_init(&g);
	feed(&g, 1, 50 * MS, 50 * MS);
	CU_ASSERT_EQUAL(plan(&g), 12 * MS);	/* 2 x 1 ms clipped, x 100, capped */
	feed(&g, 400, 10 * US, 10 * US);
	rt_slice_plan(&g.rt, g.now + 50 * MS);	/* too soon after the last plan: no change */
	CU_ASSERT_EQUAL(g.rt.st.slice_ns, 12 * MS);
	CU_ASSERT_EQUAL(plan(&g), SCHED_SLICE_DFL_NS);
	rig_exit(&g);
}

static CU_TestInfo rt_slice_tests[] = {
	{ "the slice follows the lane-change cost, finer while anything is due",
	  test_slice_follows_cost },
	{ "outliers clipped, plans spaced", test_slice_clips_and_waits },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/slice", rt_slice_tests);
