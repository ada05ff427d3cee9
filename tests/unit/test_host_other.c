// SPDX-License-Identifier: GPL-2.0
/*
 * A VMM's threads other than its vCPUs' (host/host_other.c, HOST_MSG_OTHER): their CPU is
 * charged to its VM group, in cpu.stat and against the partition's cpu.max, within what its
 * process could have used. And a PREEMPT the daemon kicked to a holder inside the guest
 * (HOST_HELLO_GUEST) goes by the page and the kick alone. Time is driven.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "util/time.h"
#include "vmm/kick.h"

#define OT_MS	1000000ULL

static uint64_t ot_now;

static uint64_t ot_clock(void)
{
	return ot_now;
}

/* Whether a datagram of type want is queued for the VMM's end (all read). */
static bool ot_recv(int fd, uint32_t want)
{
	char buf[1024];
	bool seen = false;
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		uint32_t type;

		memcpy(&type, buf, sizeof(type));
		seen |= type == want;
	}
	return seen;
}

static struct host *ot_host(unsigned int lanes)
{
	struct host_opts o = { .nr_lanes = lanes, .max_vcpus = 16 };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	ot_now = time_mono_ns() + NSEC_PER_SEC;	/* after the core's start */
	host_set_clock(h, ot_clock);
	return h;
}

/* The daemon's timer at ot_now (a TICK feeds the core's timer, as host_run()'s does). */
static void ot_tick(struct host *h, struct host_client *c)
{
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_TICK, 0, 0, 0, 0), 0);
}

/*
 * VM a, capped at 10 ms per 100 ms, reports 4 ms of its other threads: its group and the
 * partition show it, and its pool has 6 left: 6 ms of its vCPU dry it. In the next period
 * 10 ms of its threads alone dry it: its vCPU waits for the refill.
 */
static void test_host_other_charged(void)
{
	struct host *h = ot_host(1);
	struct host_client *c;
	uint64_t refused;
	int fd;

	fd = host_test_join(h, "a", 1, 10000, &c);
	ot_now += 50 * OT_MS;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, 3 * OT_MS, OT_MS), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 4000);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine"), 4000);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(host_client_other_ns(c, &refused), 4 * OT_MS);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_EQUAL(refused, 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ot_recv(fd, HOST_MSG_GRANT));
	ot_now += 6 * OT_MS;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RAN, 0, 0, 6 * OT_MS, 0), 0);
	ot_tick(h, c);
	CU_ASSERT_TRUE(ot_recv(fd, HOST_MSG_PREEMPT));	/* dry: throttled */
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 10000);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	ot_now += 200 * OT_MS;
	ot_tick(h, c);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, 0, 10 * OT_MS), 0);
	ot_tick(h, c);
	ot_recv(fd, 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_FALSE(ot_recv(fd, HOST_MSG_GRANT));
	host_test_leave(h, c, fd);
	host_destroy(h);
}

/* No more than the elapsed time on every host CPU; garbage hangs the VMM up. */
static void test_host_other_bounded(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct host *h = ot_host(1);
	struct host_client *c;
	uint64_t refused, got;
	int fd;

	fd = host_test_join(h, "a", 1, UINT64_MAX, &c);
	ot_now += 10 * OT_MS;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, 0, 1000 * OT_MS), 0);
	vsched_lock(host_vsched(h));
	got = host_client_other_ns(c, &refused);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_EQUAL(got, 10 * OT_MS * (uint64_t)cpus);
	CU_ASSERT_EQUAL(refused, 1000 * OT_MS - got);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), (long long)(got / 1000));
	/* Nothing elapsed: nothing more. */
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, OT_MS, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), (long long)(got / 1000));
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, HOST_RAN_MAX_NS + 1, 0),
			-ERANGE);
	host_test_leave(h, c, fd);
	host_destroy(h);
}

/*
 * An OTHER above HOST_RAN_MAX_NS that the VMM's threads could have used (12 s after its join,
 * its helper held off its CPU until then) is no garbage: charged within the allowance (at most
 * HOST_RAN_MAX_NS saved up), the rest refused; until 2026-12-07 it hung the VMM up. Beyond
 * the time since the join on every host CPU (and the slack) it still does.
 */
static void test_host_other_long(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct host *h = ot_host(1);
	struct host_client *c;
	uint64_t refused, got;
	int fd;

	fd = host_test_join(h, "a", 1, UINT64_MAX, &c);
	ot_now += 12000 * OT_MS;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, 11000 * OT_MS, 0), 0);
	vsched_lock(host_vsched(h));
	got = host_client_other_ns(c, &refused);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_EQUAL(got, HOST_RAN_MAX_NS);
	CU_ASSERT_EQUAL(refused, 1000 * OT_MS);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0,
				     12000 * OT_MS * (uint64_t)cpus + HOST_RAN_MAX_NS, 0),
			-ERANGE);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_OTHER, 0, 0, UINT64_MAX, UINT64_MAX),
			-ERANGE);
	host_test_leave(h, c, fd);
	host_destroy(h);
}

/* Applies what the daemon sent a VMM of one vCPU: whether it holds the lane. */
static void ot_track(int fd, bool *holds)
{
	struct host_ev ev;

	while (recv(fd, &ev, sizeof(ev), MSG_DONTWAIT) > 0)
		if (ev.type == HOST_MSG_GRANT)
			*holds = true;
		else if (ev.type == HOST_MSG_PREEMPT)
			*holds = false;
}

