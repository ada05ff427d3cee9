/* SPDX-License-Identifier: GPL-2.0 */
/* Private to ctl/: the mounted instance and the FUSE operations that serve it. */
#ifndef VSCHED_CTL_FS_H
#define VSCHED_CTL_FS_H

#define FUSE_USE_VERSION 312
#include <fuse.h>

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "ctl/ctl.h"
#include "util/list.h"
#include "vsched.h"

struct statvfs;
struct vsched;

struct ctl {
	struct vsched *vs;
	struct fuse *fuse;
	pthread_t thread;
	char dir[PATH_MAX];
	unsigned int made_dirs;	/* directories ctl_mount made for dir, which ctl_unmount removes */
	dev_t dev;		/* of the mount: its minor is the fusectl connection number */
	time_t mount_time;	/* shown as every node's timestamps */

	pthread_mutex_t lock;	/* guards loop_done and files */
	pthread_cond_t cond;
	bool loop_done;
	struct list_head files;	/* open handles; freed at unmount if never released */

	/* Taken before the tree's lock (vsched_lock()) when both are held, never inside it. */
	pthread_mutex_t attr_lock;
	struct list_head attrs;	/* struct ctl_attr: what kernfs keeps per inode */

	/* ctl_set_forward(): set once, read by the FUSE threads (atomic) */
	void *fwd_arg;
	ctl_forward_fn fwd;
};

/*
 * Credentials for cgroup v2 delegation's move rule. The kernel checks a write to cgroup.procs or
 * cgroup.threads with the credentials of the file's opener (of->file->f_cred, since 5.16:
 * CVE-2021-4197, an inherited descriptor must not move with its new holder's rights), so an
 * open file keeps its opener's; the groups beyond CTL_NGROUPS are not seen.
 */
#define CTL_NGROUPS	64
struct ctl_cred {
	uid_t uid;
	gid_t gid;
	int nr_groups;
	gid_t groups[CTL_NGROUPS];
};
/* The FUSE caller's (in an operation). */
void ctl_cred_caller(struct ctl_cred *cr);

/*
 * The forward's answer for a change (1: not forwarded, apply it here). cr: whose permissions a
 * move is checked with (the opener's), NULL for mkdir and rmdir.
 */
int ctl_forward(struct ctl *c, enum ctl_fwd_op op, const char *group, const char *file,
		const char *buf, size_t len, const struct ctl_cred *cr);

extern const struct fuse_operations ctl_fs_ops;
/* The VM's file events (vsched_set_events_fn()): wakes the pollers of open files. */
void ctl_fs_events(struct vsched *vs, void *arg);

/*
 * A node as stat(2) shows it. key is its path in the directory ("/", "/a", "/a/cpu.max"),
 * the name under which attr.c keeps its mode, owner and xattrs.
 */
enum node_kind { NODE_NONE, NODE_DIR, NODE_FILE };

struct node {
	enum node_kind kind;
	char group[PATH_MAX];		/* the group path ("/" for the root) */
	char name[NAME_MAX + 1];	/* file name for NODE_FILE */
	char key[PATH_MAX + NAME_MAX + 2];
	mode_t mode;			/* permission bits */
	uid_t uid;
	gid_t gid;
	nlink_t nlink;
};

/*
 * Per-node state (attr.c), as kernfs keeps it per inode: a mode or owner set by chmod/chown,
 * the owner a group's files were created with (cgroup_add_file() uses the creator's fsuid),
 * extended attributes. Forgotten when the node goes (rmdir; cpu.* files on -cpu).
 */
void ctl_attrs_init(struct ctl *c);
void ctl_attrs_free(struct ctl *c);
/* Fills mode, uid and gid of n from the defaults it has and what was set on it. */
void ctl_node_attrs(struct ctl *c, struct node *n);
/*
 * mkdir and rmdir with the bookkeeping: the creator owns a new group and its files; the group
 * has mkdir(2)'s mode (after the umask), as on cgroupfs.
 */
