// SPDX-License-Identifier: GPL-2.0
/* The host_msgs fuzz target's checks of what the daemon sends and writes (fuzz/host_msgs.c). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/proto.h"
#include "host_msgs.h"

/* What the daemon sent v: checked, fds mapped (WELCOME) or closed (PEER). */
void hm_recv(struct hm *f, struct hm_vmm *v)
{
	char buf[2048], cbuf[CMSG_SPACE(4 * sizeof(int))];
	int fds[4], nr_fds;
	ssize_t n;

	for (;;) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *cm;
		struct host_welcome w;
		struct host_ev ev;
		uint32_t type;
		int i;

		n = recvmsg(v->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n <= 0)
			return;
		nr_fds = 0;
		for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
				nr_fds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
				FUZZ_CHECK(nr_fds <= 4, "%d fds", nr_fds);
				memcpy(fds, CMSG_DATA(cm), nr_fds * sizeof(int));
			}
		FUZZ_CHECK(!(mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)), "truncated datagram");
		FUZZ_CHECK(n >= 4, "datagram of %zd bytes", n);
		memcpy(&type, buf, sizeof(type));
		if (hm_debug && n == sizeof(struct host_ev)) {
			memcpy(&ev, buf, sizeof(ev));
			fprintf(stderr, "hm: vmm%u <- type %u vcpu %u arg %u a %llu b %llu\n",
				(unsigned int)(v - f->vmm), type, ev.vcpu, ev.arg,
				(unsigned long long)ev.a, (unsigned long long)ev.b);
		} else if (hm_debug) {
			fprintf(stderr, "hm: vmm%u <- type %u (%zd bytes, %d fds)\n",
				(unsigned int)(v - f->vmm), type, n, nr_fds);
		}
		if (type == HOST_MSG_WELCOME) {
			FUZZ_CHECK(n == sizeof(w), "WELCOME of %zd bytes", n);
			memcpy(&w, buf, sizeof(w));
			FUZZ_CHECK(w.nr_lanes == f->nr_lanes, "WELCOME with %u lanes", w.nr_lanes);
			FUZZ_CHECK(w.err <= 0 && w.err >= -HOST_ERRNO_MAX, "WELCOME err %d", w.err);
			FUZZ_CHECK(!nr_fds || !w.err, "fds with a refusal (%d)", w.err);
			if (!w.err && v->hello_vcpus && !v->nr_vcpus) {
				v->nr_vcpus = v->hello_vcpus;
				FUZZ_CHECK(w.group[0] == '/' &&
					   strnlen(w.group, sizeof(w.group)) < sizeof(w.group),
					   "joined without a group");
				memcpy(v->group, w.group, sizeof(v->group));
			}
			if (nr_fds >= 1 && v->nr_vcpus && !v->page) {
				void *m = mmap(NULL, v->nr_vcpus * sizeof(*v->page), PROT_READ,
					       MAP_SHARED, fds[0], 0);

				v->page = m == MAP_FAILED ? NULL : m;
			}
			if (nr_fds >= 2 && v->nr_vcpus && !v->offer) {
				void *m = mmap(NULL, sizeof(*v->offer), PROT_READ | PROT_WRITE,
					       MAP_SHARED, fds[1], 0);

				v->offer = m == MAP_FAILED ? NULL : m;
			}
		} else if (type == HOST_MSG_CTL) {
			struct host_ctl_msg c;
			size_t k = strlen(v->group);

			FUZZ_CHECK(n == sizeof(c), "CTL of %zd bytes", n);
			memcpy(&c, buf, sizeof(c));
			/* Only a forward's, only to the VMM whose VM group holds its path. */
			FUZZ_CHECK(f->fwd_path && v->nr_vcpus && !strncmp(f->fwd_path, v->group, k) &&
				   (!f->fwd_path[k] || f->fwd_path[k] == '/'),
				   "CTL for %s to vmm%u (%s)", f->fwd_path ? f->fwd_path : "(none)",
				   (unsigned int)(v - f->vmm), v->group);
			FUZZ_CHECK(c.seq && c.op && c.op < HOST_CTL_MAX && c.len <= sizeof(c.buf) &&
				   memchr(c.path, 0, sizeof(c.path)) && memchr(c.file, 0, sizeof(c.file)),
				   "CTL op %u seq %u len %u", c.op, c.seq, c.len);
			v->ctl_seq = c.seq;
		} else if (type == HOST_MSG_VMSET) {
			FUZZ_CHECK(n == sizeof(struct host_group_msg), "VMSET of %zd bytes", n);
		} else {
			FUZZ_CHECK(type == HOST_MSG_GRANT || type == HOST_MSG_PREEMPT ||
				   type == HOST_MSG_RETIME || type == HOST_MSG_PONG ||
				   type == HOST_MSG_PIN || type == HOST_MSG_PEER,
				   "daemon sent type %u", type);
			FUZZ_CHECK(n == sizeof(ev), "type %u of %zd bytes", type, n);
			memcpy(&ev, buf, sizeof(ev));
			FUZZ_CHECK(type == HOST_MSG_PONG || type == HOST_MSG_PEER ||
				   ev.vcpu < v->nr_vcpus, "type %u for vCPU %u of %u", type,
				   ev.vcpu, v->nr_vcpus);
			FUZZ_CHECK((type != HOST_MSG_GRANT && type != HOST_MSG_PIN) ||
				   ev.arg < f->nr_lanes, "type %u of lane %u", type, ev.arg);
		}
		for (i = 0; i < nr_fds; i++)
			close(fds[i]);
	}
}

/* Every grant page entry not mid-write, of a lane or none. */
void hm_check_pages(const struct hm *f)
{
	unsigned int i;

	for (i = 0; i < HM_VMMS; i++) {
		const struct hm_vmm *v = &f->vmm[i];
		unsigned int k;

		for (k = 0; v->page && k < v->nr_vcpus; k++) {
			const struct host_grant *g = &v->page[k];

			FUZZ_CHECK(!(g->seq & 1), "vCPU %u's entry written (seq %u)", k, g->seq);
			FUZZ_CHECK(g->lane == HOST_LANE_NONE || g->lane < f->nr_lanes,
				   "vCPU %u's entry holds lane %u", k, g->lane);
		}
	}
}
