// SPDX-License-Identifier: GPL-2.0
/* Executes rendered plans against a directory: mkdir(2), write(2), thread moves. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvirt/qemu.h"
#include "libvirt/target.h"
#include "libvirt/vcputhread.h"
#include "util/cpuset.h"
#include "util/file.h"

static bool file_exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

pid_t dir_single_proc(const char *root)
{
	char p[PATH_MAX], line[64];
	pid_t pid = 0;
	FILE *f;
	int n = 0;

	snprintf(p, sizeof(p), "%s/cgroup.procs", root);
	f = fopen(p, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (n++ == 0)
			pid = (pid_t)atoi(line);
	fclose(f);
	return n == 1 ? pid : 0;
}

int dir_target_open(struct dir_target *t, const char *root, const char *domain, pid_t pid,
		    bool dry_run, FILE *out)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (stat(root, &st)) {
		/* A dry run may show the plan of a vsched VM that does not run (yet). */
		if (errno != ENOENT || !dry_run)
			return -errno;
		t->missing = true;
	} else if (!S_ISDIR(st.st_mode)) {
		return -ENOTDIR;
	}
	if (strlen(root) >= sizeof(t->root) - PLAN_PATH_MAX - 64)
		return -ENAMETOOLONG;
	snprintf(t->root, sizeof(t->root), "%s", root);
	t->flavor = file_exists(root, "cpu.shares") || file_exists(root, "tasks") ? FS_V1 : FS_V2;
	t->is_vsched = t->missing || file_exists(root, "vsched.vcpus");
	t->domain = domain;
	t->pid = pid ? pid : dir_single_proc(root);
	t->dry_run = dry_run;
	t->out = out ? out : stdout;
	return 0;
}

