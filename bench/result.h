/* SPDX-License-Identifier: GPL-2.0 */
/* What one side of the benchmark measured for one scenario. */
#ifndef VSCHED_BENCH_RESULT_H
#define VSCHED_BENCH_RESULT_H

#include <stdint.h>

#include "scenario.h"

#define WAKE_SAMPLES_MAX	65536
#define RESULT_STEPS		50	/* readings inside the window (window.c, noise.c) */

struct bench_result {
	double seconds;				/* measurement window (wall) */
	double life_s;				/* the VM's start to its counters' read */
	unsigned int lanes;			/* capacity P */
	uint64_t group_ns[SCN_MAX_GROUPS];	/* CPU time, hierarchical */
	uint64_t vcpu_ns[SCN_MAX_VCPUS];
	uint64_t work[SCN_MAX_VCPUS];		/* work units done in the window */
	uint64_t nr_periods[SCN_MAX_GROUPS];
	uint64_t nr_throttled[SCN_MAX_GROUPS];
	uint64_t step_ns[RESULT_STEPS + 1][SCN_MAX_VCPUS];	/* CPU time since the start */
	unsigned int nr_wake;			/* wake-to-run delays of sleeping vCPUs, ns */
	uint32_t wake_ns[WAKE_SAMPLES_MAX];
};

/* Share of capacity in percent: ns over the window on P lanes. */
static inline double result_pct(const struct bench_result *r, uint64_t ns)
{
	return 100.0 * (double)ns / (r->seconds * 1e9 * r->lanes);
}

/*
 * Each group's CPU time from its vCPUs': theirs and its descendants' (hierarchical, as
 * cpu.stat), added to group_ns.
 */
static inline void result_groups(const struct scenario *s, const uint64_t *vcpu_ns,
				 uint64_t *group_ns)
{
	unsigned int i;

	for (i = 0; i < scn_nr_vcpus(s); i++) {
		int gi;

		for (gi = scn_group_index(s, s->vcpus[i].group); gi >= 0;
		     gi = scn_parent_index(s, gi))
			group_ns[gi] += vcpu_ns[i];
	}
}

/*
 * Per-vCPU CPU time and work over the window from the readings at its start (0) and end (1),
 * and each group's CPU time.
 */
static inline void result_tally(struct bench_result *r, const struct scenario *s,
				const uint64_t *cpu0, const uint64_t *cpu1, const uint64_t *w0,
				const uint64_t *w1)
{
	unsigned int i;

	for (i = 0; i < scn_nr_vcpus(s); i++) {
		r->vcpu_ns[i] = cpu1[i] - cpu0[i];
		r->work[i] = w1[i] - w0[i];
	}
	result_groups(s, r->vcpu_ns, r->group_ns);
}

#endif
