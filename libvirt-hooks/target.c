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

#include "libvirt/target.h"
#include "util/file.h"

static bool file_exists(const char *dir, const char *name)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

static pid_t target_single_proc(const char *root)
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

int dir_target_open(struct dir_target *t, const char *root, pid_t pid, bool dry_run, FILE *out)
{
	struct stat st;

	memset(t, 0, sizeof(*t));
	if (stat(root, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (strlen(root) >= sizeof(t->root) - PLAN_PATH_MAX - 64)
		return -ENAMETOOLONG;
	snprintf(t->root, sizeof(t->root), "%s", root);
	t->flavor = file_exists(root, "cpu.shares") || file_exists(root, "tasks") ? FS_V1 : FS_V2;
	t->pid = pid ? pid : target_single_proc(root);
	t->dry_run = dry_run;
	t->out = out ? out : stdout;
	return 0;
}

static int target_path(const struct dir_target *t, const char *path, const char *file,
		       char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s%s%s%s%s", t->root, path[0] ? "/" : "", path,
			 file ? "/" : "", file ? file : "");

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
	if (mkdir(p, 0755) && errno != EEXIST)
		return -errno;
	return 0;
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
		/* Say now what a real run would warn about: the VM's group lacks the file. */
		if (!path[0] && access(p, F_OK))
			return -ENOENT;
		fprintf(t->out, "write %s %s\n", p, value);
		return 0;
	}
	return write_file(p, value);
}

static int thread_name(pid_t pid, const char *tid, char *buf, size_t len)
{
	char p[320];
	size_t n;
	int ret;

	snprintf(p, sizeof(p), "/proc/%d/task/%.255s/comm", (int)pid, tid);
	ret = file_read(p, buf, len);
	if (ret)
		return ret;
	n = strlen(buf);
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

int vcpu_thread_find(pid_t pid, unsigned int vcpu, pid_t *tid)
{
	char p[64], name[32], want_vsched[32], want_kvm[32], want_tcg[32];
	struct dirent *e;
	DIR *dir;
	int ret = -ESRCH;

	if (pid <= 0)
		return -ESRCH;
	snprintf(want_vsched, sizeof(want_vsched), "vcpu%u", vcpu);
	/* QEMU names vCPU threads after its accelerator: KVM, or TCG for type 'qemu'. */
	snprintf(want_kvm, sizeof(want_kvm), "CPU %u/KVM", vcpu);
	snprintf(want_tcg, sizeof(want_tcg), "CPU %u/TCG", vcpu);
	snprintf(p, sizeof(p), "/proc/%d/task", (int)pid);
	dir = opendir(p);
	if (!dir)
		return -errno;
	/* By name, not position: KVM's own kernel threads can sit in a vCPU's group too. */
	while ((e = readdir(dir))) {
		if (e->d_name[0] == '.' || thread_name(pid, e->d_name, name, sizeof(name)))
			continue;
		if (!strcmp(name, want_vsched) || !strcmp(name, want_kvm) ||
		    !strcmp(name, want_tcg)) {
			*tid = (pid_t)atoi(e->d_name);
			ret = 0;
			break;
		}
	}
	closedir(dir);
	return ret;
}

static int target_move(void *ctx, const char *path, unsigned int vcpu)
{
	struct dir_target *t = ctx;
	const char *file = t->flavor == FS_V1 ? "tasks" : "cgroup.threads";
	char p[PATH_MAX], val[24];
	pid_t tid;
	int ret;

	ret = vcpu_thread_find(t->pid, vcpu, &tid);
	if (ret && t->flavor == FS_V2) {
		/* No thread to name (yet): vsched's extension file takes vCPU indices. */
		if (target_path(t, path, "vsched.vcpus", p, sizeof(p)))
			return -ENAMETOOLONG;
		snprintf(val, sizeof(val), "%u", vcpu);
		if (t->dry_run) {
			fprintf(t->out, "write %s %s\n", p, val);
			return 0;
		}
		if (!access(p, F_OK))
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

bool dir_target_has_cap(const struct dir_target *t)
{
	return file_exists(t->root, t->flavor == FS_V1 ? "cpu.cfs_quota_us" : "cpu.max");
}

void dir_target_backend(struct dir_target *t, struct fs_backend *be)
{
	be->mkdir = target_mkdir;
	be->write = target_write;
	be->move = target_move;
	be->ctx = t;
}
