// SPDX-License-Identifier: GPL-2.0
/*
 * FUSE operations of the control directory: nodes and open handles. Paths map to groups and
 * their interface files; contents, errnos and the tree itself come from the public API
 * (vsched.h), so this file only translates between VFS calls and API calls, and adds what
 * cgroupfs does at the VFS level: modes, owners and xattrs (attr.c), delegation (deleg.c),
 * seq_file-like reads and poll. The tree's operations (mkdir, rmdir, chown, chmod, statfs and
 * those kernfs does not support) are fs_tree.c's, a path's node fs_node.c's; the operations
 * table is here.
 */
#include "ctl_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vsched.h"
#include "util/compiler.h"

/*
 * An open directory or interface file: its path (the ops get none: nullpath_ok), the identity
 * of the node it was opened on (vsched_node_id()) and, for a file, a seq_file-like snapshot of
 * its content.
 */
struct ctl_file {
	struct list_head node;	/* in ctl->files */
	pthread_mutex_t lock;	/* one open file can be read by several threads */
	char group[PATH_MAX];
	char name[NAME_MAX + 1];	/* "" for a directory */
	uint64_t id;
	uint64_t event;		/* vsched_file_events() at the last read (of->event) */
	struct fuse_pollhandle *ph;	/* a poll(2) waiting for an event; under ctl->lock */
	char *buf;
	size_t len;
	bool valid;		/* buf holds the content produced by the last read at offset 0 */
	struct ctl_cred *opener;	/* of a file whose writes move vCPUs (delegation), else NULL */
};

/*
 * Whether the node f was opened on still exists. A descriptor names a kernfs node, not a path:
 * after rmdir and mkdir of the same name, or -cpu and +cpu on the parent of a cpu.* file's
 * group, the node at the path is another one, and the old descriptor answers ENODEV.
 */
static bool handle_live(struct vsched *vs, const struct ctl_file *f)
{
	uint64_t id;

	return !vsched_node_id(vs, f->group, f->name[0] ? f->name : NULL, &id) && id == f->id;
}

/*
 * Whether err is the API's answer for a path that names no group: -ENOENT, or -ENOTDIR when a
 * component is now a file (a group "cpu.weight" removed, then +cpu on its grandparent).
 */
static bool path_gone(int err)
{
	return err == -ENOENT || err == -ENOTDIR;
}

/*
 * An open file whose group (or, after -cpu, whose cpu.* file) is gone reads and writes as on
 * cgroupfs, where kernfs_get_active() fails: ENODEV. An -ENOENT from a file that still exists
 * is the handler's own answer (e.g. +cpu under a parent without it) and passes unchanged.
 */
static int gone_errno(struct vsched *vs, const struct ctl_file *f, int err)
{
	if (!path_gone(err))
		return err;
	return handle_live(vs, f) ? err : -ENODEV;
}

/* The path of an operation: given, or that of the open handle. */
static const char *op_path(const char *path, struct fuse_file_info *fi, char *buf, size_t len)
{
	struct ctl_file *f = fi ? (struct ctl_file *)(uintptr_t)fi->fh : NULL;

	if (path)
		return path;
	if (!f)
		return NULL;
	if (!f->name[0])
		snprintf(buf, len, "%s", f->group);
	else
		snprintf(buf, len, "%s%s%s", f->group, strcmp(f->group, "/") ? "/" : "", f->name);
	return buf;
}

/* The node an operation names (by path or by open handle); -ENODEV if the handle has none. */
int ctl_op_resolve(struct ctl *c, const char *path, struct fuse_file_info *fi, struct node *n)
{
	char buf[PATH_MAX + NAME_MAX + 2];

	path = op_path(path, fi, buf, sizeof(buf));
	return path ? ctl_node_resolve(c, path, n) : -ENODEV;
}

static struct ctl_file *handle_new(struct ctl *c, const struct node *n, uint64_t id)
{
	struct ctl_file *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->id = id;
	pthread_mutex_init(&f->lock, NULL);
	snprintf(f->group, sizeof(f->group), "%s", n->group);
	snprintf(f->name, sizeof(f->name), "%s", n->kind == NODE_FILE ? n->name : "");
	pthread_mutex_lock(&c->lock);
	list_add_tail(&f->node, &c->files);
	pthread_mutex_unlock(&c->lock);
	return f;
}

