// SPDX-License-Identifier: GPL-2.0
/* One-shot reads and writes of small kernel files; see include/util/file.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"

int file_read(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	ret = n < 0 ? -errno : 0;
	close(fd);
	if (!ret)
		buf[n] = '\0';
	return ret;
}

int file_write(const char *path, const char *buf, size_t len)
{
	ssize_t n;
	int fd, ret = 0;

	/* O_TRUNC as `echo v > file`: cgroupfs ignores it, a plain file (tests) takes the value. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, buf, len);
	if (n < 0)
		ret = -errno;
	else if ((size_t)n != len)
		ret = -EIO;
	if (close(fd) && !ret)
		ret = -errno;
	return ret;
}

/* mkdir -p; *created (if given) tells whether the last component was made here. */
int file_mkdir_p(const char *dir, mode_t mode, unsigned int *made)
{
	char tmp[PATH_MAX], *p;
	unsigned int n = 0;
	int ret = 0;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp)) {
		ret = -ENAMETOOLONG;
		goto out;
	}
	for (p = tmp + 1;; p++) {
		if (*p && (*p != '/' || p[-1] == '/'))
			continue;
		/* Each prefix ending at a '/' or at the end: a directory to have. */
		if (p[-1] != '/') {
			char c = *p;

			*p = '\0';
			if (!mkdir(tmp, mode)) {
				n++;
			} else if (errno != EEXIST) {
				ret = -errno;
				goto out;
			}
			*p = c;
		}
		if (!*p)
			break;
	}
out:
	if (made)
		*made = n;
	return ret;
}

void file_rmdir_made(const char *dir, unsigned int made)
{
	char tmp[PATH_MAX], *slash;
	size_t n;

	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return;
	while (made) {
		n = strlen(tmp);
		while (n > 1 && tmp[n - 1] == '/')
			tmp[--n] = '\0';
		/* Not there (file_mkdir_p() failed below what it made): go on up. */
		if (!rmdir(tmp))
			made--;
		else if (errno != ENOENT && errno != ENOTDIR && errno != ENAMETOOLONG)
			return;
		slash = strrchr(tmp, '/');
		if (!slash || slash == tmp)
			return;
		*slash = '\0';
	}
}

char file_proc_state(const char *stat)
{
	const char *p = strrchr(stat, ')');

	return p && p[1] == ' ' && p[2] ? p[2] : '?';
}
