// SPDX-License-Identifier: GPL-2.0
/*
 * Record of running VMs and their control directories, for `vsched list` and for cleaning up
 * after a VMM that was killed (kill -9 leaves its record and a stale FUSE mount behind).
 *
 * One file per VM name, <run dir>/.vms/<name>: "pid START\nctl DIR\n". START is the pid's
 * start time from /proc/<pid>/stat, so a recycled pid does not look like a live VMM.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>

#include "ctl/ctl.h"
#include "ctl_fs.h"
#include "util/file.h"

#define VMS_SUBDIR	".vms"
#define NAME_MAX_LEN	128

struct vm_record {
	pid_t pid;
	unsigned long long start;
	char ctl[PATH_MAX];
};

const char *ctl_run_dir(void)
{
	const char *d = getenv("VSCHED_RUN_DIR");

	return d && *d ? d : CTL_RUN_DIR_DFL;
}

/* A libvirt domain name works as is: anything printable but '/', not hidden. */
int ctl_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > NAME_MAX_LEN || name[0] == '.')
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (name[i] == '/' || iscntrl((unsigned char)name[i]))
			return -EINVAL;
	return 0;
}

int ctl_default_dir(const char *name, char *buf, size_t len)
{
	int n;

	if (ctl_name_valid(name))
		return -EINVAL;
	n = snprintf(buf, len, "%s/%s", ctl_run_dir(), name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Start time of pid in clock ticks since boot (field 22 of /proc/pid/stat), 0 if it is gone or
 * has exited: a killed VMM its parent has not reaped yet (state Z, or X) runs no more.
 */
static unsigned long long pid_start_time(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long start = 0;
	int field;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (file_read(path, buf, sizeof(buf)))
		return 0;
	/* The command name may hold spaces and parentheses: fields start after the last ')'. */
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X')
		return 0;
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p)
		start = strtoull(p + 1, NULL, 10);
	return start;
}

/* mkdir -p; *created (if given) tells whether the last component was made here. */
int ctl_mkdir_p(const char *dir, mode_t mode, bool *created)
{
	char tmp[PATH_MAX], *p;

	if (created)
		*created = false;
	if (snprintf(tmp, sizeof(tmp), "%s", dir) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	for (p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(tmp, mode) && errno != EEXIST)
			return -errno;
		*p = '/';
	}
	if (!mkdir(tmp, mode)) {
		if (created)
			*created = true;
	} else if (errno != EEXIST) {
		return -errno;
	}
	return 0;
}

static int record_path(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/" VMS_SUBDIR "/%s", ctl_run_dir(), name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * A record is a regular file: anything else in the registry (a FIFO would block open() and
 * `vsched list` with it, a device or a symlink) is not one, and is not opened for reading.
 */
static int record_read(const char *path, struct vm_record *r)
{
	char line[PATH_MAX + 16];
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC), pid, ret = -EINVAL;
	struct stat st;
	FILE *f;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	memset(r, 0, sizeof(*r));
	if (fgets(line, sizeof(line), f) && sscanf(line, "pid %d %llu", &pid, &r->start) == 2) {
		r->pid = pid;
		if (fgets(line, sizeof(line), f) && !strncmp(line, "ctl ", 4)) {
			size_t n = strcspn(line + 4, "\n");

			if (n < sizeof(r->ctl)) {
				memcpy(r->ctl, line + 4, n);
				r->ctl[n] = '\0';
				ret = 0;
			}
		}
	}
	fclose(f);
	return ret;
}

static bool record_alive(const struct vm_record *r)
{
	return r->pid > 0 && r->start && pid_start_time(r->pid) == r->start;
}

int ctl_register(const char *name, const char *ctl_dir)
{
	char dir[PATH_MAX], path[PATH_MAX], tmp[PATH_MAX + 32];
	struct vm_record old;
	unsigned long long start;
	FILE *f;
	int ret;

	if (ctl_name_valid(name))
		return -EINVAL;
	if (snprintf(dir, sizeof(dir), "%s/" VMS_SUBDIR, ctl_run_dir()) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	ret = ctl_mkdir_p(dir, 0755, NULL);
	if (ret)
		return ret;
	ret = record_path(name, path, sizeof(path));
	if (ret)
		return ret;

	if (!record_read(path, &old)) {
		if (record_alive(&old) && old.pid != getpid())
			return -EEXIST;
		/* The previous VMM of this name died without cleaning up. */
		if (old.ctl[0] && ctl_dir_is_stale(old.ctl))
			ctl_dir_clean(old.ctl);
	}

	start = pid_start_time(getpid());
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "pid %d %llu\nctl %s\n", (int)getpid(), start, ctl_dir ? ctl_dir : "");
	if (fclose(f)) {
		ret = -errno;
		unlink(tmp);
		return ret;
	}
	/* rename() is atomic: a concurrent `vsched list` sees the old record or the new one. */
	if (rename(tmp, path)) {
		ret = -errno;
		unlink(tmp);
		return ret;
	}
	return 0;
}

