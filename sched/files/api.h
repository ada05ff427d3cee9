/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to sched/files/api*.c: the façade's state and the helpers its two halves share
 * (api.c: the instance, its lock, clock and callbacks; api_files.c: groups and files by path).
 */
#ifndef SCHED_FILES_API_H
#define SCHED_FILES_API_H

#include <pthread.h>

#include "vsched.h"

struct group;

struct vsched {
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

void api_notify(struct vsched *vs, enum vsched_event ev, const char *path, const char *file);
void api_advance(struct vsched *vs);
int api_norm(const char *path, char *buf);
int api_group(struct vsched *vs, const char *path, struct group **g);

#endif
