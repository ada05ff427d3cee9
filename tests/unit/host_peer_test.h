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

	snprintf(hm.name, sizeof(hm.name), "%s", name);
	/* Not sealed before the VMM speaks: its own writable mapping can still be made. */
	p->m.fd = host_test_join_hello_fd(h, &hm, &p->m.c, &p->m.o, &p->offer_fd);
}

#endif
