// SPDX-License-Identifier: GPL-2.0
/*
 * Idle-lane offers (host/host_offer.c, include/host/proto.h): an idle lane with nobody waiting
 * is offered to one VM in its writable offer page; a claim that wins its CAS is fed to the
 * core as the RUNNABLE it stands for, the core ending as the socket would have left it; the
 * daemon's revoking CAS beats a later claim; anything else in the word hangs the VM up. Time
 * is driven (host_set_clock()), so a twin daemon fed the RUNNABLE by the socket can be compared.
 */
#include <sched.h>
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

/* Joins with nr vCPUs, cpu.max quota_us per 100 ms, and offers if offers; COMMIT sent. */
static void ovmm_join(struct host *h, struct ovmm *m, const char *name, unsigned int nr,
		      uint64_t quota_us, bool offers)
{
	char welcome[1024];

	m->o = NULL;
	if (offers) {
		m->fd = host_test_join_offers(h, name, nr, quota_us, &m->c, &m->o);
	} else {
		m->fd = host_test_join(h, name, nr, quota_us, &m->c);
		CU_ASSERT_EQUAL_FATAL(recv(m->fd, welcome, sizeof(welcome), 0),
				      (ssize_t)sizeof(struct host_welcome));
	}
	CU_ASSERT_EQUAL(ovmm_ev(h, m, HOST_MSG_COMMIT, 0, 0, 0), 0);
}

/*
 * The offer, taken: the vCPU runs on the offered lane in the daemon's core with nothing sent
 * back, and the core, cpu.stat and waits end as in a twin daemon that read a RUNNABLE.
 */
static void test_offer_take(void)
{
	struct host *h = offer_host(1), *t = offer_host(1);
	char a1[1024], a2[1024];
	struct host_ev ev;
	struct ovmm a, b;
	uint64_t w;

	ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
	ovmm_join(t, &b, "a", 2, UINT64_MAX, false);
	CU_ASSERT_TRUE(offered(&a, 0));
	CU_ASSERT_EQUAL(a.o->sent, 1);		/* the COMMIT */
	CU_ASSERT_EQUAL(a.o->eligible[0], 3);	/* both vCPUs */
	offer_now += NSEC_PER_MSEC;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 1));
	/* The daemon sees the claim at its next event: here, the TOOK. */
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 1, host_offer_gen(w), 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "idle");
	CU_ASSERT_FALSE(ovmm_recv(&a, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));	/* it runs there already */
	CU_ASSERT_TRUE(ovmm_recv(&b, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_FALSE(offered(&a, 0));	/* the lane is busy: no offer */
	/* Reports and the block, the same in both: cpu.stat and waits agree. */
	offer_now += 3 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 1, 2000000, 1000000), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 1, 2000000, 1000000), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_TRUE(vsched_read(host_vsched(h), "/machine/a", "cpu.stat", a1, sizeof(a1)) > 0);
	CU_ASSERT_TRUE(vsched_read(host_vsched(t), "/machine/a", "cpu.stat", a2, sizeof(a2)) > 0);
	CU_ASSERT_STRING_EQUAL(a1, a2);
	CU_ASSERT_TRUE(strstr(a1, "usage_usec 3000\n") != NULL);
	vsched_lock(host_vsched(h));
	vsched_lock(host_vsched(t));
	CU_ASSERT_EQUAL(sched_nr_switches(vsched_sched(host_vsched(h))),
			sched_nr_switches(vsched_sched(host_vsched(t))));
	vsched_unlock(host_vsched(t));
	vsched_unlock(host_vsched(h));
	/* Idle again: offered again, for what the daemon read (COMMIT, TOOK, RAN, BLOCKED). */
	CU_ASSERT_TRUE(offered(&a, 0));
	CU_ASSERT_EQUAL(a.o->sent, 4);
	CU_ASSERT_NOT_EQUAL(host_offer_gen(offer_word(&a)), host_offer_gen(w));
	ovmm_leave(h, &a);
	ovmm_leave(t, &b);
	host_destroy(h);
	host_destroy(t);
}

