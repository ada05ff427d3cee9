// SPDX-License-Identifier: GPL-2.0
/*
 * The public API (vsched.h): a locked façade over the group tree and the cftype table. Every
 * front end ends here, so locking, path rules, time for cpu.stat and change notification live
 * in one place. This half: the instance, its lock, clock and callbacks, and path lookup;
 * api_files.c: groups and interface files by path.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vsched.h"
#include "sched/cftype.h"
#include "sched/core.h"
#include "sched/files.h"
#include "sched/group.h"
#include "util/debug.h"
#include "util/time.h"
#include "api.h"

static uint64_t api_monotonic_ns(void *arg __unused)
{
	return time_mono_ns();
}

/*
 * Priority inheritance: the runtime's helper and lent vCPUs run SCHED_FIFO (sched/runtime/
 * rt_watch.c); a normal thread holding this lock while one of them waits for it runs at the
 * waiter's priority until it lets go, instead of sitting preempted behind a lent vCPU.
 */
static void api_lock_init(pthread_mutex_t *lock)
{
	pthread_mutexattr_t a;

	pthread_mutexattr_init(&a);
	pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(lock, &a);
	pthread_mutexattr_destroy(&a);
}

struct vsched *vsched_create(unsigned int nr_lanes, unsigned int nr_vcpus)
{
	struct vsched *vs;

	if (!nr_lanes || !nr_vcpus || nr_vcpus > CPUSET_MAX) {
		errno = EINVAL;
		return NULL;
	}
	vs = calloc(1, sizeof(*vs));
	if (!vs)
		return NULL;
	vs->s = sched_create(nr_lanes, nr_vcpus);
	if (!vs->s) {
		free(vs);
		errno = ENOMEM;
		return NULL;
	}
	api_lock_init(&vs->lock);
	sched_set_lock(vs->s, &vs->lock);
	vs->clock = api_monotonic_ns;
	vs->magic = VSCHED_MAGIC;
	return vs;
}

void vsched_destroy(struct vsched *vs)
{
	if (!api_valid(vs))
		return;
	vs->magic = 0;
	sched_destroy(vs->s);
	pthread_mutex_destroy(&vs->lock);
	free(vs);
}

void vsched_lock(struct vsched *vs)
{
	if (!api_valid(vs))
		return;
	mutex_lock(&vs->lock);
}

void vsched_unlock(struct vsched *vs)
{
	vsched_unlocked_fn fn;
	void *arg;

	if (!api_valid(vs))
		return;
	fn = vs->unlocked;
	arg = vs->unlocked_arg;
	mutex_unlock(&vs->lock);
	if (fn)
		fn(arg);
}

pthread_mutex_t *vsched_mutex(struct vsched *vs)
{
	return api_valid(vs) ? &vs->lock : NULL;
}

struct sched *vsched_sched(struct vsched *vs)
{
	return api_valid(vs) ? vs->s : NULL;
}

void vsched_set_notify(struct vsched *vs, vsched_notify_fn fn, void *arg)
{
	if (!api_valid(vs))
		return;
	vsched_lock(vs);
	vs->notify = fn;
	vs->notify_arg = arg;
	vsched_unlock(vs);
}

void vsched_set_clock(struct vsched *vs, vsched_clock_fn fn, void *arg)
{
	if (!api_valid(vs))
		return;
	vsched_lock(vs);
	vs->clock = fn ? fn : api_monotonic_ns;
	vs->clock_arg = fn ? arg : NULL;
	vsched_unlock(vs);
}

void vsched_set_unlocked(struct vsched *vs, vsched_unlocked_fn fn, void *arg)
{
	if (!api_valid(vs))
		return;
	vsched_lock(vs);
	vs->unlocked = fn;
	vs->unlocked_arg = arg;
	vsched_unlock(vs);
}

void api_notify(struct vsched *vs, enum vsched_event ev, const char *path, const char *file)
{
	vsched_notify_fn fn;
	void *arg;
	uint64_t n;

	vsched_lock(vs);
	fn = vs->notify;
	arg = vs->notify_arg;
	/* Under the lock: once vsched_set_events_fn() has removed it, it runs no more. */
	n = sched_nr_events(vs->s);
	if (n != vs->events_seen) {
		vs->events_seen = n;
		if (vs->events)
			vs->events(vs, vs->events_arg);
	}
	vsched_unlock(vs);
	if (fn)
		fn(vs, ev, path, file, arg);
}

