// SPDX-License-Identifier: GPL-2.0
/*
 * Handoffs across VMs at one wake-up (sched/runtime/rt_xhand.c, rt_xhand_park()): the published
 * successor's thread, parked on its grant page entry, waits on the releasing VM's offer word too,
 * so the holder's claim and its FUTEX_WAKE reach it directly and it takes the lane itself. Before,
 * only the VMM's waker waited there, and woke the thread through the grant: two wake-ups.
 *
 * The rig: vCPU 0 of a runtime in host mode waiting (rt_page_rig.h), no waker thread, its offer
 * page holding the successor's side of gen 5 for a peer page mapped beside it; this test writes
 * both words as the daemon and the releasing VMM do.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../sched/runtime/rt_remote.h"
#include "rt_page_rig.h"

#define XP_GEN		5
#define XP_PEER		7

struct xp_rig {
	struct page_rig g;
	struct rt_peer peer;
	struct rt_remote remote;	/* not joined: the TOOK goes nowhere */
	struct host_offer *po;	/* the releasing VM's page: its VMM's writable mapping */
};

/* vCPU 0 waiting, the successor's side of gen XP_GEN published, the peer's handoff offered. */
static void xp_init(struct xp_rig *x)
{
	struct host_offer *o;

	rig_init(&x->g);
	o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	x->po = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(o != MAP_FAILED && x->po != MAP_FAILED);
	x->g.rt.offer = o;
	memset(&x->remote, 0, sizeof(x->remote));
	rt_outbox_init(&x->remote.ob, &x->g.lock);
	x->remote.fd = -1;
	x->g.rt.remote = &x->remote;
	x->peer.id = XP_PEER;
	x->peer.o = x->po;
	x->g.rt.peer = &x->peer;
	x->g.rt.nr_peers = 1;
	rt_set_state(&x->g.v, RT_BLOCKED, rt_now());
	rt_set_state(&x->g.v, RT_WAITING, rt_now());
	o->x_peer = XP_PEER;
	o->x_succ = 0;
	o->x_succ_seq = x->g.v.seq_applied;
	o->x_sent = x->g.rt.sent_state;
	o->x_slice = 0;
	o->x_cpu[0] = HOST_CPU_NONE;
	o->word = host_offer_word(XP_GEN, HOST_OFFER_XSUCC, HOST_OFFER_FREE);
	x->po->hand_succ = HOST_HAND_XVM;
	x->po->word = host_offer_word(XP_GEN, HOST_OFFER_HAND, HOST_OFFER_FREE);
}

static void xp_done(struct xp_rig *x)
{
	x->g.rt.nr_peers = 0;
	x->g.rt.peer = NULL;
	x->g.rt.remote = NULL;
	rt_outbox_destroy(&x->remote.ob);
	munmap(x->po, sizeof(*x->po));
	rig_done(&x->g);
}

/* The thread parked in rt_page_wait(), lock dropped; false after 2 s. */
static bool xp_until_parked(struct page_rig *g)
{
	unsigned int i;
	bool parked = false;

	for (i = 0; i < 2000 && !parked; i++) {
		usleep(1000);
		mutex_lock(&g->lock);
		parked = g->v.page_waiting;
		mutex_unlock(&g->lock);
	}
	usleep(2000);	/* into its futex_waitv */
	return parked;
}

