// SPDX-License-Identifier: GPL-2.0
/*
 * Handoffs across VMs (host/host_xhand.c): VM a's vCPU 0 holds the one lane, VM b's vCPU 0
 * waits and is the core's next pick. a is offered the handoff (successor: another VM's), b the
 * successor's side; a's holder that blocks claims in a's word, b's successor takes the lane in
 * b's word. Taken, the cores end as a twin daemon's fed a's BLOCKED by the socket; every
 * mismatch (b takes without a's claim, a claims and b does not take, forged words of either)
 * moves nothing the core did not decide and hangs up only the VM whose own word is garbage.
 * Time is driven (host_set_clock()).
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host_peer_test.h"
#include "sched/core.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

struct xrig {
	struct host *h, *t;	/* the daemon, its twin (every event by the socket) */
	struct pvmm a, b;
	struct ovmm ta, tb;
	uint32_t gen;
	bool a_left, b_left;
};

static void twin_join(struct host *t, struct ovmm *m, const char *name)
{
	char buf[1024];

	m->o = NULL;
	m->fd = host_test_join(t, name, 2, UINT64_MAX, &m->c);
	CU_ASSERT_EQUAL_FATAL(recv(m->fd, buf, sizeof(buf), 0),
			      (ssize_t)sizeof(struct host_welcome));
	CU_ASSERT_EQUAL(ovmm_ev(t, m, HOST_MSG_COMMIT, 0, 0, 0), 0);
}

