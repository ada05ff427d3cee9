// SPDX-License-Identifier: GPL-2.0
/*
 * The order of the daemon's decisions within one event (host_drain(), host/host_lanes.c): when
 * two lanes change at once, both holders are preempted (entry, kick, datagram) before either
 * successor is pinned and woken, so the second lane's holder does not run on behind the first
 * lane's successor. Time driven (host_set_clock()): two lanes, one VM of four vCPUs; vCPUs 0 and
 * 1 hold, 2 and 3 wait; the slice ends come together.
 */
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

static uint64_t drain_now;

static uint64_t drain_clock(void)
{
	return drain_now;
}

/* The datagrams on the VMM's socket, in order: their types (PREEMPT/GRANT only) and vCPUs. */
static unsigned int drain_read(int fd, uint32_t *type, uint32_t *vcpu, unsigned int max,
			       uint64_t *until)
{
	struct host_ev ev;
	unsigned int n = 0;

	while (recv(fd, &ev, sizeof(ev), MSG_DONTWAIT) == sizeof(ev)) {
		if (ev.type == HOST_MSG_RETIME && ev.a != HOST_TIME_INF && ev.a > *until)
			*until = ev.a;
		if ((ev.type == HOST_MSG_PREEMPT || ev.type == HOST_MSG_GRANT) && n < max) {
			type[n] = ev.type;
			vcpu[n++] = ev.vcpu;
		}
	}
	return n;
}

/*
 * Two slice ends at one TICK: the two PREEMPTs leave before the two GRANTs. Before, the core's
 * lane order was kept (lane 0's PREEMPT and GRANT, then lane 1's): lane 1's holder waited for
 * lane 0's successor's pin and wake-up.
 */
static void test_host_drain_holders_first(void)
{
	struct host_opts o = { .nr_lanes = 2, .max_vcpus = 4 };
	uint32_t type[8], vcpu[8];
	struct host_client *c;
	struct host *h;
	uint64_t until = 0;
	unsigned int n, i, last_pre = 0, first_grant = 8;
	int fd;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	drain_now = time_mono_ns() + NSEC_PER_SEC;
	host_set_clock(h, drain_clock);
	fd = host_test_join(h, "a", 4, UINT64_MAX, &c);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	n = drain_read(fd, type, vcpu, 8, &until);
	CU_ASSERT_EQUAL(n, 2);			/* both granted, at one instant */
	drain_now += 100000;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 2, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 3, 0, 0, 0), 0);
	n = drain_read(fd, type, vcpu, 8, &until);
	CU_ASSERT_EQUAL(n, 0);			/* they wait: the holders' slices end */
	CU_ASSERT_FATAL(until > drain_now);
	/* Both ends come (at the later one), told by the VMM's helper. */
	drain_now = until;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_TICK, 0, 0, 0, 0), 0);
	n = drain_read(fd, type, vcpu, 8, &until);
	CU_ASSERT_EQUAL_FATAL(n, 4);
	for (i = 0; i < n; i++) {
		if (type[i] == HOST_MSG_PREEMPT)
			last_pre = i;
		else if (first_grant == 8)
			first_grant = i;
	}
	CU_ASSERT(last_pre < first_grant);
	CU_ASSERT(vcpu[0] <= 1 && vcpu[1] <= 1 && vcpu[0] != vcpu[1]);
	CU_ASSERT(vcpu[2] >= 2 && vcpu[3] >= 2 && vcpu[2] != vcpu[3]);
	host_test_leave(h, c, fd);
	host_destroy(h);
}

static CU_TestInfo host_drain_tests[] = {
	{ "two lanes changing at once: both holders preempted before either successor's grant",
	  test_host_drain_holders_first },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host drain", host_drain_tests);
