// SPDX-License-Identifier: GPL-2.0
/*
 * The public API's groups and interface files by path (vsched.h): mkdir, rmdir, reads,
 * writes and moves, listings, modes and owners, each under the façade's lock (api.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vsched.h"
#include "sched/cftype.h"
#include "sched/core.h"
#include "sched/files.h"
#include "sched/group.h"
#include "api.h"

/* Under the lock: g's path as notifications name it ("/a/b"), else path as spelled. */
static void api_canon(const struct group *g, const char *path, char *canon)
{
	if (group_path(g, canon, GROUP_PATH_MAX) < 0)
		snprintf(canon, GROUP_PATH_MAX, "%s", path);
}

/*
 * Under the lock: the group at path, and for threaded its "threaded" cgroup.type in the same
 * lock section, so no other call sees or populates it in between and a refused type change is
 * undone before anyone could notice. A last component ".", ".." or none (the root) names a
 * directory that exists: EEXIST, as the VFS's filename_create().
 */
static int api_mkdir_locked(struct vsched *vs, const char *path, bool threaded, char *canon)
{
	struct api_path p;
	struct group *g;
	ssize_t ret;

	ret = api_walk(vs, path, &p);
	if (ret)
		return (int)ret;
	if (p.last != API_LAST_NAME)
		return -EEXIST;
	api_advance(vs);
	ret = group_create(vs->s, p.parent, p.name, &g);
	if (ret)
		return (int)ret;
	api_canon(g, path, canon);
	if (!threaded)
		return 0;
	ret = cftype_write(vs->s, g, cftype_lookup(g, "cgroup.type"), "threaded",
			   strlen("threaded"));
	if (ret < 0) {
		group_remove(vs->s, g);
		return (int)ret;
	}
	return 0;
}

static int api_mkdir(struct vsched *vs, const char *path, bool threaded)
{
	char canon[GROUP_PATH_MAX];
	int ret;

	if (!api_valid(vs))
		return -EINVAL;
	vsched_lock(vs);
	ret = api_mkdir_locked(vs, path, threaded, canon);
	vsched_unlock(vs);
	if (ret)
		return ret;
	api_notify(vs, VSCHED_EV_MKDIR, canon, NULL);
	if (threaded)
		api_notify(vs, VSCHED_EV_WRITE, canon, "cgroup.type");
	return 0;
}

int vsched_mkdir(struct vsched *vs, const char *path)
{
	return api_mkdir(vs, path, false);
}

/*
 * Under the lock. The last component as the VFS's do_rmdir(): "." EINVAL, ".." ENOTEMPTY, none
 * (the root) EBUSY; a name that is a file ENOTDIR.
 */
static int api_rmdir_locked(struct vsched *vs, const char *path, char *canon)
{
	struct api_path p;
	struct group *g;
	int ret;

	ret = api_walk(vs, path, &p);
	if (ret)
		return ret;
	switch (p.last) {
	case API_LAST_DOT:
		return -EINVAL;
	case API_LAST_DOTDOT:
		return -ENOTEMPTY;
	case API_LAST_ROOT:
		return -EBUSY;
	default:
		break;
	}
	ret = api_child(p.parent, p.name, &g);
	if (ret)
		return ret;
	api_advance(vs);
	api_canon(g, path, canon);
	return group_remove(vs->s, g);
}

int vsched_rmdir(struct vsched *vs, const char *path)
{
	char canon[GROUP_PATH_MAX];
	int ret;

	if (!api_valid(vs))
		return -EINVAL;
	vsched_lock(vs);
	ret = api_rmdir_locked(vs, path, canon);
	vsched_unlock(vs);
	if (!ret)
		api_notify(vs, VSCHED_EV_RMDIR, canon, NULL);
	return ret;
}

int vsched_mkdir_threaded(struct vsched *vs, const char *path)
{
	return api_mkdir(vs, path, true);
}

