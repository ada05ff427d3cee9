/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host mode's connection to the daemon, shared by rt_remote.c (the join, the sends, the
 * daemon's decisions) and rt_remote_agent.c (the thread that reads them, and dials again after
 * a loss). Private to sched/runtime.
 */
#ifndef VSCHED_RT_REMOTE_H
#define VSCHED_RT_REMOTE_H

#include <pthread.h>
#include <stdbool.h>
#include <sys/types.h>

#include "host/proto.h"
#include "rt.h"
#include "rt_outbox.h"
#include "rt_remote_live.h"

struct rt_remote {
	char sock[108];
	char name[HOST_NAME_LEN];
	char partition[HOST_PATH_LEN];
	struct host_settings vm;
	char group[HOST_PATH_LEN];	/* the VM group, from the last WELCOME */
	int fd;				/* -1: not joined; closed by the agent only */
	struct rt_outbox ob;		/* datagrams queued under the lock, sent after it */
	bool joined;			/* false: fallback, the agent dials again */
	bool stop;
	int wake_fd;			/* eventfd: the agent's retry sleep ends early */
	pthread_t agent;
	bool started;
	int refused;			/* the re-join's refusal said since the loss; 0 */
	struct rt_remote_live live;	/* is a stuck daemon answering? (rt_remote_live.c) */
	struct vsched *vs;		/* the VM's tree, for CTL (rt_remote_ctl.c) */
};

/* rt_remote.c; lock held. */
void rt_remote_lost(struct runtime *rt, const char *why);
int rt_remote_join(struct runtime *rt, int fd);
int rt_remote_apply(struct runtime *rt, const void *buf, ssize_t n);
/*
 * One datagram the agent received (n bytes, more than buf holds if truncated) and the fd that
 * came with it (rt_peer_recv()'s *fd, taken over): a PEER, else the daemon's answer unless
 * applied already (a CTL, rt_remote_ctl()). 0, or -EPROTO: garbage. Lock held.
 */
int rt_remote_input(struct runtime *rt, const char *buf, ssize_t n, int pfd, bool applied);

#endif