static void handle_free(struct ctl_file *f)
{
	if (f->ph)
		fuse_pollhandle_destroy(f->ph);
	pthread_mutex_destroy(&f->lock);
	free(f->opener);
	free(f->buf);
	free(f);
}

void ctl_fs_release_all(struct ctl *c)
{
	struct ctl_file *f, *n;

	list_for_each_entry_safe(f, n, &c->files, node) {
		list_del(&f->node);
		handle_free(f);
	}
}

static void node_stat(const struct ctl *c, const struct node *n, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_mode = (n->kind == NODE_DIR ? S_IFDIR : S_IFREG) | n->mode;
	st->st_nlink = n->nlink;
	st->st_uid = n->uid;
	st->st_gid = n->gid;
	/* Size 0 like cgroupfs; reads are direct_io so the size does not limit them. */
	st->st_size = 0;
	st->st_blksize = 4096;
	st->st_atime = st->st_mtime = st->st_ctime = c->mount_time;
}

static void *ctl_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	/* Every change must be visible at once: no attribute, entry or page caching. */
	cfg->entry_timeout = 0;
	cfg->negative_timeout = 0;
	cfg->attr_timeout = 0;
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	cfg->auto_cache = 0;
	cfg->hard_remove = 1;
	cfg->nullpath_ok = 1;
	cfg->use_ino = 0;
	/* One write(2) must reach us as one write: no write-back merging. */
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	return fuse_get_context()->private_data;
}

static int ctl_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct ctl *c = ctl_self();
	struct node n;
	int ret;

	ret = ctl_op_resolve(c, path, fi, &n);
	if (ret)
		return fi ? -ENODEV : ret;	/* an open node whose group was removed */
	if (fi && fi->fh && !handle_live(c->vs, (struct ctl_file *)(uintptr_t)fi->fh))
		return -ENODEV;			/* ... and another of that name made since */
	node_stat(c, &n, st);
	return 0;
}

struct fill_ctx {
	void *buf;
	fuse_fill_dir_t filler;
};

/*
 * Each entry with its type, as kernfs gives DT_DIR and DT_REG: without it every name read
 * DT_UNKNOWN, so a walker (`vsched top`, find) stat()ed every file to find the groups, 164 round
 * trips a snapshot of an 8-group VM.
 */
static int fill_one(const char *name, mode_t mode, void *arg)
{
	struct fill_ctx *fc = arg;
	struct stat st = { .st_mode = mode };

	return fc->filler(fc->buf, name, &st, 0, 0) ? -ENOBUFS : 0;
}

static int ctl_opendir(const char *path, struct fuse_file_info *fi)
{
	struct ctl *c = ctl_self();
	struct ctl_file *f;
	struct node n;
	int ret;

	uint64_t id;

	ret = ctl_node_resolve(c, path, &n);
	if (ret)
		return ret;
	if (n.kind != NODE_DIR)
		return -ENOTDIR;
	if (vsched_node_id(c->vs, n.group, NULL, &id))
		return -ENOENT;
	f = handle_new(c, &n, id);
	if (!f)
		return -ENOMEM;
	fi->fh = (uintptr_t)f;
	return 0;
}

/* The whole listing in one call (offset 0 to the filler): it is small and always fresh. */
static int ctl_readdir(const char *path, void *buf, fuse_fill_dir_t filler, off_t off __unused,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags __unused)
{
	struct ctl *c = ctl_self();
	struct fill_ctx fc = { buf, filler };
	char pbuf[PATH_MAX + NAME_MAX + 2];
	int ret;

	path = op_path(path, fi, pbuf, sizeof(pbuf));
	if (!path)
		return -ENODEV;
	filler(buf, ".", &(struct stat){ .st_mode = S_IFDIR | 0755 }, 0, 0);
	filler(buf, "..", &(struct stat){ .st_mode = S_IFDIR | 0755 }, 0, 0);
	ret = vsched_list_children(c->vs, path, fill_one, &fc);
	if (!ret)
		ret = vsched_list_files(c->vs, path, fill_one, &fc);
	return path_gone(ret) ? -ENODEV : ret;
}

