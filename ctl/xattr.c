// SPDX-License-Identifier: GPL-2.0
/*
 * Extended attributes of the control directory's nodes, as cgroupfs keeps them (kernfs
 * simple_xattr): trusted.*, security.* and user.* (the latter at most 128 per node and 128 KiB of
 * values, kernfs's limits); other namespaces are EOPNOTSUPP. The VFS has checked who may.
 */
#include "ctl_fs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>

/* fs/kernfs/kernfs-internal.h: KERNFS_MAX_USER_XATTRS, KERNFS_USER_XATTR_SIZE_LIMIT. */
#define USER_XATTRS_MAX		128
#define USER_XATTR_BYTES_MAX	(128 << 10)

static bool is_user_xattr(const char *name)
{
	return !strncmp(name, "user.", 5);
}

/* What kernfs stores: trusted.*, security.* and user.*; the VFS checks who may. */
static bool xattr_supported(const char *name)
{
	return is_user_xattr(name) || !strncmp(name, "trusted.", 8) ||
	       !strncmp(name, "security.", 9);
}

static struct ctl_xattr **xattr_find(struct ctl_xattr **head, const char *name)
{
	struct ctl_xattr **p;

	for (p = head; *p; p = &(*p)->next)
		if (!strcmp((*p)->name, name))
			return p;
	return NULL;
}

static int ctl_xattr_set(struct ctl *c, const struct node *n, const char *name,
			 const char *value, size_t size, int flags)
{
	struct ctl_xattr **head, **p, *x, *old = NULL;
	size_t nr = 0, bytes = size;
	int ret = 0;

	if (!xattr_supported(name))
		return -EOPNOTSUPP;
	pthread_mutex_lock(&c->attr_lock);
	head = ctl_attr_xattrs(c, n->key, true);
	if (!head) {
		ret = -ENOMEM;
		goto out;
	}
	p = xattr_find(head, name);
	old = p ? *p : NULL;
	if ((flags & XATTR_CREATE) && old) {
		ret = -EEXIST;
		goto out;
	}
	if ((flags & XATTR_REPLACE) && !old) {
		ret = -ENODATA;
		goto out;
	}
	/* kernfs_vfs_user_xattr_add(): at most 128 user.* per node, 128 KiB of values. */
	for (x = *head; x && is_user_xattr(name); x = x->next)
		if (is_user_xattr(x->name) && x != old) {
			nr++;
			bytes += x->size;
		}
	if (is_user_xattr(name) && (nr >= USER_XATTRS_MAX || bytes > USER_XATTR_BYTES_MAX)) {
		ret = -ENOSPC;
		goto out;
	}
	x = malloc(sizeof(*x) + size);
	if (!x || !(x->name = strdup(name))) {
		free(x);
		ret = -ENOMEM;
		goto out;
	}
	x->size = size;
	memcpy(x->value, value, size);
	if (old) {
		x->next = old->next;
		*p = x;
		free(old->name);
		free(old);
	} else {
		/* Listed in the order they were made, as kernfs does. */
		for (p = head; *p; p = &(*p)->next)
			;
		x->next = NULL;
		*p = x;
	}
out:
	pthread_mutex_unlock(&c->attr_lock);
	return ret;
}

static int ctl_xattr_get(struct ctl *c, const struct node *n, const char *name, char *value,
			 size_t size)
{
	struct ctl_xattr **head, **p = NULL;
	int ret;

	pthread_mutex_lock(&c->attr_lock);
	head = ctl_attr_xattrs(c, n->key, false);
	if (head)
		p = xattr_find(head, name);
	if (!p)
		ret = xattr_supported(name) ? -ENODATA : -EOPNOTSUPP;
	else if (size && size < (*p)->size)
		ret = -ERANGE;
	else
		ret = (int)(*p)->size;
	if (p && size && ret >= 0)
		memcpy(value, (*p)->value, (*p)->size);
	pthread_mutex_unlock(&c->attr_lock);
	return ret;
}

/* Names, NUL-terminated one after the other; trusted.* only for a privileged caller. */
static int ctl_xattr_list(struct ctl *c, const struct node *n, char *list, size_t size,
			  bool trusted)
{
	struct ctl_xattr **head, *x;
	size_t len = 0;
	int ret = 0;

	pthread_mutex_lock(&c->attr_lock);
	head = ctl_attr_xattrs(c, n->key, false);
	for (x = head ? *head : NULL; x; x = x->next) {
		size_t l = strlen(x->name) + 1;

		if (!trusted && !strncmp(x->name, "trusted.", 8))
			continue;
		if (size && len + l > size) {
			ret = -ERANGE;
			break;
		}
		if (size)
			memcpy(list + len, x->name, l);
		len += l;
	}
	pthread_mutex_unlock(&c->attr_lock);
	return ret ? ret : (int)len;
}

static int ctl_xattr_remove(struct ctl *c, const struct node *n, const char *name)
{
	struct ctl_xattr **head, **p = NULL, *x;

	pthread_mutex_lock(&c->attr_lock);
	head = ctl_attr_xattrs(c, n->key, false);
	if (head)
		p = xattr_find(head, name);
	if (p) {
		x = *p;
		*p = x->next;
		free(x->name);
		free(x);
	}
	pthread_mutex_unlock(&c->attr_lock);
	return p ? 0 : xattr_supported(name) ? -ENODATA : -EOPNOTSUPP;
}

int ctl_fs_setxattr(const char *path, const char *name, const char *value, size_t size,
			int flags)
{
	struct ctl *c = fuse_get_context()->private_data;
	struct node n;
	int ret;

	ret = ctl_node_resolve(c, path, &n);
	return ret ? ret : ctl_xattr_set(c, &n, name, value, size, flags);
}

int ctl_fs_getxattr(const char *path, const char *name, char *value, size_t size)
{
	struct ctl *c = fuse_get_context()->private_data;
	struct node n;
	int ret;

	ret = ctl_node_resolve(c, path, &n);
	return ret ? ret : ctl_xattr_get(c, &n, name, value, size);
}

int ctl_fs_listxattr(const char *path, char *list, size_t size)
{
	struct ctl *c = fuse_get_context()->private_data;
	struct node n;
	int ret;

	/* trusted.* is listed to privileged callers only (simple_xattr_list()); root here. */
	ret = ctl_node_resolve(c, path, &n);
	return ret ? ret : ctl_xattr_list(c, &n, list, size, fuse_get_context()->uid == 0);
}

int ctl_fs_removexattr(const char *path, const char *name)
{
	struct ctl *c = fuse_get_context()->private_data;
	struct node n;
	int ret;

	ret = ctl_node_resolve(c, path, &n);
	return ret ? ret : ctl_xattr_remove(c, &n, name);
}
