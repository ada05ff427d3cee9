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

#endif