/* Both VMs joined (peer: sharing their pages), a's vCPU 0 on the lane. */
static void xrig_begin(struct xrig *r, bool peer)
{
	r->a_left = r->b_left = false;
	r->h = offer_host(1);
	r->t = offer_host(1);
	peer_join(r->h, &r->a, "a", peer);
	CU_ASSERT_EQUAL(ovmm_ev(r->h, &r->a.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	peer_join(r->h, &r->b, "b", peer);
	CU_ASSERT_EQUAL(ovmm_ev(r->h, &r->b.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	twin_join(r->t, &r->ta, "a");
	twin_join(r->t, &r->tb, "b");
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(r->h, &r->a.m, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r->t, &r->ta, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
}

/* ... and b's vCPU 0 waiting: the handoff published. */
static void xrig_finish(struct xrig *r, bool peer)
{
	uint64_t w;

	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(r->h, &r->b.m, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r->t, &r->tb, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(r->h, 0), "running");
	CU_ASSERT_STRING_EQUAL(core_state(r->h, 2), "waiting");
	w = offer_word(&r->a.m);
	r->gen = host_offer_gen(w);
	ovmm_drain(&r->a.m);
	ovmm_drain(&r->b.m);
	ovmm_drain(&r->ta);
	ovmm_drain(&r->tb);
	if (!peer)
		return;
	/* Published: a's handoff to another VM, b's successor side with the same gen. */
	CU_ASSERT_EQUAL(host_offer_lane(w), HOST_OFFER_HAND);
	CU_ASSERT_EQUAL(r->a.m.o->hand_succ, HOST_HAND_XVM);
	CU_ASSERT_EQUAL(r->a.m.o->hand[0].holder, 0);
	CU_ASSERT_EQUAL(offer_word(&r->b.m),
			host_offer_word(r->gen, HOST_OFFER_XSUCC, HOST_OFFER_FREE));
	CU_ASSERT_EQUAL(r->b.m.o->x_succ, 0);
	CU_ASSERT_EQUAL(r->b.m.o->x_slice, 0);	/* the only waiter */
	/* Only a's lane may be taken: a claim naming another is a's forgery (fuzz/vmm_peer.c). */
	CU_ASSERT_NOT_EQUAL(r->b.m.o->x_cpu[0], HOST_CPU_XNONE);
	CU_ASSERT_EQUAL(r->b.m.o->x_cpu[1], HOST_CPU_XNONE);
	CU_ASSERT_EQUAL(r->b.m.o->x_cpu[HOST_HAND_LANES - 1], HOST_CPU_XNONE);
}

static void xrig_setup(struct xrig *r, bool peer)
{
	xrig_begin(r, peer);
	xrig_finish(r, peer);
}

static void xrig_end(struct xrig *r)
{
	close(r->a.offer_fd);
	close(r->b.offer_fd);
	if (!r->a_left)
		ovmm_leave(r->h, &r->a.m);
	if (!r->b_left)
		ovmm_leave(r->h, &r->b.m);
	ovmm_leave(r->t, &r->ta);
	ovmm_leave(r->t, &r->tb);
	host_destroy(r->h);
	host_destroy(r->t);
}

/* What rt_hand_xvm() / rt_xhand_take() do: a CAS of the offer in m's word to (lane, vcpu). */
static bool xclaim(struct ovmm *m, uint32_t gen, uint32_t from, uint32_t lane, uint32_t vcpu)
{
	uint64_t w = host_offer_word(gen, from, HOST_OFFER_FREE);

	return __atomic_compare_exchange_n(&m->o->word, &w, host_offer_word(gen, lane, vcpu),
					   false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void twins_agree(struct xrig *r)
{
	char s1[1024], s2[1024];
	const char *vm[] = { "/machine/a", "/machine/b" };
	unsigned int i;

	for (i = 0; i < 4; i++)
		CU_ASSERT_STRING_EQUAL(core_state(r->h, i), core_state(r->t, i));
	for (i = 0; i < 2; i++) {
		memset(s1, 0, sizeof(s1));
		memset(s2, 0, sizeof(s2));
		CU_ASSERT_TRUE(vsched_read(host_vsched(r->h), vm[i], "cpu.stat", s1, sizeof(s1)) > 0);
		CU_ASSERT_TRUE(vsched_read(host_vsched(r->t), vm[i], "cpu.stat", s2, sizeof(s2)) > 0);
		CU_ASSERT_STRING_EQUAL(s1, s2);
	}
}

/* a's holder blocks and claims, b's successor takes: the twin's BLOCKED, nothing sent to b. */
static void test_xhand_taken(void)
{
	struct host_ev ev;
	struct xrig r;

	xrig_setup(&r, true);
	offer_now += 500 * NSEC_PER_USEC;
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_RAN, 0, 400000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.t, &r.ta, HOST_MSG_RAN, 0, 400000, 0), 0);
	/* A report changes nobody's state: offered again (a new gen) to the same two. */
	r.gen = host_offer_gen(offer_word(&r.a.m));
	CU_ASSERT_TRUE(xclaim(&r.a.m, r.gen, HOST_OFFER_HAND, 0, 0));
	CU_ASSERT_TRUE(xclaim(&r.b.m, r.gen, HOST_OFFER_XSUCC, 0, 0));
	offer_now += 100 * NSEC_PER_USEC;
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_RAN, 0, 50000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_TOOK, 0, r.gen, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.t, &r.ta, HOST_MSG_BLOCKED, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.t, &r.ta, HOST_MSG_RAN, 0, 50000, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(r.h, 2), "running");
	CU_ASSERT_EQUAL(host_client_xhands(r.b.m.c, HOST_XHAND_TAKEN), 1);
	/* It runs there already: nothing sent to b; the twin's b got the GRANT. */
	CU_ASSERT_FALSE(ovmm_recv(&r.b.m, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_FALSE(ovmm_recv(&r.b.m, HOST_MSG_PREEMPT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_TRUE(ovmm_recv(&r.tb, HOST_MSG_GRANT, 0, &ev));
	/* No TOOK of b's (protocol 14): its word was the take; its next datagram is taken as is. */
	offer_now += 2 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.b.m, HOST_MSG_RAN, 0, 1500000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.t, &r.tb, HOST_MSG_RAN, 0, 1500000, 0), 0);
	twins_agree(&r);
	/* ... and one that is not a report (before protocol 14: refused, b's TOOK was due). */
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.b.m, HOST_MSG_PING, 0, 0, 0), 0);
	CU_ASSERT_FALSE(ovmm_hung_up(&r.a.m) || ovmm_hung_up(&r.b.m));
	xrig_end(&r);
}

/* a claims, b's successor does not take (late): the core grants it by the page, as the twin. */
static void test_xhand_missed(void)
{
	struct host_ev ev;
	struct xrig r;

	xrig_setup(&r, true);
	offer_now += 500 * NSEC_PER_USEC;
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_RAN, 0, 1500000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.t, &r.ta, HOST_MSG_RAN, 0, 1500000, 0), 0);
	r.gen = host_offer_gen(offer_word(&r.a.m));
	CU_ASSERT_TRUE(xclaim(&r.a.m, r.gen, HOST_OFFER_HAND, 0, 0));
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_TOOK, 0, r.gen, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(r.t, &r.ta, HOST_MSG_BLOCKED, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&r.b.m, HOST_MSG_GRANT, 0, &ev));
	CU_ASSERT_EQUAL(ev.arg, 0);
	CU_ASSERT_EQUAL(host_client_xhands(r.b.m.c, HOST_XHAND_MISSED), 1);
	/* Too late now: the offer was revoked in b's word. */
	CU_ASSERT_FALSE(xclaim(&r.b.m, r.gen, HOST_OFFER_XSUCC, 0, 0));
	twins_agree(&r);
	xrig_end(&r);
}

/*
 * b takes with no claim of a's (b lies, or a took its claim back): b's successor is told PREEMPT,
 * a keeps its lane, nobody is hung up (the daemon cannot tell who lied).
 */
static void test_xhand_no_claim(void)
{
	struct host_ev ev;
	struct xrig r;

	xrig_setup(&r, true);
	CU_ASSERT_TRUE(xclaim(&r.b.m, r.gen, HOST_OFFER_XSUCC, 0, 0));
	offer_now += 100 * NSEC_PER_USEC;
	/* No TOOK of b's (protocol 14): the daemon's next event settles b's word. */
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.b.m, HOST_MSG_PING, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&r.b.m, HOST_MSG_PREEMPT, 0, &ev));
	CU_ASSERT_EQUAL(host_client_xhands(r.b.m.c, HOST_XHAND_REVOKED), 1);
	CU_ASSERT_STRING_EQUAL(core_state(r.h, 0), "running");
	CU_ASSERT_STRING_EQUAL(core_state(r.h, 2), "waiting");
	CU_ASSERT_FALSE(ovmm_hung_up(&r.a.m) || ovmm_hung_up(&r.b.m));
	/* a's claim rewritten after b read it: the same. */
	CU_ASSERT_TRUE(xclaim(&r.a.m, r.gen + 1, HOST_OFFER_HAND, 0, 0));
	CU_ASSERT_TRUE(xclaim(&r.b.m, r.gen + 1, HOST_OFFER_XSUCC, 0, 0));
	__atomic_store_n(&r.a.m.o->word, host_offer_word(r.gen + 1, HOST_OFFER_HAND,
							 HOST_OFFER_FREE), __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.b.m, HOST_MSG_PING, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&r.b.m, HOST_MSG_PREEMPT, 0, &ev));
	CU_ASSERT_STRING_EQUAL(core_state(r.h, 0), "running");
	CU_ASSERT_FALSE(ovmm_hung_up(&r.a.m) || ovmm_hung_up(&r.b.m));
	xrig_end(&r);
}

