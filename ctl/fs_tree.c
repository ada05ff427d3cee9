// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE operations on the control directory's tree: mkdir and rmdir of groups (forwarded to the
 * part of the tree's owner, or made here with attr.c's bookkeeping), chown, chmod, utimens and
 * statfs as kernfs answers them, and the errnos of the operations kernfs does not implement.
 * The operations table is fs.c's.
 */
#include "ctl_fs.h"

#include <errno.h>
#include <string.h>
#include <sys/statvfs.h>

#include "vsched.h"
#include "util/compiler.h"

int ctl_fs_mkdir(const char *path, mode_t mode)
{
	struct fuse_context *ctx = fuse_get_context();
	int ret = ctl_forward(ctl_self(), CTL_FWD_MKDIR, path, NULL, NULL, 0, NULL);

	if (!ret)
		ctl_attr_forwarded(ctl_self(), path, true, ctx->uid, ctx->gid, mode);
	return ret <= 0 ? ret : ctl_attr_mkdir(ctl_self(), path, ctx->uid, ctx->gid, mode);
}

int ctl_fs_rmdir(const char *path)
{
	int ret = ctl_forward(ctl_self(), CTL_FWD_RMDIR, path, NULL, NULL, 0, NULL);

	if (!ret)
		ctl_attr_forwarded(ctl_self(), path, false, 0, 0, 0);
	return ret <= 0 ? ret : ctl_attr_rmdir(ctl_self(), path);
}

/*
 * chown and chmod as on kernfs: any node takes them (the VFS has checked CAP_CHOWN, the
 * owner or CAP_FOWNER). A group's owner lives in the tree (vsched_owner()); the rest in attr.c.
 */
int ctl_fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi)
{
	struct ctl *c = ctl_self();
	struct node n;
	int ret;

	ret = ctl_op_resolve(c, path, fi, &n);
	if (ret)
		return ret;
	if (uid == (uid_t)-1)
		uid = n.uid;
	if (gid == (gid_t)-1)
		gid = n.gid;
	if (n.kind == NODE_DIR)
		return vsched_chown(c->vs, n.group, uid, gid);
	return ctl_attr_chown_file(c, &n, uid, gid);
}

int ctl_fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi)
{
	struct ctl *c = ctl_self();
	struct node n;
	int ret;

	ret = ctl_op_resolve(c, path, fi, &n);
	return ret ? ret : ctl_attr_chmod(c, &n, mode);
}

/* `touch` on a cgroupfs file succeeds; there is no timestamp to keep. */
int ctl_fs_utimens(const char *path, const struct timespec tv[2] __unused,
		   struct fuse_file_info *fi)
{
	struct node n;

	return ctl_op_resolve(ctl_self(), path, fi, &n);
}

/*
 * statfs as kernfs's simple_statfs(): page-sized blocks, NAME_MAX, no block or inode counts
 * (libfuse's default said 512-byte blocks). The type stays FUSE's: the kernel sets it.
 */
int ctl_fs_statfs(const char *path __unused, struct statvfs *sv)
{
	memset(sv, 0, sizeof(*sv));
	sv->f_bsize = 4096;
	sv->f_frsize = 4096;
	sv->f_namemax = NAME_MAX;
	return 0;
}

/* What the VFS answers for operations kernfs does not implement. */
int ctl_fs_unlink(const char *path __unused)
{
	return -EPERM;		/* vfs_unlink(): no ->unlink */
}

int ctl_fs_rename(const char *from __unused, const char *to __unused,
		  unsigned int flags __unused)
{
	return -EPERM;		/* kernfs_iop_rename(): cgroup v2 has no ->rename */
}

int ctl_fs_create(const char *path __unused, mode_t mode __unused,
		  struct fuse_file_info *fi __unused)
{
	return -EACCES;		/* lookup_open(): no ->create */
}

int ctl_fs_mknod(const char *path __unused, mode_t mode __unused, dev_t dev __unused)
{
	return -EPERM;		/* vfs_mknod(): no ->mknod */
}

int ctl_fs_symlink(const char *to __unused, const char *path __unused)
{
	return -EPERM;		/* vfs_symlink(): no ->symlink */
}

int ctl_fs_link(const char *from __unused, const char *to __unused)
{
	return -EPERM;		/* vfs_link(): no ->link */
}
