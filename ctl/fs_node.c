// SPDX-License-Identifier: GPL-2.0
/*
 * A path of the control directory resolved to its node: a group's directory or one of its
 * interface files, with the mode, owner and link count kernfs would give it (attr.c keeps what
 * chmod and chown changed).
 */
#include "ctl_fs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vsched.h"
#include "util/compiler.h"

/* Splits "/a/b/c" into "/a/b" and "c"; "/c" gives "/" and "c". */
static int path_split(const char *path, char *dir, size_t dlen, char *name, size_t nlen)
{
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash || !slash[1])
		return -ENOENT;
	if (strlen(slash + 1) >= nlen)
		return -ENAMETOOLONG;
	n = slash == path ? 1 : (size_t)(slash - path);
	if (n >= dlen)
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	strcpy(name, slash + 1);
	return 0;
}

static int count_one(const char *name __unused, mode_t mode __unused, void *arg)
{
	(*(nlink_t *)arg)++;
	return 0;
}

int ctl_node_resolve(struct ctl *c, const char *path, struct node *n)
{
	struct vsched *vs = c->vs;
	char dir[PATH_MAX];
	mode_t mode;

	memset(n, 0, sizeof(*n));
	if (!vsched_stat(vs, path, NULL, &mode) && !vsched_owner(vs, path, &n->uid, &n->gid)) {
		n->kind = NODE_DIR;
		snprintf(n->group, sizeof(n->group), "%s", path);
		snprintf(n->key, sizeof(n->key), "%s", path);
		n->mode = mode & 07777;
		/* As kernfs: 2, plus one per subdirectory. */
		n->nlink = 2;
		vsched_list_children(vs, path, count_one, &n->nlink);
		ctl_node_attrs(c, n);
		return 0;
	}
	if (path_split(path, dir, sizeof(dir), n->name, sizeof(n->name)))
		return -ENOENT;
	if (vsched_stat(vs, dir, n->name, &mode))
		return -ENOENT;
	n->kind = NODE_FILE;
	snprintf(n->group, sizeof(n->group), "%s", dir);
	snprintf(n->key, sizeof(n->key), "%s", path);
	n->mode = mode & 07777;
	n->nlink = 1;
	ctl_node_attrs(c, n);
	return 0;
}
