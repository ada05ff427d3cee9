// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 delegation in the control directory (cgroup-v2.rst "Delegation"). Who may open a
 * file is the VFS's business (default_permissions, with the modes and owners attr.c keeps, as
 * kernfs does). What the VFS cannot see is the kernel's extra rule for moves,
 * __cgroup_procs_write(): moving a thread needs write access to cgroup.procs of the common
 * ancestor of its source and destination groups, so a delegatee cannot pull vCPUs out of (or
 * into) groups outside its subtree. That rule is checked here, under the tree's lock in the
 * same section as the write, so no other move can land in between.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_fs.h"
#include "sched/cftype.h"
#include "sched/group.h"
#include "sched/parse.h"
#include "util/cpuset.h"
#include "vsched.h"

#define NGROUPS_CHECKED	64

struct deleg_move {
	const char *group;	/* the destination */
	const char *name;	/* cgroup.threads, cgroup.procs or vsched.vcpus */
	char buf[CFTYPE_WRITE_MAX + 1];
	bool *may;		/* [depth]: the caller may write that ancestor's cgroup.procs */
	unsigned int nr;
};

static struct group *common_ancestor(struct group *a, struct group *b)
{
	struct group *x;

	for (; a; a = a->parent)
		for (x = b; x; x = x->parent)
			if (x == a)
				return a;
	return NULL;
}

/* The vCPUs a write of buf to name would move, as the file's own parser reads them. */
static bool moved_vcpus(struct sched *s, const char *name, char *buf, struct cpuset *set)
{
	unsigned int i, n = sched_nr_vcpus(s);
	int id;

	cpuset_clear(set);
	if (!strcmp(name, "vsched.vcpus"))
		return !cpuset_parse(buf, n, set);
	if (parse_int(parse_strstrip(buf), &id) || id <= 0)
		return false;
	if (!strcmp(name, "cgroup.threads")) {
		struct sched_vcpu *v = sched_vcpu_by_tid(s, id);

		if (v)
			cpuset_set(set, v->id);
		return v != NULL;
	}
	if (id != sched_pid(s) && !sched_vcpu_by_tid(s, id))
		return false;
	for (i = 0; i < n && i < CPUSET_MAX; i++)
		cpuset_set(set, i);
	return true;
}

/*
 * Under the tree's lock, right before the write. Writes that would fail anyway (parse, no such
 * thread) are let through, so they get the file's own errno first, as in the kernel.
 */
static int deleg_check(struct sched *s, void *arg)
{
	struct deleg_move *m = arg;
	struct group *dst = group_lookup(s, m->group), *ca;
	char copy[CFTYPE_WRITE_MAX + 1];
	struct cpuset set;
	unsigned int i;

	memcpy(copy, m->buf, sizeof(copy));
	if (!dst || !moved_vcpus(s, m->name, copy, &set))
		return 0;
	for (i = 0; i < sched_nr_vcpus(s); i++) {
		struct sched_vcpu *v = sched_vcpu(s, i);

		if (!cpuset_test(&set, i) || v->group == dst)
			continue;
		ca = common_ancestor(v->group, dst);
		if (!ca || ca->depth >= m->nr || !m->may[ca->depth])
			return -EACCES;
	}
	return 0;
}

/* For each ancestor of group (the root first), whether the caller may write its cgroup.procs. */
static int deleg_may(struct ctl *c, struct deleg_move *m, uid_t uid, gid_t gid)
{
	gid_t groups[NGROUPS_CHECKED];
	int nr_groups = fuse_getgroups(NGROUPS_CHECKED, groups);
	const char *g = m->group;
	size_t i, n = strlen(g);
	char path[PATH_MAX];

	if (nr_groups < 0 || nr_groups > NGROUPS_CHECKED)
		nr_groups = 0;
	m->may = calloc(n + 2, sizeof(*m->may));
	if (!m->may)
		return -ENOMEM;
	/* "/", "/a", "/a/b": one per level, as the tree counts depth. */
	m->may[m->nr++] = ctl_may_write(c, "/", "cgroup.procs", uid, gid, groups, nr_groups);
	for (i = 1; i <= n; i++) {
		if ((i < n && g[i] != '/') || g[i - 1] == '/')
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)i, g);
		m->may[m->nr++] = ctl_may_write(c, path, "cgroup.procs", uid, gid, groups,
						nr_groups);
	}
	return 0;
}

ssize_t ctl_deleg_write(struct ctl *c, const char *group, const char *name, const char *buf,
			size_t len)
{
	struct fuse_context *ctx = fuse_get_context();
	struct deleg_move m = { .group = group, .name = name };
	ssize_t ret;

	if (!ctx->uid || len > CFTYPE_WRITE_MAX ||
	    (strcmp(name, "cgroup.threads") && strcmp(name, "cgroup.procs") &&
	     strcmp(name, "vsched.vcpus"))) {
		ret = vsched_write(c->vs, group, name, buf, len);
	} else {
		memcpy(m.buf, buf, len);
		m.buf[len] = '\0';
		ret = deleg_may(c, &m, ctx->uid, ctx->gid);
		if (!ret)
			ret = vsched_write_check(c->vs, group, name, buf, len, deleg_check, &m);
		free(m.may);
	}
	return ret;
}
