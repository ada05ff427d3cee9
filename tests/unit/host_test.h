/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the host daemon's test files: a VMM's end of a join, over a socketpair. */
#ifndef VSCHED_TESTS_HOST_TEST_H
#define VSCHED_TESTS_HOST_TEST_H

#include <linux/kvm.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/host.h"
#include "host/proto.h"
#include "test.h"
#include "util/time.h"
#include "vmm/kick.h"
#include "vsched.h"

/* usage_usec of group in the daemon's cpu.stat, or -1. */
static inline long long host_test_usage_us(struct host *h, const char *group)
{
	char buf[1024], *p;
	ssize_t n = vsched_read(host_vsched(h), group, "cpu.stat", buf, sizeof(buf) - 1);

	if (n < 0)
		return -1;
	buf[n] = '\0';
	p = strstr(buf, "usage_usec ");
	return p ? atoll(p + strlen("usage_usec ")) : -1;
}

/* A datagram from VMM c, under the daemon's lock as host_run() feeds it. */
static inline int host_test_msg(struct host *h, struct host_client *c, const void *buf,
				size_t len)
{
	int ret;

	vsched_lock(host_vsched(h));
	ret = host_client_msg(h, c, buf, len);
	vsched_unlock(host_vsched(h));
	return ret;
}

/* One event datagram from VMM c (struct host_ev's fields by name). */
static inline int host_test_ev(struct host *h, struct host_client *c, uint32_t type,
			       uint32_t vcpu, uint32_t arg, uint64_t a, uint64_t b)
{
	struct host_ev ev = { .type = type, .vcpu = vcpu, .arg = arg, .a = a, .b = b };

	return host_test_msg(h, c, &ev, sizeof(ev));
}

/* Joins VM name with nr vCPUs and VM group settings vm, no page: as host_test_join(). */
static inline int host_test_join_vm(struct host *h, const char *name, unsigned int nr,
				    struct host_settings vm, struct host_client **c)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = nr,
		.vm = vm,
	};
	int sv[2];

	snprintf(hm.name, sizeof(hm.name), "%s", name);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], c), 0);
	CU_ASSERT_EQUAL(host_test_msg(h, *c, &hm, sizeof(hm)), 0);
	return sv[0];
}

/*
 * Joins VM name with nr vCPUs and cpu.max quota_us per 100 ms (UINT64_MAX: max), no page:
 * *c is the daemon's client, the VMM's end of the socket is returned.
 */
static inline int host_test_join(struct host *h, const char *name, unsigned int nr,
				 uint64_t quota_us, struct host_client **c)
{
	return host_test_join_vm(h, name, nr, (struct host_settings){ .quota_us = quota_us,
				 .period_us = 100000 }, c);
}

/*
 * As host_test_join(), with the grant page and idle-lane offers asked for, as rt_remote_join()
 * does: the WELCOME is read and *o maps the offer word (the page's fd is closed; the offer
 * page's too unless offer_fd keeps it).
 */
static inline int host_test_join_pages(struct host *h, const struct host_hello *hm,
				       struct host_client **c, struct host_offer **o,
				       int *offer_fd, const struct host_grant **page);

static inline int host_test_join_hello_fd(struct host *h, const struct host_hello *hm,
					  struct host_client **c, struct host_offer **o,
					  int *offer_fd)
{
	return host_test_join_pages(h, hm, c, o, offer_fd, NULL);
}

/* The same, the grant page mapped read-only at *page (NULL: not kept), as rt_page_map(). */
static inline int host_test_join_pages(struct host *h, const struct host_hello *hm,
				       struct host_client **c, struct host_offer **o,
				       int *offer_fd, const struct host_grant **page)
{
	char buf[1024], cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int sv[2], fd[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], c), 0);
	CU_ASSERT_EQUAL_FATAL(host_test_msg(h, *c, hm, sizeof(*hm)), 0);
	CU_ASSERT_EQUAL_FATAL(recvmsg(sv[0], &mh, 0), (ssize_t)sizeof(struct host_welcome));
	cm = CMSG_FIRSTHDR(&mh);
	CU_ASSERT_FATAL(cm && cm->cmsg_len == CMSG_LEN(2 * sizeof(int)));
	memcpy(fd, CMSG_DATA(cm), sizeof(fd));
	*o = mmap(NULL, sizeof(**o), PROT_READ | PROT_WRITE, MAP_SHARED, fd[1], 0);
	CU_ASSERT_FATAL(*o != MAP_FAILED);
	if (page) {
		*page = mmap(NULL, hm->nr_vcpus * sizeof(**page), PROT_READ, MAP_SHARED, fd[0], 0);
		CU_ASSERT_FATAL(*page != MAP_FAILED);
	}
	close(fd[0]);
	if (offer_fd)
		*offer_fd = fd[1];
	else
		close(fd[1]);
	return sv[0];
}

static inline int host_test_join_hello(struct host *h, const struct host_hello *hm,
				       struct host_client **c, struct host_offer **o)
{
	return host_test_join_hello_fd(h, hm, c, o, NULL);
}

static inline int host_test_join_offers(struct host *h, const char *name, unsigned int nr,
					uint64_t quota_us, struct host_client **c,
					struct host_offer **o)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = nr,
		.flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER,
		.vm = { .quota_us = quota_us, .period_us = 100000 },
	};

	snprintf(hm.name, sizeof(hm.name), "%s", name);
	return host_test_join_hello(h, &hm, c, o);
}

/* VMM c (its socket fd) leaves the daemon, under its lock as a hang-up does. */
static inline void host_test_leave(struct host *h, struct host_client *c, int fd)
{
	vsched_lock(host_vsched(h));
	host_client_remove(h, c);
	vsched_unlock(host_vsched(h));
	close(fd);
}

/* A vCPU thread stand-in for the daemon's kick: reports its TID, then waits (up to 2 s after
 * stop) until its immediate_exit is set. */
struct host_test_vcpu {
	struct kvm_run run;
	pid_t tid;
	bool stop;
	bool kicked;
};

static inline void *host_test_vcpu_fn(void *arg)
{
	struct host_test_vcpu *t = arg;
	uint64_t end;

	kick_thread_run(&t->run);	/* as vcpu_thread() */
	__atomic_store_n(&t->tid, gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE))
		usleep(100);
	end = time_mono_ns() + 2000000000ULL;
	while (!__atomic_load_n(&t->run.immediate_exit, __ATOMIC_ACQUIRE) && time_mono_ns() < end)
		usleep(100);
	t->kicked = __atomic_load_n(&t->run.immediate_exit, __ATOMIC_ACQUIRE);
	return NULL;
}

/* Starts t and waits for its TID. */
static inline void host_test_vcpu_start(struct host_test_vcpu *t, pthread_t *th)
{
	memset(t, 0, sizeof(*t));
	CU_ASSERT_EQUAL_FATAL(pthread_create(th, NULL, host_test_vcpu_fn, t), 0);
	while (!__atomic_load_n(&t->tid, __ATOMIC_ACQUIRE))
		usleep(100);
}

#endif