/* The daemon revokes before another VM's RUNNABLE reaches the core: a later claim loses. */
static void test_offer_revoked(void)
{
	struct host *h = offer_host(1);
	struct host_ev ev;
	struct ovmm a, b;
	uint64_t w;

	ovmm_join(h, &a, "a", 1, UINT64_MAX, true);
	ovmm_join(h, &b, "b", 1, UINT64_MAX, true);
	/* Nobody held the lane yet: the first VM in turn; only one VM has it. */
	CU_ASSERT_TRUE(offered(&a, 0) != offered(&b, 0));
	if (offered(&b, 0)) {
		struct ovmm x = a;

		a = b;
		b = x;
	}
	w = offer_word(&a);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&b, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_EQUAL(host_offer_lane(offer_word(&a)), HOST_OFFER_NONE);
	CU_ASSERT_FALSE(claim_at(&a, w, 0));	/* read before the revocation, CAS after */
	CU_ASSERT_FALSE(claim(&a, 0));
	/* Claimed over the revocation anyway (no CAS): never read; its TOOK is garbage. */
	__atomic_store_n(&a.o->word, host_offer_word(host_offer_gen(w), 0, 0), __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_TICK, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, host_offer_gen(w), 0), -EPROTO);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");	/* b's */
	/* b's vCPU blocks: the lane goes to b, its last holder. */
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_BLOCKED, 0, 0, 0), 0);
	CU_ASSERT_TRUE(offered(&b, 0));
	CU_ASSERT_FALSE(offered(&a, 0));
	ovmm_leave(h, &a);
	ovmm_leave(h, &b);
	host_destroy(h);
}

/* A word that is no claim of this offer hangs its VM up; the other VM goes on. */
static void test_offer_garbage(void)
{
	static const struct {
		int gen_delta;
		uint32_t lane, vcpu;
	} bad[] = {
		{ 0, 0, 7 },		/* a vCPU it does not have */
		{ -1, 0, 0 },		/* a stale gen */
		{ 1, 0, 0 },		/* a gen not made yet */
		{ 0, 1, 0 },		/* a lane not offered */
		{ 0, HOST_OFFER_NONE, 3 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct host *h = offer_host(1);
		struct host_ev ev;
		struct ovmm a, b;
		uint32_t gen;

		ovmm_join(h, &b, "b", 1, UINT64_MAX, false);
		ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
		CU_ASSERT_TRUE_FATAL(offered(&a, 0));
		gen = host_offer_gen(offer_word(&a)) + (uint32_t)bad[i].gen_delta;
		__atomic_store_n(&a.o->word, host_offer_word(gen, bad[i].lane, bad[i].vcpu),
				 __ATOMIC_RELEASE);
		/* b's RUNNABLE: the revocation finds garbage; b gets the lane, a is hung up. */
		CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
		CU_ASSERT_TRUE(ovmm_recv(&b, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
		CU_ASSERT_TRUE(ovmm_hung_up(&a));
		CU_ASSERT_STRING_EQUAL(core_state(h, 1), "idle");
		CU_ASSERT_STRING_EQUAL(core_state(h, 2), "idle");
		ovmm_leave(h, &a);
		ovmm_leave(h, &b);
		host_destroy(h);
	}
}

/* A claim a's own datagram finds is refused with that datagram; TOOK must match its claim. */
static void test_offer_took(void)
{
	struct host *h = offer_host(1);
	struct ovmm a;
	uint64_t w;

	ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
	__atomic_store_n(&a.o->word, host_offer_word(host_offer_gen(offer_word(&a)), 0, 9),
			 __ATOMIC_RELEASE);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TICK, 0, 0, 0), -EPROTO);
	ovmm_leave(h, &a);

	/* TOOK without a claim, then with the wrong gen, vCPU or lane. */
	ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
	w = offer_word(&a);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, host_offer_gen(w), 0), -EPROTO);
	ovmm_leave(h, &a);
	ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 0));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, host_offer_gen(w) - 1, 0), -EPROTO);
	ovmm_leave(h, &a);
	ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 0));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 1, host_offer_gen(w), 0), -EPROTO);
	ovmm_leave(h, &a);
	/* Another datagram before the TOOK of a claim honoured (the VMM sends TOOK first). */
	ovmm_join(h, &a, "a", 2, UINT64_MAX, true);
	CU_ASSERT_TRUE(claim(&a, 0));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_BLOCKED, 0, 0, 0), -EPROTO);
	ovmm_leave(h, &a);
	CU_ASSERT_EQUAL(host_nr_clients(h), 0);
	CU_ASSERT_EQUAL(host_free_slots(h), 8);
	host_destroy(h);
}

