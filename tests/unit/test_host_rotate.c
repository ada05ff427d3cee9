// SPDX-License-Identifier: GPL-2.0
/*
 * The lanes move over their host CPUs (include/sched/rotate.h): the rule itself, and the host
 * daemon applying it as an embedded runtime does. Every LANE_ROTATE_NS lane i takes the CPU of
 * lane i + 1; each holder's VMM is told (PIN, with the holder and its lane's new CPU), nobody
 * before the period is over, and a grant names its lane's CPU of the moment. Time is driven
 * (host_set_clock()); the daemon's lanes are the CPUs of this thread's mask, so with fewer
 * than two the lanes float and nothing moves.
 */
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/host.h"
#include "host/proto.h"
#include "sched/rotate.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

static uint64_t rot_now;

static uint64_t rot_clock(void)
{
	return rot_now;
}

static void test_lane_rotate_rule(void)
{
	struct lane_rotate r = { 0 }, one = { 0 };
	const int cpu[3] = { 4, 7, 9 };
	uint64_t t = 1000;

	CU_ASSERT_EQUAL(lane_rotate_cpu(&r, cpu, 3, 0), 4);
	/* The first look moves them; then one move per period, lane i to lane i + 1's CPU. */
	CU_ASSERT_TRUE(lane_rotate_due(&r, 3, t));
	CU_ASSERT_EQUAL(lane_rotate_cpu(&r, cpu, 3, 0), 7);
	CU_ASSERT_EQUAL(lane_rotate_cpu(&r, cpu, 3, 1), 9);
	CU_ASSERT_EQUAL(lane_rotate_cpu(&r, cpu, 3, 2), 4);
	CU_ASSERT_FALSE(lane_rotate_due(&r, 3, t + LANE_ROTATE_NS - 1));
	CU_ASSERT_TRUE(lane_rotate_due(&r, 3, t + LANE_ROTATE_NS));
	CU_ASSERT_EQUAL(lane_rotate_cpu(&r, cpu, 3, 0), 9);
	CU_ASSERT_TRUE(lane_rotate_due(&r, 3, t + 2 * LANE_ROTATE_NS));
	CU_ASSERT_EQUAL(lane_rotate_cpu(&r, cpu, 3, 0), 4);	/* round */
	/* One lane has nowhere to go. */
	CU_ASSERT_FALSE(lane_rotate_due(&one, 1, t));
}

static int rot_ev(struct host *h, struct host_client *c, uint32_t type, uint32_t vcpu)
{
	struct host_ev ev = { .type = type, .vcpu = vcpu };
	int ret;

	vsched_lock(host_vsched(h));
	ret = host_client_msg(h, c, &ev, sizeof(ev));
	vsched_unlock(host_vsched(h));
	return ret;
}

/* The daemon's datagrams of type want waiting on fd, into ev[] (at most n); how many. */
static unsigned int rot_recv(int fd, uint32_t want, struct host_ev *ev, unsigned int n)
{
	unsigned int k = 0;
	struct host_ev m;

	while (recv(fd, &m, sizeof(m), MSG_DONTWAIT) == sizeof(m))
		if (m.type == want && k < n)
			ev[k++] = m;
	return k;
}

static unsigned int rot_pass(struct host *h, int fd, struct host_ev *ev, unsigned int n)
{
	vsched_lock(host_vsched(h));
	host_rotate_due(h, rot_now);
	vsched_unlock(host_vsched(h));
	return rot_recv(fd, HOST_MSG_PIN, ev, n);
}

static void test_host_rotate(void)
{
	struct host_opts o = { .nr_lanes = 2, .max_vcpus = 4 };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 2,
		.name = "a", .vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	unsigned int i, k = 0, lane[2];
	struct host_client *c;
	struct host_ev ev[4];
	struct host *h = NULL;
	int sv[2], cpu[2];
	cpu_set_t set;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(set), &set), 0);
	for (i = 0; i < CPU_SETSIZE && k < 2; i++)
		if (CPU_ISSET(i, &set))
			cpu[k++] = (int)i;
	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	rot_now = 5 * NSEC_PER_SEC;
	host_set_clock(h, rot_clock);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &c), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(host_client_msg(h, c, &hm, sizeof(hm)), 0);
	vsched_unlock(host_vsched(h));
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(rot_ev(h, c, HOST_MSG_RUNNABLE, i), 0);
		CU_ASSERT_EQUAL_FATAL(rot_recv(sv[0], HOST_MSG_GRANT, ev, 1), 1);
		CU_ASSERT_EQUAL(ev[0].vcpu, i);
		lane[i] = ev[0].arg;
	}
	CU_ASSERT_NOT_EQUAL(lane[0], lane[1]);
	if (k < 2) {	/* the lanes float: nothing to move */
		CU_ASSERT_EQUAL(rot_pass(h, sv[0], ev, 4), 0);
		goto out;
	}
	/* The first pass moves them: each holder to the CPU of the lane after its own. */
	CU_ASSERT_EQUAL_FATAL(rot_pass(h, sv[0], ev, 4), 2);
	for (i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(ev[i].arg, lane[ev[i].vcpu]);
		CU_ASSERT_EQUAL(ev[i].b, (uint64_t)cpu[(ev[i].arg + 1) % 2]);
	}
	/* Not before the period is over; then back. */
	rot_now += LANE_ROTATE_NS - 1;
	CU_ASSERT_EQUAL(rot_pass(h, sv[0], ev, 4), 0);
	rot_now += 1;
	CU_ASSERT_EQUAL_FATAL(rot_pass(h, sv[0], ev, 4), 2);
	for (i = 0; i < 2; i++)
		CU_ASSERT_EQUAL(ev[i].b, (uint64_t)cpu[ev[i].arg]);
	/* Moved once more; vCPU 1 leaves its lane: only vCPU 0 is told of the next move. */
	rot_now += LANE_ROTATE_NS;
	CU_ASSERT_EQUAL(rot_pass(h, sv[0], ev, 4), 2);
	CU_ASSERT_EQUAL(rot_ev(h, c, HOST_MSG_BLOCKED, 1), 0);
	/* A grant names its lane's CPU of the moment. */
	CU_ASSERT_EQUAL(rot_ev(h, c, HOST_MSG_RUNNABLE, 1), 0);
	CU_ASSERT_EQUAL_FATAL(rot_recv(sv[0], HOST_MSG_GRANT, ev, 1), 1);
	CU_ASSERT_EQUAL(ev[0].b, (uint64_t)cpu[(ev[0].arg + 1) % 2]);
	CU_ASSERT_EQUAL(rot_ev(h, c, HOST_MSG_BLOCKED, 1), 0);
	rot_now += LANE_ROTATE_NS;
	CU_ASSERT_EQUAL_FATAL(rot_pass(h, sv[0], ev, 4), 1);
	CU_ASSERT_EQUAL(ev[0].vcpu, 0);
	CU_ASSERT_EQUAL(ev[0].b, (uint64_t)cpu[lane[0]]);
out:
	vsched_lock(host_vsched(h));
	host_client_remove(h, c);
	vsched_unlock(host_vsched(h));
	close(sv[0]);
	host_destroy(h);
}

static CU_TestInfo host_rotate_tests[] = {
	{ "lanes move one CPU on per period", test_lane_rotate_rule },
	{ "the daemon's lanes move and their holders are told", test_host_rotate },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host/rotate", host_rotate_tests);
