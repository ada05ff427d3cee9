// SPDX-License-Identifier: GPL-2.0
/*
 * Offers of a held lane (host/host_offer.c, HOST_HELLO_HELD): with every lane held and nobody
 * waiting, the lane of a cpu.idle holder (or one taken by virtual time) is offered to its own VM
 * for the vCPUs that would take it at once on waking; the taker preempts the holder itself. A claim
 * ends the core as the RUNNABLE it stands for would (a twin daemon fed it by the socket); a holder
 * the core keeps after all is granted its lane again; a VMM that did not ask is never offered a
 * held lane.
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

static void held_group(struct host *h, struct ovmm *m, unsigned int index, const char *path,
		       bool idle, uint64_t quota_us)
{
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .index = index, .id = index + 1,
		.set = { .shares = 1024, .quota_us = quota_us, .period_us = 100000, .idle = idle,
			 .threaded = 1 },
	};

	snprintf(gm.path, sizeof(gm.path), "%s", path);
	CU_ASSERT_EQUAL(host_test_msg(h, m->c, &gm, sizeof(gm)), 0);
}

/* VM name of nr vCPUs says HELLO; flags: the HELLO's (0: no page, no offers, a bare socket). */
static void ovmm_hello_as(struct host *h, struct ovmm *m, const char *name, unsigned int nr,
			  uint32_t flags)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = nr,
		.flags = flags,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000, .subtree_cpu = 1 },
	};
	char buf[1024];
	int sv[2];

	snprintf(hm.name, sizeof(hm.name), "%s", name);

	m->o = NULL;
	if (flags) {
		m->fd = host_test_join_hello(h, &hm, &m->c, &m->o);
	} else {
		CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
		CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &m->c), 0);
		CU_ASSERT_EQUAL_FATAL(host_test_msg(h, m->c, &hm, sizeof(hm)), 0);
		CU_ASSERT_EQUAL_FATAL(recv(sv[0], buf, sizeof(buf), 0),
				      (ssize_t)sizeof(struct host_welcome));
		m->fd = sv[0];
	}
}

static void ovmm_hello(struct host *h, struct ovmm *m, unsigned int nr, uint32_t flags)
{
	ovmm_hello_as(h, m, "a", nr, flags);
}

/*
 * VM "a" of nr vCPUs, vCPU i in group grp[i]: 0 a itself, 1 a/idle (cpu.idle), 2 a/capped
 * (1 ms per 100 ms). flags: the HELLO's (0: no page, no offers).
 */
static void held_join(struct host *h, struct ovmm *m, unsigned int nr, const unsigned int *grp,
		      uint32_t flags)
{
	unsigned int i;

	ovmm_hello(h, m, nr, flags);
	held_group(h, m, 0, "idle", true, UINT64_MAX);
	held_group(h, m, 1, "capped", false, 1000);
	/* VCPU's arg: the group's batch index + 1, 0 the VM group. */
	for (i = 0; i < nr; i++) {
		struct host_ev ev = { .type = HOST_MSG_VCPU, .vcpu = i, .arg = grp[i] };

		CU_ASSERT_EQUAL(host_test_msg(h, m->c, &ev, sizeof(ev)), 0);
	}
	CU_ASSERT_EQUAL(ovmm_ev(h, m, HOST_MSG_COMMIT, 0, 0, 0), 0);
}

/*
 * vCPU 0 (cpu.idle) holds the one lane: vCPU 1 is offered it, with its holder and the seq of
 * the holder's grant. Taken, the core ends as a twin's that read vCPU 1's RUNNABLE: 1 runs,
 * 0 waits, the same switches and cpu.stat after the same reports.
 */
