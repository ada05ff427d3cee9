// SPDX-License-Identifier: GPL-2.0
/*
 * Lane holders charged up to the moment the core decides, as an embedded runtime's
 * rt_charge_running() does before every decision.
 *
 * A VMM reports its holders' CPU time at a slice end, an exit and every RT_REPORT_NS; between
 * reports, the core saw another VM's holder as behind by up to a slice (or 20 ms with nobody
 * waiting): a pick, a throttle or a refill then used stale virtual time and quota
 * (docs/host.md, "Holders charged at decision time"). So before each decision the daemon
 * charges every holder the wall time it held its lane since its last report or grant, on its
 * own clock; the VMM's reports stay the truth: a report first pays back what was charged
 * ahead of it, and only the rest is charged. What a holder did not run (its CPU was busy
 * with other work) stays charged ahead until its later reports cover it; at most
 * HOST_REPORT_NS is charged ahead of a holder's reports. A VMM cannot make the daemon charge
 * another VM more than the wall time that VM held a lane.
 */
#include "internal.h"
#include "sched/core.h"

/* Every holder but skip (a slot, or UINT_MAX) charged up to now. Lock held. */
void host_charge_holders(struct host *h, uint64_t now, unsigned int skip)
{
	unsigned int l;

	for (l = 0; l < h->nr_lanes; l++) {
		int v = sched_lane_vcpu(h->s, l);
		struct host_slot *sl;
		uint64_t due;

		if (v < 0 || (unsigned int)v == skip)
			continue;
		sl = &h->slot[v];
		if (!sl->client || now <= sl->charged_at)
			continue;
		due = now - sl->charged_at;
		/*
		 * A holder that runs reports within HOST_REPORT_NS: one silent longer is not
		 * running (its thread waits for a host CPU, its VMM is stopped), and its wall time
		 * past that is no estimate of its CPU time. Charged anyway, it came in lumps its
		 * reports paid back only as it ran again: 333 ms at once to a 4-vCPU VM beside a
		 * busy loop, which then got no lane for 2.3 s (docs/host.md).
		 */
		if (due > HOST_REPORT_NS)
			due = HOST_REPORT_NS;
		if (due <= sl->ahead_ns)
			continue;
		sched_vcpu_ran(h->s, (unsigned int)v, due - sl->ahead_ns, 0, now);
		sl->ahead_ns = due;
	}
}

/* A holder got its lane at now: its estimate starts there. */
void host_charge_granted(struct host *h, unsigned int slot, uint64_t now)
{
	h->slot[slot].charged_at = now;
}

/*
 * A report of user + sys ns is garbage only if it is impossible: either above HOST_RAN_MAX_NS,
 * and with done (what was reported before) more than threads using cpus CPUs could have run
 * since since (HOST_RAN_MAX_NS of slack for the HELLO's and the reports' delivery). Until
 * 2026-12-07 any report above HOST_RAN_MAX_NS hung its VMM up: one that really ran 12 s without
 * a word (its helper held off its CPU, the daemon itself stalled) was cut off for telling the
 * truth (docs/host.md). Against the time since its last report alone it would be refused still
 * where the daemon read that report late and this one at once. RAN and OTHER (host_other.c).
 */
bool host_report_possible(uint64_t since, uint64_t now, uint64_t cpus, uint64_t done,
			  uint64_t user, uint64_t sys)
{
	uint64_t life = now > since ? now - since : 0, max;

	if (user <= HOST_RAN_MAX_NS && sys <= HOST_RAN_MAX_NS)
		return true;
	if (user > UINT64_MAX - sys)
		return false;
	max = life > (UINT64_MAX - HOST_RAN_MAX_NS) / cpus ? UINT64_MAX :
	      life * cpus + HOST_RAN_MAX_NS;
	return done <= max && user + sys <= max - done;
}

/* A RAN counted (the sum of what the vCPU reported since its join); false: impossible. */
bool host_ran_count(struct host *h, unsigned int slot, uint64_t user, uint64_t sys,
		    uint64_t now)
{
	struct host_slot *sl = &h->slot[slot];
	uint64_t sum;

	if (!host_report_possible(sl->joined_at, now, 1, sl->reported_ns, user, sys))
		return false;
	sum = user + sys;	/* each at most HOST_RAN_MAX_NS, or their sum checked */
	sl->reported_ns = sl->reported_ns > UINT64_MAX - sum ? UINT64_MAX : sl->reported_ns + sum;
	return true;
}

/* A report of user + sys ns: what was charged ahead of it is paid back first. */
int host_charge_report(struct host *h, unsigned int slot, uint64_t user, uint64_t sys,
		       uint64_t now)
{
	struct host_slot *sl = &h->slot[slot];
	uint64_t pay;

	pay = user < sl->ahead_ns ? user : sl->ahead_ns;
	user -= pay;
	sl->ahead_ns -= pay;
	pay = sys < sl->ahead_ns ? sys : sl->ahead_ns;
	sys -= pay;
	sl->ahead_ns -= pay;
	sl->charged_at = now;
	if (!user && !sys)
		return 0;
	return sched_vcpu_ran(h->s, slot, user, sys, now);
}
