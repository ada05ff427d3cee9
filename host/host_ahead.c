// SPDX-License-Identifier: GPL-2.0
/*
 * Slice ends decided ahead (protocol version 13, HOST_HELLO_AHEAD; docs/host.md, "Slice ends
 * decided ahead"). A slice end through the daemon cost its wake-up after the VMM's: the holder's
 * own timer ended the slice, its VMM sent RAN and TICK, and only then did the daemon wake,
 * decide and write the entries (2.15-2.40x the in-process figure on the thread backend).
 *
 * So while someone waits, the daemon wakes a lead before the earliest slice end and runs its
 * core's timer *at* that end: every holder charged up to it, the core's clock moved there.
 * Each decision it makes is written in the grant page with that moment (`at`): "PREEMPT at
 * until" in the holder's entry (no kick: its VMM's own slice timer fires there already and
 * applies it), "GRANT from until" in the successor's (its thread, woken early, waits for `at`).
 * Nothing of the daemon's is left on the slice end's path. Events read before `at` reach a core
 * whose clock is already there: they count from `at` (the core never goes back), and their
 * decisions carry the same `at`. A later decision about a vCPU replaces its entry whole, so an
 * event that changes the outcome withdraws what was published (a successor that blocks meanwhile
 * gives the lane back to the holder as a GRANT; the core's state never has two holders on a
 * lane). No lane is offered while the core is ahead: the holder of a lane the core sees idle may
 * still be running until `at`.
 *
 * Faults: a VMM that ignores a published end is preempted by the daemon at the grace after it
 * (the entry rewritten as a PREEMPT at once, its thread kicked, the datagram sent), unless a
 * message about that vCPU came at or after `at` (its VMM applied it and reported). Decisions are
 * made ahead only while every joined VM asked for it.
 *
 * The lead is the daemon's own path from its timer's moment to the decisions written (the timer
 * interrupt, its thread's wake-up, the work), learnt as it runs: a fixed 100 us was about that
 * path's median on one machine, and on a machine whose idle CPU wakes more slowly whole runs
 * published nothing ahead (CI: 1 of ~110 ends, twice). Its p90, HOST_AHEAD_NS to
 * HOST_AHEAD_MAX_NS: events read inside the lead count from the end, so it stays short.
 */
#include <limits.h>

#include "internal.h"
#include "sched/core.h"

/* Whether every joined VM takes decisions made ahead. */
static bool host_ahead_all(struct host *h)
{
	struct host_client *c;

	list_for_each_entry(c, &h->clients, node)
		if (c->joined && !c->ahead)
			return false;
	return !list_empty(&h->clients);
}

/* The earliest slice end of a held lane ahead of the core's clock, HOST_TIME_INF: none. */
static uint64_t host_ahead_end(struct host *h)
{
	uint64_t t = HOST_TIME_INF, u, core = sched_now(h->s);
	unsigned int l;

	if (!host_ahead_all(h) || !host_someone_waits(h))
		return HOST_TIME_INF;
	for (l = 0; l < h->nr_lanes; l++) {
		int v = sched_lane_vcpu(h->s, l);

		if (v < 0 || !h->slot[v].client)
			continue;
		u = sched_lane_until(h->s, l);
		if (u != SCHED_TIME_NONE && u > core && u < t)
			t = u;
	}
	return t;
}

/* When the daemon must next wake for decisions ahead or a published end not applied. */
uint64_t host_ahead_next(struct host *h)
{
	uint64_t t = host_ahead_end(h);
	unsigned int i;

	h->ahead_wake_end = t;
	if (t != HOST_TIME_INF)
		t = t > h->ahead_lead_ns ? t - h->ahead_lead_ns : 0;
	h->ahead_wake = t;
	for (i = 0; i < h->nr_slots; i++)
		if (h->slot[i].ahead_at && h->slot[i].ahead_at + h->grace_ns < t)
			t = h->slot[i].ahead_at + h->grace_ns;
	return t;
}

