// SPDX-License-Identifier: GPL-2.0
/*
 * Record of running VMs and their control directories, for `vsched list` and for cleaning up
 * after a VMM that was killed (kill -9 leaves its record and a stale FUSE mount behind).
 * Here in util/ so that the command line, the control directory and the libvirt hook can all
 * name a VM's directory without depending on one another.
 *
 * One file per VM name, <run dir>/.vms/<name>: "pid START\nctl DIR\n". START is the pid's
 * start time from /proc/<pid>/stat, so a recycled pid does not look like a live VMM.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/file.h"
#include "util/registry.h"

#define VMS_SUBDIR	".vms"
#define NAME_MAX_LEN	128

struct vm_record {
	pid_t pid;
	unsigned long long start;
	char ctl[PATH_MAX];
	char host[REGISTRY_HOST_LEN];	/* the VM group in the host scheduler's tree, or "" */
};

const char *registry_run_dir(void)
{
	const char *d = getenv("VSCHED_RUN_DIR");

	return d && *d ? d : REGISTRY_RUN_DIR_DFL;
}

int registry_host_dir(char *buf, size_t len, dev_t *dev)
{
	struct stat dir, run;
	int n = snprintf(buf, len, "%s/" REGISTRY_HOST_DIR, registry_run_dir());

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* A daemon gone leaves the bare directory (or none): not its tree. */
	if (stat(buf, &dir) || stat(registry_run_dir(), &run) || dir.st_dev == run.st_dev)
		return -ENOENT;
	if (dev)
		*dev = dir.st_dev;
	return 0;
}

/* A libvirt domain name works as is: anything printable but '/', not hidden. */
int registry_name_valid(const char *name)
{
	size_t i, n = strlen(name);

	if (n == 0 || n > NAME_MAX_LEN || name[0] == '.')
		return -EINVAL;
	for (i = 0; i < n; i++)
		if (name[i] == '/' || iscntrl((unsigned char)name[i]))
			return -EINVAL;
	return 0;
}

bool registry_name_reserved(const char *name)
{
	return !strcmp(name, REGISTRY_HOST_DIR) || !strcmp(name, REGISTRY_HOST_SOCK);
}

int registry_default_dir(const char *name, char *buf, size_t len)
{
	int n;

	if (registry_name_valid(name) || registry_name_reserved(name))
		return -EINVAL;
	n = snprintf(buf, len, "%s/%s", registry_run_dir(), name);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/*
 * Start time of pid in clock ticks since boot (field 22 of /proc/pid/stat), 0 if it is gone or
 * has exited: a killed VMM its parent has not reaped yet (state Z, or X) runs no more.
 */
unsigned long long registry_pid_start(pid_t pid)
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

static int record_path(const char *name, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/" VMS_SUBDIR "/%s", registry_run_dir(), name);

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
		/* Optional: written by registry_set_host() once the VM joined. */
		if (!ret && fgets(line, sizeof(line), f) && !strncmp(line, "host ", 5)) {
			size_t n = strcspn(line + 5, "\n");

			if (n < sizeof(r->host)) {
				memcpy(r->host, line + 5, n);
				r->host[n] = '\0';
			}
		}
	}
	fclose(f);
	return ret;
}

static bool record_alive(const struct vm_record *r)
{
	return r->pid > 0 && r->start && registry_pid_start(r->pid) == r->start;
}

/* Writes r as path's record. */
static int record_write(const char *path, const struct vm_record *r)
{
	char tmp[PATH_MAX + 32];
	FILE *f;
	int ret;

	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	f = fopen(tmp, "we");
	if (!f)
		return -errno;
	fprintf(f, "pid %d %llu\nctl %s\n", (int)r->pid, r->start, r->ctl);
	if (r->host[0])
		fprintf(f, "host %s\n", r->host);
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

/* The registry's lock (an fd holding flock(LOCK_EX) on .vms/.lock, not a VM name), or -errno. */
static int registry_lock(const char *dir)
{
	char path[PATH_MAX];
	int fd, ret;

	if (snprintf(path, sizeof(path), "%s/.lock", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	return fd;
}

int registry_register(const char *name, const char *ctl_dir, char *stale, size_t stale_len)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct vm_record old;
	int lock, ret;

	if (registry_name_valid(name))
		return -EINVAL;
	if (snprintf(dir, sizeof(dir), "%s/" VMS_SUBDIR, registry_run_dir()) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	ret = file_mkdir_p(dir, 0755, NULL);
	if (ret)
		return ret;
	ret = record_path(name, path, sizeof(path));
	if (ret)
		return ret;
	/*
	 * The check and the write are one step for every VMM: of several starting under one name
	 * at once, each of which would read "no record", one wins.
	 */
	lock = registry_lock(dir);
	if (lock < 0)
		return lock;
	if (!record_read(path, &old)) {
		if (record_alive(&old) && old.pid != getpid()) {
			close(lock);
			return -EEXIST;
		}
		/* The previous VMM of this name died without cleaning up: a stale mount? */
		if (stale && old.pid != getpid())
			snprintf(stale, stale_len, "%s", old.ctl);
	}

	memset(&old, 0, sizeof(old));
	old.pid = getpid();
	old.start = registry_pid_start(getpid());
	snprintf(old.ctl, sizeof(old.ctl), "%s", ctl_dir ? ctl_dir : "");
	ret = record_write(path, &old);
	close(lock);
	return ret;
}

int registry_check_free(const char *name)
{
	char path[PATH_MAX];
	struct vm_record r;
	int ret;

	if (registry_name_valid(name))
		return -EINVAL;
	ret = record_path(name, path, sizeof(path));
	if (ret)
		return ret;
	return !record_read(path, &r) && record_alive(&r) && r.pid != getpid() ? -EEXIST : 0;
}

int registry_set_host(const char *name, const char *group)
{
	char path[PATH_MAX];
	struct vm_record r;
	int ret;

	if (registry_name_valid(name) || strlen(group) >= sizeof(r.host) || strchr(group, '\n'))
		return -EINVAL;
	ret = record_path(name, path, sizeof(path));
	if (ret)
		return ret;
	ret = record_read(path, &r);
	if (ret)
		return ret;
	if (r.pid != getpid())
		return -EPERM;
	snprintf(r.host, sizeof(r.host), "%s", group);
	return record_write(path, &r);
}

void registry_unregister(const char *name)
{
	char path[PATH_MAX];
	struct vm_record r;

	if (registry_name_valid(name) || record_path(name, path, sizeof(path)))
		return;
	/* Only our own record: a newer VMM of the same name may have replaced it. */
	if (!record_read(path, &r) && r.pid == getpid())
		unlink(path);
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int registry_list(int (*fn)(const struct registry_entry *e, void *arg), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct vm_record r;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, i;
	int ret = 0;
	DIR *d;

	if (snprintf(dir, sizeof(dir), "%s/" VMS_SUBDIR, registry_run_dir()) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		char **nn;

		if (registry_name_valid(de->d_name))
			continue;
		nn = realloc(names, (n + 1) * sizeof(*names));
		if (!nn)
			break;
		names = nn;
		names[n] = strdup(de->d_name);
		if (names[n])
			n++;
	}
	closedir(d);
	if (n)	/* qsort(NULL, 0, ...) is undefined */
		qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n && !ret; i++) {
		struct registry_entry e = { .name = names[i] };

		if (record_path(names[i], path, sizeof(path)) || record_read(path, &r))
			continue;
		e.pid = r.pid;
		e.ctl = r.ctl;
		e.host = r.host;
		e.alive = record_alive(&r);
		ret = fn(&e, arg);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}
