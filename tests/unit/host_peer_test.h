/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the peer and cross-VM handoff tests: a VMM's join with its offer page, handoffs and
 * (if peer) its offer page shared with the other VMs (HOST_HELLO_PEER), its read-write fd kept.
 */
#ifndef VSCHED_TESTS_HOST_PEER_TEST_H
#define VSCHED_TESTS_HOST_PEER_TEST_H

#include <stdio.h>

#include "host_offer_test.h"

struct pvmm {
	struct ovmm m;
	int offer_fd;		/* the WELCOME's read-write fd, kept to try it after the seal */
};

static inline void peer_join(struct host *h, struct pvmm *p, const char *name, bool peer)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242, .nr_vcpus = 2,
		.flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HAND |
			 (peer ? HOST_HELLO_PEER : 0),
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	char buf[1024], cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int sv[2], fd[2];

	snprintf(hm.name, sizeof(hm.name), "%s", name);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &p->m.c), 0);
	CU_ASSERT_EQUAL_FATAL(host_test_msg(h, p->m.c, &hm, sizeof(hm)), 0);
	CU_ASSERT_EQUAL_FATAL(recvmsg(sv[0], &mh, 0), (ssize_t)sizeof(struct host_welcome));
	cm = CMSG_FIRSTHDR(&mh);
	CU_ASSERT_FATAL(cm && cm->cmsg_len == CMSG_LEN(2 * sizeof(int)));
	memcpy(fd, CMSG_DATA(cm), sizeof(fd));
	close(fd[0]);
	p->m.fd = sv[0];
	p->offer_fd = fd[1];
	/* Not sealed before the VMM speaks: its own writable mapping can still be made. */
	p->m.o = mmap(NULL, sizeof(*p->m.o), PROT_READ | PROT_WRITE, MAP_SHARED, fd[1], 0);
	CU_ASSERT_FATAL(p->m.o != MAP_FAILED);
}

#endif