/*
 * The uncapped VM beside a capped partition gets what the partition's VMMs' other threads use:
 * the partition's vCPUs get its quota less that. One lane, a VM of one hog in /capped at
 * 50 ms per 100 ms whose VMM's other threads use 10 ms per 100 ms, an uncapped VM f of one
 * hog: over 2 s /capped uses its quota, 1 s, of which its vCPU 0.8 s, and f's vCPU 1.2 s
 * (without the charge: 1 s each, /capped 1.2 s in all).
 */
static void test_host_other_partition(void)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 1,
		.name = "p", .partition = "/capped",
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	struct host *h = ot_host(1);
	struct host_client *p, *f;
	bool ph = false, fh = false;
	long long capped, free_vm;
	int pfd, ffd, sv[2], t;

	CU_ASSERT_EQUAL(vsched_mkdir(host_vsched(h), "/capped"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(host_vsched(h), "/capped", "cpu.max", "50000 100000"), 0);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	pfd = sv[0];
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &p), 0);
	CU_ASSERT_EQUAL(host_test_msg(h, p, &hm, sizeof(hm)), 0);
	ffd = host_test_join(h, "f", 1, UINT64_MAX, &f);
	ot_recv(pfd, 0);
	CU_ASSERT_EQUAL(host_test_ev(h, p, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, f, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	ot_track(pfd, &ph);
	ot_track(ffd, &fh);
	for (t = 1; t <= 2000; t++) {
		ot_now += OT_MS;
		/* The holder's millisecond, as its exits report it; then the daemon's timer. */
		if (ph)
			host_test_ev(h, p, HOST_MSG_RAN, 0, 0, OT_MS, 0);
		else if (fh)
			host_test_ev(h, f, HOST_MSG_RAN, 0, 0, OT_MS, 0);
		if (t % 10 == 0)
			CU_ASSERT_EQUAL(host_test_ev(h, p, HOST_MSG_OTHER, 0, 0, 0, OT_MS), 0);
		ot_tick(h, f);
		ot_track(pfd, &ph);
		ot_track(ffd, &fh);
	}
	capped = host_test_usage_us(h, "/capped");
	free_vm = host_test_usage_us(h, "/machine/f");
	CU_ASSERT_TRUE(capped >= 990000 && capped <= 1010000);
	CU_ASSERT_TRUE(free_vm >= 1180000 && free_vm <= 1220000);
	if (capped < 990000 || capped > 1010000 || free_vm < 1180000)
		fprintf(stderr, "\n  /capped %lld us, f %lld us\n", capped, free_vm);
	host_test_leave(h, p, pfd);
	host_test_leave(h, f, ffd);
	host_destroy(h);
}

/*
 * vCPU 0 holds the lane from a cpu.idle group, vCPU 1 wakes: the daemon kicks 0's thread. With
 * 0's in-guest bit set, no PREEMPT datagram follows (its thread reads the entry on the way
 * out); with the bit clear, it does.
 */
static void ot_quiet(bool in_guest)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 2, .name = "k",
		.flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_KICK | HOST_HELLO_GUEST,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000, .subtree_cpu = 1 },
	};
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .path = "idle", .id = 1,
		.set = { .shares = 1024, .quota_us = UINT64_MAX, .period_us = 100000, .idle = 1,
			 .threaded = 1 },
	};
	struct host *h = ot_host(1);
	struct host_test_vcpu t;
	struct host_client *c;
	struct host_offer *o;
	pthread_t th;
	int fd;

	CU_ASSERT_EQUAL_FATAL(kick_init(), 0);
	host_test_vcpu_start(&t, &th);
	fd = host_test_join_hello(h, &hm, &c, &o);
	CU_ASSERT_EQUAL(host_test_msg(h, c, &gm, sizeof(gm)), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_VCPU, 0, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_VCPU, 1, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_TID, 0, 0, (uint64_t)t.tid, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(ot_recv(fd, HOST_MSG_GRANT));
	if (in_guest)
		__atomic_fetch_or(&o->guest[0], 1ULL, __ATOMIC_SEQ_CST);
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);	/* in its "guest" now */
	ot_now += 10 * OT_MS;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	pthread_join(th, NULL);
	CU_ASSERT_TRUE(t.kicked);
	CU_ASSERT_EQUAL(ot_recv(fd, HOST_MSG_PREEMPT), !in_guest);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(host_client_quiet_preempts(c), in_guest ? 1 : 0);
	vsched_unlock(host_vsched(h));
	host_test_leave(h, c, fd);
	munmap(o, sizeof(*o));
	host_destroy(h);
}

static void test_host_other_quiet_preempt(void)
{
	ot_quiet(true);
	ot_quiet(false);
}

static CU_TestInfo host_other_tests[] = {
	{ "a VMM's other threads charged to its VM group", test_host_other_charged },
	{ "a VMM's other threads: no more than its process could use", test_host_other_bounded },
	{ "an OTHER above HOST_RAN_MAX_NS its threads could have used is no garbage",
	  test_host_other_long },
	{ "the partition's VMMs' threads out of its quota", test_host_other_partition },
	{ "a PREEMPT kicked into the guest goes without a datagram",
	  test_host_other_quiet_preempt },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host other threads", host_other_tests)