static void test_held_take(void)
{
	static const unsigned int grp[] = { 1, 0 };
	struct host *h = offer_host(1), *t = offer_host(1);
	char a1[1024], a2[1024];
	struct host_ev ev, g = { 0 };
	struct ovmm a, b;
	uint64_t w;

	held_join(h, &a, 2, grp, HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HELD);
	held_join(t, &b, 2, grp, 0);
	CU_ASSERT_TRUE(offered(&a, 0));		/* idle: an idle-lane offer */
	CU_ASSERT_EQUAL(a.o->holder, HOST_OFFER_NONE);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_TRUE_FATAL(ovmm_recv(&a, HOST_MSG_GRANT, 0, &g));
	/* Held by 0, offered to 1 alone (0 runs), naming 0 and its grant. */
	CU_ASSERT_TRUE_FATAL(offered(&a, 0));
	CU_ASSERT_EQUAL(a.o->holder, 0);
	CU_ASSERT_EQUAL(a.o->holder_seq, g.seq);
	CU_ASSERT_EQUAL(a.o->eligible[0], 2);
	offer_now += 2 * NSEC_PER_MSEC;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 1));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 1, host_offer_gen(w), 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "waiting");
	CU_ASSERT_STRING_EQUAL(core_state(t, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(t, 0), "waiting");
	/* The holder's PREEMPT goes as any (the VMM applied it already and skips it). */
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_PREEMPT, 0, &ev));
	CU_ASSERT_FALSE(offered(&a, 0));	/* 0 waits: no offer */
	/* The holder reports the 2 ms it ran until it was taken (the daemon charged it nothing
	 * past its grant; the twin its wall time, paid back by the report). */
	offer_now += 3 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 0, 2000000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 0, 2000000, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RAN, 1, 2000000, 1000000), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RAN, 1, 2000000, 1000000), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_TRUE(vsched_read(host_vsched(h), "/machine/a", "cpu.stat", a1, sizeof(a1)) > 0);
	CU_ASSERT_TRUE(vsched_read(host_vsched(t), "/machine/a", "cpu.stat", a2, sizeof(a2)) > 0);
	CU_ASSERT_STRING_EQUAL(a1, a2);
	vsched_lock(host_vsched(h));
	vsched_lock(host_vsched(t));
	CU_ASSERT_EQUAL(sched_nr_switches(vsched_sched(host_vsched(h))),
			sched_nr_switches(vsched_sched(host_vsched(t))));
	vsched_unlock(host_vsched(t));
	vsched_unlock(host_vsched(h));
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "running");	/* the lane back, as in the twin */
	CU_ASSERT_STRING_EQUAL(core_state(t, 0), "running");
	ovmm_leave(h, &a);
	ovmm_leave(t, &b);
	host_destroy(h);
	host_destroy(t);
}

/* Without HOST_HELLO_HELD a held lane is never offered (such a VMM would run beside it). */
static void test_held_not_asked(void)
{
	static const unsigned int grp[] = { 1, 0 };
	struct host *h = offer_host(1);
	struct host_ev g;
	struct ovmm a;

	held_join(h, &a, 2, grp, HOST_HELLO_PAGE | HOST_HELLO_OFFER);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ovmm_recv(&a, HOST_MSG_GRANT, 0, &g));
	CU_ASSERT_FALSE(offered(&a, 0));
	ovmm_leave(h, &a);
	host_destroy(h);
}

/*
 * Two lanes: vCPU 0 (cpu.idle) holds lane 0, vCPU 2 lane 1; 1 and 2 share a/capped (1 ms per
 * 100 ms). vCPU 1 is offered lane 0. When its claim is honoured 2 has used up their quota:
 * the group is throttled, 1 gets no lane (PREEMPT) and the core keeps 0 on lane 0, which the
 * VMM let go of when it took the offer: 0 is granted lane 0 again.
 */
