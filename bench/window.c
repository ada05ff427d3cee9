// SPDX-License-Identifier: GPL-2.0
/*
 * One measurement window. Reading the CPU clocks at evenly spaced steps inside it, not only at
 * its two ends, is what lets noise.c tell a scheduler's steady bias from where the window's
 * ends happened to fall in a rotation.
 */
#include <time.h>

#include "window.h"
#include "work.h"

void window_measure(struct bench_result *r, const struct scenario *s, double seconds,
		    window_snap_fn snap, void *arg)
{
	uint64_t cpu0[SCN_MAX_VCPUS], w0[SCN_MAX_VCPUS], cpu[SCN_MAX_VCPUS], w[SCN_MAX_VCPUS];
	uint64_t step = (uint64_t)(seconds * 1e9) / RESULT_STEPS, t0, t1;
	unsigned int i, j, n = scn_nr_vcpus(s);

	t0 = time_mono_ns();
	snap(arg, cpu0, w0);
	for (j = 1; j <= RESULT_STEPS; j++) {
		struct timespec at = time_ns_to_ts(t0 + j * step);

		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL))
			;
		snap(arg, cpu, w);
		for (i = 0; i < n; i++)
			r->step_ns[j][i] = cpu[i] - cpu0[i];
	}
	t1 = time_mono_ns();
	r->seconds = (double)(t1 - t0) / 1e9;
	result_tally(r, s, cpu0, cpu, w0, w);
}
