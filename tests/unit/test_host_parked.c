// SPDX-License-Identifier: GPL-2.0
/*
 * A grant to a vCPU whose thread waits on its grant page entry (the VMM's parked bit in its
 * offer page, rt_page_wait()) goes by the page alone (host_offer_parked()): its GRANT datagram
 * only woke the VMM's agent to drop it, ~150 of the agents' ~430 wake-ups a second beside a
 * capped partition (docs/host.md). A vCPU without the bit still gets the datagram. The bit is
 * read before the futex wake-up: read after it, a thread woken at once had taken the grant and
 * cleared its bit, and the datagram went too.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host_test.h"
#include "test.h"
#include "vsched.h"

/* Whether a GRANT of vcpu is among the datagrams waiting on fd (all read). */
static bool parked_granted(int fd, uint32_t vcpu)
{
	struct host_ev ev;
	bool seen = false;

	while (recv(fd, &ev, sizeof(ev), MSG_DONTWAIT) > 0)
		if (ev.type == HOST_MSG_GRANT && ev.vcpu == vcpu)
			seen = true;
	return seen;
}

static void test_host_parked_grant(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_offer *off;
	struct host_client *c;
	struct host *h = NULL;
	int fd;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	fd = host_test_join_offers(h, "a", 2, UINT64_MAX, &c, &off);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(parked_granted(fd, 0));
	/* 1 waits, parked on its entry: the lane 0 frees goes to it by the page alone. */
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	__atomic_fetch_or(&off->parked[0], 1ULL << 1, __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	CU_ASSERT_FALSE(parked_granted(fd, 1));
	/* 0 waits without the bit (inside KVM_RUN, say): its grant is a datagram as ever. */
	__atomic_fetch_and(&off->parked[0], ~(1ULL << 1), __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 1, 0, 0, 0), 0);
	CU_ASSERT_TRUE(parked_granted(fd, 0));

	munmap(off, sizeof(*off));
	vsched_lock(host_vsched(h));
	host_client_remove(h, c);
	vsched_unlock(host_vsched(h));
	close(fd);
	host_destroy(h);
}

/* A parked vCPU thread (rt_page_wait()): waits on its entry, then clears its bit at once. */
struct parked_thread {
	const struct host_grant *g;
	struct host_offer *off;
	uint32_t vcpu;
	pid_t tid;
	bool woke;
	struct host_client *c;		/* non-NULL: its pins counted as it wakes, */
	uint64_t pins;
	bool release;			/* and the thread alive until this (its pin checked) */
};

