// SPDX-License-Identifier: GPL-2.0
/*
 * Lanes moving over their host CPUs (include/sched/rotate.h), for the embedded runtime and the
 * host daemon alike. Without it a vCPU owed a whole lane paid all of another process's time on
 * its CPU, and fair shares cannot make that up (traced in overcommit: another process and
 * kdamond took 1.8 % of the owner's CPU over 2 s, none of the other CPU).
 */
#include "sched/rotate.h"

bool lane_rotate_due(struct lane_rotate *r, unsigned int nr_lanes, uint64_t now)
{
	if (nr_lanes < 2 || now < r->at)
		return false;
	r->at = now + LANE_ROTATE_NS;
	r->shift = (r->shift + 1) % nr_lanes;
	return true;
}

int lane_rotate_cpu(const struct lane_rotate *r, const int *lane_cpu, unsigned int nr_lanes,
		    unsigned int lane)
{
	return lane_cpu[(lane + r->shift) % nr_lanes];
}
