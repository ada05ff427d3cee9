// SPDX-License-Identifier: GPL-2.0
/*
 * The core's decisions, sent to the VMMs whose vCPUs they concern; the daemon's one timer (the
 * core's group timers, slice ends as a backstop, revocation deadlines: host_revoke.c).
 *
 * Slice ends are the lane holders' own: a VMM's vCPU timer ends the slice and its report (RAN,
 * TICK) makes the core decide, with the holder's CPU time charged up to that moment. The daemon
 * does not run the core at a slice end on its own, with the holder's last part uncharged; it
 * stands behind it grace_ns late.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/timerfd.h>

#include "internal.h"
#include "sched/core.h"
#include "util/time.h"

#define HOST_DRAIN_BATCH	16

/*
 * A send that failed: the VMM is hung up on (host_run() sees the hang-up). A datagram that did
 * not fit means a VMM that stopped reading; any other error one that closed its end first (two
 * VMs ending together: a grant of the lane one freed, or its PEER leave, sent to the other),
 * which is no fault of its own.
 */
void host_send_failed(struct host_client *c)
{
	c->dead = true;
	c->full = errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS;
	shutdown(c->fd, SHUT_RDWR);
}

void host_send(struct host_client *c, const void *msg, size_t len)
{
	host_flush_client(c);		/* after the decisions queued before it */
	if (c->dead)
		return;
	errno = 0;
	if (send(c->fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)len)
		host_send_failed(c);
}

/* The host CPU lane runs on now (HOST_CPU_NONE: the lanes float). */
uint64_t host_lane_cpu(struct host *h, unsigned int lane)
{
	int cpu = -1;

	if (lane < h->nr_lanes)
		cpu = lane_rotate_cpu(&h->rot, h->lane_cpu, h->nr_lanes, lane);
	return cpu >= 0 ? (uint64_t)cpu : HOST_CPU_NONE;
}

/*
 * The decisions queued for c, in one sendmmsg(). Queued while the daemon decides, they wake
 * the VMM's agent (SCHED_FIFO) once per event and after the daemon's pins, page writes and
 * kicks; sent one at a time, each woke the agent, which preempted the daemon on its CPU
 * mid-decision (347 times a second beside a capped partition, docs/host.md).
 */
