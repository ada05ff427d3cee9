// SPDX-License-Identifier: GPL-2.0
/*
 * The group tree: mkdir/rmdir semantics of cgroupfs (cgroup_mkdir(), cgroup_rmdir(),
 * cgroup_check_hierarchy_limits()) and vCPU membership with consistent counters.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sched/cftype.h"

bool group_is_root(const struct group *g)
{
	return !g->parent;
}

bool group_is_populated(const struct group *g)
{
	return g->nr_populated > 0;
}

struct group *group_child(struct group *parent, const char *name)
{
	struct group *c;

	list_for_each_entry(c, &parent->children, sibling)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}

/*
 * What the VFS and cgroup_mkdir() refuse, in their order: an empty name or one with '/' cannot
 * be a path component, '\n' is refused by cgroup_mkdir(), "." and ".." always exist, a name
 * that no path can hold (PATH_MAX with its NUL; kernfs has no NAME_MAX) is ENAMETOOLONG, an
 * existing directory or interface file (the file table says which files parent has) is EEXIST.
 */
int group_check_name(const struct group *parent, const char *name)
{
	size_t len = strnlen(name, GROUP_NAME_MAX + 1);

	if (!len || strchr(name, '/'))
		return -EINVAL;
	if (len > GROUP_NAME_MAX)
		return -ENAMETOOLONG;
	if (strchr(name, '\n'))
		return -EINVAL;
	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return -EEXIST;
	if (group_child((struct group *)parent, name) || cftype_exists(parent, name))
		return -EEXIST;
	return 0;
}

/*
 * cgroup_check_hierarchy_limits(): every ancestor's depth and descendant limits; and vsched's
 * own depth limit, GROUP_DEPTH_MAX.
 */
static bool group_limits_allow(const struct group *parent)
{
	const struct group *a;
	uint64_t level = 0;

	if (parent->depth >= GROUP_DEPTH_MAX)
		return false;
	for (a = parent; a; a = a->parent, level++) {
		if (a->nr_descendants >= a->max_descendants)
			return false;
		if (level >= a->max_depth)
			return false;
	}
	return true;
}

static void group_init(struct group *g, struct group *parent, char *name)
{
	memset(g, 0, sizeof(*g));
	g->name = name;
	g->parent = parent;
	list_init(&g->children);
	list_init(&g->sibling);
	list_init(&g->vcpus);
	g->depth = parent ? parent->depth + 1 : 0;
	g->max_depth = LIMIT_MAX;
	g->max_descendants = LIMIT_MAX;
	/* A new cgroup is a domain; group_type_of() shows it invalid under a threaded parent. */
	g->type = GROUP_DOMAIN;
	if (parent) {
		g->uid = parent->uid;
		g->gid = parent->gid;
	}
	g->shares = NICE_0_LOAD;
	g->quota_us = RUNTIME_INF;
	g->period_us = CPU_PERIOD_DFL_US;
}

int group_create(struct sched *s, struct group *parent, const char *name, struct group **out)
{
	struct group *g, *a;
	char *copy;
	int ret;

	core_assert_locked(s);
	ret = group_check_name(parent, name);
	if (ret)
		return ret;
	if (!group_limits_allow(parent))
		return -EAGAIN;
	g = malloc(sizeof(*g));
	copy = strdup(name);
	if (!g || !copy) {
		free(g);
		free(copy);
		return -ENOMEM;
	}
	group_init(g, parent, copy);
	g->serial = ++s->last_serial;
	g->cpu_serial = ++s->last_serial;
	ret = core_group_init(s, g);
	if (ret) {
		free(copy);
		free(g);
		return ret;
	}
	list_add_tail(&g->sibling, &parent->children);
	for (a = parent; a; a = a->parent)
		a->nr_descendants++;
	ret = core_group_added(s, g);
	if (ret) {
		group_remove(s, g);
		return ret;
	}
	if (out)
		*out = g;
	return 0;
}

int group_remove(struct sched *s, struct group *g)
{
	struct group *a;

	core_assert_locked(s);
	if (group_is_root(g))
		return -EBUSY;
	if (group_is_populated(g) || !list_empty(&g->children))
		return -EBUSY;
	core_group_exit(s, g);
	list_del(&g->sibling);
	for (a = g->parent; a; a = a->parent)
		a->nr_descendants--;
	free(g->name);
	free(g);
	return 0;
}

/* The child of parent whose name is the len bytes at name. */
static struct group *group_child_n(struct group *parent, const char *name, size_t len)
{
	struct group *c;

	list_for_each_entry(c, &parent->children, sibling)
		if (!strncmp(c->name, name, len) && !c->name[len])
			return c;
	return NULL;
}

struct group *group_lookup(struct sched *s, const char *path)
{
	struct group *g = &s->root;
	const char *p = path, *end;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = strchrnul(p, '/');
		g = group_child_n(g, p, (size_t)(end - p));
		if (!g)
			return NULL;
		p = end;
	}
	return g;
}

int group_path(const struct group *g, char *buf, size_t len)
{
	const struct group *a;
	size_t need = 0, pos;

	if (group_is_root(g)) {
		if (len < 2)
			return -ENAMETOOLONG;
		strcpy(buf, "/");
		return 1;
	}
	for (a = g; a->parent; a = a->parent)
		need += strlen(a->name) + 1;
	if (need + 1 > len || need >= GROUP_PATH_MAX)
		return -ENAMETOOLONG;
	buf[need] = '\0';
	pos = need;
	for (a = g; a->parent; a = a->parent) {
		size_t n = strlen(a->name);

		pos -= n;
		memcpy(buf + pos, a->name, n);
		buf[--pos] = '/';
	}
	return (int)need;
}

int group_set_max_depth(struct sched *s, struct group *g, uint64_t depth)
{
	(void)s;
	g->max_depth = depth;
	return 0;
}

int group_set_max_descendants(struct sched *s, struct group *g, uint64_t nr)
{
	(void)s;
	g->max_descendants = nr;
	return 0;
}
