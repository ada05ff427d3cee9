// SPDX-License-Identifier: GPL-2.0
/*
 * Decisions the daemon made ahead of a slice end, the VMM's side (sched/runtime/rt_ahead.c,
 * HOST_HELLO_AHEAD): a holder's "PREEMPT at until" read in its entry (or in the PREEMPT's
 * datagram) keeps it running and is applied by its own slice end; a successor's "GRANT from
 * until" is waited for on the entry until then; a newer decision replaces one pending.
 */
#include <linux/kvm.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "host/proto.h"
#include "test.h"
#include "util/time.h"
#include "vmm/vm.h"

struct ahead_rig {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v;
	struct vcpu vcpu;
	struct kvm_run run;
	struct host_grant *page;	/* the daemon's view: writable here */
};

static void arig_init(struct ahead_rig *g)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(g->page != MAP_FAILED);
	g->rt.lock = &g->lock;
	g->rt.v = &g->v;
	g->rt.nr_vcpus = 1;
	g->rt.nr_lanes = 1;
	g->rt.page = g->page;
	g->rt.page_len = 4096;
	g->v.rt = &g->rt;
	g->v.vcpu = &g->vcpu;
	g->vcpu.run = &g->run;
	g->v.until = RT_INF;
	mutex_lock(&g->lock);
	rt_set_state(&g->v, RT_BLOCKED, rt_now());
	rt_set_state(&g->v, RT_WAITING, rt_now());
}

/* host_page_write_at() as the daemon does it: seq odd, the fields, seq even. */
static void arig_write(struct ahead_rig *g, uint32_t lane, uint64_t at)
{
	struct host_grant *e = &g->page[0];

	e->seq++;
	e->lane = lane;
	e->until = HOST_TIME_INF;
	e->cpu = HOST_CPU_NONE;
	e->at = at;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

static void arig_done(struct ahead_rig *g)
{
	mutex_unlock(&g->lock);
	munmap(g->page, 4096);
	free(g->rt.lane_cpu);
}

/* vCPU 0 holds lane 0 from its entry's grant, out of the guest (as after an exit). */
static void arig_holding(struct ahead_rig *g)
{
	arig_write(g, 0, 0);
	rt_page_wait(&g->rt, &g->v);
	CU_ASSERT_EQUAL_FATAL(g->v.state, RT_RUNNING);
}

/*
 * A PREEMPT published for a moment to come (the thread backend's watch took the holder out for
 * it): it runs on with its slice end there, and its slice end applies it with no TICK. Before
 * this, the PREEMPT in the entry was applied at once.
 */
static void test_rt_ahead_preempt(void)
{
	struct ahead_rig g;
	uint64_t at;

	arig_init(&g);
	arig_holding(&g);
	at = rt_now() + 50 * NSEC_PER_MSEC;
	arig_write(&g, HOST_LANE_NONE, at);
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.v.until, at);		/* its own slice end is there */
	CU_ASSERT_FALSE(rt_page_newer(&g.v, g.page[0].seq));	/* the watch and agent skip it */
	/* Before the moment nothing happens; at it, the slice end applies it: no TICK needed. */
	CU_ASSERT_TRUE(rt_ahead_tick(&g.rt, at - 1000));
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_TRUE(rt_ahead_tick(&g.rt, at));
	CU_ASSERT_EQUAL(g.v.state, RT_WAITING);
	CU_ASSERT_EQUAL(g.rt.st.ahead_preempts, 1);
	/* A slice end with nothing published asks the daemon. */
	arig_holding(&g);
	g.v.until = rt_now();
	CU_ASSERT_FALSE(rt_ahead_tick(&g.rt, rt_now()));
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	/* A moment already past is applied at once, as any PREEMPT. */
	arig_write(&g, HOST_LANE_NONE, rt_now() - 1000);
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_WAITING);
	arig_done(&g);
}

/* A newer decision replaces the one pending: a GRANT of its lane again keeps it running. */
static void test_rt_ahead_withdrawn(void)
{
	struct ahead_rig g;
	uint64_t at;

	arig_init(&g);
	arig_holding(&g);
	at = rt_now() + 50 * NSEC_PER_MSEC;
	arig_write(&g, HOST_LANE_NONE, at);
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.ahead_seq, g.page[0].seq);
	arig_write(&g, 0, at);
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.v.ahead_seq, 0);
	CU_ASSERT_TRUE(rt_ahead_tick(&g.rt, at));
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.rt.st.ahead_preempts, 0);
	arig_done(&g);
}

/*
 * A GRANT from a moment to come: the waiting thread does not take it before then (it waits on
 * its entry until it), then does. Before this, it ran at once beside the lane's holder.
 */
static void test_rt_ahead_grant(void)
{
	struct ahead_rig g;
	uint64_t at;

	if (!rt_page_usable())
		return;		/* no futex_waitv: the VMM joins without a page */
	arig_init(&g);
	at = rt_now() + 20 * NSEC_PER_MSEC;
	arig_write(&g, 0, at);
	while (g.v.state == RT_WAITING)
		rt_page_wait(&g.rt, &g.v);
	CU_ASSERT(rt_now() >= at);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.v.seq_applied, g.page[0].seq);
	arig_done(&g);
}

static CU_TestInfo rt_ahead_tests[] = {
	{ "a PREEMPT published ahead is applied by the holder's slice end, not before",
	  test_rt_ahead_preempt },
	{ "a newer decision replaces a PREEMPT pending", test_rt_ahead_withdrawn },
	{ "a GRANT from a moment to come is taken then", test_rt_ahead_grant },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/ahead", rt_ahead_tests);
