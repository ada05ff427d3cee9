// SPDX-License-Identifier: GPL-2.0
/*
 * The grant page (host/host_page.c, include/host/proto.h): a join's WELCOME carries a memfd
 * the VMM can map only read-only and can neither write nor resize (a shrunk page would fault
 * the daemon's stores); each decision is in the vCPU's entry, with the seq its message carries,
 * before the message is sent.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/host.h"
#include "host/proto.h"
#include "test.h"
#include "vsched.h"

static int page_msg(struct host *h, struct host_client *c, const void *buf, size_t len)
{
	int ret;

	vsched_lock(host_vsched(h));
	ret = host_client_msg(h, c, buf, len);
	vsched_unlock(host_vsched(h));
	return ret;
}

static int page_ev(struct host *h, struct host_client *c, uint32_t type, uint32_t vcpu)
{
	struct host_ev ev = { .type = type, .vcpu = vcpu };

	return page_msg(h, c, &ev, sizeof(ev));
}

/* The next datagram of type want and the fd it carries (-1: none). */
static bool page_recv(int fd, uint32_t want, void *out, size_t len, int *passed)
{
	char buf[1024], cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh;
	struct cmsghdr *cm;
	ssize_t n;

	for (;;) {
		mh = (struct msghdr){ .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n <= 0)
			return false;
		cm = CMSG_FIRSTHDR(&mh);
		*passed = -1;
		if (cm && cm->cmsg_type == SCM_RIGHTS)
			memcpy(passed, CMSG_DATA(cm), sizeof(int));
		if ((size_t)n == len && !memcmp(buf, &want, sizeof(want))) {
			memcpy(out, buf, len);
			return true;
		}
		if (*passed >= 0)
			close(*passed);
	}
}

