// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's own CPU, charged to the VM groups it worked for.
 *
 * The kernel's scheduling work runs in the context of the task it is done for (a wake-up in the
 * waker's, a slice end in the preempted task's), so a cgroup pays its own throttles, refills and
 * switches. The daemon's thread is no group's: its CPU (0.012 CPU, kvm 0.017, beside bench-host's
 * capped partition; most of it the capped VMs' events) came out of the uncapped VM's share.
 *
 * So host_run() reads its thread's CPU clock once per unit of work and gives what it used since
 * the last read to the VM the unit was for:
 *  - a batch of one VMM's datagrams (everything read from its socket at one wake-up): that VM;
 *  - the daemon's timer (refills, unthrottles, revocations, the lanes' moves, slice ends): the
 *    VMs its decisions of that tick were for, split by their number (each GRANT, PREEMPT,
 *    RETIME, PIN or revocation counts one for its VM);
 *  - anything else (a connection accepted, a VM hung up on, a timer that decided nothing):
 *    no VM's, left uncharged and counted.
 * The read is chained (one clock_gettime() per unit, none at its start): what a unit is charged
 * runs from the end of the one before, so the wake-up that started it counts with it and the
 * reads' own cost is charged too. A FUSE thread's work (the control directory) is not measured.
 * What a VM is owed is charged at the daemon's next timer, with its decisions (batched: a
 * sched_group_charge() per VM and tick), as CPU time of the VM group's own threads, system time:
 * its cpu.stat, every pool above it and its virtual time, as its VMM's other threads are
 * (host_other.c). What is owed as a VM leaves is counted with the uncharged.
 */
#include "internal.h"
#include "sched/core.h"
#include "sched/group.h"
#include "util/time.h"

void host_set_cpu_clock(struct host *h, uint64_t (*clock)(void))
{
	h->cpu_clock = clock;
	h->dcpu_last = clock();
}

/* The daemon thread's CPU since the last read (lock not needed: host_run()'s thread only). */
static uint64_t host_dcpu_read(struct host *h)
{
	uint64_t now = h->cpu_clock(), d = now > h->dcpu_last ? now - h->dcpu_last : 0;

	h->dcpu_last = now;
	h->nr_dcpu_reads++;
	return d;
}

/* The daemon's timer starts: its decisions count for their VMs until host_dcpu_end(). Lock held. */
void host_dcpu_begin(struct host *h)
{
	h->dcpu_marking = true;
}

/* A decision (or PIN, revocation) for c during the timer's unit. Lock held. */
void host_dcpu_mark(struct host *h, struct host_client *c)
{
	if (h->dcpu_marking && c)
		c->dcpu_marks++;
}

/* The timer's CPU, split among the VMs its decisions were for by their number. */
static void host_dcpu_split(struct host *h, uint64_t d)
{
	struct host_client *c;
	uint64_t marks = 0, given = 0;

	list_for_each_entry(c, &h->clients, node)
		marks += c->joined ? c->dcpu_marks : 0;
	list_for_each_entry(c, &h->clients, node) {
		if (c->joined && c->dcpu_marks && marks) {
			uint64_t share = (uint64_t)((double)d * c->dcpu_marks / marks);

			c->dcpu_owed += share;
			given += share;
		}
		c->dcpu_marks = 0;
	}
	h->dcpu_uncharged += d - given;
}

/*
 * A unit of the daemon's work ended: c's datagrams (c, joined), or the timer's (c NULL after
 * host_dcpu_begin()), or no VM's. Lock held for the timer's (its marks); else not needed.
 */
void host_dcpu_end(struct host *h, struct host_client *c)
{
	uint64_t d = host_dcpu_read(h);

	if (h->dcpu_marking) {
		h->dcpu_marking = false;
		host_dcpu_split(h, d);
	} else if (c && c->joined) {
		c->dcpu_owed += d;
	} else {
		h->dcpu_uncharged += d;
	}
}

/* Every VM's owed CPU into its VM group at now; the caller drains the decisions. Lock held. */
void host_dcpu_charge(struct host *h, uint64_t now)
{
	struct host_client *c;
	struct group *g;

	list_for_each_entry(c, &h->clients, node) {
		if (!c->dcpu_owed)
			continue;
		g = c->joined ? group_lookup(h->s, c->group) : NULL;
		if (!g || sched_group_charge(h->s, g, 0, c->dcpu_owed, now)) {
			h->dcpu_uncharged += c->dcpu_owed;
		} else {
			c->dcpu_ns += c->dcpu_owed;
			h->nr_dcpu_charges++;
		}
		c->dcpu_owed = 0;
	}
}

/* c leaves: what it still owes is no group's now. */
void host_dcpu_leave(struct host *h, struct host_client *c)
{
	h->dcpu_uncharged += c->dcpu_owed;
	c->dcpu_owed = 0;
}

uint64_t host_client_dcpu_ns(const struct host_client *c, uint64_t *owed)
{
	if (owed)
		*owed = c->dcpu_owed;
	return c->dcpu_ns;
}

uint64_t host_dcpu_uncharged(const struct host *h, uint64_t *reads, uint64_t *charges)
{
	if (reads)
		*reads = h->nr_dcpu_reads;
	if (charges)
		*charges = h->nr_dcpu_charges;
	return h->dcpu_uncharged;
}