void ctl_unregister(const char *name)
{
	char path[PATH_MAX];
	struct vm_record r;

	if (ctl_name_valid(name) || record_path(name, path, sizeof(path)))
		return;
	/* Only our own record: a newer VMM of the same name may have replaced it. */
	if (!record_read(path, &r) && r.pid == getpid())
		unlink(path);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int cmd_list(int argc, char **argv)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct vm_record r;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	bool all = false;
	DIR *d;

	for (i = 1; i < (size_t)argc; i++) {
		if (!strcmp(argv[i], "-a") || !strcmp(argv[i], "--all")) {
			all = true;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: vsched list [--all]\n"
			       "Lists running VMs with their pid and control directory.\n"
			       "--all also lists records left by VMMs that died (stale).\n");
			return 0;
		} else {
			fprintf(stderr, "vsched list: unknown argument '%s'\n", argv[i]);
			return 2;
		}
	}

	snprintf(dir, sizeof(dir), "%s/" VMS_SUBDIR, ctl_run_dir());
	d = opendir(dir);
	if (!d && errno != ENOENT) {
		fprintf(stderr, "vsched list: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while (d && (de = readdir(d))) {
		char **nn;

		if (ctl_name_valid(de->d_name))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	if (d)
		closedir(d);
	qsort(names, n, sizeof(*names), name_cmp);

	printf("%-20s %-8s %s\n", "NAME", "PID", "CONTROL-DIR");
	for (i = 0; i < n; i++) {
		bool alive;

		if (record_path(names[i], path, sizeof(path)) || record_read(path, &r))
			continue;
		alive = record_alive(&r);
		if (!alive && !all)
			continue;
		printf("%-20s %-8d %s%s\n", names[i], (int)r.pid, r.ctl[0] ? r.ctl : "-",
		       alive ? "" : " (stale)");
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return 0;
}

int ctl_registry_each(ctl_vm_fn fn, void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent **des;
	struct vm_record r;
	int i, n, ret = 0;

	snprintf(dir, sizeof(dir), "%s/" VMS_SUBDIR, ctl_run_dir());
	n = scandir(dir, &des, NULL, alphasort);
	if (n < 0)
		return errno == ENOENT ? 0 : -errno;
	for (i = 0; i < n; i++) {
		const char *name = des[i]->d_name;

		if (!ret && !ctl_name_valid(name) && !record_path(name, path, sizeof(path)) &&
		    !record_read(path, &r) && record_alive(&r))
			ret = fn(name, r.pid, r.ctl, arg);
		free(des[i]);
	}
	free(des);
	return ret;
}

int ctl_vm_start(struct vsched *vs, const char *name, const char *dir, struct ctl **out)
{
	char dflt[PATH_MAX];
	int ret;

	*out = NULL;
	if (!dir) {
		ret = ctl_default_dir(name, dflt, sizeof(dflt));
		if (ret)
			return ret;
		dir = dflt;
	}
	ret = ctl_register(name, dir);
	if (ret || !*dir)
		return ret;
	ret = ctl_mount(vs, dir, out);
	if (ret) {
		ctl_unregister(name);
		return ret;
	}
	/* Record the canonical path the mount ended up on (the first record stays otherwise). */
	ctl_register(name, ctl_dir(*out));
	return 0;
}

void ctl_vm_stop(const char *name, struct ctl *c)
{
	char dflt[PATH_MAX], canon[PATH_MAX];
	bool is_dflt;

	/* The default directory is vsched's own, even if a dead VMM of this name made it. */
	is_dflt = c && !ctl_default_dir(name, dflt, sizeof(dflt)) && realpath(dflt, canon) &&
		  !strcmp(canon, ctl_dir(c));
	ctl_unmount(c);
	if (is_dflt)
		rmdir(dflt);
	ctl_unregister(name);
}
