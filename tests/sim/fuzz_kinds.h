/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The random trees `make fuzz-sim` generates (tests/sim/fuzz_sim.c), shared with the unit tests
 * that replay one of its seeds, so that "seed N of kind K" names the same scenario in both.
 */
#ifndef VSCHED_TESTS_FUZZ_KINDS_H
#define VSCHED_TESTS_FUZZ_KINDS_H

#include "sched/sim.h"

#define FUZZ_TREES .max_vcpus = 256, .max_groups = 16, .max_depth = 10, \
		   .duration_ns = 10000000000ULL

/* The kinds the tests replay: hog-only, duty on 1-16 lanes, work every 10 ms and more, caps of
 * 10 ms and of 100 ms periods and more (fuzz_sim.c's kinds 0, 2, 3, 5, 4). */
static const struct sim_gen_opts fuzz_hogs = { .kind = SIM_GEN_HOGS, .max_lanes = 16, FUZZ_TREES };
static const struct sim_gen_opts fuzz_duty = { .kind = SIM_GEN_DUTY, .max_lanes = 16, FUZZ_TREES };
static const struct sim_gen_opts fuzz_coarse_duty = {
	.kind = SIM_GEN_DUTY, .max_lanes = 16, .coarse_duty = true, FUZZ_TREES
};
static const struct sim_gen_opts fuzz_caps = { .kind = SIM_GEN_CAPS, .max_lanes = 16, FUZZ_TREES };
static const struct sim_gen_opts fuzz_coarse_caps = {
	.kind = SIM_GEN_CAPS, .max_lanes = 16, .coarse_caps = true, FUZZ_TREES
};

/* Kind 6, small capped trees: 1-4 lanes, 2-8 vCPUs, 1-3 groups at depth 1-2, 10 s. */
#define FUZZ_SMALL_CAPS { .kind = SIM_GEN_SMALL_CAPS, .max_lanes = 4, .max_vcpus = 8, \
			  .max_groups = 3, .max_depth = 2, .duration_ns = 10000000000ULL }
static const struct sim_gen_opts fuzz_small_caps = FUZZ_SMALL_CAPS;

#endif