/* Forged words: each hangs up only the VM that wrote it; the other's vCPU holds what the core
 * gave it. */
static void test_xhand_forged(void)
{
	struct host_ev ev;
	struct xrig r;

	/* a claims a lane out of range; b took: a hung up, b's successor PREEMPTed. */
	xrig_setup(&r, true);
	__atomic_store_n(&r.a.m.o->word, host_offer_word(r.gen, 5, 0), __ATOMIC_SEQ_CST);
	CU_ASSERT_TRUE(xclaim(&r.b.m, r.gen, HOST_OFFER_XSUCC, 0, 0));
	offer_now += 100 * NSEC_PER_USEC;
	CU_ASSERT_NOT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_TOOK, 0, r.gen, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&r.b.m, HOST_MSG_PREEMPT, 0, &ev));
	CU_ASSERT_FALSE(ovmm_hung_up(&r.b.m));
	CU_ASSERT_TRUE(ovmm_hung_up(&r.a.m));
	ovmm_leave(r.h, &r.a.m);	/* as host_run() on the hang-up: the lane, freed, is b's */
	r.a_left = true;
	CU_ASSERT_STRING_EQUAL(core_state(r.h, 2), "running");
	xrig_end(&r);

	/* b takes for a vCPU that is not the successor: b hung up, a's valid claim honoured. */
	xrig_setup(&r, true);
	CU_ASSERT_TRUE(xclaim(&r.a.m, r.gen, HOST_OFFER_HAND, 0, 0));
	CU_ASSERT_TRUE(xclaim(&r.b.m, r.gen, HOST_OFFER_XSUCC, 0, 1));
	offer_now += 100 * NSEC_PER_USEC;
	CU_ASSERT_EQUAL(ovmm_ev(r.h, &r.a.m, HOST_MSG_TOOK, 0, r.gen, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(r.h, 0), "idle");
	CU_ASSERT_FALSE(ovmm_hung_up(&r.a.m));
	CU_ASSERT_TRUE(ovmm_hung_up(&r.b.m));
	xrig_end(&r);
}

/*
 * Two lanes, held by a's vCPU and c's, b's vCPU waits: b's side names a's lane only. Before,
 * every lane's CPU was published, and b's VMM took a forged claim of c's lane (fuzz/vmm_peer.c).
 */
