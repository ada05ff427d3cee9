// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's own CPU charged to the VM groups it worked for (host/host_dcpu.c): a batch of a
 * VMM's datagrams to that VM, the daemon's timer to the VMs its decisions were for, the rest
 * to no VM (counted). The daemon's units (host_client_input(), host_timer()) are driven as
 * host_run() drives them, with driven time and a driven CPU clock for the daemon's thread.
 */
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "util/time.h"

#define DC_MS	1000000ULL
#define DC_US	1000ULL

static uint64_t dc_now, dc_cpu;

static uint64_t dc_clock(void)
{
	return dc_now;
}

static uint64_t dc_cpu_clock(void)
{
	return dc_cpu;
}

static struct host *dc_host(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 16 };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	dc_now = time_mono_ns() + NSEC_PER_SEC;	/* after the core's start */
	host_set_clock(h, dc_clock);
	dc_cpu = 0;
	host_set_cpu_clock(h, dc_cpu_clock);
	return h;
}

/* Applies what the daemon sent a VMM of one vCPU: whether it holds the lane. */
static void dc_track(int fd, bool *holds)
{
	struct host_ev ev;

	while (recv(fd, &ev, sizeof(ev), MSG_DONTWAIT) > 0)
		if (ev.type == HOST_MSG_GRANT)
			*holds = true;
		else if (ev.type == HOST_MSG_PREEMPT)
			*holds = false;
}

/* A datagram on the VMM's end of c's socket, read by the daemon as one unit costing cost ns. */
static void dc_send(struct host *h, struct host_client *c, int fd, uint32_t type, uint64_t a,
		    uint64_t cost)
{
	struct host_ev ev = { .type = type, .a = a };

	CU_ASSERT_EQUAL(send(fd, &ev, sizeof(ev), 0), (ssize_t)sizeof(ev));
	dc_cpu += cost;
	host_client_input(h, c);
}

/* VM p of one vCPU in /capped (cpu.max quota_us per 100 ms), f of one uncapped. */
static void dc_join(struct host *h, const char *quota, struct host_client **p, int *pfd,
		    struct host_client **f, int *ffd)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 1,
		.name = "p", .partition = "/capped",
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	int sv[2];

	CU_ASSERT_EQUAL(vsched_mkdir(host_vsched(h), "/capped"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(host_vsched(h), "/capped", "cpu.max", quota), 0);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	*pfd = sv[0];
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], p), 0);
	CU_ASSERT_EQUAL(host_test_msg(h, *p, &hm, sizeof(hm)), 0);
	*ffd = host_test_join(h, "f", 1, UINT64_MAX, f);
}

/*
 * The uncapped VM beside a capped partition gets what the daemon spends on the partition's
 * VM: one lane, p in /capped at 50 ms per 100 ms and f uncapped, one hog each; each of p's
 * reports costs the daemon 100 us, f's nothing. Over 2 s /capped uses its quota, 1 s, of which
 * the daemon's CPU for p ~0.1 s and p's vCPU the rest; f's vCPU gets ~1.1 s (without the
 * charge: /capped 0.95 s, f 1.05 s). One read of the daemon's CPU clock per unit.
 */