/* Looks up group and file under the lock. */
static int api_file(struct vsched *vs, const char *path, const char *file, struct group **g,
		    const struct cftype **cft)
{
	int ret = api_group(vs, path, g);

	if (ret)
		return ret;
	*cft = file ? cftype_lookup(*g, file) : NULL;
	return *cft ? 0 : -ENOENT;
}

ssize_t vsched_read(struct vsched *vs, const char *path, const char *file, char *buf, size_t len)
{
	const struct cftype *cft;
	struct group *g;
	ssize_t ret;

	if (!api_valid(vs) || (!buf && len))
		return -EINVAL;
	vsched_lock(vs);
	ret = api_file(vs, path, file, &g, &cft);
	if (!ret)
		ret = cftype_show(vs->s, g, cft, vs->clock(vs->clock_arg), buf, len);
	vsched_unlock(vs);
	return ret;
}

ssize_t vsched_read_alloc(struct vsched *vs, const char *path, const char *file, char **out)
{
	size_t size = 4096;
	char *buf = NULL, *nbuf;
	ssize_t ret;

	if (!out)
		return -EINVAL;
	*out = NULL;	/* on failure too: free(*out) is always right */
	for (;;) {
		nbuf = realloc(buf, size);
		if (!nbuf) {
			free(buf);
			return -ENOMEM;
		}
		buf = nbuf;
		ret = vsched_read(vs, path, file, buf, size);
		if (ret != -ENOSPC)
			break;
		size *= 2;
	}
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*out = buf;
	return ret;
}

/* Under the lock: check each vCPU the write would move, or 0 if the file refuses it anyway. */
static int api_check_moves(struct vsched *vs, struct group *g, const struct cftype *cft,
			   const char *buf, size_t len, vsched_move_check_fn check, void *arg)
{
	struct cpuset set;

	if (!check || cftype_moves(vs->s, cft, buf, len, &set))
		return 0;
	return cgroup_check_moves(vs->s, &set, g, check, arg);
}

ssize_t vsched_write_move(struct vsched *vs, const char *path, const char *file, const char *buf,
			  size_t len, vsched_move_check_fn check, void *arg)
{
	char canon[GROUP_PATH_MAX];
	const struct cftype *cft;
	struct group *g;
	ssize_t ret;

	if (!api_valid(vs) || (!buf && len))
		return -EINVAL;
	vsched_lock(vs);
	ret = api_file(vs, path, file, &g, &cft);
	if (!ret) {
		api_canon(g, path, canon);
		if (len && cftype_writable(cft))
			api_advance(vs);
		/* In the same lock section as the write: the tree cannot change in between. */
		ret = api_check_moves(vs, g, cft, buf, len, check, arg);
		if (!ret)
			ret = cftype_write(vs->s, g, cft, buf, len);
	}
	vsched_unlock(vs);
	if (ret > 0)
		api_notify(vs, VSCHED_EV_WRITE, canon, file);
	return ret;
}

int vsched_move_check_perm(unsigned int depth, void *arg)
{
	const struct vsched_move_perm *p = arg;

	if (!p || (!p->may && p->nr))
		return -EINVAL;
	return depth < p->nr && p->may[depth] ? 0 : -EACCES;
}

bool vsched_file_moves_vcpus(const char *file)
{
	const struct cftype *cft = file ? cftype_find(file) : NULL;

	return cft && cft->parse_moves;
}

bool vsched_file_is_cpu(const char *file)
{
	const struct cftype *cft = file ? cftype_find(file) : NULL;

	return cft && (cft->flags & CFTYPE_CPU);
}

ssize_t vsched_write(struct vsched *vs, const char *path, const char *file, const char *buf,
		     size_t len)
{
	return vsched_write_move(vs, path, file, buf, len, NULL, NULL);
}

int vsched_write_str(struct vsched *vs, const char *path, const char *file, const char *value)
{
	ssize_t ret;

	if (!value)
		return -EINVAL;
	ret = vsched_write(vs, path, file, value, strlen(value));

	return ret < 0 ? (int)ret : 0;
}

