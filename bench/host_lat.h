/* SPDX-License-Identifier: GPL-2.0 */
/* bench-host-latency's grant rows: one row's state, shared by host_latency.c and host_grant.c. */
#ifndef VSCHED_BENCH_HOST_LAT_H
#define VSCHED_BENCH_HOST_LAT_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct lat {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool granted, done;
	uint64_t t0;
	uint64_t *samples;
	unsigned int n, rounds;
	/* in-process */
	struct vsched *vs;
	/* host mode */
	int fd;
	const struct host_grant *page;	/* NULL: the agent signals B */
	bool parked;			/* B sets its parked bit while it waits (MODE_PARKED) */
	bool pinned;			/* the daemon pins B, B floats after each grant */
	pid_t b_tid;
	unsigned int grant_msgs;	/* GRANT datagrams the agent received */
	struct host_offer *offer;	/* offer mode: A takes the lane itself */
	uint64_t sent;			/* datagrams sent since the HELLO */
	unsigned int missed;		/* offer mode: rounds with no offer in time (not counted) */
	uint64_t took_gen;		/* offer mode: the TOOK to send before the next datagram */
};

enum mode { MODE_AGENT, MODE_PAGE, MODE_OFFER, MODE_PARKED, MODE_PINNED };

/* host_latency.c: the untimed sleep before each round, for every path alike. */
void lat_gap(void);
/* B: waits for each grant, records the latency, lets A go on (the thread's function). */
void *lat_waiter(void *arg);
/* A: until B ran. */
void lat_wait_done(struct lat *l);
/* host_grant.c: a daemon started, the row in mode run against it, the daemon stopped; 0 or -1. */
int lat_run_daemon(struct lat *l, enum mode mode);

#endif
