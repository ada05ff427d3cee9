/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to sched/files/api*.c: the façade's state and the helpers its two halves share
 * (api.c: the instance, its lock, clock and callbacks; api_files.c: groups and files by path).
 */
#ifndef SCHED_FILES_API_H
#define SCHED_FILES_API_H

#include <pthread.h>
#include <stdbool.h>

#include "vsched.h"
#include "sched/group.h"

struct group;

/* In a live handle's magic; vsched_destroy() clears it. "vsch". */
#define VSCHED_MAGIC 0x76736368u

struct vsched {
	unsigned int magic;	/* first: free() overwrites it if nothing else does */
	pthread_mutex_t lock;
	struct sched *s;
	vsched_notify_fn notify;
	void *notify_arg;
	vsched_clock_fn clock;
	void *clock_arg;
	vsched_unlocked_fn unlocked;
	void *unlocked_arg;
	vsched_events_fn events;
	void *events_arg;
	uint64_t events_seen;	/* sched_nr_events() when events last ran */
};

/*
 * Whether vs is a handle the API may use: a NULL or destroyed one (or a pointer to something
 * else) is refused with -EINVAL, or ignored by the functions that return nothing, instead of
 * crashing the caller's process. Best effort past NULL: a freed handle is read to tell.
 */
static inline bool api_valid(const struct vsched *vs)
{
	return vs && vs->magic == VSCHED_MAGIC;
}

void api_notify(struct vsched *vs, enum vsched_event ev, const char *path, const char *file);
void api_advance(struct vsched *vs);
int api_norm(const char *path, char *buf);

/* A path's last component, as the VFS's LAST_NORM, LAST_DOT, LAST_DOTDOT, LAST_ROOT. */
enum api_last { API_LAST_NAME, API_LAST_DOT, API_LAST_DOTDOT, API_LAST_ROOT };

struct api_path {
	struct group *parent;	/* the group the last component is in (the root for ROOT) */
	const char *name;	/* the last component (in buf), NULL for ROOT */
	enum api_last last;
	char buf[GROUP_PATH_MAX];
};

int api_walk(struct vsched *vs, const char *path, struct api_path *p);
int api_child(struct group *g, const char *name, struct group **out);
int api_group(struct vsched *vs, const char *path, struct group **g);

#endif