static void *parked_wait(void *arg)
{
	struct parked_thread *p = arg;
	uint32_t seq = __atomic_load_n(&p->g->seq, __ATOMIC_ACQUIRE);

	__atomic_store_n(&p->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (__atomic_load_n(&p->g->seq, __ATOMIC_ACQUIRE) == seq)
		syscall(SYS_futex, &p->g->seq, FUTEX_WAIT, seq, NULL, NULL, 0);
	__atomic_fetch_and(&p->off->parked[0], ~(1ULL << p->vcpu), __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (p->c)
		p->pins = host_client_pins(p->c);
	p->woke = true;
	while (p->c && !__atomic_load_n(&p->release, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

/* Whether thread tid sleeps ('S' in its stat). */
static bool parked_asleep(pid_t tid)
{
	char path[64], buf[256], *q;
	FILE *f;
	bool s = false;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "r");
	if (f && fgets(buf, sizeof(buf), f) && (q = strrchr(buf, ')')))
		s = q[1] == ' ' && q[2] == 'S';
	if (f)
		fclose(f);
	return s;
}

/*
 * The parked thread runs the moment the daemon's futex wake-up reaches it (SCHED_FIFO on the
 * daemon's CPU: it preempts the waker in the system call) and clears its bit: the daemon must
 * have read the bit before. Skipped where SCHED_FIFO is not allowed.
 */
static void test_host_parked_before_wake(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 2,
		.name = "a", .flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	struct sched_param sp = { .sched_priority = 1 };
	struct parked_thread p = { .vcpu = 1 };
	const struct host_grant *page;
	cpu_set_t old, one;
	pthread_attr_t attr;
	struct host_client *c;
	struct host *h = NULL;
	pthread_t t;
	int fd, i;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	fd = host_test_join_pages(h, &hm, &c, &p.off, NULL, &page);
	p.g = &page[1];
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(parked_granted(fd, 0));
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	__atomic_fetch_or(&p.off->parked[0], 1ULL << 1, __ATOMIC_SEQ_CST);
	/* This thread (the daemon's) and the parked one on one CPU, the parked one FIFO. */
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	for (i = 0; i < CPU_SETSIZE && !CPU_ISSET(i, &old); i++)
		;
	CPU_SET(i, &one);
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	if (pthread_create(&t, &attr, parked_wait, &p)) {
		fprintf(stderr, "SKIP host_parked: no SCHED_FIFO here\n");
		pthread_attr_destroy(&attr);
		host_test_leave(h, c, fd);
		munmap(p.off, sizeof(*p.off));
		host_destroy(h);
		return;
	}
	pthread_attr_destroy(&attr);
	CU_ASSERT_EQUAL(sched_setaffinity(0, sizeof(one), &one), 0);
	for (i = 0; i < 2000 && !(__atomic_load_n(&p.tid, __ATOMIC_ACQUIRE) && parked_asleep(p.tid));
	     i++)
		usleep(1000);
	/* 0 blocks: the lane goes to 1, whose thread wakes and takes it from its entry. */
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	pthread_join(t, NULL);
	sched_setaffinity(0, sizeof(old), &old);
	CU_ASSERT_TRUE(p.woke);
	CU_ASSERT_EQUAL(page[1].lane, 0);
	CU_ASSERT_FALSE(page[1].cpu & HOST_CPU_PINNED);	/* no HOST_HELLO_PIN: not pinned */
	CU_ASSERT_FALSE(parked_granted(fd, 1));

	munmap((void *)page, 2 * sizeof(*page));
	munmap(p.off, sizeof(*p.off));
	host_test_leave(h, c, fd);
	host_destroy(h);
}

/*
 * With HOST_HELLO_PIN the daemon pins the grantee's thread to its lane's CPU before the wake-up
 * and checks its pidfd (the TID it pinned still that thread) after it: the check's poll()
 * (3.7 us here) only decides whether there is a next pin, and was on the grantee's path
 * (docs/host.md, "Latency: the page, step by step"). The parked thread (SCHED_FIFO on the
 * daemon's CPU, the lane's) runs inside the daemon's futex wake-up and sees the pin not checked
 * yet; checked once the daemon goes on. Skipped where SCHED_FIFO is not allowed.
 */
static void test_host_parked_pin_checked_after_wake(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(), .nr_vcpus = 2,
		.name = "a", .flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_KICK |
				      HOST_HELLO_PIN,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	struct sched_param sp = { .sched_priority = 1 };
	struct parked_thread p = { .vcpu = 1 };
	const struct host_grant *page;
	cpu_set_t old, one;
	pthread_attr_t attr;
	struct host_client *c;
	struct host *h = NULL;
	pthread_t t;
	int fd, i, cpu;

	/* This thread (the daemon's), the lane and the parked thread on one CPU. */
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(old), &old), 0);
	CPU_ZERO(&one);
	for (i = 0; i < CPU_SETSIZE && !CPU_ISSET(i, &old); i++)
		;
	CPU_SET(i, &one);
	cpu = i;
	CU_ASSERT_EQUAL(sched_setaffinity(0, sizeof(one), &one), 0);
	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	fd = host_test_join_pages(h, &hm, &c, &p.off, NULL, &page);
	p.g = &page[1];
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(parked_granted(fd, 0));
	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_FIFO);
	pthread_attr_setschedparam(&attr, &sp);
	pthread_attr_setaffinity_np(&attr, sizeof(one), &one);
	if (pthread_create(&t, &attr, parked_wait, &p)) {
		fprintf(stderr, "SKIP host_parked: no SCHED_FIFO here\n");
		pthread_attr_destroy(&attr);
		sched_setaffinity(0, sizeof(old), &old);
		host_test_leave(h, c, fd);
		munmap(p.off, sizeof(*p.off));
		host_destroy(h);
		return;
	}
	pthread_attr_destroy(&attr);
	for (i = 0; i < 2000 && !(__atomic_load_n(&p.tid, __ATOMIC_ACQUIRE) && parked_asleep(p.tid));
	     i++)
		usleep(1000);
	p.c = c;
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_TID, 1, 0, (uint64_t)p.tid, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	__atomic_fetch_or(&p.off->parked[0], 1ULL << 1, __ATOMIC_SEQ_CST);
	/* 0 blocks: the lane goes to 1, pinned, woken, then its pin checked. */
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	__atomic_store_n(&p.release, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	sched_setaffinity(0, sizeof(old), &old);
	CU_ASSERT_TRUE(p.woke);
	CU_ASSERT_EQUAL(page[1].lane, 0);
	CU_ASSERT_EQUAL(p.pins, 0);
	CU_ASSERT_EQUAL(host_client_pins(c), 1);
	/* The entry says the thread is pinned to the lane's CPU: it does not pin itself again. */
	CU_ASSERT_EQUAL(page[1].cpu, (uint64_t)cpu | HOST_CPU_PINNED);

	munmap((void *)page, 2 * sizeof(*page));
	munmap(p.off, sizeof(*p.off));
	host_test_leave(h, c, fd);
	host_destroy(h);
}

static CU_TestInfo host_parked_tests[] = {
	{ "a grant to a vCPU parked on its entry goes by the page alone", test_host_parked_grant },
	{ "the parked bit is read before the wake-up the parked thread answers at once",
	  test_host_parked_before_wake },
	{ "a grantee's pin is checked after its wake-up (HOST_HELLO_PIN)",
	  test_host_parked_pin_checked_after_wake },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_parked", host_parked_tests);