/*
 * cgroupfs checks nothing at open beyond the VFS's permissions (kernfs_fop_open() refuses a
 * direction the file lacks only on sysfs): root opens cpu.stat for writing, and the write fails.
 */
static int ctl_open(const char *path, struct fuse_file_info *fi)
{
	struct ctl *c = ctl_self();
	struct ctl_cred *opener = NULL;
	struct ctl_file *f;
	struct node n;
	int ret;

	uint64_t id;

	ret = ctl_node_resolve(c, path, &n);
	if (ret)
		return ret;
	if (n.kind != NODE_FILE)
		return -EISDIR;
	/* kernfs files cannot do O_DIRECT: do_dentry_open() refuses it, after the permissions. */
	if (fi->flags & O_DIRECT)
		return -EINVAL;
	if (vsched_node_id(c->vs, n.group, n.name, &id))
		return -ENOENT;
	/* A move is checked with the opener's credentials, as the kernel does (struct ctl_cred). */
	if (vsched_file_moves_vcpus(n.name)) {
		opener = malloc(sizeof(*opener));
		if (!opener)
			return -ENOMEM;
		ctl_cred_caller(opener);
	}
	f = handle_new(c, &n, id);
	if (!f) {
		free(opener);
		return -ENOMEM;
	}
	f->opener = opener;
	fi->fh = (uintptr_t)f;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int ctl_release(const char *path __unused, struct fuse_file_info *fi)
{
	struct ctl_file *f = (struct ctl_file *)(uintptr_t)fi->fh;
	struct ctl *c = ctl_self();

	if (f) {
		pthread_mutex_lock(&c->lock);
		list_del(&f->node);
		pthread_mutex_unlock(&c->lock);
		handle_free(f);
	}
	return 0;
}

/*
 * Takes a fresh snapshot of the whole file into f->buf. The event count is taken first: an
 * event between the two leaves the next poll ready, never one missed (kernfs_seq_show()).
 */
static int file_fill(struct vsched *vs, struct ctl_file *f)
{
	char *buf = NULL;
	uint64_t ev;
	ssize_t n;

	if (!vsched_file_events(vs, f->group, f->name, &ev))
		f->event = ev;
	n = vsched_read_alloc(vs, f->group, f->name, &buf);
	if (n < 0) {
		f->valid = false;
		return gone_errno(vs, f, n);
	}
	free(f->buf);
	f->buf = buf;
	f->len = n;
	f->valid = true;
	return 0;
}

/*
 * Like seq_file: a read at offset 0 produces a fresh snapshot, reads further on continue in
 * that snapshot, so `cat` and partial readers never see a mix of two versions.
 */
static int ctl_read(const char *path __unused, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	struct ctl_file *f = (struct ctl_file *)(uintptr_t)fi->fh;
	struct ctl *c = ctl_self();
	int ret = 0;

	pthread_mutex_lock(&f->lock);
	if (off == 0 || !f->valid)
		ret = file_fill(c->vs, f);
	/* After the fill: ids are never reused, so the node still there was the one read. */
	if (!ret && !handle_live(c->vs, f))
		ret = -ENODEV;
	if (!ret) {
		if ((size_t)off >= f->len)
			ret = 0;
		else {
			ret = min_t(size_t, size, f->len - off);
			memcpy(buf, f->buf + off, ret);
		}
	}
	pthread_mutex_unlock(&f->lock);
	return ret;
}

/*
 * poll(2) as kernfs_generic_poll(): always readable and writable, and POLLERR | POLLPRI while
 * an event (cgroup.events: populated changed) came after the last read; a file not read since
 * its open counts as such (kernfs's event count starts at 1, the open's at 0), so is a removed
 * one. The handle is kept before the test, so an event right after it still wakes the poller.
 */
static int ctl_poll(const char *path __unused, struct fuse_file_info *fi,
		    struct fuse_pollhandle *ph, unsigned int *reventsp)
{
	struct ctl_file *f = (struct ctl_file *)(uintptr_t)fi->fh;
	struct ctl *c = ctl_self();
	uint64_t ev, seen;

	if (ph) {
		pthread_mutex_lock(&c->lock);
		if (f->ph)
			fuse_pollhandle_destroy(f->ph);
		f->ph = ph;
		pthread_mutex_unlock(&c->lock);
	}
	pthread_mutex_lock(&f->lock);
	seen = f->event;
	pthread_mutex_unlock(&f->lock);
	*reventsp = POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM;
	if (f->name[0] && (!handle_live(c->vs, f) ||
			   vsched_file_events(c->vs, f->group, f->name, &ev) || ev != seen))
		*reventsp |= POLLERR | POLLPRI;
	return 0;
}

/* vsched_set_events_fn(): wakes every poller (the VM's lock is held: no API calls here). */
void ctl_fs_events(struct vsched *vs __unused, void *arg)
{
	struct ctl *c = arg;
	struct ctl_file *f;

	pthread_mutex_lock(&c->lock);
	list_for_each_entry(f, &c->files, node)
		if (f->ph) {
			fuse_notify_poll(f->ph);
			fuse_pollhandle_destroy(f->ph);
			f->ph = NULL;
		}
	pthread_mutex_unlock(&c->lock);
}

/* One write(2) is one value, whatever the offset, as in cgroup_file_write(). */
static int ctl_write(const char *path __unused, const char *buf, size_t size, off_t off __unused,
		     struct fuse_file_info *fi)
{
	struct ctl_file *f = (struct ctl_file *)(uintptr_t)fi->fh;
	struct fuse_context *ctx = fuse_get_context();
	struct ctl *c = ctl_self();
	ssize_t ret;

	/* A node replaced between this check and the write is not caught (two calls). */
	if (!handle_live(c->vs, f))
		return -ENODEV;
	ret = ctl_forward(c, CTL_FWD_WRITE, f->group, f->name, buf, size, f->opener);
	if (ret <= 0)
		;	/* served by whoever owns that part of the tree */
	else if (!strcmp(f->name, "cgroup.subtree_control"))
		ret = ctl_attr_subtree_write(c, f->group, buf, size, ctx->uid, ctx->gid);
	else
		ret = f->opener ? ctl_deleg_write(c, f->group, f->name, buf, size, f->opener) :
				  vsched_write(c->vs, f->group, f->name, buf, size);
	pthread_mutex_lock(&f->lock);
	f->valid = false;
	pthread_mutex_unlock(&f->lock);
	return ret < 0 ? gone_errno(c->vs, f, ret) : (int)size;
}

/* `echo x > file` opens with O_TRUNC: accepted, there is nothing to truncate. */
static int ctl_truncate(const char *path, off_t size __unused, struct fuse_file_info *fi)
{
	struct ctl *c = ctl_self();
	struct node n;
	int ret;

	ret = ctl_op_resolve(c, path, fi, &n);
	if (ret)
		return fi ? -ENODEV : ret;
	if (fi && fi->fh && !handle_live(c->vs, (struct ctl_file *)(uintptr_t)fi->fh))
		return -ENODEV;
	return n.kind == NODE_DIR ? -EISDIR : 0;
}


const struct fuse_operations ctl_fs_ops = {
	.init = ctl_init,
	.getattr = ctl_getattr,
	.opendir = ctl_opendir,
	.readdir = ctl_readdir,
	.releasedir = ctl_release,
	.open = ctl_open,
	.release = ctl_release,
	.read = ctl_read,
	.write = ctl_write,
	.poll = ctl_poll,
	.truncate = ctl_truncate,
	.mkdir = ctl_fs_mkdir,
	.rmdir = ctl_fs_rmdir,
	.chown = ctl_fs_chown,
	.chmod = ctl_fs_chmod,
	.setxattr = ctl_fs_setxattr,
	.getxattr = ctl_fs_getxattr,
	.listxattr = ctl_fs_listxattr,
	.removexattr = ctl_fs_removexattr,
	.utimens = ctl_fs_utimens,
	.statfs = ctl_fs_statfs,
	.unlink = ctl_fs_unlink,
	.rename = ctl_fs_rename,
	.create = ctl_fs_create,
	.mknod = ctl_fs_mknod,
	.symlink = ctl_fs_symlink,
	.link = ctl_fs_link,
};
