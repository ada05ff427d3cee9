// SPDX-License-Identifier: GPL-2.0
/*
 * The files `vsched run` names (--kernel, --initrd, --ctl-dir, or a --domain's <os>), checked
 * before anything starts: before /dev/kvm is opened, so a bad file is the error reported
 * wherever the VM would fail later. Exit status 1 (setup failed), as when the VM set-up found it.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/run.h"
#include "util/compiler.h"
#include "util/file.h"
#include "vmm/linux.h"

/* Drops trailing slashes ("a/b/" -> "a/b"), keeping a lone "/". */
static void run_dir_trim(char *path)
{
	size_t n = strlen(path);

	while (n > 1 && path[n - 1] == '/')
		path[--n] = '\0';
}

/* Cuts the last component off path ("a/b" -> "a", "/a" -> "/", "a" -> "."). */
static void run_dir_up(char *path)
{
	char *slash = strrchr(path, '/');

	if (!slash)
		strcpy(path, ".");
	else
		slash[slash == path] = '\0';
	run_dir_trim(path);
}

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
	char top[PATH_MAX], p[PATH_MAX];
	struct stat st;
	int err, ret;

	err = stat(dir, &st) ? errno : 0;
	if (!err || err == ENOTCONN) {
		if (!err && !S_ISDIR(st.st_mode))
			return run_file_error("--ctl-dir %s: not a directory", dir);
	} else if (err != ENOENT) {
		return run_file_error("--ctl-dir %s: %s", dir, strerror(err));
	} else if (snprintf(top, sizeof(top), "%s", dir) >= (int)sizeof(top)) {
		return run_file_error("--ctl-dir %s: %s", dir, strerror(ENAMETOOLONG));
	} else {
		/* top: the nearest part that exists; what is below it is made, then removed. */
		run_dir_trim(top);
		while (stat(top, &st) && errno == ENOENT)
			run_dir_up(top);
		ret = file_mkdir_p(dir, 0755, NULL);
		snprintf(p, sizeof(p), "%s", dir);
		/* Everything below top was missing: remove what of it was made. */
		for (run_dir_trim(p); strcmp(p, top); run_dir_up(p))
			rmdir(p);
		if (ret)
			return run_file_error("--ctl-dir %s: cannot be made: %s", dir,
					       strerror(-ret));
	}
	if (access("/dev/fuse", R_OK | W_OK))
		return run_file_error("--ctl-dir %s: /dev/fuse: %s (--no-ctl runs without a "
				       "control directory)", dir, strerror(errno));
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
