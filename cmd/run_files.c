// SPDX-License-Identifier: GPL-2.0
/*
 * The files `vsched run` names (--kernel, --initrd, --ctl-dir, or a --domain's <os>), checked
 * before anything starts: before /dev/kvm is opened, so a bad file is the error reported
 * wherever the VM would fail later. Exit status 1 (setup failed), as when the VM set-up found it.
 * Also the output files (--trace, --stats): opened early, written at exit, never truncated or
 * removed by a run that fails before the VM starts unless it made them.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/run.h"
#include "util/compiler.h"
#include "util/file.h"
#include "vmm/linux.h"

static int __printf(1, 2) run_file_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "vsched run: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return -EIO;
}

/*
 * --ctl-dir must be a directory, a stale mount of a dead VMM, or a path that can be made: the
 * missing directories are made and removed again, so the reason it cannot be names the part
 * that fails. FUSE must be there: an explicit --ctl-dir has to mount.
 */
static int run_check_ctl_dir(const char *dir)
{
	unsigned int made;
	struct stat st;
	int err, ret;

	err = stat(dir, &st) ? errno : 0;
	if (!err || err == ENOTCONN) {
		if (!err && !S_ISDIR(st.st_mode))
			return run_file_error("--ctl-dir %s: not a directory", dir);
	} else if (err != ENOENT) {
		return run_file_error("--ctl-dir %s: %s", dir, strerror(err));
	} else {
		/* Made and removed again: the mount makes it (and removes it) when the VM runs. */
		ret = file_mkdir_p(dir, 0755, &made);
		file_rmdir_made(dir, made);
		if (ret)
			return run_file_error("--ctl-dir %s: cannot be made: %s", dir,
					       strerror(-ret));
	}
	if (access("/dev/fuse", R_OK | W_OK))
		return run_file_error("--ctl-dir %s: /dev/fuse: %s (--no-ctl runs without a "
				       "control directory)", dir, strerror(errno));
	return 0;
}

/* PATH as an absolute path through its directory's real path ("" when that is missing). */
static void run_file_canon(const char *path, char *buf)
{
	char dir[PATH_MAX], real[PATH_MAX];
	const char *base = strrchr(path, '/');
	size_t rl, bl;

	snprintf(dir, sizeof(dir), "%.*s", base ? (int)(base - path) + 1 : 1, base ? path : ".");
	base = base ? base + 1 : path;
	bl = strlen(base);
	if (!realpath(dir, real) || (rl = strlen(real)) + bl + 2 > PATH_MAX) {
		*buf = '\0';
		return;
	}
	memcpy(buf, real, rl);
	buf[rl] = '/';
	memcpy(buf + rl + 1, base, bl + 1);
}

/* Whether two output paths end in one file: the same inode, or one name not made yet. */
bool run_same_file(const char *a, const char *b)
{
	char ca[PATH_MAX], cb[PATH_MAX];
	struct stat sa, sb;
	bool ea = !stat(a, &sa), eb = !stat(b, &sb);

	if (ea && eb)
		return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ea != eb)
		return false;
	run_file_canon(a, ca);
	run_file_canon(b, cb);
	return *ca && !strcmp(ca, cb);
}

FILE *run_out_open(const char *path, bool *created)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666), err;
	FILE *f;

	*created = fd >= 0;
	if (fd < 0 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	if (!f) {
		err = errno;
		close(fd);
		if (*created)
			unlink(path);
		errno = err;
	}
	return f;
}

int run_out_begin(FILE *f)
{
	struct stat st;

	if (fflush(f) || fstat(fileno(f), &st))
		return -errno;
	if (S_ISREG(st.st_mode) && ftruncate(fileno(f), 0))
		return -errno;
	return 0;
}

int run_check_files(struct run_cfg *cfg)
{
	if (cfg->kernel.kernel && linux_check(&cfg->kernel)) {
		fprintf(stderr, "vsched run: %s\n", cfg->kernel.diag.msg);
		return -EIO;
	}
	if (cfg->ctl_dir)
		return run_check_ctl_dir(cfg->ctl_dir);
	return 0;
}