static void test_held_kept(void)
{
	static const unsigned int grp[] = { 1, 2, 2 };
	struct host *h = offer_host(2);
	bool told1 = false, back0 = false;
	struct host_ev ev, g = { 0 };
	struct ovmm a;
	uint64_t w;

	held_join(h, &a, 3, grp, HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HELD);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 2, 0, 0), 0);
	CU_ASSERT_TRUE_FATAL(ovmm_recv(&a, HOST_MSG_GRANT, 0, &g));
	CU_ASSERT_STRING_EQUAL(core_state(h, 2), "running");
	CU_ASSERT_TRUE_FATAL(offered(&a, 0));
	CU_ASSERT_EQUAL(a.o->holder, 0);
	CU_ASSERT_EQUAL(a.o->eligible[0], 2);	/* vCPU 1 */
	offer_now += 5 * NSEC_PER_MSEC;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 1));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 1, host_offer_gen(w), 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "throttled");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "running");
	/* 1 told PREEMPT; lane 0 back to 0, with a grant newer than the one the VMM applied. */
	while (recv(a.fd, &ev, sizeof(ev), MSG_DONTWAIT) == sizeof(ev)) {
		if (ev.type == HOST_MSG_PREEMPT && ev.vcpu == 1)
			told1 = true;
		if (ev.type == HOST_MSG_GRANT && ev.vcpu == 0 && ev.arg == 0 &&
		    (int32_t)(ev.seq - g.seq) > 0)
			back0 = true;
	}
	CU_ASSERT_TRUE(told1);
	CU_ASSERT_TRUE(back0);
	ovmm_leave(h, &a);
	host_destroy(h);
}

/*
 * Two lanes: vCPU 1 (a) gets lane 0, then vCPU 0 (cpu.idle) lane 1 at the same moment. vCPU 2
 * is offered lane 1, but only from lane 0's holder's min_run on: until then the core may defer
 * the preemption (vCPU 1, at rate 1 before the wake, drops below it after, kept inside its
 * min_run; sched_wake_takes_lane(), tests/unit/test_core_wake_lane.c). An idle lane's offer
 * has no such moment.
 */
static void test_held_not_before(void)
{
	static const unsigned int grp[] = { 1, 0, 0 };
	struct host *h = offer_host(2);
	uint64_t t0;
	struct ovmm a;

	held_join(h, &a, 3, grp, HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HELD);
	CU_ASSERT_TRUE_FATAL(offered(&a, 0));
	CU_ASSERT_EQUAL(a.o->not_before, 0);
	t0 = offer_now;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "running");
	CU_ASSERT_TRUE_FATAL(offered(&a, 1));
	CU_ASSERT_EQUAL(a.o->holder, 0);
	CU_ASSERT_EQUAL(a.o->eligible[0], 4);	/* vCPU 2 */
	CU_ASSERT_EQUAL(a.o->not_before, t0 + SCHED_MIN_RUN_DFL_NS);
	ovmm_leave(h, &a);
	host_destroy(h);
}

/* The VM "a" of vt_take: vCPU 0 in a/lo (weight 100), vCPU 1 in a/hi (weight 400). */
static void vt_join(struct host *h, struct ovmm *m, uint32_t flags)
{
	ovmm_hello(h, m, 2, flags);
	ovmm_vt_groups(h, m);
}

/*
 * One lane, no cpu.idle group: vCPU 0 (a/lo) holds it; vCPU 1 (a/hi) wakes, waits 2 ms and blocks
 * again without having run, owed what it waited. Woken again it is behind vCPU 0 by more than
 * min_run: the core takes the lane by virtual time (a twin daemon fed the RUNNABLE by the socket
 * does), so vCPU 1 is offered the held lane, from vCPU 0's min_run end on (past already: from the
 * offer's moment; sched_wake_vt_lane()). Taken, the core ends as the twin's. Before virtual time
 * was decided ahead, no held lane was offered here.
 */
static void test_held_vt(void)
{
	struct host *h = offer_host(1), *t = offer_host(1);
	struct host_ev g = { 0 };
	struct ovmm a, b;
	uint64_t w, t0;

	vt_join(h, &a, HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HELD);
	vt_join(t, &b, 0);
	t0 = offer_now;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_TRUE_FATAL(ovmm_recv(&a, HOST_MSG_GRANT, 0, &g));
	/* Level with vCPU 0 when it wakes now: it waits. */
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "waiting");
	offer_now += 2 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "running");
	CU_ASSERT_TRUE_FATAL(offered(&a, 0));
	CU_ASSERT_EQUAL(a.o->holder, 0);
	CU_ASSERT_EQUAL(a.o->holder_seq, g.seq);
	CU_ASSERT_EQUAL(a.o->eligible[0], 2);	/* vCPU 1 */
	/* vCPU 0 has run its min_run (from t0): takable from the offer's moment. */
	CU_ASSERT_EQUAL(a.o->not_before, t0 + 2 * NSEC_PER_MSEC);
	offer_now += NSEC_PER_MSEC / 2;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 1));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 1, host_offer_gen(w), 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &b, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(t, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(t, 0), "waiting");
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "waiting");
	ovmm_leave(h, &a);
	ovmm_leave(t, &b);
	host_destroy(h);
	host_destroy(t);
}

