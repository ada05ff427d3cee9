// SPDX-License-Identifier: GPL-2.0
/*
 * Handoffs (host/host_hand.c, HOST_HELLO_HAND): while a vCPU waits and is the core's next pick,
 * its VM is offered the handoff of the lanes it holds; a holder that blocks claims it and the
 * successor runs. A claim ends the core as the BLOCKED it stands for would (a twin daemon fed
 * that by the socket); one the core would not make is revoked (the successor PREEMPTed); a
 * forged word hangs its VM up and moves nothing of another VM's. Time is driven
 * (host_set_clock()).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_offer_test.h"
#include "sched/core.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

/*
 * Joins VM name of nr vCPUs with handoffs if hand (page and offers always), cpu.max quota_us
 * per 100 ms; COMMIT sent.
 */
static void hand_join_max(struct host *h, struct ovmm *m, const char *name, unsigned int nr,
			  bool hand, uint64_t quota_us)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = nr,
		.flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER | (hand ? HOST_HELLO_HAND : 0),
		.vm = { .quota_us = quota_us, .period_us = 100000 },
	};

	snprintf(hm.name, sizeof(hm.name), "%s", name);
	m->fd = host_test_join_hello(h, &hm, &m->c, &m->o);
	CU_ASSERT_EQUAL(ovmm_ev(h, m, HOST_MSG_COMMIT, 0, 0, 0), 0);
}

static void hand_join(struct host *h, struct ovmm *m, const char *name, unsigned int nr,
		      bool hand)
{
	hand_join_max(h, m, name, nr, hand, UINT64_MAX);
}

/* The twin: the same VM without page or offers, every event by the socket. */
static void twin_join(struct host *t, struct ovmm *m, const char *name, unsigned int nr)
{
	char buf[1024];

	m->o = NULL;
	m->fd = host_test_join(t, name, nr, UINT64_MAX, &m->c);
	CU_ASSERT_EQUAL_FATAL(recv(m->fd, buf, sizeof(buf), 0),
			      (ssize_t)sizeof(struct host_welcome));
	CU_ASSERT_EQUAL(ovmm_ev(t, m, HOST_MSG_COMMIT, 0, 0, 0), 0);
}

static bool hand_offered(const struct ovmm *m)
{
	uint64_t w = offer_word(m);

	return host_offer_lane(w) == HOST_OFFER_HAND && host_offer_vcpu(w) == HOST_OFFER_FREE;
}