/*
 * The daemon's timer at now: if a slice end is due within the lead, the core's timer runs at
 * that end (holders charged up to it) and true is returned; the caller drains. Lock held.
 */
bool host_ahead_run(struct host *h, uint64_t now)
{
	uint64_t t = host_ahead_end(h);

	if (t == HOST_TIME_INF || t > now + h->ahead_lead_ns)
		return false;
	h->nr_ahead++;
	host_charge_holders(h, t, UINT_MAX);
	sched_timer(h->s, t);
	return true;
}

/*
 * After a timer run armed to decide the slice end at end ahead, the timer having been armed for
 * armed, its decisions written (in time or not): the path since learnt as its p90 (nine steps
 * up on a longer one, one down otherwise), and the lead set from it. Late runs are counted.
 */
void host_ahead_learn(struct host *h, uint64_t armed, uint64_t end)
{
	uint64_t now = h->clock(), path = now > armed ? now - armed : 0;
	const uint64_t step = 1000;

	h->nr_ahead_runs++;
	if (now >= end)
		h->nr_ahead_missed++;
	if (path > h->ahead_path_ns)
		h->ahead_path_ns += 9 * step;
	else if (h->ahead_path_ns >= step)
		h->ahead_path_ns -= step;
	if (h->ahead_path_ns > HOST_AHEAD_MAX_NS)
		h->ahead_path_ns = HOST_AHEAD_MAX_NS;
	h->ahead_lead_ns = h->ahead_path_ns > HOST_AHEAD_NS ? h->ahead_path_ns : HOST_AHEAD_NS;
}

/* What the timer armed for t is for: the slice end it decides ahead, HOST_TIME_INF: none. */
uint64_t host_ahead_armed(struct host *h, uint64_t t)
{
	return t != HOST_TIME_INF && t == h->ahead_wake ? h->ahead_wake_end : HOST_TIME_INF;
}

/* The moment a decision about c's vCPU made now takes effect: 0 (at once), or the core's. */
uint64_t host_ahead_at(struct host *h, const struct host_client *c)
{
	uint64_t core = sched_now(h->s);

	return c->ahead && c->page && core > h->clock() ? core : 0;
}

/* While the core is ahead of the daemon's clock, no lane is offered (their holders may run). */
bool host_ahead_holds_offers(struct host *h)
{
	return sched_now(h->s) > h->clock();
}

/* A message about slot at now: an end published for it is applied if now is past it. */
void host_ahead_heard(struct host *h, unsigned int slot, uint64_t now)
{
	struct host_slot *sl = &h->slot[slot];

	if (sl->ahead_at && now >= sl->ahead_at)
		sl->ahead_at = 0;
}

/*
 * Holders that a published end did not take off the lane by the grace after it: preempted now
 * as the daemon preempts any (entry, kick, datagram). Lock held.
 */
void host_ahead_enforce(struct host *h, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < h->nr_slots; i++) {
		struct host_slot *sl = &h->slot[i];
		struct host_ev m = { .type = HOST_MSG_PREEMPT, .a = HOST_TIME_INF };

		if (!sl->ahead_at || now < sl->ahead_at + h->grace_ns || !sl->client)
			continue;
		sl->ahead_at = 0;
		sl->client->nr_ahead_late++;
		m.vcpu = sl->vcpu;
		m.seq = host_page_write(sl->client, sl->vcpu, HOST_LANE_NONE, HOST_TIME_INF,
					HOST_CPU_NONE);
		host_kick(sl->client, sl->vcpu);
		host_send(sl->client, &m, sizeof(m));
	}
}

uint64_t host_client_ahead_late(const struct host_client *c)
{
	return c->nr_ahead_late;
}

uint64_t host_nr_ahead(const struct host *h)
{
	return h->nr_ahead;
}

uint64_t host_ahead_lead(const struct host *h, uint64_t *runs, uint64_t *missed)
{
	if (runs)
		*runs = h->nr_ahead_runs;
	if (missed)
		*missed = h->nr_ahead_missed;
	return h->ahead_lead_ns;
}