/*
 * Two lanes: VM "b"'s one vCPU holds lane 0, vCPU 0 of "a" (a/lo) lane 1; a's vCPU 1 (a/hi)
 * wakes, waits 2 ms level (a and b each keep a whole lane at equal weights) and blocks owed
 * what it waited. Woken again, b keeps its lane and vCPU 1 is behind vCPU 0 by more than
 * min_run: the core takes lane 1 by virtual time (a twin daemon fed the RUNNABLE does), and,
 * b's charges before the honour not moving a's key (sched_wake_vt_lane(), several lanes), the
 * daemon offers lane 1 ahead. Taken, the core ends as the twin's. Before several lanes were
 * covered no held lane was offered here.
 */
static void test_held_vt_lanes(void)
{
	struct host *h = offer_host(2), *t = offer_host(2);
	struct ovmm a, b, ta, tb;
	struct host_ev g = { 0 };
	uint64_t w;

	vt_join(h, &a, HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HELD);
	vt_join(t, &ta, 0);
	ovmm_hello_as(h, &b, "b", 1, 0);
	ovmm_hello_as(t, &tb, "b", 1, 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_COMMIT, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &tb, HOST_MSG_COMMIT, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &tb, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &ta, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_TRUE_FATAL(ovmm_recv(&a, HOST_MSG_GRANT, 0, &g));
	CU_ASSERT_EQUAL(g.arg, 1);	/* lane 1 */
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &ta, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "waiting");
	offer_now += 2 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &ta, HOST_MSG_BLOCKED, 1, 0, 0), 0);
	CU_ASSERT_TRUE_FATAL(offered(&a, 1));
	CU_ASSERT_EQUAL(a.o->holder, 0);
	CU_ASSERT_EQUAL(a.o->eligible[0], 2);	/* vCPU 1 */
	offer_now += NSEC_PER_MSEC / 2;
	w = offer_word(&a);
	CU_ASSERT_TRUE(claim(&a, 1));
	CU_ASSERT_EQUAL(ovmm_ev(h, &a, HOST_MSG_TOOK, 1, host_offer_gen(w), 1), 0);
	CU_ASSERT_EQUAL(ovmm_ev(t, &ta, HOST_MSG_RUNNABLE, 1, 0, 0), 0);
	CU_ASSERT_STRING_EQUAL(core_state(t, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(t, 0), "waiting");
	CU_ASSERT_STRING_EQUAL(core_state(t, 2), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 1), "running");
	CU_ASSERT_STRING_EQUAL(core_state(h, 0), "waiting");
	CU_ASSERT_STRING_EQUAL(core_state(h, 2), "running");
	ovmm_leave(h, &a);
	ovmm_leave(h, &b);
	ovmm_leave(t, &ta);
	ovmm_leave(t, &tb);
	host_destroy(h);
	host_destroy(t);
}

static CU_TestInfo host_offer_held_tests[] = {
	{ "a held lane taken from its offer ends the core as a RUNNABLE would", test_held_take },
	{ "no held lane is offered to a VMM that did not ask", test_held_not_asked },
	{ "a holder the core keeps after a claim is granted its lane again", test_held_kept },
	{ "a held lane is offered from the moment the lanes before it cannot defer",
	  test_held_not_before },
	{ "a lane taken by virtual time on one lane is offered", test_held_vt },
	{ "a lane taken by virtual time on two lanes is offered", test_held_vt_lanes },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_offer_held", host_offer_held_tests);
