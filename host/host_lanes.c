// SPDX-License-Identifier: GPL-2.0
/*
 * The core's decisions, sent to the VMMs whose vCPUs they concern; the daemon's one timer (the
 * core's group timers and the revocation deadlines); revocation itself.
 *
 * Slice ends are the lane holders' own: a VMM's vCPU timer ends the slice and its report (RAN,
 * TICK) makes the core decide, with the holder's CPU time charged up to that moment. The daemon
 * does not run the core at a slice end on its own, with the holder's last part uncharged; it
 * stands behind it grace_ns late. A holder whose VMM said nothing about it since the slice
 * ended (stopped, stuck) then loses the lane: it is blocked in the core until its VMM speaks
 * again, and told PREEMPT for when it does.
 */
#include <errno.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "internal.h"
#include "sched/core.h"
#include "util/time.h"

#define HOST_DRAIN_BATCH	16

/* A datagram that does not fit means a VMM that stopped reading: it is hung up on. */
void host_send(struct host_client *c, const void *msg, size_t len)
{
	if (c->dead)
		return;
	if (send(c->fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len) {
		c->dead = true;
		shutdown(c->fd, SHUT_RDWR);	/* host_run() sees the hang-up */
	}
}

static void host_decide(struct host *h, const struct sched_decision *d)
{
	struct host_ev m = { .vcpu = 0 };
	struct host_slot *sl;

	if (d->type != SCHED_RUN && d->type != SCHED_PREEMPT && d->type != SCHED_RETIME)
		return;
	sl = &h->slot[d->vcpu];
	if (!sl->client)
		return;
	m.vcpu = sl->vcpu;
	m.arg = d->lane;
	m.a = d->until == SCHED_TIME_NONE ? HOST_TIME_INF : d->until;
	m.type = d->type == SCHED_RUN ? HOST_MSG_GRANT :
		 d->type == SCHED_PREEMPT ? HOST_MSG_PREEMPT : HOST_MSG_RETIME;
	host_send(sl->client, &m, sizeof(m));
}

void host_drain(struct host *h)
{
	struct sched_decision d[HOST_DRAIN_BATCH];
	size_t n, i;

	while (sched_pending_decisions(h->s) && (n = sched_take_decisions(h->s, d, HOST_DRAIN_BATCH)))
		for (i = 0; i < n; i++)
			host_decide(h, &d[i]);
	host_arm(h);
}

/* The core's group timers, and each lane's slice end grace_ns late. */
uint64_t host_next_due(struct host *h)
{
	uint64_t t = sched_next_group_timer(h->s), u;
	unsigned int l;

	for (l = 0; l < h->nr_lanes; l++) {
		u = sched_lane_until(h->s, l);
		if (sched_lane_vcpu(h->s, l) >= 0 && u != SCHED_TIME_NONE && u + h->grace_ns < t)
			t = u + h->grace_ns;
	}
	return t;
}

void host_arm(struct host *h)
{
	struct itimerspec its = { 0 };
	uint64_t t;

	if (h->timer_fd < 0)
		return;
	t = host_next_due(h);
	if (t == h->timer_at)
		return;
	h->timer_at = t;
	if (t != SCHED_TIME_NONE)
		its.it_value = time_ns_to_ts(t ? t : 1);
	timerfd_settime(h->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

void host_revoke_due(struct host *h, uint64_t now)
{
	unsigned int l;

	for (l = 0; l < h->nr_lanes; l++) {
		int v = sched_lane_vcpu(h->s, l);
		uint64_t until = sched_lane_until(h->s, l);
		struct host_slot *sl;
		struct host_ev m = { .type = HOST_MSG_PREEMPT };

		if (v < 0 || until == SCHED_TIME_NONE || now < until + h->grace_ns)
			continue;
		sl = &h->slot[v];
		if (!sl->client || sl->last_heard >= until)
			continue;
		sched_vcpu_blocked(h->s, (unsigned int)v, now);
		sl->revoked = true;
		sl->client->nr_revoked++;
		m.vcpu = sl->vcpu;
		host_send(sl->client, &m, sizeof(m));
	}
}

void host_unrevoke(struct host *h, struct host_client *c, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < c->nr_vcpus; i++) {
		struct host_slot *sl = &h->slot[c->slot[i]];

		if (!sl->revoked)
			continue;
		sl->revoked = false;
		sl->last_heard = now;
		sched_vcpu_runnable(h->s, c->slot[i], now);
	}
	c->nr_revoked = 0;
}