static int target_vcpus_below(const char *dir, unsigned int *nr)
{
	char p[PATH_MAX], buf[4096];
	struct cpuset set;
	struct dirent *e;
	struct stat st;
	unsigned int i;
	DIR *dp;
	int ret = 0;

	snprintf(p, sizeof(p), "%s/vsched.vcpus", dir);
	if (!file_read(p, buf, sizeof(buf)) && !cpuset_parse(buf, CPUSET_MAX, &set))
		for (i = *nr; i < CPUSET_MAX; i++)
			if (cpuset_test(&set, i))
				*nr = i + 1;
	dp = opendir(dir);
	if (!dp)
		return -errno;
	while (!ret && (e = readdir(dp))) {
		if (e->d_name[0] == '.' ||
		    snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			ret = target_vcpus_below(p, nr);
	}
	closedir(dp);
	return ret;
}

int dir_target_nr_vcpus(const struct dir_target *t, unsigned int *nr)
{
	*nr = 0;
	return target_vcpus_below(t->root, nr);
}

/* root/path/file; a path starting with '/' (from target_locate()) is taken as it is. */
static int target_path(const struct dir_target *t, const char *path, const char *file,
		       char *buf, size_t len)
{
	bool abs = path[0] == '/';
	int n = snprintf(buf, len, "%s%s%s%s%s", abs ? "" : t->root, path[0] && !abs ? "/" : "",
			 path, file ? "/" : "", file ? file : "");

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

static int target_mkdir(void *ctx, const char *path)
{
	struct dir_target *t = ctx;
	char p[PATH_MAX];

	if (target_path(t, path, NULL, p, sizeof(p)))
		return -ENAMETOOLONG;
	if (t->dry_run) {
		fprintf(t->out, "mkdir %s\n", p);
		return 0;
	}
	if (!mkdir(p, 0755))
		return 1;
	return errno == EEXIST ? 0 : -errno;
}

static int target_rmdir(void *ctx, const char *path)
{
	char p[PATH_MAX];

	if (target_path(ctx, path, NULL, p, sizeof(p)))
		return -ENAMETOOLONG;
	return rmdir(p) ? -errno : 0;
}

static int target_read(void *ctx, const char *path, const char *file, char *buf, size_t len)
{
	char p[PATH_MAX];
	int ret;

	if (target_path(ctx, path, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	ret = file_read(p, buf, len);
	if (!ret)
		buf[strcspn(buf, "\n")] = '\0';
	return ret;
}

static int write_file(const char *p, const char *value)
{
	return file_write(p, value, strlen(value));
}

static int target_write(void *ctx, const char *path, const char *file, const char *value)
{
	struct dir_target *t = ctx;
	char p[PATH_MAX];

	if (target_path(t, path, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	if (t->dry_run) {
		/*
		 * Say now what a real run would warn about: the VM's group lacks the file (a
		 * vsched VM's root, like the kernel's cgroup root, has no cpu.* files).
		 */
		if (!path[0] && (t->missing ? !strncmp(file, "cpu.", 4) : access(p, F_OK) != 0))
			return -ENOENT;
		fprintf(t->out, "write %s %s\n", p, value);
		return 0;
	}
	return write_file(p, value);
}

static int target_move(void *ctx, const char *path, unsigned int vcpu)
{
	struct dir_target *t = ctx;
	const char *file = t->flavor == FS_V1 ? "tasks" : "cgroup.threads";
	char p[PATH_MAX], val[24];
	pid_t tid;
	int ret;

	diag_init(&t->why, NULL);
	ret = vcpu_thread_find(t->domain, t->pid, vcpu, &tid, &t->why);
	if (ret && t->is_vsched) {
		/* No thread to name (yet): vsched's extension file takes vCPU indices. */
		if (target_path(t, path, "vsched.vcpus", p, sizeof(p)))
			return -ENAMETOOLONG;
		snprintf(val, sizeof(val), "%u", vcpu);
		diag_init(&t->why, NULL);
		if (t->dry_run) {
			fprintf(t->out, "write %s %s\n", p, val);
			return 0;
		}
		return write_file(p, val);
	}
	if (ret && t->dry_run) {
		if (target_path(t, path, file, p, sizeof(p)))
			return -ENAMETOOLONG;
		fprintf(t->out, "write %s <thread of vCPU %u>\n", p, vcpu);
		return 0;
	}
	if (ret)
		return ret;
	if (target_path(t, path, file, p, sizeof(p)))
		return -ENAMETOOLONG;
	snprintf(val, sizeof(val), "%d", (int)tid);
	if (t->dry_run) {
		fprintf(t->out, "write %s %s\n", p, val);
		return 0;
	}
	return write_file(p, val);
}

/* The group of a vsched control directory whose vsched.vcpus holds vcpu (depth first). */
static int target_find_index(struct dir_target *t, const char *path, unsigned int vcpu,
			     char *out, size_t len)
{
	char dir[PATH_MAX], list[4096], sub[PATH_MAX];
	struct cpuset set;
	struct dirent *e;
	DIR *d;
	int ret = -ESRCH;

	if (!target_read(t, path, "vsched.vcpus", list, sizeof(list)) &&
	    !cpuset_parse(list, CPUSET_MAX, &set) && cpuset_test(&set, vcpu)) {
		snprintf(out, len, "%s", path);
		return 0;
	}
	if (target_path(t, path, NULL, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	d = opendir(dir);
	if (!d)
		return -errno;
	while (ret == -ESRCH && (e = readdir(d))) {
		struct stat st;

		/* The control directory fills no d_type: stat each entry. */
		if (e->d_name[0] == '.' || fstatat(dirfd(d), e->d_name, &st, 0) ||
		    !S_ISDIR(st.st_mode))
			continue;
		if (snprintf(sub, sizeof(sub), "%s%s%s", path, path[0] ? "/" : "", e->d_name) >=
		    (int)sizeof(sub))
			continue;
		ret = target_find_index(t, sub, vcpu, out, len);
	}
	closedir(d);
	return ret;
}

/* Where vCPU vcpu is now, relative to the root; -ENOENT if outside it (no undo then). */
static int target_locate(void *ctx, unsigned int vcpu, char *out, size_t len)
{
	struct dir_target *t = ctx;
	char dir[PATH_MAX];
	size_t n = strlen(t->root);
	pid_t tid;
	int ret;

	if (t->is_vsched)
		return target_find_index(t, "", vcpu, out, len);
	ret = vcpu_thread_find(t->domain, t->pid, vcpu, &tid, NULL);
	if (!ret)
		ret = qemu_task_cgroup(t->pid, tid, dir, sizeof(dir));
	if (ret)
		return ret;
	if (strncmp(dir, t->root, n) || (dir[n] && dir[n] != '/'))
		return -ENOENT;
	snprintf(out, len, "%s", dir[n] ? dir + n + 1 : "");
	return 0;
}

static const char *target_why(void *ctx)
{
	struct dir_target *t = ctx;

	return diag_failed(&t->why) ? t->why.msg : NULL;
}

bool dir_target_has_cap(const struct dir_target *t)
{
	return file_exists(t->root, t->flavor == FS_V1 ? "cpu.cfs_quota_us" : "cpu.max");
}

void dir_target_backend(struct dir_target *t, struct fs_backend *be)
{
	*be = (struct fs_backend){
		.mkdir = target_mkdir,
		.rmdir = target_rmdir,
		.read = target_read,
		.write = target_write,
		.move = target_move,
		.locate = target_locate,
		.why = target_why,
		.dry_run = t->dry_run,
		.ctx = t,
	};
}