/*
 * Claims the core cannot honour as taken: the lane it took is not the one the core fills
 * (another holder throttled meanwhile: GRANT of that lane), or its own VM throttled meanwhile
 * (PREEMPT). The core decides as for a RUNNABLE; the VM is told.
 */
static void test_offer_refused(void)
{
	struct host *h = offer_host(2);
	struct host_ev ev;
	struct ovmm a, b;
	uint64_t w;

	/* b capped at 1 ms per 100 ms holds lane 0; lane 1 is a's offer. */
	ovmm_join(h, &b, "b", 1, 1000, false);
	ovmm_join(h, &a, "a", 1, UINT64_MAX, true);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&b, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_EQUAL(ev.arg, 0);
	CU_ASSERT_TRUE(offered(&a, 1));
	offer_now += 5 * NSEC_PER_MSEC;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 0));
	/* Charged up to now, b is throttled and frees lane 0, which the core fills first. */
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, host_offer_gen(w), 1), 0);
	CU_ASSERT_TRUE(ovmm_recv(&b, HOST_MSG_PREEMPT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_EQUAL(ev.arg, 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	ovmm_leave(h, &a);
	ovmm_leave(h, &b);
	host_destroy(h);

	/* a capped, vCPU 1 holding lane 0; vCPU 0 takes lane 1 after a's quota ran out. */
	h = offer_host(2);
	ovmm_join(h, &a, "a", 2, 1000, true);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_GRANT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_TRUE(offered(&a, 1));
	CU_ASSERT_EQUAL(a.o->eligible[0], 1);	/* vCPU 1 runs already */
	offer_now += 5 * NSEC_PER_MSEC;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 0));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 0, host_offer_gen(w), 1), 0);
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_PREEMPT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_EQUAL(ev.vcpu, 1);
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_PREEMPT, OVMM_ANY_VCPU, &ev));
	CU_ASSERT_EQUAL(ev.vcpu, 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "throttled");
	/* Its vCPUs wait (throttled): no offer. */
	CU_ASSERT_FALSE(offered(&a, 0));
	ovmm_leave(h, &a);
	host_destroy(h);
}

/* An offer names its lane's host CPU of the moment: the lanes rotate (host_rotate_due()). */
static void test_offer_cpu(void)
{
	struct host *h = offer_host(2);
	unsigned int i, k = 0;
	struct ovmm a, b;
	cpu_set_t set;
	int cpu[2];

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(set), &set), 0);
	for (i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[k++] = (int)i;
	ovmm_join(h, &a, "a", 1, UINT64_MAX, true);
	ovmm_join(h, &b, "b", 1, UINT64_MAX, false);
	CU_ASSERT_TRUE(offered(&a, 0));
	if (k == 2) {
		CU_ASSERT_EQUAL(a.o->cpu, (uint64_t)cpu[0]);
		/* Lane 0 moves to the second CPU; b takes it and leaves it; offered again there. */
		offer_now += NSEC_PER_MSEC;
		vsched_lock(host_vsched(h));
		host_rotate_due(h, offer_now);
		vsched_unlock(host_vsched(h));
		CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
		CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_BLOCKED, 0, 0, 0), 0);
		CU_ASSERT_TRUE(offered(&a, 0));
		CU_ASSERT_EQUAL(a.o->cpu, (uint64_t)cpu[1]);
	}
	ovmm_leave(h, &a);
	ovmm_leave(h, &b);
	host_destroy(h);
}

static CU_TestInfo host_offer_tests[] = {
	{ "a taken offer ends the core as a RUNNABLE would", test_offer_take },
	{ "the daemon's revocation beats a later claim", test_offer_revoked },
	{ "garbage in the offer word hangs its VM up", test_offer_garbage },
	{ "TOOK must match the claim honoured", test_offer_took },
	{ "a claim the core decides otherwise is told GRANT or PREEMPT", test_offer_refused },
	{ "an offer names its lane's CPU after the lanes rotate", test_offer_cpu },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_offer", host_offer_tests);
