// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon plans its rotation slice from what its lane changes cost (host/host_slice.c), as an
 * embedded runtime does (sched/slice_plan.c), up to 8 ms: with the core's fixed 3 ms, lane changes
 * across processes (wake-ups of the daemon, two agents and the granted thread) took the CPU that
 * the VM beside a capped partition missed (docs/host.md). Two VMs of one hog vCPU on one lane, time
 * driven (host_set_clock()): each slice end is told late by exit_us (the TICK) and each preempted
 * holder reports handoff_us after its PREEMPT.
 */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "sched/core.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

static uint64_t slice_now;

static uint64_t slice_clock(void)
{
	return slice_now;
}

struct svmm {
	int fd;
	struct host_client *c;
	uint64_t until;		/* its last grant's slice end */
	uint64_t since;		/* when it got the lane */
};

static void svmm_ev(struct host *h, struct svmm *m, uint32_t type, uint64_t a)
{
	struct host_ev ev = { .type = type, .a = a };

	CU_ASSERT_EQUAL(host_test_msg(h, m->c, &ev, sizeof(ev)), 0);
}

static void svmm_join(struct host *h, struct svmm *m, const char *name)
{
	m->fd = host_test_join(h, name, 1, UINT64_MAX, &m->c);
}

/* The last GRANT on m's socket (its until), or 0; a RETIME's until is kept in m too. */
static uint64_t svmm_granted_until(struct svmm *m)
{
	struct host_ev ev;
	uint64_t until = 0;

	while (recv(m->fd, &ev, sizeof(ev), MSG_DONTWAIT) == sizeof(ev)) {
		if (ev.type == HOST_MSG_GRANT)
			until = ev.a;
		if (ev.type == HOST_MSG_GRANT || ev.type == HOST_MSG_RETIME)
			m->until = ev.a;
		if (ev.type == HOST_MSG_PREEMPT)
			m->until = 0;
	}
	return until;
}

/* Decisions sent at now: a GRANT to b sets *slice (ns); RETIMEs only move the holders' ends. */
static void decided(struct svmm *a, struct svmm *b, uint64_t now, uint64_t *slice)
{
	uint64_t until = svmm_granted_until(b);

	svmm_granted_until(a);
	if (!until)
		return;
	b->since = now;
	CU_ASSERT(until > now && until != HOST_TIME_INF);
	*slice = until - now;
}

/*
 * n slice ends on the one lane: the holder's told exit_us late (RAN, TICK), its last report
 * handoff_us after that (the preempted one's, when the lane went on). Returns the slice of the
 * last grant, ns.
 */
static uint64_t rotate(struct host *h, struct svmm *vm, unsigned int n, uint64_t exit_us,
		       uint64_t handoff_us)
{
	uint64_t slice = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		/*
		 * The holder: the one with a slice end (granted, or re-timed when the other came).
		 */
		struct svmm *a = &vm[vm[1].until > vm[0].until], *b = &vm[vm[1].until <= vm[0].until];

		slice_now = a->until + exit_us * NSEC_PER_USEC;
		svmm_ev(h, a, HOST_MSG_RAN, slice_now - a->since);	/* it ran all along */
		svmm_ev(h, a, HOST_MSG_TICK, 0);
		decided(a, b, slice_now, &slice);
		slice_now += handoff_us * NSEC_PER_USEC;
		svmm_ev(h, a, HOST_MSG_RAN, handoff_us * NSEC_PER_USEC);
		decided(a, b, slice_now, &slice);
	}
	return slice;
}

static void test_host_slice_planned(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host *h = NULL;
	struct svmm vm[2] = { { 0 } };

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	slice_now = time_mono_ns() + NSEC_PER_SEC;	/* the core never goes back */
	host_set_clock(h, slice_clock);
	svmm_join(h, &vm[0], "a");
	svmm_join(h, &vm[1], "b");
	CU_ASSERT_EQUAL(host_slice(h), SCHED_SLICE_DFL_NS);
	svmm_ev(h, &vm[0], HOST_MSG_RUNNABLE, 0);
	svmm_ev(h, &vm[1], HOST_MSG_RUNNABLE, 0);
	svmm_granted_until(&vm[0]);
	svmm_granted_until(&vm[1]);
	vm[0].since = vm[1].since = slice_now;
	/* Cheap lane changes (10 + 10 us: 2 ms planned): the core's own 3 ms stays. */
	CU_ASSERT_EQUAL(rotate(h, vm, 60, 10, 10), SCHED_SLICE_DFL_NS);
	CU_ASSERT_EQUAL(host_slice(h), SCHED_SLICE_DFL_NS);
	/*
	 * Dearer (20 + 30 us): 100 times their sum, 5 ms, in the grants too (within the 10 % a
	 * plan leaves alone, as the averages climb).
	 */
	rotate(h, vm, 150, 20, 30);
	CU_ASSERT(host_slice(h) >= 4500 * NSEC_PER_USEC && host_slice(h) <= 5010 * NSEC_PER_USEC);
	CU_ASSERT_EQUAL(rotate(h, vm, 1, 20, 30), host_slice(h));
	/* Dear ones (60 + 90 us: 15 ms planned): the daemon's ceiling, 8 ms. */
	rotate(h, vm, 60, 60, 90);
	CU_ASSERT_EQUAL(host_slice(h), 8 * NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(rotate(h, vm, 1, 60, 90), 8 * NSEC_PER_MSEC);
	vsched_lock(host_vsched(h));
	host_client_remove(h, vm[0].c);
	host_client_remove(h, vm[1].c);
	vsched_unlock(host_vsched(h));
	close(vm[0].fd);
	close(vm[1].fd);
	host_destroy(h);
}

static CU_TestInfo host_slice_tests[] = {
	{ "the slice follows what lane changes cost, up to 8 ms",
	  test_host_slice_planned },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_slice", host_slice_tests);
