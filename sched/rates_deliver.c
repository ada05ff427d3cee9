// SPDX-License-Identifier: GPL-2.0
/*
 * Delivered capacity: what a lane gives its holder, CPU reported per ns of lane held (paired per
 * vCPU: each report covers the lane time since the vCPU's last one). On a loaded host a lane
 * delivers less than a CPU. Weights share whatever is delivered; the bandwidth code uses the
 * measurement to predict when a pool runs dry (sched/bandwidth.c), and the statistics report it.
 */
#include "internal.h"

#define DELIVER_WINDOW_NS	100e6	/* lane time per measurement */
#define DELIVER_ALPHA	0.5		/* weight of a new measurement */
#define DELIVER_MIN	0.05
#define DELIVER_MISS_MIN_NS	1e6	/* lane time a miss needs to measure from */

void rates_lanes_held(struct sched *s, uint64_t dt)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++)
		if (s->core.lanes[l].cur)
			s->core.lanes[l].cur->held += dt;
}

void rates_delivered(struct sched *s, struct vcpu_core *vc, uint64_t cpu)
{
	struct sched_core *c = &s->core;
	double x;

	c->dl_cpu += (double)cpu;
	c->dl_held += (double)vc->held;
	c->dl_cpu_total += (double)cpu;
	c->dl_held_total += (double)vc->held;
	vc->held = 0;
	if (c->dl_held < DELIVER_WINDOW_NS)
		return;
	/* A lane handed over before its last holder left (a kick in flight) reads above 1. */
	x = c->dl_cpu / c->dl_held;
	x = x > 1.0 ? 1.0 : x < DELIVER_MIN ? DELIVER_MIN : x;
	c->deliver += DELIVER_ALPHA * (x - c->deliver);
	c->dl_cpu = 0;
	c->dl_held = 0;
}

/*
 * A bandwidth end passed with the pool not dry: the lanes deliver less than the estimate. Take
 * what the current window measured at once, if it is lower, rather than the smoothed estimate:
 * before the first window closed the estimate is a whole CPU, and each early end otherwise left
 * a remainder, predicted at that CPU again, a fraction of the last one.
 */
void rates_delivery_missed(struct sched *s)
{
	struct sched_core *c = &s->core;
	double x;

	if (c->dl_held < DELIVER_MISS_MIN_NS)
		return;
	x = c->dl_cpu / c->dl_held;
	if (x < c->deliver)
		c->deliver = x < DELIVER_MIN ? DELIVER_MIN : x;
	c->dl_cpu = 0;
	c->dl_held = 0;
}

double sched_delivered(const struct sched *s)
{
	return s->core.deliver;
}

void sched_delivery_totals(const struct sched *s, double *cpu_ns, double *held_ns)
{
	*cpu_ns = s->core.dl_cpu_total;
	*held_ns = s->core.dl_held_total;
}
