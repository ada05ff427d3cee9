/* SPDX-License-Identifier: GPL-2.0 */
/* How much of a group's error one window's luck explains. */
#ifndef VSCHED_BENCH_NOISE_H
#define VSCHED_BENCH_NOISE_H

#include "result.h"

/*
 * The standard error of group g's nerr (percent of capacity) in r, for a group owed `share`
 * (0..1) of what all vCPUs got. NAN without readings.
 */
double noise_nerr(const struct bench_result *r, const struct scenario *s, unsigned int g,
		  double share);

#endif
