// SPDX-License-Identifier: GPL-2.0
/*
 * The noise of an error figure. A group's error over a window is its steady bias plus the
 * difference of its lag at the window's two ends: a scheduler rotating lanes every S ms runs
 * each group up to about S ahead or behind at any moment, so where the ends fall in a rotation
 * moves a 5 s figure by up to S / (5 s x P) of capacity even with no bias at all (0.08 % for
 * S = 8 ms on 2 lanes). Which scheduler "wins" a run then depends on luck as much as on bias.
 *
 * The window's readings (window.c) give the lag's spread: D(j), what the group got minus its
 * share of what all got up to reading j, is bias x total plus lag(j) - lag(0). The residual of a
 * straight-line fit of D on the total, through the origin, is that lag difference, and its
 * standard deviation is the standard error of the whole-window figure (whose end difference is
 * one more draw of the same kind).
 */
#include <math.h>

#include "noise.h"

/* What group g and all vCPUs together got up to reading j. */
static void step_ns(const struct bench_result *r, const struct scenario *s, unsigned int g,
		    unsigned int j, double *group, double *all)
{
	uint64_t gns[SCN_MAX_GROUPS] = { 0 }, sum = 0;
	unsigned int i;

	result_groups(s, r->step_ns[j], gns);
	for (i = 0; i < scn_nr_vcpus(s); i++)
		sum += r->step_ns[j][i];
	*group = (double)gns[g];
	*all = (double)sum;
}

double noise_nerr(const struct bench_result *r, const struct scenario *s, unsigned int g,
		  double share)
{
	double d[RESULT_STEPS + 1], t[RESULT_STEPS + 1], dt = 0, tt = 0, b, ss = 0;
	unsigned int j;

	for (j = 1; j <= RESULT_STEPS; j++) {
		double got;

		step_ns(r, s, g, j, &got, &t[j]);
		d[j] = got - share * t[j];
		dt += d[j] * t[j];
		tt += t[j] * t[j];
	}
	if (!(tt > 0))
		return NAN;
	b = dt / tt;
	for (j = 1; j <= RESULT_STEPS; j++)
		ss += (d[j] - b * t[j]) * (d[j] - b * t[j]);
	return 100.0 * sqrt(ss / (RESULT_STEPS - 1)) / t[RESULT_STEPS];
}
