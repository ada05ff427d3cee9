// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's outbox (sched/runtime/rt_outbox.c): datagrams queued under an outer lock by many
 * threads reach the peer in the order they were queued, each thread sending after it dropped
 * the lock (or leaving its datagrams to the thread sending already); no send is made with the
 * outer lock held (its BUG_ON, counted here); a failed send drops the rest of that connection's
 * queue and says which connection; a socket in use by a send is closed only after it.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "../../sched/runtime/rt_outbox.h"
#include "test.h"
#include "util/debug.h"

#define OB_THREADS	4
#define OB_EACH		5000
/*
 * Datagrams in flight at most: the socket's default buffer holds a few hundred small ones, and a
 * send that finds it full drops the connection (as the runtime's must), so the writers wait for
 * the reader, which a loaded host may not run for a while.
 */
#define OB_INFLIGHT	64

static unsigned int ob_bugs;

static void ob_bug(const char *file __attribute__((unused)), int line __attribute__((unused)),
		   const char *what __attribute__((unused)))
{
	__atomic_fetch_add(&ob_bugs, 1, __ATOMIC_RELAXED);
}

struct ob_run {
	pthread_mutex_t outer;
	struct rt_outbox ob;
	uint64_t next;		/* the sequence number queued next, under outer */
	uint64_t read;		/* datagrams the reader has, atomic */
	int fd;			/* the peer's end */
	unsigned int errors;
};

static void *ob_writer(void *arg)
{
	struct ob_run *r = arg;
	uint64_t gen, msg[4];
	unsigned int i;

	for (i = 0; i < OB_EACH; i++) {
		while (__atomic_load_n(&r->next, __ATOMIC_RELAXED) >=
		       __atomic_load_n(&r->read, __ATOMIC_ACQUIRE) + OB_INFLIGHT &&
		       !__atomic_load_n(&r->errors, __ATOMIC_RELAXED))
			sched_yield();
		mutex_lock(&r->outer);
		memset(msg, 0, sizeof(msg));
		msg[0] = r->next;
		__atomic_store_n(&r->next, msg[0] + 1, __ATOMIC_RELAXED);
		/* Two sizes, as the runtime's events and group batches. */
		if (rt_outbox_put(&r->ob, msg, i % 7 ? sizeof(uint64_t) : sizeof(msg)))
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
		mutex_unlock(&r->outer);
		if (rt_outbox_send(&r->ob, &gen))
			__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *ob_reader(void *arg)
{
	struct ob_run *r = arg;
	uint64_t want = 0, msg[4];
	ssize_t n;

	while (want < OB_THREADS * OB_EACH) {
		n = recv(r->fd, msg, sizeof(msg), 0);
		if (n <= 0 || msg[0] != want)
			break;
		want++;
		__atomic_store_n(&r->read, want, __ATOMIC_RELEASE);
	}
	/* A datagram lost or out of order fails the test; the writers stop waiting for it. */
	if (want < OB_THREADS * OB_EACH)
		__atomic_fetch_add(&r->errors, 1, __ATOMIC_RELAXED);
	return (void *)(uintptr_t)want;
}

static void test_rt_outbox_order(void)
{
	pthread_t w[OB_THREADS], rd;
	debug_bug_fn old;
	struct ob_run r = { .next = 0 };
	void *got;
	int sv[2];
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	/* More room where the host allows it (SO_SNDBUF is capped at net.core.wmem_max). */
	i = 8 << 20;
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &i, sizeof(i));
	setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &i, sizeof(i));
	/* A hole (a send that failed) ends the reader with a failure, not a hang. */
	setsockopt(sv[1], SOL_SOCKET, SO_RCVTIMEO, &(struct timeval){ .tv_sec = 10 },
		   sizeof(struct timeval));
	pthread_mutex_init(&r.outer, NULL);
	rt_outbox_init(&r.ob, &r.outer);
	r.fd = sv[1];
	ob_bugs = 0;
	old = debug_set_bug_hook(ob_bug);
	mutex_lock(&r.outer);
	rt_outbox_open(&r.ob, sv[0]);
	mutex_unlock(&r.outer);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&rd, NULL, ob_reader, &r), 0);
	for (i = 0; i < OB_THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&w[i], NULL, ob_writer, &r), 0);
	for (i = 0; i < OB_THREADS; i++)
		pthread_join(w[i], NULL);
	pthread_join(rd, &got);
	debug_set_bug_hook(old);
	/* Every datagram, in the order queued, none sent under the outer lock. */
	CU_ASSERT_EQUAL((uintptr_t)got, OB_THREADS * OB_EACH);
	CU_ASSERT_EQUAL(r.errors, 0);
	CU_ASSERT_EQUAL(ob_bugs, 0);
	CU_ASSERT_FALSE(rt_outbox_pending(&r.ob));
	rt_outbox_close(&r.ob, sv[0]);
	rt_outbox_destroy(&r.ob);
	close(sv[1]);
}

