/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by test_host.c and test_host_lanes.c: a VMM is one end of a socketpair, the daemon's
 * client the other. */
#ifndef VSCHED_TESTS_HOST_VMM_TEST_H
#define VSCHED_TESTS_HOST_VMM_TEST_H

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "sched/core.h"
#include "sched/group.h"
#include "test.h"
#include "util/time.h"
#include "vs_test.h"

struct vmm {
	int fd;			/* the VMM's end */
	struct host_client *c;
};

static inline struct host *vmm_host_new(unsigned int lanes, unsigned int slots)
{
	struct host_opts o = { .nr_lanes = lanes, .max_vcpus = slots };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	return h;
}

static inline void vmm_connect(struct host *h, struct vmm *m)
{
	int sv[2];

	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	m->fd = sv[0];
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &m->c), 0);
}

static inline int vmm_msg(struct host *h, struct vmm *m, const void *buf, size_t len)
{
	return host_test_msg(h, m->c, buf, len);
}

static inline int vmm_ev(struct host *h, struct vmm *m, uint32_t type, uint32_t vcpu,
			 uint32_t arg, uint64_t a, uint64_t b)
{
	struct host_ev ev = { .type = type, .vcpu = vcpu, .arg = arg, .a = a, .b = b };

	return vmm_msg(h, m, &ev, sizeof(ev));
}

static inline struct host_hello vmm_hello(const char *name, unsigned int nr_vcpus)
{
	struct host_hello m = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = 4242,
		.nr_vcpus = nr_vcpus, .vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};

	snprintf(m.name, sizeof(m.name), "%s", name);
	return m;
}

/* The next datagram from the daemon of type want (others skipped), or a zeroed one. */
static inline bool vmm_recv(struct vmm *m, uint32_t want, void *out, size_t len)
{
	char buf[1024];
	ssize_t n;

	while ((n = recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		uint32_t type;

		memcpy(&type, buf, sizeof(type));
		if (type == want && (size_t)n == len) {
			memcpy(out, buf, len);
			return true;
		}
	}
	memset(out, 0, len);
	return false;
}

static inline void vmm_join(struct host *h, struct vmm *m, const char *name,
			    unsigned int nr_vcpus, struct host_welcome *w)
{
	struct host_hello hm = vmm_hello(name, nr_vcpus);

	vmm_connect(h, m);
	CU_ASSERT_EQUAL(vmm_msg(h, m, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE(vmm_recv(m, HOST_MSG_WELCOME, w, sizeof(*w)));
	CU_ASSERT_EQUAL(w->err, 0);
}

static inline void vmm_leave(struct host *h, struct vmm *m)
{
	vsched_lock(host_vsched(h));
	host_client_remove(h, m->c);
	vsched_unlock(host_vsched(h));
	close(m->fd);
}

#endif