/* What rt_hand_off() does: the CAS from the handoff offered to holder's claim of lane. */
static bool hand_claim(struct ovmm *m, uint32_t lane, uint32_t holder, uint32_t *gen)
{
	uint64_t w = offer_word(m);

	*gen = host_offer_gen(w);
	return hand_offered(m) &&
	       __atomic_compare_exchange_n(&m->o->word, &w, host_offer_word(*gen, lane, holder),
					   false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

/* Both daemons' cores agree on a's vCPUs (slots 0..nr-1), switches and a's cpu.stat. */
static void twins_agree(struct host *h, struct host *t, unsigned int nr)
{
	char a1[1024], a2[1024];
	unsigned int i;

	for (i = 0; i < nr; i++)
		CU_ASSERT_STRING_EQUAL(core_state(h, i), core_state(t, i));
	vsched_lock(host_vsched(h));
	vsched_lock(host_vsched(t));
	for (i = 0; i < nr; i++)
		CU_ASSERT_EQUAL(sched_vcpu_lane(vsched_sched(host_vsched(h)), i),
				sched_vcpu_lane(vsched_sched(host_vsched(t)), i));
	CU_ASSERT_EQUAL(sched_nr_switches(vsched_sched(host_vsched(h))),
			sched_nr_switches(vsched_sched(host_vsched(t))));
	vsched_unlock(host_vsched(t));
	vsched_unlock(host_vsched(h));
	memset(a1, 0, sizeof(a1));
	memset(a2, 0, sizeof(a2));
	CU_ASSERT_TRUE(vsched_read(host_vsched(h), "/machine/a", "cpu.stat", a1, sizeof(a1)) > 0);
	CU_ASSERT_TRUE(vsched_read(host_vsched(t), "/machine/a", "cpu.stat", a2, sizeof(a2)) > 0);
	CU_ASSERT_STRING_EQUAL(a1, a2);
}

/* vCPU 0 holds the one lane, vCPU 1 waits (both daemons); h's VM is offered the handoff. */
static void hand_setup(struct host *h, struct host *t, struct ovmm *a, struct ovmm *b)
{
	hand_join(h, a, "a", 2, true);
	twin_join(t, b, "a", 2);
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_FALSE(hand_offered(a));	/* nobody waits */
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, a, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, b, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_TRUE(hand_offered(a));
	CU_ASSERT_EQUAL(a->o->hand_succ, 1);
	CU_ASSERT_EQUAL(a->o->hand[0].holder, 0);
	CU_ASSERT_EQUAL(a->o->hand_sent, 3);	/* COMMIT, two RUNNABLEs */
	CU_ASSERT_EQUAL(a->o->hand_slice, 0);	/* the only waiter */
	ovmm_drain(a);
	ovmm_drain(b);
}

/* A holder that blocks hands its lane on: the core ends as the twin's that read the BLOCKED. */
static void test_hand_block(void)
{
	struct host *h = offer_host(1), *t = offer_host(1);
	struct host_ev ev;
	struct ovmm a, b;
	uint32_t gen;

	hand_setup(h, t, &a, &b);
	offer_now += 500 * NSEC_PER_USEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 0, 400000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 0, 400000, 0), 0);
	/* A report read meanwhile does not void it: it changes nobody's state. */
	CU_ASSERT_TRUE(hand_offered(&a));
	CU_ASSERT_TRUE(hand_claim(&a, 0, 0, &gen));
	/* A report sent before the claim may still come first; then the TOOK. */
	offer_now += 100 * NSEC_PER_USEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 0, 50000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, gen, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_BLOCKED, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 0, 50000, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "idle");
	CU_ASSERT_EQUAL(host_client_hands(a.c, false), 1);
	CU_ASSERT_EQUAL(host_client_hands(a.c, true), 0);
	/* It runs there already: nothing sent; the twin's VMM got the GRANT. */
	CU_ASSERT_FALSE(ovmm_recv(&a, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_TRUE(ovmm_recv(&b, HOST_MSG_GRANT, 1, &ev));
	offer_now += 2 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 1, 1500000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 1, 1500000, 0), 0);
	twins_agree(h, t, 2);
	ovmm_leave(h, &a);
	ovmm_leave(t, &b);
	host_destroy(h);
	host_destroy(t);
}

/*
 * The core decides otherwise: VM a (1 ms per 100 ms) holds both lanes, vCPU 2 waits and is
 * published. 5 ms later vCPU 0 blocks and hands it lane 0; charged up to then, vCPU 1 throttles
 * a: the handoff is revoked (vCPU 2 PREEMPTed, throttled in the core).
 */
static void test_hand_revoked(void)
{
	struct host *h = offer_host(2);
	struct host_ev ev;
	struct ovmm a;
	uint32_t gen;

	hand_join_max(h, &a, "a", 3, true, 1000);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 2, 0, 0), 0);
	CU_ASSERT_TRUE(hand_offered(&a));
	CU_ASSERT_EQUAL(a.o->hand_succ, 2);
	CU_ASSERT_EQUAL(a.o->hand[0].holder, 0);
	CU_ASSERT_EQUAL(a.o->hand[1].holder, 1);
	ovmm_drain(&a);
	offer_now += 5 * NSEC_PER_MSEC;
	CU_ASSERT_TRUE(hand_claim(&a, 0, 0, &gen));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, gen, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 2), "throttled");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "idle");
	CU_ASSERT_EQUAL(host_client_hands(a.c, false), 0);
	CU_ASSERT_EQUAL(host_client_hands(a.c, true), 1);
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_PREEMPT, 2, &ev));
	CU_ASSERT_FALSE(ovmm_hung_up(&a));
	ovmm_leave(h, &a);
	host_destroy(h);
}

/*
 * A hostile VMM: claims that are not this offer's hang it up, its fields rewritten change
 * nothing the daemon does, and nothing another VM writes in its own page moves this VM.
 */
