// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: the other VMs' offer pages (HOST_HELLO_PEER, host/host_peer.c), the VMM's side.
 * A handoff across VMs has the successor's thread read the releasing VM's claim in that VM's
 * own offer word, so the daemon sends every VM that asked a read-only fd of every other's page
 * (PEER), and a PEER without fd when one leaves.
 *
 * Mapped read-only, and only if the memfd is sealed against writes through any new mapping or
 * write() and against shrinking and growing: a peer page that could shrink would fault this
 * VMM's reads (SIGBUS), and one this VMM could write would give a page two writers. A page
 * that is not so sealed is refused (the daemon sends none such: the one that did is lost).
 * The agent's receive is here too: the PEER is the one datagram that carries an fd.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/proto.h"
#include "util/compiler.h"
#include "rt.h"

#define RT_PEER_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE)

static void rt_peer_unmap(struct rt_peer *p)
{
	munmap((void *)p->o, sizeof(struct host_offer));
}

static int rt_peer_map(int fd, const struct host_offer **o)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);
	void *p;

	if (seals < 0 || (seals & RT_PEER_SEALS) != RT_PEER_SEALS || fstat(fd, &st) ||
	    (size_t)st.st_size < sizeof(struct host_offer))
		return -EPROTO;
	p = mmap(NULL, sizeof(struct host_offer), PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	*o = p;
	return 0;
}

int rt_peer_add(struct runtime *rt, uint32_t id, int fd)
{
	const struct host_offer *o = NULL;
	unsigned int i;
	int ret = 0;

	assert_held(rt->lock);
	for (i = 0; i < rt->nr_peers && rt->peer[i].id != id; i++)
		;
	if (i < rt->nr_peers) {		/* a page replaced, or the peer left */
		rt_peer_unmap(&rt->peer[i]);
		rt->peer[i] = rt->peer[--rt->nr_peers];
	}
	if (fd < 0)
		return 0;
	if (!rt->peer)
		rt->peer = calloc(RT_PEERS_MAX, sizeof(*rt->peer));
	if (!rt->peer)
		ret = -ENOMEM;
	else if (rt->nr_peers == RT_PEERS_MAX)
		ret = 0;	/* more VMs than this: the rest hand on through the daemon */
	else if (!(ret = rt_peer_map(fd, &o)))
		rt->peer[rt->nr_peers++] = (struct rt_peer){ .id = id, .o = o };
	close(fd);
	rt_xwait_changed(rt);	/* the first peer: it waits on this VM's word now */
	return ret;
}

const struct host_offer *rt_peer_find(const struct runtime *rt, uint32_t id)
{
	unsigned int i;

	for (i = 0; i < rt->nr_peers; i++)
		if (rt->peer[i].id == id)
			return rt->peer[i].o;
	return NULL;
}

/* The daemon is gone (its ids with it) or the VM ends. */
void rt_peer_clear(struct runtime *rt)
{
	while (rt->nr_peers)
		rt_peer_unmap(&rt->peer[--rt->nr_peers]);
	free(rt->peer);
	rt->peer = NULL;
}

/*
 * A datagram and the one fd that may come with it (*fd, -1: none; a datagram with more, or a
 * truncated one, closes them and is garbage: -EPROTO in *fd's place is -2). The control buffer
 * holds two fds (CMSG_SPACE() rounds one up): the kernel installs both, and a second one left
 * open leaked an fd per such datagram.
 */
ssize_t rt_peer_recv(int fd, char *buf, size_t len, int *pfd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			     .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *cm;
	ssize_t n = recvmsg(fd, &mh, MSG_TRUNC | MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	int fds[CMSG_SPACE(sizeof(int)) / sizeof(int)];
	size_t nr = 0, i;

	*pfd = -1;
	cm = n >= 0 ? CMSG_FIRSTHDR(&mh) : NULL;
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len >= CMSG_LEN(0)) {
		nr = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		nr = nr < ARRAY_SIZE(fds) ? nr : ARRAY_SIZE(fds);
		memcpy(fds, CMSG_DATA(cm), nr * sizeof(int));
	}
	if (nr == 1 && !(mh.msg_flags & MSG_CTRUNC))
		*pfd = fds[0];
	else if (cm || (n >= 0 && (mh.msg_flags & MSG_CTRUNC)))
		*pfd = -2;	/* not one fd: those that came are closed, the kernel closed the rest */
	for (i = 0; *pfd == -2 && i < nr; i++)
		close(fds[i]);
	return n;
}

/* PEER: a peer VM's offer page (arg 1, with its fd) or its leaving (arg 0, none). */
int rt_peer_msg(struct runtime *rt, const void *buf, ssize_t n, int fd)
{
	struct host_ev m = { .type = 0 };
	int ret;

	/* Garbage: its fd closed too (a PEER of another size with one leaked it). */
	if (n == sizeof(m))
		memcpy(&m, buf, sizeof(m));
	if (n != sizeof(m) || m.arg > 1 || (m.arg == 1) != (fd >= 0) || m.a > UINT32_MAX) {
		if (fd >= 0)
			close(fd);
		return -EPROTO;
	}
	ret = rt_peer_add(rt, (uint32_t)m.a, fd);
	return ret == -ENOMEM || ret == -EPROTO ? ret : 0;	/* a map that failed: not used */
}

bool rt_peer_is_msg(const void *buf, ssize_t n)
{
	uint32_t type;

	if (n < (ssize_t)sizeof(type))
		return false;
	memcpy(&type, buf, sizeof(type));
	return type == HOST_MSG_PEER;
}
