/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fluid ideal (design brief §3): what each vCPU and group would get from a perfectly fluid
 * scheduler. Capacity P (lanes) enters at the root; every group splits what it gets among its
 * children (child groups by their weight, its own vCPUs at weight 1024 each, as threads in a
 * cgroup v2 group compete; a group whose parent did not enable "cpu" has no task group of its
 * own, its vCPUs compete in the nearest ancestor that has one) by water-filling: nobody gets more
 * than its demand, and what a satisfied child leaves goes to the others in proportion to weight.
 * A vCPU's demand is at most one CPU; a group's is min(quota / period, the sum of its children's
 * demands).
 *
 * The scheduler core uses the same function with demand 1 for every runnable vCPU to get the
 * rate each vCPU is owed right now (sched/rates.c); the simulator uses it for every vCPU with
 * work, at every arrival and completion, to get the GPS ideal it measures against.
 */
#ifndef VSCHED_SCHED_FLUID_H
#define VSCHED_SCHED_FLUID_H

#include "sched/group.h"

/* One child's claim on its parent's capacity. */
struct fluid_claim {
	double weight, demand, got;
	const struct group *g;		/* NULL for a vCPU */
	unsigned int vcpu;
	bool done;
};

/*
 * Water-filling of cap among n claims, in place: every claim whose demand fits in its weighted
 * share of what is left gets its demand (done set), the others split the rest by weight.
 * Claims with done already set on entry take nothing.
 */
void fluid_water_fill(struct fluid_claim *cl, unsigned int n, double cap);
/*
 * The claims competing inside g, as the kernel schedules them: g's vCPUs (demand[] of each,
 * at most 1), those of descendants without the cpu controller (they run in g's task group), and
 * g's child groups if g has "cpu" in subtree_control (demand -1: the caller fills it). Returns
 * their number; cl needs room for every vCPU and group below g.
 */
unsigned int fluid_claims(const struct group *g, const double *demand, struct fluid_claim *cl);

/*
 * demand[i] in CPUs (0..1) for vCPU i; rate[i] receives its ideal share in CPUs.
 * 0 or -ENOMEM.
 */
int fluid_solve(struct sched *s, const double *demand, double *rate);
/*
 * The same when each lane delivers only `deliver` (0, 1] CPU per second of wall time (the host
 * runs other work): P x deliver CPUs in all, at most deliver for one vCPU, and cpu.max caps stay
 * absolute CPUs. Weights share what the host delivers; caps do not shrink with it. 0, -EINVAL
 * (deliver out of range) or -ENOMEM.
 */
int fluid_solve_delivered(struct sched *s, const double *demand, double *rate, double deliver);
/*
 * The kernel's bandwidth semantics on a fluid scheduler: caps are not rates. A capped group runs
 * at its weighted share (water-filling without caps) until its pool runs dry, then demands
 * nothing until its refill; off(g, arg) says which groups are throttled now. The caller keeps
 * the pools (the simulator's ideal, sched/sim/sim_ideal.c). Units as fluid_solve_delivered().
 */
typedef bool (*fluid_off_fn)(const struct group *g, void *arg);
int fluid_solve_pools(struct sched *s, const double *demand, double *rate, double deliver,
		      fluid_off_fn off, void *arg);
/*
 * In lanes, with caller-provided scratch of fluid_scratch_size() entries; never fails. demand[]
 * and rate[] are in lanes (1 = a whole lane); caps are converted at `deliver` CPU per lane (1:
 * lanes are CPUs), or left out with FLUID_NO_CAPS: the core's instantaneous rates, where quota
 * is enforced by the bandwidth pools instead and a throttled group demands nothing
 * (sched/rates.c).
 */
#define FLUID_NO_CAPS	0.0
size_t fluid_scratch_size(struct sched *s);	/* entries */
size_t fluid_claim_size(void);			/* bytes per entry */
void fluid_solve_scratch(struct sched *s, const double *demand, double *rate,
			 struct fluid_claim *scratch, double deliver);
/* A group's ideal: the sum of rate[] over the vCPUs in it and below. */
double fluid_group_rate(struct sched *s, const struct group *g, const double *rate);
/* min(quota / period, sum of children's demands) for g, from vCPU demands. */
double fluid_group_demand(struct sched *s, const struct group *g, const double *demand);

#endif