static void test_hand_forged(void)
{
	static const struct { uint32_t lane, holder; int gen_delta; } bad[] = {
		{ 0, 1, 0 },		/* vCPU 1 holds no lane */
		{ 0, 0, 1 },		/* another gen */
		{ 1, 0, 0 },		/* no such lane */
		{ 0, 7, 0 },		/* no such vCPU */
		{ HOST_OFFER_HAND, 0, 0 },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(bad); k++) {
		struct host *h = offer_host(1), *t = offer_host(1);
		struct ovmm a, b, x;
		uint64_t w;

		hand_setup(h, t, &a, &b);
		w = offer_word(&a);
		__atomic_store_n(&a.o->word, host_offer_word(host_offer_gen(w) + bad[k].gen_delta,
							     bad[k].lane, bad[k].holder),
				 __ATOMIC_SEQ_CST);
		/* The next event of any VM settles it: here another VM's. */
		hand_join(h, &x, "x", 1, true);
		CU_ASSERT_TRUE(ovmm_hung_up(&a));
		/* Hung up on: host_run() removes it at the hang-up; here the test does. */
		ovmm_leave(h, &a);
		ovmm_leave(h, &x);
		ovmm_leave(t, &b);
		host_destroy(h);
		host_destroy(t);
	}
}

/* Fields rewritten by the VMM before a valid claim: the daemon uses its own copy. */
static void test_hand_fields(void)
{
	struct host *h = offer_host(1), *t = offer_host(1);
	struct ovmm a, b;
	uint32_t gen;

	hand_setup(h, t, &a, &b);
	a.o->hand_succ = 0;
	a.o->hand_slice = UINT64_MAX;
	a.o->hand[0].holder_seq = 12345;
	offer_now += NSEC_PER_MSEC;
	/* Its exit's report first, as a blocking vCPU's (the claim's holder is not charged). */
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 0, 1000000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 0, 1000000, 0), 0);
	CU_ASSERT_TRUE(hand_claim(&a, 0, 0, &gen));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, gen, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_BLOCKED, 0, 0, 0), 0);
	twins_agree(h, t, 2);
	CU_ASSERT_FALSE(ovmm_hung_up(&a));
	ovmm_leave(h, &a);
	ovmm_leave(t, &b);
	host_destroy(h);
	host_destroy(t);
}

/*
 * Only within one VM, and only to a VMM that asked: with b's vCPU the next pick, a (holding
 * the lane) is offered nothing; b's own page is never read, whatever b writes there.
 */
static void test_hand_other_vm(void)
{
	struct host *h = offer_host(1);
	struct ovmm a, b, n;
	uint64_t w;

	hand_join(h, &a, "a", 1, true);
	hand_join(h, &b, "b", 1, true);
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_FALSE(hand_offered(&a));
	CU_ASSERT_FALSE(hand_offered(&b));	/* it holds no lane */
	/* b claims a's lane for itself in its own page: nobody reads it. */
	w = offer_word(&b);
	__atomic_store_n(&b.o->word, host_offer_word(host_offer_gen(w), 0, 0), __ATOMIC_SEQ_CST);
	offer_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 0, 900000, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "waiting");
	CU_ASSERT_FALSE(ovmm_hung_up(&b));
	ovmm_leave(h, &a);
	ovmm_leave(h, &b);
	/* A VMM that did not ask for handoffs is offered none. */
	hand_join(h, &n, "n", 2, false);
	CU_ASSERT_EQUAL(ovmm_ev(h, &n, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &n, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_FALSE(hand_offered(&n));
	ovmm_leave(h, &n);
	host_destroy(h);
}

static CU_TestInfo host_hand_tests[] = {
	{ "a blocking holder's handoff ends the core as its BLOCKED", test_hand_block },
	{ "a handoff the core would not make is revoked", test_hand_revoked },
	{ "a forged handoff claim hangs its VM up", test_hand_forged },
	{ "a handoff's fields rewritten by the VMM are not used", test_hand_fields },
	{ "no handoff across VMs or to a VMM that did not ask", test_hand_other_vm },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_hand", host_hand_tests);
