// SPDX-License-Identifier: GPL-2.0
/*
 * The CPU a joined VMM's threads other than its vCPUs' use (its agent, helper, waker, device
 * threads), charged to its VM group (HOST_MSG_OTHER, protocol version 12).
 *
 * The kernel charges every thread of a cgroup to it: a VM's emulator threads count against its
 * partition's cpu.max and in its weight's share. Here a VM's vCPUs run on the daemon's lanes and
 * the VMM's other threads run beside them on the host's CPUs, no group's: in a capped partition
 * the vCPUs got the whole quota and the VMMs' other threads (0.010-0.019 CPU in bench-host's
 * partition, docs/host.md) came out of the uncapped VMs' share on top. The VMM measures them
 * (its process's CPU clock less its vCPU threads' clocks, sched/runtime/rt_other.c) and
 * reports them with its helper's reports; the core charges them to the VM group as CPU of the
 * group's own threads (sched_group_charge()): its cpu.stat, the pools of its and its
 * ancestors' cpu.max and their virtual time.
 *
 * A VMM cannot charge more than its process could have used: from its join on it is allowed
 * the elapsed time times the host's online CPUs (at most HOST_RAN_MAX_NS saved up), and what
 * it reports beyond that is not charged (counted). A lying VMM can so draw down its own
 * groups' pools and virtual time, as a VMM that burns that CPU would under the kernel, and no
 * other VM's outside them.
 */
#include <errno.h>

#include "internal.h"
#include "sched/core.h"
#include "sched/group.h"

int host_charge_other(struct host *h, struct host_client *c, uint64_t user, uint64_t sys,
		      uint64_t now)
{
	uint64_t elapsed, total, ok;
	struct group *g;

	/* Garbage only beyond what its threads could have used on every host CPU since the join. */
	if (!host_report_possible(c->other_joined, now, h->nr_host_cpus ? h->nr_host_cpus : 1,
				  c->other_ns + c->other_refused_ns, user, sys))
		return -ERANGE;
	if (now > c->other_at) {
		elapsed = now - c->other_at;
		if (elapsed > HOST_RAN_MAX_NS)
			elapsed = HOST_RAN_MAX_NS;
		c->other_allow += elapsed * h->nr_host_cpus;
		if (c->other_allow > HOST_RAN_MAX_NS)
			c->other_allow = HOST_RAN_MAX_NS;
		c->other_at = now;
	}
	total = user + sys;
	ok = total < c->other_allow ? total : c->other_allow;
	if (ok < total) {
		c->other_refused_ns += total - ok;
		/* The refused part comes out of each in proportion. */
		user = (uint64_t)((double)user * ((double)ok / (double)total));
		sys = ok > user ? ok - user : 0;
	}
	c->other_allow -= ok;
	g = group_lookup(h->s, c->group);
	if (!ok || !g)
		return 0;
	c->other_ns += ok;
	return sched_group_charge(h->s, g, user, sys, now);
}

uint64_t host_client_other_ns(const struct host_client *c, uint64_t *refused)
{
	if (refused)
		*refused = c->other_refused_ns;
	return c->other_ns;
}
