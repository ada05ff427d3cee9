/* SPDX-License-Identifier: GPL-2.0 */
/* The fluid ideal of a scenario: each group's share of capacity, in percent. */
#ifndef VSCHED_BENCH_IDEAL_H
#define VSCHED_BENCH_IDEAL_H

#include "scenario.h"

/* pct[g] (percent of lanes) for every group of s (hierarchical) on lanes CPUs. 0 or -errno. */
int ideal_shares(const struct scenario *s, unsigned int lanes, double *pct);

#endif
