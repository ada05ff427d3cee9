/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fluid ideal (design brief §3): what each vCPU and group would get from a perfectly fluid
 * scheduler. Capacity P (lanes) enters at the root; every group splits what it gets among its
 * children (child groups by their weight, its own vCPUs at weight 1024 each, as threads in a
 * cgroup v2 group compete) by water-filling: nobody gets more than its demand, and what a
 * satisfied child leaves goes to the others in proportion to weight. A vCPU's demand is at most
 * one CPU; a group's is min(quota / period, the sum of its children's demands).
 */
#ifndef VSCHED_SCHED_FLUID_H
#define VSCHED_SCHED_FLUID_H

#include "sched/group.h"

/*
 * demand[i] in CPUs (0..1) for vCPU i; rate[i] receives its ideal share in CPUs.
 * 0 or -ENOMEM.
 */
int fluid_solve(struct sched *s, const double *demand, double *rate);
/* A group's ideal: the sum of rate[] over the vCPUs in it and below. */
double fluid_group_rate(struct sched *s, const struct group *g, const double *rate);
/* min(quota / period, sum of children's demands) for g, from vCPU demands. */
double fluid_group_demand(struct sched *s, const struct group *g, const double *demand);

#endif
