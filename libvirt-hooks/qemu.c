// SPDX-License-Identifier: GPL-2.0
/* The cgroup and process libvirt gave a running QEMU domain. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/qemu.h"

int qemu_domain_pid(const char *name, pid_t *pid)
{
	const char *dir = getenv("VSCHED_LIBVIRT_RUNDIR");
	char p[PATH_MAX];
	long v;
	FILE *f;
	int ret = -EINVAL;

	snprintf(p, sizeof(p), "%s/%s.pid", dir && *dir ? dir : QEMU_RUNDIR_DFL, name);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	if (fscanf(f, "%ld", &v) == 1 && v > 0 && v <= INT_MAX) {
		*pid = (pid_t)v;
		ret = 0;
	}
	fclose(f);
	return ret;
}

static bool has_opt(const char *list, const char *opt)
{
	size_t n = strlen(opt);
	const char *p = list;

	while ((p = strstr(p, opt))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
		p += n;
	}
	return false;
}

/* Mount point of the v1 hierarchy with the cpu controller (v1) or of cgroup2 (v1 false). */
static int cgroup_mount(bool v1, char *out, size_t len)
{
	char line[4096], mnt[PATH_MAX], fstype[64], super[1024];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s %*s %1023s", fstype, super) != 2)
			continue;
		if (v1 ? strcmp(fstype, "cgroup") || !has_opt(super, "cpu")
		       : strcmp(fstype, "cgroup2"))
			continue;
		snprintf(out, len, "%s", mnt);
		ret = 0;
		break;
	}
	fclose(f);
	return ret;
}

/* libvirt's thread groups; the domain's group is their parent. */
static bool is_thread_group(const char *name)
{
	if (!strcmp(name, "emulator"))
		return true;
	if (!strncmp(name, "vcpu", 4) && name[4] && strspn(name + 4, "0123456789") ==
	    strlen(name + 4))
		return true;
	return !strncmp(name, "iothread", 8) && name[8] &&
	       strspn(name + 8, "0123456789") == strlen(name + 8);
}

int qemu_task_cgroup(pid_t pid, pid_t tid, char *dir, size_t len)
{
	char p[96], line[PATH_MAX + 64], v1path[PATH_MAX] = "", v2path[PATH_MAX] = "";
	char mnt[PATH_MAX], *rel;
	bool v1;
	FILE *f;
	int ret, n;

	if (tid)
		snprintf(p, sizeof(p), "/proc/%d/task/%d/cgroup", (int)pid, (int)tid);
	else
		snprintf(p, sizeof(p), "/proc/%d/cgroup", (int)pid);
	f = fopen(p, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

		if (!c2)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		c2[1 + strcspn(c2 + 1, "\n")] = '\0';
		if (has_opt(c1 + 1, "cpu"))
			snprintf(v1path, sizeof(v1path), "%s", c2 + 1);
		else if (!strcmp(line, "0") && c1[1] == '\0')
			snprintf(v2path, sizeof(v2path), "%s", c2 + 1);
	}
	fclose(f);
	/* The cpu controller is on v1 if some v1 hierarchy has it, else on the v2 tree. */
	v1 = v1path[0] != '\0';
	rel = v1 ? v1path : v2path;
	if (!rel[0])
		return -ENOENT;
	ret = cgroup_mount(v1, mnt, sizeof(mnt));
	if (ret)
		return ret;
	n = snprintf(dir, len, "%s%s", mnt, strcmp(rel, "/") ? rel : "");
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

int qemu_domain_cgroup(pid_t pid, char *dir, size_t len)
{
	char *slash;
	int ret = qemu_task_cgroup(pid, 0, dir, len);

	if (ret)
		return ret;
	/* QEMU's main thread sits in libvirt's emulator group: the domain's is its parent. */
	slash = strrchr(dir, '/');
	if (slash && is_thread_group(slash + 1))
		*slash = '\0';
	return 0;
}

enum fs_flavor qemu_host_flavor(void)
{
	char mnt[PATH_MAX];

	return cgroup_mount(true, mnt, sizeof(mnt)) ? FS_V2 : FS_V1;
}
