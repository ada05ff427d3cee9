// SPDX-License-Identifier: GPL-2.0
/*
 * What kernfs keeps per inode and cgroupfs shows: modes and owners changed by chmod/chown, the
 * owner files get when they are created (cgroup_add_file() passes the creating task's fsuid and
 * fsgid: the mkdir caller's, or for cpu.* files the caller who enabled +cpu in the parent), and
 * the extended attributes xattr.c keeps. Everything else about a node comes from the tree
 * through the public API.
 */
#include "ctl_fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vsched.h"

struct ctl_attr {
	struct list_head node;	/* in ctl->attrs */
	char *key;
	bool has_mode;
	mode_t mode;
	struct ctl_owner owner;	/* chown of this node (files; a group's is in the tree) */
	struct ctl_owner files;	/* a group: who made its files */
	struct ctl_owner cpu_files;	/* a group: who made its cpu.* files (+cpu in the parent) */
	struct ctl_xattr *xattrs;
};

void ctl_attrs_init(struct ctl *c)
{
	pthread_mutex_init(&c->attr_lock, NULL);
	list_init(&c->attrs);
}

static void attr_free(struct ctl_attr *a)
{
	struct ctl_xattr *x, *n;

	for (x = a->xattrs; x; x = n) {
		n = x->next;
		free(x->name);
		free(x);
	}
	list_del(&a->node);
	free(a->key);
	free(a);
}

void ctl_attrs_free(struct ctl *c)
{
	struct ctl_attr *a, *n;

	list_for_each_entry_safe(a, n, &c->attrs, node)
		attr_free(a);
	pthread_mutex_destroy(&c->attr_lock);
}

/* Under attr_lock. */
static struct ctl_attr *attr_get(struct ctl *c, const char *key, bool create)
{
	struct ctl_attr *a;

	list_for_each_entry(a, &c->attrs, node)
		if (!strcmp(a->key, key))
			return a;
	if (!create)
		return NULL;
	a = calloc(1, sizeof(*a));
	if (!a || !(a->key = strdup(key))) {
		free(a);
		return NULL;
	}
	list_add_tail(&a->node, &c->attrs);
	return a;
}

/* "/a" + "cpu.max" -> "/a/cpu.max"; "/" + "x" -> "/x". */
static void attr_key(const char *group, const char *name, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s", group, strcmp(group, "/") && name[0] ? "/" : "", name);
}

/* Forgets path and everything below it: those nodes are gone. */
static void attr_drop_tree(struct ctl *c, const char *path)
{
	struct ctl_attr *a, *n;
	size_t len = strlen(path);

	list_for_each_entry_safe(a, n, &c->attrs, node)
		if (!strncmp(a->key, path, len) && (!a->key[len] || a->key[len] == '/'))
			attr_free(a);
}


struct ctl_xattr **ctl_attr_xattrs(struct ctl *c, const char *key, bool create)
{
	struct ctl_attr *a = attr_get(c, key, create);

	return a ? &a->xattrs : NULL;
}

void ctl_node_attrs(struct ctl *c, struct node *n)
{
	struct ctl_attr *a, *g;
	struct ctl_owner own = { 0 };

	pthread_mutex_lock(&c->attr_lock);
	a = attr_get(c, n->key, false);
	if (n->kind == NODE_FILE) {
		g = attr_get(c, n->group, false);
		if (g && g->files.set)
			own = g->files;
		if (g && g->cpu_files.set && vsched_file_is_cpu(n->name))
			own = g->cpu_files;
		if (a && a->owner.set)
			own = a->owner;
		n->uid = own.uid;
		n->gid = own.gid;
	}
	if (a && a->has_mode)
		n->mode = a->mode;
	pthread_mutex_unlock(&c->attr_lock);
}

/*
 * A group just made at path with mode (mkdir(2)'s, the umask applied): the creator's. attr_lock
 * held.
 */
static void attr_made(struct ctl *c, const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	struct ctl_attr *a;

	/* Anything kept under this path belonged to an earlier group of the name. */
	attr_drop_tree(c, path);
	/* cgroup_mkdir(): the directory and its files are the creator's. */
	vsched_chown(c->vs, path, uid, gid);
	if ((uid || gid) && (a = attr_get(c, path, true)))
		a->files = a->cpu_files = (struct ctl_owner){ true, uid, gid };
	/* cgroup_create() makes the directory with mkdir(2)'s mode, as kernfs_create_dir_ns(). */
	mode &= 07777;
	if (mode != 0755 && (a = attr_get(c, path, true))) {
		a->has_mode = true;
		a->mode = mode;
	}
}

int ctl_attr_mkdir(struct ctl *c, const char *path, uid_t uid, gid_t gid, mode_t mode)
{
	int ret;

	pthread_mutex_lock(&c->attr_lock);
	ret = vsched_mkdir(c->vs, path);
	if (!ret)
		attr_made(c, path, uid, gid, mode);
	pthread_mutex_unlock(&c->attr_lock);
	return ret;
}

void ctl_attr_forwarded(struct ctl *c, const char *path, bool made, uid_t uid, gid_t gid,
			mode_t mode)
{
	pthread_mutex_lock(&c->attr_lock);
	if (made && !vsched_stat(c->vs, path, NULL, &(mode_t){ 0 }))
		attr_made(c, path, uid, gid, mode);
	else if (!made)
		attr_drop_tree(c, path);
	pthread_mutex_unlock(&c->attr_lock);
}

void ctl_forget(struct ctl *c, const char *path)
{
	if (!c)
		return;
	pthread_mutex_lock(&c->attr_lock);
	attr_drop_tree(c, path);
	pthread_mutex_unlock(&c->attr_lock);
}

