/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host mode's datagrams to the daemon, queued under the VMM's lock and sent after it is dropped
 * (rt_outbox.c). A datagram wakes the daemon, and on a busy host its wake-up preempts the
 * sender on its CPU (the lane's, pinned): sent under the lock, the sender sat preempted holding
 * it, and a vCPU of the same VMM just granted the other lane waited for the lock up to a host
 * tick while that lane's CPU idled (docs/host.md, "Capacity: the lane change, traced").
 *
 * The order is kept: datagrams go in the order they were queued (under the outer lock), one
 * thread sending at a time; a thread that finds another sending leaves its datagrams to it
 * (that one looks again before it stops). A send that fails drops the rest of the connection's
 * queue: the caller treats the daemon as gone (as before, a daemon that cannot take a datagram
 * at once is gone). The socket is closed only once no send uses it, so a number reused by the
 * next connection never gets the old one's datagrams.
 */
#ifndef VSCHED_RT_OUTBOX_H
#define VSCHED_RT_OUTBOX_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RT_OUTBOX_MAX	(1u << 20)	/* bytes queued: more is a daemon that does not read */

struct rt_outbox {
	pthread_mutex_t lock;		/* the queue's own: never held across a send */
	const pthread_mutex_t *outer;	/* no send under it (BUG_ON, debug builds) */
	unsigned char *q, *spare;	/* queued datagrams: a uint32_t length, then the bytes */
	size_t len, cap, spare_cap;
	int fd;				/* the connection, -1: none (nothing is queued) */
	uint64_t gen;			/* +1 per connection */
	bool sending;			/* a thread sends the queue, in order */
	int sending_fd;			/* the socket of the batch it sends, -1: none */
	int close_fd;			/* closed once that batch is sent, -1: none */
};

void rt_outbox_init(struct rt_outbox *ob, const pthread_mutex_t *outer);
void rt_outbox_destroy(struct rt_outbox *ob);
/* A new connection on fd (the queue is empty). Outer lock held. */
void rt_outbox_open(struct rt_outbox *ob, int fd);
/* The connection is gone: what is queued is dropped. Outer lock held. */
void rt_outbox_drop(struct rt_outbox *ob);
/* Queues one datagram. 0, -ENOBUFS (RT_OUTBOX_MAX) or -ENOMEM. Outer lock held. */
int rt_outbox_put(struct rt_outbox *ob, const void *msg, size_t len);
/*
 * Sends what is queued, unless another thread is sending (it sends these too). Outer lock not
 * held. 0, or the -errno of a send that failed and *gen that connection's generation.
 */
int rt_outbox_send(struct rt_outbox *ob, uint64_t *gen);
/* Something is queued and nobody is sending it. */
bool rt_outbox_pending(struct rt_outbox *ob);
/* Closes fd now, or once the batch being sent on it is (never under a send). */
void rt_outbox_close(struct rt_outbox *ob, int fd);

#endif
