// SPDX-License-Identifier: GPL-2.0
/*
 * A lane holder watches its grant page entry (sched/runtime/rt_page.c, docs/host.md "Latency:
 * preemptions"): before each entry the runtime points vcpu->exit_word at the entry with the
 * seq applied; the thread backend leaves when the daemon writes past it (thread_kicked()); on
 * the way out the holder applies a PREEMPT found there itself (no kick), a garbage entry is
 * left to the socket's copy, and a lost daemon's page is taken away without a fault for a
 * thread still reading it.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "../../sched/runtime/rt.h"
#include "../../vmm/accel/thread.h"
#include "host/proto.h"
#include "test.h"
#include "vmm/vm.h"

struct page_rig {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v;
	struct vcpu vcpu;
	struct thread_vcpu t;
	struct host_grant *page;	/* the daemon's view: writable here */
};

static void rig_init(struct page_rig *g)
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
	g->t.vcpu = &g->vcpu;
	g->vcpu.run = &g->t.run;
	mutex_lock(&g->lock);
}

/* host_page_write() as the daemon does it: seq odd, the fields, seq even. */
static void rig_write(struct page_rig *g, uint32_t lane)
{
	struct host_grant *e = &g->page[0];

	e->seq++;
	e->lane = lane;
	e->until = HOST_TIME_INF;
	e->cpu = HOST_CPU_NONE;
	__atomic_store_n(&e->seq, e->seq + 1, __ATOMIC_RELEASE);
}

/* vCPU 0 holds lane 0 from the page's latest grant and is in the guest. */
static void rig_holding(struct page_rig *g)
{
	rig_write(g, 0);
	g->v.seq_applied = g->page[0].seq;
	if (g->v.state == RT_OFF)
		rt_set_state(&g->v, RT_BLOCKED, rt_now());
	if (g->v.state == RT_BLOCKED)
		rt_set_state(&g->v, RT_WAITING, rt_now());
	if (g->v.state == RT_WAITING)
		rt_set_state(&g->v, RT_RUNNING, rt_now());
	rt_page_watch(&g->rt, &g->v);
	g->v.in_guest = true;
}

static void test_rt_page_preempt(void)
{
	struct page_rig g;

	rig_init(&g);
	rig_holding(&g);
	CU_ASSERT(g.vcpu.exit_word == &g.page[0].seq);
	CU_ASSERT_FALSE(thread_kicked(&g.t));
	/* The daemon preempts: the backend sees it without any kick. */
	rig_write(&g, HOST_LANE_NONE);
	CU_ASSERT(thread_kicked(&g.t));
	CU_ASSERT_EQUAL(g.t.run.immediate_exit, 0);
	/* Out of the guest: applied by the vCPU itself, the agent's copy now old. */
	g.v.in_guest = false;
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_WAITING);
	CU_ASSERT_EQUAL(g.v.seq_applied, g.page[0].seq);
	CU_ASSERT_FALSE(rt_page_newer(&g.v, g.page[0].seq));
	CU_ASSERT_EQUAL(g.rt.st.page_exits, 1);
	CU_ASSERT_EQUAL(g.rt.st.kicks, 0);
	mutex_unlock(&g.lock);
	munmap(g.page, 4096);
}

static void test_rt_page_garbage(void)
{
	struct page_rig g;

	rig_init(&g);
	rig_holding(&g);
	/* A lane the VM does not have: left to the socket's copy (which hangs the daemon up). */
	rig_write(&g, 7);
	CU_ASSERT(thread_kicked(&g.t));
	g.v.in_guest = false;
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT(rt_page_newer(&g.v, g.page[0].seq));
	/* Mid-write (seq odd): nothing read, nothing applied. */
	rig_holding(&g);
	g.page[0].seq++;
	g.page[0].lane = HOST_LANE_NONE;
	g.v.in_guest = false;
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	/* In the host kernel's hands (fallback): no watch. */
	g.page[0].seq++;
	g.rt.fallback = true;
	rt_page_watch(&g.rt, &g.v);
	CU_ASSERT_PTR_NULL(g.vcpu.exit_word);
	CU_ASSERT_FALSE(thread_kicked(&g.t));
	mutex_unlock(&g.lock);
	munmap(g.page, 4096);
}

static void test_rt_page_lost(void)
{
	struct page_rig g;
	const uint32_t *w;

	rig_init(&g);
	rig_holding(&g);
	w = g.vcpu.exit_word;
	/* The daemon is lost: the watch ends, and a read that loaded the pointer finds zeros. */
	rt_page_unmap(&g.rt);
	CU_ASSERT_PTR_NULL(g.vcpu.exit_word);
	CU_ASSERT_PTR_NULL(g.rt.page);
	CU_ASSERT_EQUAL(__atomic_load_n(w, __ATOMIC_RELAXED), 0);
	rt_page_free(&g.rt);
	CU_ASSERT_PTR_NULL(g.rt.page_old);
	mutex_unlock(&g.lock);
}

static CU_TestInfo rt_page_tests[] = {
	{ "a holder leaves for a PREEMPT in its page entry and applies it, unkicked",
	  test_rt_page_preempt },
	{ "garbage, a write in progress and the fallback are not applied", test_rt_page_garbage },
	{ "a lost daemon's page goes without a fault for a late reader", test_rt_page_lost },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/page", rt_page_tests);
