// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's connection to `vsched host` (docs/host.md): the socket, the HELLO and its
 * WELCOME (with the grant page's fd), and the probe `vsched run` and `vsched list` make.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host/proto.h"
#include "rt.h"
#include "util/unixsock.h"

#define RT_REMOTE_SNDBUF	(4 << 20)	/* bytes; without CAP_NET_ADMIN, wmem_max caps it */

int rt_remote_dial(const char *sock)
{
	struct sockaddr_un sa;
	int fd, err;

	fd = unixsock_open(sock, &sa);
	if (fd < 0)
		return fd;
	/* Room for a whole subtree batch in flight: a send that does not fit is a lost daemon. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &(int){ RT_REMOTE_SNDBUF }, sizeof(int)))
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){ RT_REMOTE_SNDBUF }, sizeof(int));
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/*
 * The WELCOME's datagram and the fds with it: the grant page's (*page_fd), then the offer page's
 * (*offer_fd), -1: none; or -errno.
 */
static ssize_t rt_remote_recv_welcome(int fd, struct host_welcome *w, int *page_fd, int *offer_fd)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(2 * sizeof(int))];
	} u;
	int fds[2];
	struct iovec iov = { .iov_base = w, .iov_len = sizeof(*w) };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
		.msg_controllen = sizeof(u.buf),
	};
	struct cmsghdr *cm;
	ssize_t n = recvmsg(fd, &mh, MSG_TRUNC | MSG_CMSG_CLOEXEC);

	*page_fd = *offer_fd = -1;
	if (n < 0)
		return -errno;
	cm = CMSG_FIRSTHDR(&mh);
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(page_fd, CMSG_DATA(cm), sizeof(int));
	if (cm && cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS &&
	    cm->cmsg_len == CMSG_LEN(2 * sizeof(int))) {
		memcpy(fds, CMSG_DATA(cm), sizeof(fds));
		*page_fd = fds[0];
		*offer_fd = fds[1];
	}
	return (mh.msg_flags & MSG_CTRUNC) ? -EPROTO : n;
}

int rt_remote_hello(int fd, struct host_hello *m, int timeout_ms, struct host_welcome *w,
		    int *page_fd, int *offer_fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	*page_fd = *offer_fd = -1;
	m->type = HOST_MSG_HELLO;
	m->version = HOST_PROTO_VERSION;
	m->pid = getpid();
	if (send(fd, m, sizeof(*m), MSG_NOSIGNAL) != sizeof(*m))
		return -errno;
	if (poll(&pfd, 1, timeout_ms) != 1)
		return -ETIMEDOUT;
	n = rt_remote_recv_welcome(fd, w, page_fd, offer_fd);
	if (n < 0)
		return (int)n;
	/* A daemon of another build (type and version lead the WELCOME of every version). */
	if (n >= 8 && w->type == HOST_MSG_WELCOME && w->version != HOST_PROTO_VERSION)
		return -EPROTONOSUPPORT;
	if (n != sizeof(*w) || w->type != HOST_MSG_WELCOME || w->version != HOST_PROTO_VERSION ||
	    w->err > 0 || !w->nr_lanes)
		return -EPROTO;
	w->group[sizeof(w->group) - 1] = '\0';
	return w->err;
}

int runtime_host_probe(const char *sock, int timeout_ms, struct runtime_host_info *info)
{
	struct host_welcome w;
	int fd = rt_remote_dial(sock), ret, page_fd, offer_fd;

	if (fd < 0)
		return fd;
	ret = rt_remote_hello(fd, &(struct host_hello){ .nr_vcpus = 0 }, timeout_ms, &w, &page_fd,
			      &offer_fd);
	if (page_fd >= 0)
		close(page_fd);
	if (offer_fd >= 0)
		close(offer_fd);
	close(fd);
	if (!ret)
		*info = (struct runtime_host_info){
			.nr_lanes = w.nr_lanes, .nr_vms = w.nr_vms, .pid = w.pid,
		};
	return ret;
}
