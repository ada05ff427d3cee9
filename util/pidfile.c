// SPDX-License-Identifier: GPL-2.0
/*
 * Pid file: written into a temporary file beside it, which is locked first; link() then puts it
 * in place exclusively (O_EXCL's rule, without an empty file in between). A file already there
 * is replaced (rename()) only by whoever holds its lock and finds it still at path, so that of
 * two daemons racing over a stale file one wins and the other sees the winner's lock.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/pidfile.h"

#define PIDFILE_TRIES	16	/* the file at path changed under us this often: give up */

static int pidfile_fd = -1;	/* the held file: its lock is the claim */

/* Whether fd is the file at path now. */
static int pidfile_same(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a))
		return -errno;
	if (lstat(path, &b))
		return errno == ENOENT ? 0 : -errno;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* The file at path taken over from a dead holder, or -EEXIST, or -EAGAIN to start again. */
static int pidfile_replace(const char *tmp, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	int ret;

	if (fd < 0)
		return errno == ENOENT ? -EAGAIN : -errno;
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		ret = errno == EWOULDBLOCK ? -EEXIST : -errno;
		close(fd);
		return ret;
	}
	ret = pidfile_same(fd, path);
	if (ret == 1)
		ret = rename(tmp, path) ? -errno : 0;
	else if (ret == 0)
		ret = -EAGAIN;
	close(fd);
	return ret;
}

int pidfile_write(const char *path)
{
	char tmp[PATH_MAX], buf[32];
	int fd, len, i, ret;

	if (pidfile_fd >= 0)
		return -EALREADY;
	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	errno = 0;
	if (fchmod(fd, 0644) || flock(fd, LOCK_EX | LOCK_NB) || write(fd, buf, len) != len) {
		ret = errno ? -errno : -EIO;
		goto fail;
	}
	for (i = 0, ret = -EAGAIN; i < PIDFILE_TRIES && ret == -EAGAIN; i++) {
		if (!link(tmp, path)) {
			unlink(tmp);	/* a leftover name would be harmless */
			ret = 0;
		}
		else if (errno == EEXIST)
			ret = pidfile_replace(tmp, path);
		else
			ret = -errno;
	}
	if (ret)
		goto fail;
	pidfile_fd = fd;
	return 0;
fail:
	unlink(tmp);
	close(fd);
	return ret;
}

void pidfile_remove(const char *path)
{
	if (pidfile_fd < 0)
		return;
	if (pidfile_same(pidfile_fd, path) == 1)
		unlink(path);
	close(pidfile_fd);
	pidfile_fd = -1;
}