static void test_host_dcpu_partition(void)
{
	struct host *h = dc_host();
	struct host_client *p, *f;
	bool ph = false, fh = false;
	long long capped, free_vm, charged;
	uint64_t owed, reads, units = 0, ours;
	int pfd, ffd, t;

	dc_join(h, "50000 100000", &p, &pfd, &f, &ffd);
	dc_send(h, p, pfd, HOST_MSG_RUNNABLE, 0, 0);
	dc_send(h, f, ffd, HOST_MSG_RUNNABLE, 0, 0);
	units += 2;
	dc_track(pfd, &ph);
	dc_track(ffd, &fh);
	for (t = 1; t <= 2000; t++) {
		dc_now += DC_MS;
		/* The holder's millisecond, as its exits report it; then the daemon's timer. */
		if (ph)
			dc_send(h, p, pfd, HOST_MSG_RAN, DC_MS, 100 * DC_US);
		else if (fh)
			dc_send(h, f, ffd, HOST_MSG_RAN, DC_MS, 0);
		units += ph || fh;
		host_timer(h);
		units++;
		dc_track(pfd, &ph);
		dc_track(ffd, &fh);
	}
	capped = host_test_usage_us(h, "/capped");
	free_vm = host_test_usage_us(h, "/machine/f");
	vsched_lock(host_vsched(h));
	ours = host_client_dcpu_ns(p, &owed);
	charged = (long long)(ours / 1000);
	CU_ASSERT_EQUAL(host_client_dcpu_ns(f, NULL), 0);
	host_dcpu_uncharged(h, &reads, NULL);
	vsched_unlock(host_vsched(h));
	/* p's reports, ~1000 of 100 us: all charged but those since the last timer. */
	CU_ASSERT_TRUE(charged >= 85000 && charged <= 105000);
	CU_ASSERT_TRUE(owed <= 100 * DC_US);
	CU_ASSERT_TRUE(capped >= 990000 && capped <= 1010000);
	CU_ASSERT_TRUE(free_vm >= 1080000 && free_vm <= 1120000);
	CU_ASSERT_EQUAL(reads, units);
	if (capped < 990000 || capped > 1010000 || free_vm < 1080000 || free_vm > 1120000 ||
	    charged < 85000 || charged > 105000)
		fprintf(stderr, "\n  /capped %lld us, f %lld us, the daemon's for p %lld us\n",
			capped, free_vm, charged);
	host_test_leave(h, p, pfd);
	host_test_leave(h, f, ffd);
	host_destroy(h);
}

/*
 * The daemon's timer: what it costs goes to the VMs its decisions are for, split by their
 * number, and is charged at the next; a tick that decides nothing is no VM's, and so are a
 * hang-up and what the VM that left still owed (counted). p (capped at 10 ms per 100 ms) dries
 * its pool; the timer throws it out and grants f the lane: a decision for each.
 */
static void test_host_dcpu_timer(void)
{
	struct host *h = dc_host();
	struct host_client *p, *f;
	uint64_t none0, none, owed_p, owed_f, reads;
	bool ph = false, fh = false;
	int pfd, ffd;

	dc_join(h, "10000 100000", &p, &pfd, &f, &ffd);
	dc_send(h, p, pfd, HOST_MSG_RUNNABLE, 0, 0);
	dc_track(pfd, &ph);
	CU_ASSERT_TRUE(ph);
	dc_send(h, f, ffd, HOST_MSG_RUNNABLE, 0, 0);
	dc_now += 10 * DC_MS;
	dc_send(h, p, pfd, HOST_MSG_RAN, 10 * DC_MS, 0);	/* dry */
	vsched_lock(host_vsched(h));
	none0 = host_dcpu_uncharged(h, NULL, NULL);
	vsched_unlock(host_vsched(h));
	dc_cpu += 40 * DC_US;
	host_timer(h);					/* throttled: f's turn */
	dc_track(pfd, &ph);
	dc_track(ffd, &fh);
	CU_ASSERT_FALSE(ph);
	CU_ASSERT_TRUE(fh);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(host_client_dcpu_ns(p, &owed_p), 0);
	CU_ASSERT_EQUAL(host_client_dcpu_ns(f, &owed_f), 0);
	CU_ASSERT_EQUAL(host_dcpu_uncharged(h, NULL, NULL), none0);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_TRUE(owed_p > 0 && owed_f > 0);
	CU_ASSERT_EQUAL(owed_p + owed_f, 40 * DC_US);
	/* The next tick charges them, and decides nothing itself: its 30 us are no VM's. */
	dc_now += DC_MS;
	dc_send(h, f, ffd, HOST_MSG_RAN, DC_MS, 0);
	dc_cpu += 30 * DC_US;
	host_timer(h);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(host_client_dcpu_ns(p, NULL), owed_p);
	CU_ASSERT_EQUAL(host_client_dcpu_ns(f, NULL), owed_f);
	none = host_dcpu_uncharged(h, &reads, NULL);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_EQUAL(none - none0, 30 * DC_US);
	CU_ASSERT_EQUAL(reads, 6);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/capped"), (long long)(10000 + owed_p / 1000));
	/* p hung up on with 50 us owed; the hang-up's 20 us: both no VM's. */
	dc_now += DC_MS;
	dc_send(h, p, pfd, HOST_MSG_RAN, DC_MS, 50 * DC_US);
	vsched_lock(host_vsched(h));
	none0 = host_dcpu_uncharged(h, NULL, NULL);
	vsched_unlock(host_vsched(h));
	close(pfd);
	dc_cpu += 20 * DC_US;
	host_client_input(h, p);	/* the hang-up: p is gone */
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(host_dcpu_uncharged(h, NULL, NULL) - none0, 70 * DC_US);
	CU_ASSERT_EQUAL(host_nr_clients(h), 1);
	vsched_unlock(host_vsched(h));
	host_test_leave(h, f, ffd);
	host_destroy(h);
}

