/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lanes moving over their host CPUs: every LANE_ROTATE_NS lane i takes the CPU of lane i + 1,
 * and its holder follows. Whatever else the host runs on one CPU is then paid by every lane in
 * turn, not by whichever vCPU holds the lane pinned there. One rule, one period, for an
 * embedded runtime's lanes (sched/runtime/rt_pin.c) and the host daemon's (host/host_lanes.c).
 * Pure: time is given.
 */
#ifndef VSCHED_SCHED_ROTATE_H
#define VSCHED_SCHED_ROTATE_H

#include <stdbool.h>
#include <stdint.h>

#define LANE_ROTATE_NS	250000000ULL

struct lane_rotate {
	uint64_t at;		/* next move (0: at the first look) */
	unsigned int shift;	/* lane i runs on the CPU of lane (i + shift) % lanes */
};

/* Whether the lanes move at now: if so the shift moved on and the next move is a period on. */
bool lane_rotate_due(struct lane_rotate *r, unsigned int nr_lanes, uint64_t now);
/* The host CPU lane runs on now, of lane_cpu[] (each lane's own CPU; -1: it floats). */
int lane_rotate_cpu(const struct lane_rotate *r, const int *lane_cpu, unsigned int nr_lanes,
		    unsigned int lane);

#endif