void vsched_set_events_fn(struct vsched *vs, vsched_events_fn fn, void *arg)
{
	if (!api_valid(vs))
		return;
	vsched_lock(vs);
	vs->events = fn;
	vs->events_arg = arg;
	vs->events_seen = sched_nr_events(vs->s);
	vsched_unlock(vs);
}

int vsched_set_pid(struct vsched *vs, pid_t pid)
{
	if (!api_valid(vs) || pid < 0)
		return -EINVAL;
	vsched_lock(vs);
	sched_set_pid(vs->s, pid);
	vsched_unlock(vs);
	return 0;
}

int vsched_set_vcpu_tid(struct vsched *vs, unsigned int vcpu, pid_t tid)
{
	int ret = 0;

	if (!api_valid(vs) || tid < 0)
		return -EINVAL;
	vsched_lock(vs);
	if (vcpu >= sched_nr_vcpus(vs->s))
		ret = -ERANGE;
	else
		sched_vcpu_set_tid(vs->s, vcpu, tid);
	vsched_unlock(vs);
	return ret;
}

/*
 * Under the lock, before a change: the core applies configuration at the latest time it has
 * seen, so bring it to now first (sched/core.h), or a new quota would start in the past.
 */
void api_advance(struct vsched *vs)
{
	sched_advance(vs->s, vs->clock(vs->clock_arg));
}

/* "/a/b/" -> "a/b" in buf; -ENAMETOOLONG if it does not fit, -EINVAL for no path (NULL). */
int api_norm(const char *path, char *buf)
{
	size_t len;

	buf[0] = '\0';
	if (!path)
		return -EINVAL;
	while (*path == '/')
		path++;
	len = strlen(path);
	while (len && path[len - 1] == '/')
		len--;
	if (len >= GROUP_PATH_MAX)
		return -ENAMETOOLONG;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return 0;
}

/* The child group of g called name: -ENOENT if none, -ENOTDIR if name is one of g's files. */
int api_child(struct group *g, const char *name, struct group **out)
{
	*out = group_child(g, name);
	if (*out)
		return 0;
	return cftype_exists(g, name) ? -ENOTDIR : -ENOENT;
}

/*
 * Walks path as the VFS walks a directory tree (link_path_walk()), under the lock: runs of '/'
 * separate components, "." is the group reached so far, ".." its parent (the root's is the root,
 * as "/.." is "/"), any other name must be a child group: -ENOENT if none, -ENOTDIR if it names
 * a file. So "a/./b", "a/x/../b" (x must exist) and "a/b/" all name a/b. The last component is
 * left to the caller, as mkdir and rmdir treat it their own way: in p.
 */
int api_walk(struct vsched *vs, const char *path, struct api_path *p)
{
	struct group *g = sched_root(vs->s);
	char *c, *next;
	int ret;

	p->parent = g;
	p->name = NULL;
	p->last = API_LAST_ROOT;
	ret = api_norm(path, p->buf);
	if (ret)
		return ret;
	for (c = p->buf; *c; c = next) {
		next = strchrnul(c, '/');
		if (*next)
			*next++ = '\0';
		while (*next == '/')
			next++;
		if (!*next)
			break;			/* c is the last component */
		if (!strcmp(c, ".."))
			g = g->parent ? g->parent : g;
		else if (strcmp(c, ".") && (ret = api_child(g, c, &g)))
			return ret;
	}
	p->parent = g;
	if (!*c)
		return 0;			/* "" or "/": the root */
	p->last = !strcmp(c, ".") ? API_LAST_DOT : !strcmp(c, "..") ? API_LAST_DOTDOT :
		  API_LAST_NAME;
	p->name = c;
	return 0;
}

/*
 * The group at path, under the lock, in *g: 0, -ENOENT if there is none, -ENOTDIR if a
 * component is a file, or -ENAMETOOLONG for a path no group can have (as a path over PATH_MAX on
 * cgroupfs, whatever the call).
 */
int api_group(struct vsched *vs, const char *path, struct group **g)
{
	struct api_path p;
	int ret;

	*g = NULL;
	ret = api_walk(vs, path, &p);
	if (ret)
		return ret;
	switch (p.last) {
	case API_LAST_NAME:
		return api_child(p.parent, p.name, g);
	case API_LAST_DOTDOT:
		*g = p.parent->parent ? p.parent->parent : p.parent;
		return 0;
	default:
		*g = p.parent;
		return 0;
	}
}