/* PONGs waiting on the VMM's end fd. */
static unsigned int dc_pongs(int fd)
{
	struct host_ev ev;
	unsigned int n = 0;

	while (recv(fd, &ev, sizeof(ev), MSG_DONTWAIT) > 0)
		n += ev.type == HOST_MSG_PONG;
	return n;
}

/*
 * A VMM that keeps its socket full is read HOST_INPUT_BATCH datagrams per wake-up, not to the
 * end: the daemon (SCHED_FIFO) then serves its timer and the other VMMs in between. 100 PINGs
 * queued: 64 answered by one read, the rest by the next two, the VMM still joined.
 */
static void test_host_input_batched(void)
{
	struct host *h = dc_host();
	struct host_ev ev = { .type = HOST_MSG_PING };
	struct host_client *c;
	int fd = host_test_join(h, "v", 1, UINT64_MAX, &c), i;

	CU_ASSERT_FATAL(fd >= 0);
	dc_pongs(fd);
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(send(fd, &ev, sizeof(ev), 0), (ssize_t)sizeof(ev));
	host_client_input(h, c);
	CU_ASSERT_EQUAL(dc_pongs(fd), 64);
	host_client_input(h, c);
	host_client_input(h, c);
	CU_ASSERT_EQUAL(dc_pongs(fd), 36);
	CU_ASSERT_EQUAL(host_nr_clients(h), 1);
	close(fd);
	host_destroy(h);
}

/*
 * A batch is read in one system call, its end included: a read one by one paid a recv() that
 * found nothing after every batch, between the decision's futex wake-up and the daemon's sleep
 * (docs/host.md, "Latency: the page, step by step"). One RUNNABLE (granted), one read; 100 PINGs,
 * 64 answered by one read; the VMM's end closed after a PING: the PING answered, then the
 * hang-up, in one read.
 */
static void test_host_input_one_read(void)
{
	struct host *h = dc_host();
	struct host_ev ev = { .type = HOST_MSG_PING };
	struct host_client *c;
	int fd = host_test_join(h, "v", 1, UINT64_MAX, &c), i;
	uint64_t r;
	bool holds = false;

	CU_ASSERT_FATAL(fd >= 0);
	dc_pongs(fd);
	r = host_nr_input_reads(h);
	dc_send(h, c, fd, HOST_MSG_RUNNABLE, 0, 0);
	dc_track(fd, &holds);
	CU_ASSERT(holds);
	CU_ASSERT_EQUAL(host_nr_input_reads(h) - r, 1);
	r = host_nr_input_reads(h);
	for (i = 0; i < 100; i++)
		CU_ASSERT_EQUAL(send(fd, &ev, sizeof(ev), 0), (ssize_t)sizeof(ev));
	host_client_input(h, c);
	CU_ASSERT_EQUAL(dc_pongs(fd), 64);
	CU_ASSERT_EQUAL(host_nr_input_reads(h) - r, 1);
	host_client_input(h, c);
	CU_ASSERT_EQUAL(dc_pongs(fd), 36);
	CU_ASSERT_EQUAL(host_nr_input_reads(h) - r, 2);
	CU_ASSERT_EQUAL(send(fd, &ev, sizeof(ev), 0), (ssize_t)sizeof(ev));
	shutdown(fd, SHUT_WR);
	r = host_nr_input_reads(h);
	host_client_input(h, c);
	CU_ASSERT_EQUAL(host_nr_input_reads(h) - r, 1);
	CU_ASSERT_EQUAL(dc_pongs(fd), 1);
	CU_ASSERT_EQUAL(host_nr_clients(h), 0);
	close(fd);
	host_destroy(h);
}

static CU_TestInfo host_dcpu_tests[] = {
	{ "the daemon's CPU for a capped VM out of its partition's quota",
	  test_host_dcpu_partition },
	{ "the daemon's timer: its CPU to the VMs it decided for", test_host_dcpu_timer },
	{ "a full socket read a batch per wake-up", test_host_input_batched },
	{ "a batch read in one system call, its end included", test_host_input_one_read },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host daemon's CPU", host_dcpu_tests)