int ctl_attr_mkdir(struct ctl *c, const char *path, uid_t uid, gid_t gid, mode_t mode);
int ctl_attr_rmdir(struct ctl *c, const char *path);
/*
 * A mkdir (made) or rmdir another owner served (ctl_forward()), whose mirror is in this tree
 * by the time it answers: the group made is the creator's here, as ctl_attr_mkdir() makes it
 * (it was its parent's, its files root's: the creator could not write its cgroup.type); what
 * was kept under a group removed goes.
 */
void ctl_attr_forwarded(struct ctl *c, const char *path, bool made, uid_t uid, gid_t gid,
			mode_t mode);
/* A write to cgroup.subtree_control by uid:gid: cpu.* files of the children come and go. */
ssize_t ctl_attr_subtree_write(struct ctl *c, const char *group, const char *buf, size_t len,
			       uid_t uid, gid_t gid);
int ctl_attr_chmod(struct ctl *c, const struct node *n, mode_t mode);
int ctl_attr_chown_file(struct ctl *c, const struct node *n, uid_t uid, gid_t gid);
/* Whether uid (in gid and groups) may write file name of group (generic_permission()). */
bool ctl_may_write(struct ctl *c, const char *group, const char *name, uid_t uid, gid_t gid,
		   const gid_t *groups, int nr_groups);
/* One extended attribute; a node's list is kept by attr.c, filled by xattr.c. */
struct ctl_xattr {
	struct ctl_xattr *next;
	char *name;
	size_t size;
	char value[];
};
/* The xattr list of node key, under attr_lock; NULL if none and !create. */
struct ctl_xattr **ctl_attr_xattrs(struct ctl *c, const char *key, bool create);

/* fs.c: the node at path; 0 or -ENOENT. */
int ctl_node_resolve(struct ctl *c, const char *path, struct node *n);
/* fs.c: the node an operation names, by path or by open handle; -ENODEV if the handle has none. */
int ctl_op_resolve(struct ctl *c, const char *path, struct fuse_file_info *fi, struct node *n);

/* The mounted instance, in a FUSE operation. */
static inline struct ctl *ctl_self(void)
{
	return fuse_get_context()->private_data;
}

/* fs_tree.c: the FUSE operations on the tree (mkdir, rmdir, owners, modes) and the refused ones. */
int ctl_fs_mkdir(const char *path, mode_t mode);
int ctl_fs_rmdir(const char *path);
int ctl_fs_chown(const char *path, uid_t uid, gid_t gid, struct fuse_file_info *fi);
int ctl_fs_chmod(const char *path, mode_t mode, struct fuse_file_info *fi);
int ctl_fs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi);
int ctl_fs_statfs(const char *path, struct statvfs *sv);
int ctl_fs_unlink(const char *path);
int ctl_fs_rename(const char *from, const char *to, unsigned int flags);
int ctl_fs_create(const char *path, mode_t mode, struct fuse_file_info *fi);
int ctl_fs_mknod(const char *path, mode_t mode, dev_t dev);
int ctl_fs_symlink(const char *to, const char *path);
int ctl_fs_link(const char *from, const char *to);
/* xattr.c: the FUSE xattr operations. */
int ctl_fs_setxattr(const char *path, const char *name, const char *value, size_t size,
		    int flags);
int ctl_fs_getxattr(const char *path, const char *name, char *value, size_t size);
int ctl_fs_listxattr(const char *path, char *list, size_t size);
int ctl_fs_removexattr(const char *path, const char *name);
/* Frees the handles a severed connection never released (after the loop has ended). */
void ctl_fs_release_all(struct ctl *c);

/*
 * Delegation (deleg.c): a write of buf to group/name through a file cr opened, with the check of
 * __cgroup_procs_write() for vCPU moves (cr may write cgroup.procs of the common ancestor of
 * source and destination) made under the tree's lock, together with the write.
 */
ssize_t ctl_deleg_write(struct ctl *c, const char *group, const char *name, const char *buf,
			size_t len, const struct ctl_cred *cr);
/*
 * Whether cr may write each ancestor's cgroup.procs of group, the root first: p->may is
 * allocated (free() it). 0 or -ENOMEM.
 */
int ctl_deleg_perm(struct ctl *c, const char *group, const struct ctl_cred *cr,
		   struct vsched_move_perm *p);

#endif
