// SPDX-License-Identifier: GPL-2.0
/* Unix SOCK_SEQPACKET sockets by path; see include/util/unixsock.h. */
#include <errno.h>
#include <string.h>

#include "util/unixsock.h"

int unixsock_open(const char *path, struct sockaddr_un *sa)
{
	int fd;

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	strcpy(sa->sun_path, path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

ssize_t unixsock_send_fds(int fd, const void *buf, size_t len, const int *fds,
			  unsigned int nr_fds, int flags)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(UNIXSOCK_MAX_FDS * sizeof(int))];
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (nr_fds > UNIXSOCK_MAX_FDS) {
		errno = EINVAL;
		return -1;
	}
	if (nr_fds) {
		mh.msg_control = u.buf;
		mh.msg_controllen = CMSG_SPACE(nr_fds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nr_fds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nr_fds * sizeof(int));
	}
	return sendmsg(fd, &mh, flags);
}
