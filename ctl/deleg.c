// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 delegation in the control directory (cgroup-v2.rst "Delegation"). `chown U dir`
 * gives U the group: U may create and remove groups below it and write their files, and move
 * vCPUs between groups it owns, but not change the limits of the delegated group itself, which
 * belong to the parent's owner. The kernel gets there with per-inode owners set by chown and by
 * cgroup_kn_set_ugid(); vsched keeps one owner per group and derives its files' owners.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "ctl_fs.h"
#include "sched/cftype.h"
#include "sched/group.h"
#include "sched/parse.h"
#include "util/cpuset.h"
#include "vsched.h"

/* Files a delegatee gets in the delegated group itself. */
static bool file_delegatable(const char *name)
{
	return !strcmp(name, "cgroup.procs") || !strcmp(name, "cgroup.threads") ||
	       !strcmp(name, "cgroup.subtree_control") || !strcmp(name, "vsched.vcpus");
}

/* The parent group path of a group path, "" for the root. */
static void path_parent(const char *group, char *buf, size_t len)
{
	const char *slash = strrchr(group, '/');

	if (!strcmp(group, "/") || !slash)
		snprintf(buf, len, "%s", "");
	else if (slash == group)
		snprintf(buf, len, "/");
	else
		snprintf(buf, len, "%.*s", (int)(slash - group), group);
}

/*
 * The delegatable files follow their directory's owner. The others belong to root, unless the
 * parent has the same owning user: then the group was made inside a delegated subtree, and the
 * kernel (cgroup_kn_set_ugid()) gives all its files to the directory's owner.
 */
void ctl_file_owner(struct vsched *vs, const char *group, const char *name, uid_t *uid,
		    gid_t *gid)
{
	char parent[PATH_MAX];
	uid_t puid;
	gid_t pgid;

	if (file_delegatable(name))
		return;
	path_parent(group, parent, sizeof(parent));
	if (parent[0] && !vsched_owner(vs, parent, &puid, &pgid) && puid == *uid)
		return;
	*uid = 0;
	*gid = 0;
}

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
 * __cgroup_procs_write() step 5: moving a thread needs write access to cgroup.procs of the
 * common ancestor of its source and destination groups, so a delegatee cannot pull vCPUs out
 * of (or into) groups outside its subtree. Writes that would fail earlier (parse, no such
 * thread) are let through, so they get the file's own errno first, as in the kernel.
 */
int ctl_move_permitted(struct vsched *vs, const char *group, const char *name, const char *buf,
		       size_t len, uid_t uid)
{
	char copy[CFTYPE_WRITE_MAX + 1];
	struct cpuset set;
	struct group *dst;
	struct sched *s;
	unsigned int i;
	int ret = 0;

	if (!uid || len > CFTYPE_WRITE_MAX ||
	    (strcmp(name, "cgroup.threads") && strcmp(name, "cgroup.procs") &&
	     strcmp(name, "vsched.vcpus")))
		return 0;
	memcpy(copy, buf, len);
	copy[len] = '\0';

	vsched_lock(vs);
	s = vsched_sched(vs);
	dst = group_lookup(s, group);
	if (dst && moved_vcpus(s, name, copy, &set)) {
		for (i = 0; i < sched_nr_vcpus(s) && !ret; i++) {
			struct sched_vcpu *v = sched_vcpu(s, i);
			struct group *ca;

			if (!cpuset_test(&set, i) || v->group == dst)
				continue;
			ca = common_ancestor(v->group, dst);
			if (!ca || ca->uid != uid)
				ret = -EACCES;
		}
	}
	vsched_unlock(vs);
	return ret;
}