/* A send under the outer lock is a BUG (the check the runtime's test relies on). */
static void test_rt_outbox_locked_send(void)
{
	pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;
	struct rt_outbox ob;
	debug_bug_fn old;
	uint64_t gen, v = 1;
	int sv[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	rt_outbox_init(&ob, &outer);
	ob_bugs = 0;
	old = debug_set_bug_hook(ob_bug);
	mutex_lock(&outer);
	rt_outbox_open(&ob, sv[0]);
	CU_ASSERT_EQUAL(rt_outbox_put(&ob, &v, sizeof(v)), 0);
	CU_ASSERT_EQUAL(ob_bugs, 0);
	CU_ASSERT_EQUAL(rt_outbox_send(&ob, &gen), 0);
	mutex_unlock(&outer);
	debug_set_bug_hook(old);
	CU_ASSERT_EQUAL(ob_bugs, 1);
	rt_outbox_close(&ob, sv[0]);
	rt_outbox_destroy(&ob);
	close(sv[1]);
}

/* The peer gone: the send fails with that connection's gen; the rest is dropped, not sent. */
static void test_rt_outbox_failed(void)
{
	pthread_mutex_t outer = PTHREAD_MUTEX_INITIALIZER;
	struct rt_outbox ob;
	uint64_t gen = 0, g1, v = 7;
	int sv[2], sv2[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv2), 0);
	rt_outbox_init(&ob, &outer);
	mutex_lock(&outer);
	rt_outbox_open(&ob, sv[0]);
	g1 = ob.gen;
	CU_ASSERT_EQUAL(rt_outbox_put(&ob, &v, sizeof(v)), 0);
	mutex_unlock(&outer);
	close(sv[1]);
	CU_ASSERT_EQUAL(rt_outbox_send(&ob, &gen), -EPIPE);
	CU_ASSERT_EQUAL(gen, g1);
	/* Dropped: what is queued after the hole goes nowhere. */
	mutex_lock(&outer);
	CU_ASSERT_EQUAL(rt_outbox_put(&ob, &v, sizeof(v)), 0);
	mutex_unlock(&outer);
	CU_ASSERT_FALSE(rt_outbox_pending(&ob));
	/* A new connection starts empty, with a new gen. */
	mutex_lock(&outer);
	rt_outbox_close(&ob, sv[0]);
	rt_outbox_open(&ob, sv2[0]);
	CU_ASSERT_NOT_EQUAL(ob.gen, g1);
	v = 8;
	CU_ASSERT_EQUAL(rt_outbox_put(&ob, &v, sizeof(v)), 0);
	mutex_unlock(&outer);
	CU_ASSERT_EQUAL(rt_outbox_send(&ob, &gen), 0);
	v = 0;
	CU_ASSERT_EQUAL(recv(sv2[1], &v, sizeof(v), MSG_DONTWAIT), (ssize_t)sizeof(v));
	CU_ASSERT_EQUAL(v, 8);
	CU_ASSERT_EQUAL(recv(sv2[1], &v, sizeof(v), MSG_DONTWAIT), -1);
	/* The queue is bounded: a daemon that does not read is gone. */
	mutex_lock(&outer);
	{
		static char big[4096];
		int err = 0;
		unsigned int i;

		for (i = 0; i < RT_OUTBOX_MAX / sizeof(big) + 1 && !err; i++)
			err = rt_outbox_put(&ob, big, sizeof(big));
		CU_ASSERT_EQUAL(err, -ENOBUFS);
	}
	rt_outbox_drop(&ob);
	mutex_unlock(&outer);
	CU_ASSERT_FALSE(rt_outbox_pending(&ob));
	rt_outbox_close(&ob, sv2[0]);
	CU_ASSERT_EQUAL(fcntl(sv2[0], F_GETFD), -1);	/* closed: no send was using it */
	rt_outbox_destroy(&ob);
	close(sv2[1]);
}

static CU_TestInfo tests[] = {
	{ "queued in order by many threads, each sending unlocked", test_rt_outbox_order },
	{ "a send under the outer lock is a BUG", test_rt_outbox_locked_send },
	{ "a failed send drops its connection's rest; bounded queue", test_rt_outbox_failed },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("rt_outbox", tests);
