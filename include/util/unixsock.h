/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unix SOCK_SEQPACKET sockets by path: the host scheduler's and its clients' one way to make one.
 */
#ifndef VSCHED_UTIL_UNIXSOCK_H
#define VSCHED_UTIL_UNIXSOCK_H

#include <sys/socket.h>
#include <sys/un.h>

/* Fills sa for path and makes a close-on-exec SOCK_SEQPACKET socket: the fd, or -errno
 * (-ENAMETOOLONG for a path that does not fit sun_path). */
int unixsock_open(const char *path, struct sockaddr_un *sa);

#define UNIXSOCK_MAX_FDS	4	/* fds one unixsock_send_fds() passes at most */

/* One datagram of len bytes with nr_fds (0..UNIXSOCK_MAX_FDS) fds as SCM_RIGHTS: sendmsg()'s
 * result (errno set where -1; -1 and EINVAL for too many fds). */
ssize_t unixsock_send_fds(int fd, const void *buf, size_t len, const int *fds,
			  unsigned int nr_fds, int flags);

#endif