static void test_host_page(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 2,
		.name = "a", .flags = HOST_HELLO_PAGE,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	const struct host_grant *page;
	struct host_client *c;
	struct host_welcome w;
	struct host *h = NULL;
	struct host_ev ev;
	int sv[2], fd, rw, unused;
	char path[64];

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &c), 0);
	CU_ASSERT_EQUAL(page_msg(h, c, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE_FATAL(page_recv(sv[0], HOST_MSG_WELCOME, &w, sizeof(w), &fd));
	CU_ASSERT_EQUAL(w.err, 0);
	CU_ASSERT_TRUE_FATAL(fd >= 0);
	/* The VMM's end: no writable mapping, no write, no resize, nor through a new open. */
	CU_ASSERT_EQUAL(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
	CU_ASSERT_EQUAL(write(fd, "x", 1), -1);
	CU_ASSERT_EQUAL(ftruncate(fd, 0), -1);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	rw = open(path, O_RDWR);
	if (rw >= 0) {
		CU_ASSERT_EQUAL(mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0),
				MAP_FAILED);
		CU_ASSERT_EQUAL(write(rw, "x", 1), -1);
		CU_ASSERT_EQUAL(ftruncate(rw, 0), -1);
		CU_ASSERT_EQUAL(ftruncate(rw, 1 << 20), -1);
		close(rw);
	}
	page = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	CU_ASSERT_NOT_EQUAL_FATAL(page, MAP_FAILED);
	CU_ASSERT_EQUAL(page[1].lane, HOST_LANE_NONE);

	/* A grant: in the entry, with the seq of the datagram that follows. */
	CU_ASSERT_EQUAL(page_ev(h, c, HOST_MSG_RUNNABLE, 1), 0);
	CU_ASSERT_TRUE(page_recv(sv[0], HOST_MSG_GRANT, &ev, sizeof(ev), &unused));
	CU_ASSERT_EQUAL(ev.seq, 2);
	CU_ASSERT_EQUAL(page[1].seq, 2);
	CU_ASSERT_EQUAL(page[1].lane, ev.arg);
	CU_ASSERT_EQUAL(page[1].until, ev.a);
	CU_ASSERT_EQUAL(page[1].cpu, ev.b);
	CU_ASSERT_EQUAL(page[0].seq, 0);
	/* 1 blocks, 0 gets the lane. */
	CU_ASSERT_EQUAL(page_ev(h, c, HOST_MSG_BLOCKED, 1), 0);
	CU_ASSERT_EQUAL(page_ev(h, c, HOST_MSG_RUNNABLE, 0), 0);
	CU_ASSERT_EQUAL(page[0].seq, 2);
	CU_ASSERT_EQUAL(page[0].lane, 0);
	/*
	 * 1 waits again: 0's slice ends (RETIME), not written in its entry (0 may be blocking and
	 * would read it as a grant), and carrying the seq of the grant it changes.
	 */
	CU_ASSERT_EQUAL(page_ev(h, c, HOST_MSG_RUNNABLE, 1), 0);
	CU_ASSERT_TRUE(page_recv(sv[0], HOST_MSG_RETIME, &ev, sizeof(ev), &unused));
	CU_ASSERT_EQUAL(ev.vcpu, 0);
	CU_ASSERT_EQUAL(ev.seq, 2);
	CU_ASSERT_EQUAL(page[0].seq, 2);
	CU_ASSERT_EQUAL(page[0].until, HOST_TIME_INF);
	/* 0 is revoked (silent "forever"): 0's entry empty, 1's the grant. */
	vsched_lock(host_vsched(h));
	host_revoke_due(h, UINT64_MAX / 2);
	vsched_unlock(host_vsched(h));
	CU_ASSERT_TRUE(page_recv(sv[0], HOST_MSG_PREEMPT, &ev, sizeof(ev), &unused));
	CU_ASSERT_EQUAL(ev.vcpu, 0);
	CU_ASSERT_TRUE(ev.seq > 2 && !(ev.seq & 1));
	CU_ASSERT_EQUAL(page[0].seq, ev.seq);
	CU_ASSERT_EQUAL(page[0].lane, HOST_LANE_NONE);
	CU_ASSERT_TRUE(page[1].seq > 2 && !(page[1].seq & 1));
	CU_ASSERT_EQUAL(page[1].lane, 0);

	munmap((void *)page, 4096);
	close(fd);
	vsched_lock(host_vsched(h));
	host_client_remove(h, c);
	vsched_unlock(host_vsched(h));
	close(sv[0]);
	host_destroy(h);
}

/* A HELLO without HOST_HELLO_PAGE gets no page; one with an unknown flag is refused. */
static void test_host_page_flags(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 1,
		.name = "a", .vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	struct host_client *c;
	struct host_welcome w;
	struct host *h = NULL;
	struct host_ev ev;
	int sv[2], fd;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &c), 0);
	hm.flags = 0x200;	/* none yet */
	CU_ASSERT_EQUAL(page_msg(h, c, &hm, sizeof(hm)), 1);
	CU_ASSERT_TRUE(page_recv(sv[0], HOST_MSG_WELCOME, &w, sizeof(w), &fd));
	CU_ASSERT_EQUAL(w.err, -EINVAL);
	CU_ASSERT_EQUAL(host_free_slots(h), 4);
	hm.flags = 0;
	CU_ASSERT_EQUAL(page_msg(h, c, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE(page_recv(sv[0], HOST_MSG_WELCOME, &w, sizeof(w), &fd));
	CU_ASSERT_EQUAL(w.err, 0);
	CU_ASSERT_EQUAL(fd, -1);
	/* Every decision is a datagram then. */
	CU_ASSERT_EQUAL(page_ev(h, c, HOST_MSG_RUNNABLE, 0), 0);
	CU_ASSERT_TRUE(page_recv(sv[0], HOST_MSG_GRANT, &ev, sizeof(ev), &fd));
	vsched_lock(host_vsched(h));
	host_client_remove(h, c);
	vsched_unlock(host_vsched(h));
	close(sv[0]);
	host_destroy(h);
}

static CU_TestInfo host_page_tests[] = {
	{ "the grant page is read-only for the VMM and holds each decision",
	  test_host_page },
	{ "a join without the page flag gets none; unknown flags are refused",
	  test_host_page_flags },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_page", host_page_tests);
