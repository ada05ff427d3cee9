// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon kicks a preempted holder's thread itself (host/host_kick.c, HOST_HELLO_KICK): a
 * TID that is not a live thread of the connected VMM is refused (the VMM is hung up on), and a
 * PREEMPT the daemon decides reaches the holder's thread as the kick signal, whose handler
 * (vmm/kick.c) sets that thread's immediate_exit, with no agent in between. The VMM is one end
 * of a socketpair in this process, so its threads are this process's.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_test.h"
#include "util/time.h"
#include "vmm/kick.h"

struct kvmm {
	int fd;
	struct host_client *c;
};

static bool krecv(struct kvmm *m, uint32_t want)
{
	char buf[1024];
	ssize_t n;

	while ((n = recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		uint32_t type;

		memcpy(&type, buf, sizeof(type));
		if (type == want)
			return true;
	}
	return false;
}

/* A join of nr vCPUs asking for a page and the daemon's kicks (as rt_remote_join()). */
static void kjoin(struct host *h, struct kvmm *m, unsigned int nr, uint8_t flags)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = nr, .name = "k", .flags = flags,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000, .subtree_cpu = 1 },
	};
	int sv[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	m->fd = sv[0];
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &m->c), 0);
	CU_ASSERT_EQUAL(host_test_msg(h, m->c, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE(krecv(m, HOST_MSG_WELCOME));
}

static void kleave(struct host *h, struct kvmm *m)
{
	host_test_leave(h, m->c, m->fd);
}

static void test_host_kick_tid(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 8 };
	const uint8_t kick = HOST_HELLO_PAGE | HOST_HELLO_KICK;
	struct host *h = NULL;
	struct host_test_vcpu t;
	struct kvmm m;
	pthread_t th;
	pid_t child;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	host_test_vcpu_start(&t, &th);
	child = fork();
	if (!child) {
		pause();
		_exit(0);
	}
	CU_ASSERT_FATAL(child > 0);
	/* A thread of the VMM: accepted. */
	kjoin(h, &m, 2, kick);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, (uint64_t)t.tid, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 1, 0, (uint64_t)gettid(), 0), 0);
	kleave(h, &m);
	/* Another process (a lie about the TID): refused, hung up. */
	kjoin(h, &m, 2, kick);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, (uint64_t)child, 0), -ESRCH);
	kleave(h, &m);
	/* No such task, or a task that is gone (the child, reaped): refused. */
	kjoin(h, &m, 2, kick);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, 0x3ffffff0, 0), -ESRCH);
	kleave(h, &m);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	kjoin(h, &m, 2, kick);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, (uint64_t)child, 0), -ESRCH);
	kleave(h, &m);
	/* A VMM that did not ask for kicks: its TIDs are only shown, never signalled. */
	kjoin(h, &m, 2, HOST_HELLO_PAGE);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, 777, 0), 0);
	kleave(h, &m);
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	__atomic_store_n(&t.run.immediate_exit, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	host_destroy(h);
}

/* vCPU 0 holds the lane from a cpu.idle group; vCPU 1 wakes: the daemon kicks 0's thread. */
static void test_host_kick_preempt(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 8 };
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .path = "idle", .id = 1,
		.set = { .shares = 1024, .quota_us = UINT64_MAX, .period_us = 100000, .idle = 1,
			 .threaded = 1 },
	};
	struct host *h = NULL;
	struct host_test_vcpu t;
	struct kvmm m;
	pthread_t th;

	CU_ASSERT_EQUAL_FATAL(kick_init(), 0);
	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	host_test_vcpu_start(&t, &th);
	kjoin(h, &m, 2, HOST_HELLO_PAGE | HOST_HELLO_KICK);
	CU_ASSERT_EQUAL(host_test_msg(h, m.c, &gm, sizeof(gm)), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_VCPU, 0, 1, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_VCPU, 1, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, (uint64_t)t.tid, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(krecv(&m, HOST_MSG_GRANT));
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);	/* in its "guest" now */
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	pthread_join(th, NULL);
	CU_ASSERT_TRUE(t.kicked);	/* nobody but the daemon signalled it */
	CU_ASSERT_TRUE(krecv(&m, HOST_MSG_PREEMPT));	/* the agent's copy still comes */
	kleave(h, &m);
	host_destroy(h);
}

/* The next GRANT the VMM's end reads (its lane's CPU in b); false if none is queued. */
static bool kgrant(struct kvmm *m, struct host_ev *g)
{
	char buf[1024];
	ssize_t n;

	while ((n = recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (n != sizeof(*g))
			continue;
		memcpy(g, buf, sizeof(*g));
		if (g->type == HOST_MSG_GRANT)
			return true;
	}
	return false;
}

/* tid's mask: exactly cpu? */
static bool kpinned(pid_t tid, int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(tid, sizeof(set), &set))
		return false;
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

/*
 * One vCPU's thread, its mask every CPU of this process, is granted the lane. With
 * HOST_HELLO_PIN the daemon has put it on the lane's CPU by the time the grant is out, before
 * any VMM code ran (it woke where it last ran before, behind that CPU's holder); without, the
 * daemon leaves the mask to the VMM (whose cache of it would go stale otherwise).
 */
static void kpin_case(uint8_t flags, bool want)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 8 };
	struct host *h = NULL;
	struct host_ev g;
	cpu_set_t all;
	struct host_test_vcpu t;
	struct kvmm m;
	pthread_t th;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(all), &all), 0);
	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	host_test_vcpu_start(&t, &th);
	CU_ASSERT_EQUAL(sched_setaffinity(t.tid, sizeof(all), &all), 0);
	kjoin(h, &m, 1, flags);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_TID, 0, 0, (uint64_t)t.tid, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, m.c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE_FATAL(kgrant(&m, &g));
	CU_ASSERT_NOT_EQUAL_FATAL(g.b, HOST_CPU_NONE);
	CU_ASSERT_EQUAL(kpinned(t.tid, (int)g.b), want);
	kleave(h, &m);
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	__atomic_store_n(&t.run.immediate_exit, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	host_destroy(h);
}

static void test_host_kick_pin(void)
{
	cpu_set_t all;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < 2) {
		printf("(needs 2 CPUs: a mask of one cannot show a pin) ");
		return;
	}
	kpin_case(HOST_HELLO_PAGE | HOST_HELLO_KICK | HOST_HELLO_PIN, true);
	kpin_case(HOST_HELLO_PAGE | HOST_HELLO_KICK, false);
	/* Pins go only through the kicks' checked TIDs. */
	kpin_case(HOST_HELLO_PAGE | HOST_HELLO_PIN, false);
}

static CU_TestInfo host_kick_tests[] = {
	{ "a TID not of a live thread of the VMM is refused", test_host_kick_tid },
	{ "a PREEMPT reaches the holder's thread as the kick signal", test_host_kick_preempt },
	{ "a granted thread is on its lane's CPU before it wakes (HOST_HELLO_PIN)",
	  test_host_kick_pin },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_kick", host_kick_tests);
