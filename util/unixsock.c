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
