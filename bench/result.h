/* SPDX-License-Identifier: GPL-2.0 */
/* What one side of the benchmark measured for one scenario. */
#ifndef VSCHED_BENCH_RESULT_H
#define VSCHED_BENCH_RESULT_H

#include <stdint.h>

#include "scenario.h"

#define WAKE_SAMPLES_MAX	65536

struct bench_result {
	double seconds;				/* measurement window (wall) */
	unsigned int lanes;			/* capacity P */
	uint64_t group_ns[SCN_MAX_GROUPS];	/* CPU time, hierarchical */
	uint64_t vcpu_ns[SCN_MAX_VCPUS];
	uint64_t work[SCN_MAX_VCPUS];		/* work units done in the window */
	uint64_t nr_periods[SCN_MAX_GROUPS];
	uint64_t nr_throttled[SCN_MAX_GROUPS];
	unsigned int nr_wake;			/* wake-to-run delays of sleeping vCPUs, ns */
	uint32_t wake_ns[WAKE_SAMPLES_MAX];
};

/* Share of capacity in percent: ns over the window on P lanes. */
static inline double result_pct(const struct bench_result *r, uint64_t ns)
{
	return 100.0 * (double)ns / (r->seconds * 1e9 * r->lanes);
}

#endif