int ctl_attr_rmdir(struct ctl *c, const char *path)
{
	int ret;

	pthread_mutex_lock(&c->attr_lock);
	ret = vsched_rmdir(c->vs, path);
	if (!ret)
		attr_drop_tree(c, path);
	pthread_mutex_unlock(&c->attr_lock);
	return ret;
}

static bool group_has_cpu(struct vsched *vs, const char *group)
{
	char buf[64];

	return vsched_read(vs, group, "cgroup.subtree_control", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "cpu");
}

struct children {
	struct ctl *c;
	const char *group;
	bool created;
	struct ctl_owner by;
};

/* The cpu.* files of a child were removed, or made anew by the writer of +cpu. */
static int child_cpu_files(const char *name, mode_t mode __attribute__((unused)), void *arg)
{
	struct children *ch = arg;
	char path[PATH_MAX];
	struct ctl_attr *a, *n;
	size_t len;

	attr_key(ch->group, name, path, sizeof(path));
	len = strlen(path);
	list_for_each_entry_safe(a, n, &ch->c->attrs, node)
		if (!strncmp(a->key, path, len) && a->key[len] == '/' &&
		    vsched_file_is_cpu(a->key + len + 1) && !strchr(a->key + len + 1, '/'))
			attr_free(a);
	if (ch->created && (a = attr_get(ch->c, path, true)))
		a->cpu_files = ch->by;
	return 0;
}

ssize_t ctl_attr_subtree_write(struct ctl *c, const char *group, const char *buf, size_t len,
			       uid_t uid, gid_t gid)
{
	struct children ch = { c, group, false, { true, uid, gid } };
	bool had;
	ssize_t ret;

	pthread_mutex_lock(&c->attr_lock);
	had = group_has_cpu(c->vs, group);
	ret = vsched_write(c->vs, group, "cgroup.subtree_control", buf, len);
	if (ret >= 0 && had != group_has_cpu(c->vs, group)) {
		ch.created = !had;
		/* The callback runs under the tree's lock: attr_lock is already ours. */
		vsched_list_children(c->vs, group, child_cpu_files, &ch);
	}
	pthread_mutex_unlock(&c->attr_lock);
	return ret;
}

int ctl_attr_chmod(struct ctl *c, const struct node *n, mode_t mode)
{
	struct ctl_attr *a;

	pthread_mutex_lock(&c->attr_lock);
	a = attr_get(c, n->key, true);
	if (a) {
		a->has_mode = true;
		a->mode = mode & 07777;
	}
	pthread_mutex_unlock(&c->attr_lock);
	return a ? 0 : -ENOMEM;
}

int ctl_attr_chown_file(struct ctl *c, const struct node *n, uid_t uid, gid_t gid)
{
	struct ctl_attr *a;

	pthread_mutex_lock(&c->attr_lock);
	a = attr_get(c, n->key, true);
	if (a)
		a->owner = (struct ctl_owner){ true, uid, gid };
	pthread_mutex_unlock(&c->attr_lock);
	return a ? 0 : -ENOMEM;
}

bool ctl_may_write(struct ctl *c, const char *group, const char *name, uid_t uid, gid_t gid,
		   const gid_t *groups, int nr_groups)
{
	struct node n = { .kind = NODE_FILE, .mode = 0644 };
	int i;

	if (!uid)
		return true;		/* CAP_DAC_OVERRIDE */
	snprintf(n.group, sizeof(n.group), "%s", group);
	snprintf(n.name, sizeof(n.name), "%s", name);
	attr_key(group, name, n.key, sizeof(n.key));
	ctl_node_attrs(c, &n);
	if (uid == n.uid)
		return n.mode & S_IWUSR;
	for (i = 0; i < nr_groups && gid != n.gid; i++)
		if (groups[i] == n.gid)
			gid = n.gid;
	return gid == n.gid ? n.mode & S_IWGRP : n.mode & S_IWOTH;
}

char *ctl_attrs_save(struct ctl *c)
{
	struct ctl_attr_rec r;
	struct ctl_attr *a;
	char line[PATH_MAX + 128];
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	pthread_mutex_lock(&c->attr_lock);
	list_for_each_entry(a, &c->attrs, node) {
		if (!a->has_mode && !a->owner.set && !a->files.set && !a->cpu_files.set)
			continue;	/* xattrs alone */
		if (strlen(a->key) >= sizeof(r.key))
			continue;
		strcpy(r.key, a->key);
		r.has_mode = a->has_mode;
		r.mode = a->mode;
		r.owner = a->owner;
		r.files = a->files;
		r.cpu_files = a->cpu_files;
		if (ctl_attr_rec_format(&r, line, sizeof(line)) > 0)
			fprintf(f, "%s\n", line);
	}
	pthread_mutex_unlock(&c->attr_lock);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int ctl_attr_load(struct ctl *c, const char *line)
{
	struct ctl_attr_rec r;
	struct node n;
	struct ctl_attr *a;
	int ret;

	if (ctl_attr_rec_parse(line, &r))
		return -EINVAL;
	/* Resolved first: that takes attr_lock (ctl_node_attrs()). */
	ret = ctl_node_resolve(c, r.key, &n);
	pthread_mutex_lock(&c->attr_lock);
	if (!ret && n.kind != NODE_DIR && (r.files.set || r.cpu_files.set))
		ret = -EINVAL;
	if (!ret && !(a = attr_get(c, r.key, true)))
		ret = -ENOMEM;
	if (!ret) {
		a->has_mode = r.has_mode;
		a->mode = r.mode;
		a->owner = r.owner;
		a->files = r.files;
		a->cpu_files = r.cpu_files;
	}
	pthread_mutex_unlock(&c->attr_lock);
	return ret;
}
