// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup v2 delegation in the control directory (cgroup-v2.rst "Delegation"). Who may open a
 * file is the VFS's business (default_permissions, with the modes and owners attr.c keeps, as
 * kernfs does). What the VFS cannot see is the kernel's extra rule for moves,
 * __cgroup_procs_write(): moving a thread needs write access to cgroup.procs of the common
 * ancestor of its source and destination groups, so a delegatee cannot pull vCPUs out of (or
 * into) groups outside its subtree. The permissions are looked up here; the tree's part (which
 * vCPUs move, from where) is vsched_write_move()'s, under the tree's lock in the same section as
 * the write, so no other move can land in between; the check itself is vsched_move_check_perm(),
 * which a VMM also applies to a move forwarded from the host scheduler's directory with the
 * permissions looked up there (ctl_forward()). Nothing here parses the write. The permissions
 * are the opener's, as the kernel checks them (struct ctl_cred).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl_fs.h"
#include "vsched.h"

void ctl_cred_caller(struct ctl_cred *cr)
{
	struct fuse_context *ctx = fuse_get_context();

	cr->uid = ctx->uid;
	cr->gid = ctx->gid;
	cr->nr_groups = ctx->uid ? fuse_getgroups(CTL_NGROUPS, cr->groups) : 0;
	if (cr->nr_groups < 0 || cr->nr_groups > CTL_NGROUPS)
		cr->nr_groups = 0;
}

/* For each ancestor of group (the root first), whether cr may write its cgroup.procs. */
int ctl_deleg_perm(struct ctl *c, const char *group, const struct ctl_cred *cr,
		   struct vsched_move_perm *p)
{
	size_t i, n = strlen(group);
	char path[PATH_MAX];
	bool *may;

	may = calloc(n + 2, sizeof(*may));
	if (!may)
		return -ENOMEM;
	p->may = may;
	p->nr = 0;
	/* "/", "/a", "/a/b": one per level, as the tree counts depth. */
	may[p->nr++] = ctl_may_write(c, "/", "cgroup.procs", cr->uid, cr->gid, cr->groups,
				     cr->nr_groups);
	for (i = 1; i <= n; i++) {
		if ((i < n && group[i] != '/') || group[i - 1] == '/')
			continue;
		snprintf(path, sizeof(path), "%.*s", (int)i, group);
		may[p->nr++] = ctl_may_write(c, path, "cgroup.procs", cr->uid, cr->gid, cr->groups,
					     cr->nr_groups);
	}
	return 0;
}

ssize_t ctl_deleg_write(struct ctl *c, const char *group, const char *name, const char *buf,
			size_t len, const struct ctl_cred *cr)
{
	struct vsched_move_perm p = { NULL, 0 };
	ssize_t ret;

	if (!cr->uid || !vsched_file_moves_vcpus(name))
		return vsched_write(c->vs, group, name, buf, len);
	/* The permissions first: attr.c's lock is taken before the tree's, never inside it. */
	ret = ctl_deleg_perm(c, group, cr, &p);
	if (!ret)
		ret = vsched_write_move(c->vs, group, name, buf, len, vsched_move_check_perm, &p);
	free((void *)p.may);
	return ret;
}