int vsched_assign(struct vsched *vs, const char *cpuset, const char *path)
{
	char canon[GROUP_PATH_MAX];
	struct cpuset set;
	struct group *g;
	int ret;

	if (!api_valid(vs) || !cpuset)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_group(vs, path, &g);
	if (!ret) {
		api_canon(g, path, canon);
		ret = cpuset_parse(cpuset, sched_nr_vcpus(vs->s), &set);
	}
	if (!ret) {
		api_advance(vs);
		ret = cgroup_move_vcpus(vs->s, &set, g, true);
	}
	vsched_unlock(vs);
	if (!ret)
		api_notify(vs, VSCHED_EV_ASSIGN, canon, NULL);
	return ret;
}

int vsched_list_children(struct vsched *vs, const char *path, vsched_name_fn fn, void *arg)
{
	struct group *g, *c;
	int ret = 0;

	if (!api_valid(vs) || !fn)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_group(vs, path, &g);
	if (!ret)
		list_for_each_entry(c, &g->children, sibling) {
			ret = fn(c->name, S_IFDIR | 0755, arg);
			if (ret)
				break;
		}
	vsched_unlock(vs);
	return ret;
}

int vsched_list_files(struct vsched *vs, const char *path, vsched_name_fn fn, void *arg)
{
	const struct cftype *cft;
	struct group *g;
	int ret = 0;

	if (!api_valid(vs) || !fn)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_group(vs, path, &g);
	if (!ret)
		for (cft = cgroup_files; cft->name; cft++) {
			if (!cftype_visible(cft, g))
				continue;
			ret = fn(cft->name, S_IFREG | cftype_mode(cft), arg);
			if (ret)
				break;
		}
	vsched_unlock(vs);
	return ret;
}

/* A group (file NULL) or one of its files. */
static int api_node(struct vsched *vs, const char *path, const char *file, struct group **g,
		    const struct cftype **cft)
{
	*cft = NULL;
	return file ? api_file(vs, path, file, g, cft) : api_group(vs, path, g);
}

int vsched_stat(struct vsched *vs, const char *path, const char *file, mode_t *mode)
{
	const struct cftype *cft;
	struct group *g;
	int ret;

	if (!api_valid(vs) || !mode)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_node(vs, path, file, &g, &cft);
	if (!ret)
		*mode = cft ? S_IFREG | cftype_mode(cft) : S_IFDIR | 0755;
	vsched_unlock(vs);
	return ret;
}

int vsched_node_id(struct vsched *vs, const char *path, const char *file, uint64_t *id)
{
	const struct cftype *cft;
	struct group *g;
	int ret;

	if (!api_valid(vs) || !id)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_node(vs, path, file, &g, &cft);
	if (!ret)
		*id = cft && (cft->flags & CFTYPE_CPU) ? g->cpu_serial : g->serial;
	vsched_unlock(vs);
	return ret;
}

int vsched_file_events(struct vsched *vs, const char *path, const char *file, uint64_t *events)
{
	const struct cftype *cft;
	struct group *g;
	int ret;

	if (!api_valid(vs) || !events)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_file(vs, path, file, &g, &cft);
	if (!ret)
		*events = 1 + (strcmp(cft->name, "cgroup.events") ? 0 : g->events_gen);
	vsched_unlock(vs);
	return ret;
}

int vsched_chown(struct vsched *vs, const char *path, uid_t uid, gid_t gid)
{
	struct group *g;
	int ret;

	if (!api_valid(vs))
		return -EINVAL;
	vsched_lock(vs);
	ret = api_group(vs, path, &g);
	if (!ret) {
		g->uid = uid;
		g->gid = gid;
	}
	vsched_unlock(vs);
	return ret;
}

int vsched_owner(struct vsched *vs, const char *path, uid_t *uid, gid_t *gid)
{
	struct group *g;
	int ret;

	if (!api_valid(vs) || !uid || !gid)
		return -EINVAL;
	vsched_lock(vs);
	ret = api_group(vs, path, &g);
	if (!ret) {
		*uid = g->uid;
		*gid = g->gid;
	}
	vsched_unlock(vs);
	return ret;
}