/* The releasing VMM's claim (rt_hand_xvm()): its word, then the wake-up of every waiter. */
static void xp_claim(struct xp_rig *x, uint32_t gen)
{
	__atomic_store_n(&x->po->word, host_offer_word(gen, 0, 0), __ATOMIC_SEQ_CST);
	syscall(SYS_futex, host_offer_futex(x->po), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* vCPU 0 running, within 1 s. */
static bool xp_until_running(struct page_rig *g)
{
	unsigned int i;
	bool running = false;

	for (i = 0; i < 1000 && !running; i++) {
		mutex_lock(&g->lock);
		running = g->v.state == RT_RUNNING;
		mutex_unlock(&g->lock);
		if (!running)
			usleep(1000);
	}
	return running;
}

/*
 * The claim made after the successor's thread parked is taken by that thread, woken by the
 * claim itself: no waker runs here. A claim of another gen (a peer's rewrite) wakes it for
 * nothing: it parks again and takes the true one.
 */
static void test_rt_xpark_take(void)
{
	struct xp_rig x;
	pthread_t t;
	bool ran;

	if (!rt_page_usable())
		return;		/* no futex_waitv: the VMM joins without a page */
	xp_init(&x);
	mutex_unlock(&x.g.lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, rig_waiter, &x.g), 0);
	CU_ASSERT_TRUE(xp_until_parked(&x.g));
	xp_claim(&x, XP_GEN + 1);
	usleep(20000);
	mutex_lock(&x.g.lock);
	CU_ASSERT_EQUAL(x.g.v.state, RT_WAITING);
	CU_ASSERT_EQUAL(x.g.rt.offer->word,
			host_offer_word(XP_GEN, HOST_OFFER_XSUCC, HOST_OFFER_FREE));
	mutex_unlock(&x.g.lock);
	xp_claim(&x, XP_GEN);
	ran = xp_until_running(&x.g);
	CU_ASSERT_TRUE(ran);
	if (!ran) {	/* the daemon's grant by the page ends the thread's wait */
		mutex_lock(&x.g.lock);
		rig_write_at(&x.g, 0, 0);
		mutex_unlock(&x.g.lock);
		syscall(SYS_futex, &x.g.page[0].seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	}
	pthread_join(t, NULL);
	mutex_lock(&x.g.lock);
	/* Taken in its own word, the lane the claim named: the daemon reads this. */
	CU_ASSERT_EQUAL(x.g.rt.offer->word, host_offer_word(XP_GEN, 0, 0));
	CU_ASSERT_EQUAL(x.g.rt.st.xhandoffs, 1);
	CU_ASSERT_EQUAL(x.g.rt.st.xhandoffs_parked, 1);
	CU_ASSERT_FALSE(x.g.v.xwatch);
	xp_done(&x);
}

/*
 * What a parked thread waits on besides its entry: the peer's word while its vCPU is the
 * published successor of a known peer (a side published after it parked reaches it through the
 * waker), and then at most RT_XWAIT_WATCH_MAX times per gen (a peer that rewrites and wakes its
 * word at will); a new gen watches again.
 */
static void test_rt_xpark_watch(void)
{
	struct futex_waitv fw[RT_XHAND_PARK_MAX];
	struct xp_rig x;
	unsigned int i, n;

	xp_init(&x);
	CU_ASSERT_EQUAL(rt_xhand_park(&x.g.rt, &x.g.v, fw), 1);
	CU_ASSERT_TRUE(x.g.v.xwatch);
	CU_ASSERT_EQUAL(fw[0].uaddr, (uintptr_t)host_offer_futex(x.po));
	CU_ASSERT_EQUAL(fw[0].flags, FUTEX_32);	/* shared: the peer's VMM wakes it */
	for (i = 1; i < 2 * RT_XWAIT_WATCH_MAX; i++)
		if ((n = rt_xhand_park(&x.g.rt, &x.g.v, fw)) != 1)
			break;
	CU_ASSERT_EQUAL(i, RT_XWAIT_WATCH_MAX);
	CU_ASSERT_EQUAL(n, 0);
	CU_ASSERT_FALSE(x.g.v.xwatch);
	/* The daemon publishes again: watched again. */
	x.g.rt.offer->word = host_offer_word(XP_GEN + 1, HOST_OFFER_XSUCC, HOST_OFFER_FREE);
	CU_ASSERT_EQUAL(rt_xhand_park(&x.g.rt, &x.g.v, fw), 1);
	/* A peer it does not know, another vCPU named, no side, no peers: nothing. */
	x.g.rt.offer->x_peer = XP_PEER + 1;
	CU_ASSERT_EQUAL(rt_xhand_park(&x.g.rt, &x.g.v, fw), 0);
	x.g.rt.offer->x_peer = XP_PEER;
	x.g.rt.offer->x_succ = 1;
	CU_ASSERT_EQUAL(rt_xhand_park(&x.g.rt, &x.g.v, fw), 0);
	x.g.rt.offer->x_succ = 0;
	x.g.rt.nr_peers = 0;
	CU_ASSERT_EQUAL(rt_xhand_park(&x.g.rt, &x.g.v, fw), 0);
	x.g.rt.nr_peers = 1;
	x.g.rt.offer->word = host_offer_word(XP_GEN + 1, HOST_OFFER_NONE, HOST_OFFER_FREE);
	CU_ASSERT_EQUAL(rt_xhand_park(&x.g.rt, &x.g.v, fw), 0);
	CU_ASSERT_FALSE(x.g.v.xwatch);
	xp_done(&x);
}

/*
 * The peer's claim names a lane the daemon did not publish as the peer's (HOST_CPU_XNONE in
 * x_cpu, host_xhand_make()): a forgery, refused; the peer's own lane is taken.
 */
static void test_rt_xpark_forged_lane(void)
{
	struct xp_rig x;

	xp_init(&x);
	x.g.rt.nr_lanes = 2;
	x.g.rt.offer->x_cpu[1] = HOST_CPU_XNONE;
	__atomic_store_n(&x.po->word, host_offer_word(XP_GEN, 1, 0), __ATOMIC_SEQ_CST);
	CU_ASSERT_FALSE(rt_xhand_take(&x.g.rt, &x.g.v));
	CU_ASSERT_EQUAL(x.g.v.state, RT_WAITING);
	CU_ASSERT_EQUAL(x.g.rt.offer->word,
			host_offer_word(XP_GEN, HOST_OFFER_XSUCC, HOST_OFFER_FREE));
	__atomic_store_n(&x.po->word, host_offer_word(XP_GEN, 0, 0), __ATOMIC_SEQ_CST);
	CU_ASSERT_TRUE(rt_xhand_take(&x.g.rt, &x.g.v));
	CU_ASSERT_EQUAL(x.g.rt.offer->word, host_offer_word(XP_GEN, 0, 0));
	xp_done(&x);
}

static CU_TestInfo tests[] = {
	{ "a claim of a lane the peer does not hold is refused", test_rt_xpark_forged_lane },
	{ "a parked successor takes another VM's claim at its own wake-up", test_rt_xpark_take },
	{ "what a parked successor waits on, bounded per gen", test_rt_xpark_watch },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/xpark", tests);