void host_flush_client(struct host_client *c)
{
	struct mmsghdr mm[HOST_OUTBOX];
	struct iovec iov[HOST_OUTBOX];
	unsigned int i, n = c->nr_out;
	int r;

	c->nr_out = 0;
	if (c->dead || !n)
		return;
	for (i = 0; i < n; i++) {
		iov[i] = (struct iovec){ .iov_base = &c->out[i], .iov_len = sizeof(c->out[i]) };
		mm[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	for (i = 0; i < n; i += (unsigned int)r) {
		errno = 0;
		r = sendmmsg(c->fd, &mm[i], n - i, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (r <= 0) {
			host_send_failed(c);
			return;
		}
	}
}

void host_flush(struct host *h)
{
	struct host_client *c;

	list_for_each_entry(c, &h->clients, node)
		host_flush_client(c);
}

/*
 * m queued for c. A RETIME still queued for the same vCPU is dropped: this decision replaces
 * it whole (a RETIME's slice end, a PREEMPT's lane). The core re-times a capped partition's
 * holders at each charge, first to the slice end, then to the throttle instant: two RETIMEs
 * per holder per event, of which the VMM needs the last.
 */
static void host_unqueue_retime(struct host_client *c, uint32_t vcpu)
{
	unsigned int i = c->nr_out;

	while (i > 0 && c->out[i - 1].vcpu != vcpu)
		i--;
	if (i > 0 && c->out[i - 1].type == HOST_MSG_RETIME) {
		memmove(&c->out[i - 1], &c->out[i], (c->nr_out - i) * sizeof(c->out[0]));
		c->nr_out--;
	}
}

static void host_queue(struct host_client *c, const struct host_ev *m)
{
	if (m->type == HOST_MSG_RETIME || m->type == HOST_MSG_PREEMPT)
		host_unqueue_retime(c, m->vcpu);
	if (c->nr_out == HOST_OUTBOX)
		host_flush_client(c);
	c->out[c->nr_out++] = *m;
}

/*
 * A decision, into the VM's grant page (a grant wakes the parked vCPU thread) and then as a
 * datagram to its agent, which kicks, re-pins or re-times a vCPU inside KVM_RUN. A grant to a
 * vCPU whose thread waits on its entry (the VMM's parked bit) goes by the page alone: the agent
 * would wake only to drop it. (Grants by the page alone to every vCPU that held no lane, some
 * still inside KVM_RUN, left lanes idle: 7 % of 2 CPUs beside a throttling partition against
 * 3 % with the datagram, docs/host.md.)
 */
void host_decide(struct host *h, const struct sched_decision *d)
{
	host_decide_kick(h, d, true);
}

/*
 * A wake about to reach the core (pre_stats only): whether a vCPU waits already (no held-lane
 * offer is made then), and whether the held-lane rule names a lane for the waker now (read
 * only: the state of the last event, valid from *from until the next).
 */
void host_pre_wake(struct host *h, unsigned int slot, uint64_t now)
{
	uint64_t from;

	h->cause_waited = host_someone_waits(h);
	h->cause_named = sched_wake_takes_lane(h->s, slot, &from) >= 0 && from <= now;
	h->cause_offered = h->held_untaken && h->held_untaken == h->slot[slot].client;
	h->cause_took_due = h->slot[slot].client && h->slot[slot].client->took_due;
}

void host_pre_log(const struct host_client *c)
{
	const uint64_t *n = c->nr_pre;

	fprintf(stderr, "vsched host: %s preempted: wake %llu (other VMs %llu; a vCPU waiting %llu, "
		"named %llu: offered %llu, TOOK due %llu), slice end %llu (other VMs %llu), "
		"report %llu, block %llu, timer %llu, tree %llu, offer %llu, throttled %llu\n",
		c->group,
		(unsigned long long)n[HOST_PRE_WAKE], (unsigned long long)n[HOST_PRE_WAKE_XVM],
		(unsigned long long)n[HOST_PRE_WAITED], (unsigned long long)n[HOST_PRE_NAMED],
		(unsigned long long)n[HOST_PRE_NAMED_OFFERED],
		(unsigned long long)n[HOST_PRE_NAMED_TOOK_DUE],
		(unsigned long long)n[HOST_PRE_TICK], (unsigned long long)n[HOST_PRE_TICK_XVM],
		(unsigned long long)n[HOST_PRE_RAN], (unsigned long long)n[HOST_PRE_BLOCKED],
		(unsigned long long)n[HOST_PRE_TIMER], (unsigned long long)n[HOST_PRE_TREE],
		(unsigned long long)n[HOST_PRE_OFFER], (unsigned long long)n[HOST_PRE_THROTTLE]);
}

uint64_t host_client_preempts(const struct host_client *c, enum host_pre_cause k)
{
	return k < HOST_PRE_MAX ? c->nr_pre[k] : 0;
}

uint64_t host_client_quiet_preempts(const struct host_client *c)
{
	return c->nr_preempts_quiet;
}

/* A preemption the daemon's core made, by cause, in the preempted holder's VM. */
static void host_pre_count(struct host *h, struct host_client *c, unsigned int slot)
{
	enum host_pre_cause k = h->cause;

	if (sched_vcpu_throttled(h->s, slot))
		k = HOST_PRE_THROTTLE;
	else if ((k == HOST_PRE_WAKE || k == HOST_PRE_TICK) && h->cause_c && h->cause_c != c)
		k = k == HOST_PRE_WAKE ? HOST_PRE_WAKE_XVM : HOST_PRE_TICK_XVM;
	c->nr_pre[k]++;
	if ((k == HOST_PRE_WAKE || k == HOST_PRE_WAKE_XVM) && h->pre_stats) {
		c->nr_pre[HOST_PRE_WAITED] += h->cause_waited;
		c->nr_pre[HOST_PRE_NAMED] += h->cause_named;
		c->nr_pre[HOST_PRE_NAMED_OFFERED] += h->cause_named && h->cause_offered;
		c->nr_pre[HOST_PRE_NAMED_TOOK_DUE] += h->cause_named && h->cause_took_due;
	}
}

/* A grant's or a RETIME's slice end: each replaces the last (a live VMM retimed before its end
 * says nothing there). */
static void host_end_decided(struct host_slot *sl, const struct sched_decision *d)
{
	if (d->type == SCHED_RUN || d->type == SCHED_RETIME)
		sl->end_at = d->until == SCHED_TIME_NONE ? 0 : d->until;
	else
		sl->end_at = 0;
}

/* kick false: a holder its VMM let go of itself (an offer's victim) is not signalled again. */
void host_decide_kick(struct host *h, const struct sched_decision *d, bool kick)
{
	struct host_ev m = { .vcpu = 0 };
	struct host_slot *sl;
	bool parked = false, pinned = false;
	uint64_t at;

	host_slice_decided(h, d, sched_now(h->s));
	if (d->type != SCHED_RUN && d->type != SCHED_PREEMPT && d->type != SCHED_RETIME)
		return;
	sl = &h->slot[d->vcpu];
	if (!sl->client)
		return;
	host_dcpu_mark(h, sl->client);	/* the daemon's timer worked for it */
	at = host_ahead_at(h, sl->client);	/* made ahead of a slice end: holds from then */
	sl->ahead_at = 0;			/* a published end replaced */
	m.vcpu = sl->vcpu;
	m.arg = d->lane;
	m.a = d->until == SCHED_TIME_NONE ? HOST_TIME_INF : d->until;
	m.b = host_lane_cpu(h, d->lane);
	m.type = d->type == SCHED_RUN ? HOST_MSG_GRANT :
		 d->type == SCHED_PREEMPT ? HOST_MSG_PREEMPT : HOST_MSG_RETIME;
	host_end_decided(sl, d);
	if (d->type == SCHED_RUN) {
		/* A PREEMPT published for an end to come, withdrawn: its VMM applies none. */
		if (sl->ahead_at && h->clock() < sl->ahead_at)
			sl->client->nr_ahead_withdrawn++;
		host_charge_granted(h, d->vcpu, sched_now(h->s));
		/*
		 * Its silence on the lane starts here: waiting, it had nothing to say. Counted from
		 * its RUNNABLE, a vCPU that waited past the grace lost each grant at the daemon's
		 * next timer, before its thread could wake: 142 times in 6 s beside a busy loop,
		 * the VM with the longer waits (the lower weight) starved (docs/host.md).
		 */
		sl->last_heard = sched_now(h->s);
		pinned = host_pin(sl->client, sl->vcpu, m.b);	/* before the page's wake-up */
	}
	/*
	 * A RETIME changes the grant the entry holds and is not written there: a vCPU that blocked
	 * meanwhile would read "lane, until" as a grant when it next waits. It carries the seq of
	 * the grant it changes, and the agent applies it to that grant only.
	 */
	if (d->type == SCHED_RETIME)
		m.seq = host_page_seq(sl->client, sl->vcpu);
	else if (d->type == SCHED_RUN) {
		m.seq = host_page_grant(sl->client, sl->vcpu, d->lane, m.a,
					pinned ? m.b | HOST_CPU_PINNED : m.b, at, &parked);
		host_pin_check(sl->client);	/* after the wake-up: off the grantee's path */
	} else
		m.seq = host_page_write_at(sl->client, sl->vcpu, HOST_LANE_NONE, m.a, m.b, at);
	if (d->type == SCHED_PREEMPT)
		host_pre_count(h, sl->client, d->vcpu);
	/*
	 * A PREEMPT at a slice end to come: no kick (the holder's own slice timer ends it there),
	 * its datagram carries the moment (a KVM holder's VMM learns it there), and the daemon
	 * stands behind it at the grace (host_ahead_enforce()).
	 */
	if (d->type == SCHED_PREEMPT) {
		m.a = at ? at : HOST_TIME_INF;
		if (at) {
			sl->ahead_at = at;
			sl->client->nr_ahead_pre++;
			host_queue(sl->client, &m);
			return;
		}
	}
	if (d->type == SCHED_PREEMPT && kick) {
		uint64_t kicks = sl->client->nr_kicks;

		host_kick(sl->client, sl->vcpu);	/* the holder out now; the datagram follows */
		/*
		 * ... unless the kick reached a thread inside the guest (its VMM's bit, read after
		 * the entry's write): it applies the PREEMPT from its entry on the way out, and the
		 * agent would wake only to find it applied (~150 a second in bench-host's partition).
		 * A RETIME queued for it is void too.
		 */
		if (sl->client->nr_kicks != kicks && host_offer_in_guest(sl->client, sl->vcpu)) {
			host_unqueue_retime(sl->client, m.vcpu);
			sl->client->nr_preempts_quiet++;
			return;
		}
	}
	/* Its thread waits on the entry just written: woken, it takes the grant itself. */
	if (d->type == SCHED_RUN && parked)
		return;
	host_queue(sl->client, &m);	/* sent at the event's end: host_flush() */
}

/* Whether a decision before d[i] in the batch is about the same vCPU. */
static bool host_decided_before(const struct sched_decision *d, size_t i)
{
	size_t j;

	for (j = 0; j < i; j++)
		if (d[j].vcpu == d[i].vcpu)
			return true;
	return false;
}

/*
 * The core's decisions, lane by lane: a lane's PREEMPT then its RUN. Holders out first: every
 * PREEMPT of a batch is written (and kicked) before any RUN's pin and wake-up, so when lanes
 * change together (their slices end in step) the second lane's holder is not left running
 * behind the first lane's successor: its pin (sched_setaffinity(), ~19 us), its entry and its
 * futex wake-up, ~35 us (docs/host.md). A vCPU's own decisions keep their order: a PREEMPT
 * goes first only if nothing before it in the batch is about its vCPU.
 */
void host_drain(struct host *h)
{
	struct sched_decision d[HOST_DRAIN_BATCH];
	bool done[HOST_DRAIN_BATCH];
	size_t n, i;

	while (sched_pending_decisions(h->s) && (n = sched_take_decisions(h->s, d, HOST_DRAIN_BATCH))) {
		for (i = 0; i < n; i++) {
			done[i] = d[i].type == SCHED_PREEMPT && !host_decided_before(d, i);
			if (done[i])
				host_decide(h, &d[i]);
		}
		for (i = 0; i < n; i++)
			if (!done[i])
				host_decide(h, &d[i]);
	}
	host_flush(h);
	host_arm(h);
}

/* Whether a runnable vCPU waits for a lane (revoked ones do not count). */
bool host_someone_waits(struct host *h)
{
	struct host_client *c;
	unsigned int i;

	list_for_each_entry(c, &h->clients, node)
		for (i = 0; c->joined && i < c->nr_vcpus; i++)
			if (sched_vcpu_is_runnable(h->s, c->slot[i]) &&
			    sched_vcpu_lane(h->s, c->slot[i]) < 0)
				return true;
	return false;
}

/* The core's group timers; each slice end and, while someone waits, holder's silence limit. */
static uint64_t host_next_due(struct host *h)
{
	uint64_t t = sched_next_group_timer(h->s), u;
	bool waits = host_someone_waits(h);
	unsigned int l;
	int v;

	u = host_ahead_next(h);	/* a slice end decided ahead, an end published not applied */
	if (u < t)
		t = u;
	for (l = 0; l < h->nr_lanes; l++) {
		v = sched_lane_vcpu(h->s, l);
		if (v < 0)
			continue;
		u = sched_lane_until(h->s, l);
		if (u != SCHED_TIME_NONE && u + h->grace_ns < t)
			t = u + h->grace_ns;
		u = waits ? host_owe_due(h, l, (unsigned int)v) : HOST_TIME_INF;
		if (u < t)
			t = u;
	}
	return t;
}

uint64_t host_nr_arms(const struct host *h)
{
	return h->nr_arms;
}

uint64_t host_timer_at(const struct host *h)
{
	return h->timer_at;
}

bool host_decision_due(struct host *h, uint64_t now)
{
	return host_next_due(h) <= now;
}

/* While a lane is held and they have CPUs to move over, the lanes' next move. */
static uint64_t host_next_move(struct host *h)
{
	unsigned int l;

	if (h->lane_cpu[0] < 0 || h->nr_lanes < 2)
		return HOST_TIME_INF;
	for (l = 0; l < h->nr_lanes; l++)
		if (sched_lane_vcpu(h->s, l) >= 0)
			return h->rot.at;
	return HOST_TIME_INF;
}

void host_arm(struct host *h)
{
	struct itimerspec its = { 0 };
	uint64_t t, m;

	t = host_next_due(h);
	m = host_next_move(h);
	if (m < t)
		t = m;
	if (t == h->timer_at)
		return;
	h->timer_at = t;
	h->nr_arms++;
	if (h->timer_fd < 0)	/* not running (unit tests): counted only */
		return;
	if (t != SCHED_TIME_NONE)
		its.it_value = time_ns_to_ts(t ? t : 1);
	timerfd_settime(h->timer_fd, TFD_TIMER_ABSTIME, &its, NULL);
}

/*
 * Every LANE_ROTATE_NS the lanes move one CPU on, by the embedded runtime's rule
 * (include/sched/rotate.h): whatever else the host runs on one CPU is paid by every lane in
 * turn, not by whichever vCPUs hold the lane pinned there. Each holder's VMM is told (PIN) and
 * re-pins it; a grant names the lane's CPU of the moment. Only the daemon rotates: VMMs doing
 * it on their own clocks would put two holders on one CPU meanwhile.
 */
void host_rotate_due(struct host *h, uint64_t now)
{
	unsigned int l;

	if (h->lane_cpu[0] < 0 || !lane_rotate_due(&h->rot, h->nr_lanes, now))
		return;
	for (l = 0; l < h->nr_lanes; l++) {
		struct host_ev m = { .type = HOST_MSG_PIN, .arg = l, .b = host_lane_cpu(h, l) };
		int v = sched_lane_vcpu(h->s, l);

		if (v < 0 || !h->slot[v].client)
			continue;
		m.vcpu = h->slot[v].vcpu;
		host_dcpu_mark(h, h->slot[v].client);
		host_send(h->slot[v].client, &m, sizeof(m));
	}
}