static void test_xhand_lanes_of_peer(void)
{
	struct host *h = offer_host(2);
	struct pvmm a, b, c;
	unsigned int l, mine = 0, other = 0;

	peer_join(h, &a, "a", true);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	peer_join(h, &b, "b", true);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	peer_join(h, &c, "c", true);
	CU_ASSERT_EQUAL(ovmm_ev(h, &c.m, HOST_MSG_COMMIT, 0, 0, 0), 0);
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a.m, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &c.m, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &b.m, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL_FATAL(host_offer_lane(offer_word(&b.m)), HOST_OFFER_XSUCC);
	for (l = 0; l < 2; l++) {
		/* The releasing VM: offered the handoff in its own word. */
		const struct ovmm *holder = host_offer_lane(offer_word(&a.m)) == HOST_OFFER_HAND ?
					    &a.m : &c.m;
		bool of_peer = holder->o->hand[l].holder != HOST_OFFER_NONE;

		if (of_peer)
			mine += b.m.o->x_cpu[l] != HOST_CPU_XNONE;
		else
			other += b.m.o->x_cpu[l] == HOST_CPU_XNONE;
	}
	CU_ASSERT_EQUAL(mine, 1);	/* the peer's lane: its CPU */
	CU_ASSERT_EQUAL(other, 1);	/* the third VM's: none */
	CU_ASSERT_EQUAL(b.m.o->x_cpu[2], HOST_CPU_XNONE);
	close(a.offer_fd);
	close(b.offer_fd);
	close(c.offer_fd);
	ovmm_leave(h, &a.m);
	ovmm_leave(h, &b.m);
	ovmm_leave(h, &c.m);
	host_destroy(h);
}

struct xwaiter {
	const uint32_t *word;
	uint32_t val;
	long ret;
	pid_t tid;
};

static void *xwaiter(void *arg)
{
	struct xwaiter *x = arg;
	struct timespec ts = { 2, 0 };

	__atomic_store_n(&x->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	x->ret = syscall(SYS_futex, x->word, FUTEX_WAIT, x->val, &ts, NULL, 0);
	return NULL;
}

/*
 * Whether thread tid sleeps in futex(): its /proc syscall file names the call it is blocked in
 * ("running" while on a CPU), and a FUTEX_WAIT is queued on the word before it sleeps.
 */
static bool xwaiter_asleep(pid_t tid)
{
	char path[64], buf[64];
	long nr = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%ld", &nr) != 1)
		nr = -1;
	fclose(f);
	return nr == SYS_futex;
}

/*
 * Protocol 10: publishing b's side wakes b's word (its gen half), on which b's waker thread
 * waits (sched/runtime/rt_xwait.c) to wait on a's word too. It woke b's successor's grant-page
 * entry before (its own thread took), and the waker slept on until a timer or a poke.
 */
static void test_xhand_wakes_word(void)
{
	struct xwaiter x;
	unsigned int i;
	struct xrig r;
	pthread_t t;

	xrig_begin(&r, true);
	x.word = host_offer_gen_futex(r.b.m.o);
	x.val = __atomic_load_n(x.word, __ATOMIC_ACQUIRE);
	x.ret = -2;
	x.tid = 0;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, xwaiter, &x), 0);
	/*
	 * Asleep on the word first: a change before it would not show a wake-up. A fixed 50 ms
	 * sleep here assumed a quiet host: a waiter not yet in its futex finds the word changed
	 * (EAGAIN) and the test failed with nothing wrong.
	 */
	for (i = 0; i < 2000 && !(__atomic_load_n(&x.tid, __ATOMIC_ACQUIRE) &&
				   xwaiter_asleep(x.tid)); i++)
		usleep(1000);
	CU_ASSERT_TRUE(i < 2000);
	xrig_finish(&r, true);
	pthread_join(t, NULL);
	CU_ASSERT_EQUAL(x.ret, 0);	/* woken, not timed out (-1, ETIMEDOUT) */
	xrig_end(&r);
}

/* Without HOST_HELLO_PEER nothing crosses: b's vCPU is granted by the page (no offer to a). */
static void test_xhand_not_asked(void)
{
	struct xrig r;

	xrig_setup(&r, false);
	CU_ASSERT_NOT_EQUAL(host_offer_lane(offer_word(&r.a.m)), HOST_OFFER_HAND);
	CU_ASSERT_NOT_EQUAL(host_offer_lane(offer_word(&r.b.m)), HOST_OFFER_XSUCC);
	xrig_end(&r);
}

static CU_TestInfo host_xhand_tests[] = {
	{ "a handoff across VMs ends the cores as the holder's BLOCKED", test_xhand_taken },
	{ "a claim the successor did not take is granted by the daemon", test_xhand_missed },
	{ "a take without the other VM's claim is PREEMPTed, nobody hung up",
	  test_xhand_no_claim },
	{ "a forged word hangs up only the VM that wrote it", test_xhand_forged },
	{ "no handoff across VMs without HOST_HELLO_PEER", test_xhand_not_asked },
	{ "a successor's side names only the releasing VM's lanes", test_xhand_lanes_of_peer },
	{ "publishing the successor's side wakes that VM's word", test_xhand_wakes_word },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_xhand", host_xhand_tests);
