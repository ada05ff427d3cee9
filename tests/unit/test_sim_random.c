// SPDX-License-Identifier: GPL-2.0
/*
 * Exact by construction (issue 13): random scenarios from fixed seeds (sched/sim/sim_gen.c),
 * each run for 10 simulated seconds and compared with the simulator's ideal (GPS over the
 * scenario's arrivals, the fluid ideal of fluid_solve() at every moment, with the kernel's
 * burst-then-throttle caps; sched/sim/sim_ideal.c). The whole error over the run is what counts,
 * from the first nanosecond: no settling window.
 *
 *  - hog-only uncapped trees, every shape the generator makes (depth up to 10, weights 1..10000,
 *    nice, idle groups, 1..16 lanes, 1..256 vCPUs, moves, weights, nice and idle changes mid-run):
 *    within 0.1 % of capacity;
 *  - duty-cycle and bursty vCPUs beside hogs in the same trees on one lane: within 0.5 %;
 *  - the same on 1..16 lanes with work every 10 ms and more (1 ms and more of it): within 0.5 %
 *    (seeds 0-199; `make fuzz-sim` still finds 21 of 2000 over, and 48 of 2000 with work every
 *    0.2 ms and more, which stay out: docs/scheduler.md §10);
 *  - hogs under cpu.max caps of 100 ms periods and more, nested, bursts, new caps mid-run, on
 *    1..16 lanes: within 0.5 % of the burst-then-throttle model.
 *
 * What this leaves out, and why, is in docs/scheduler.md §9; `make fuzz-sim` runs thousands of
 * seeds of every kind, the ones left out included, and reports the worst.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "sched/sim.h"

#define TEXT_LEN	(64 * 1024)

static void run_seeds(const struct sim_gen_opts *o, uint64_t first, unsigned int n, double bound)
{
	char *text = malloc(TEXT_LEN);
	double worst = 0;
	struct diag d;
	unsigned int i, bad = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (i = 0; i < n; i++) {
		uint64_t seed = first + i;
		unsigned long violations = 0;
		double e = 0;
		int ret;

		diag_init(&d, NULL);
		ret = sim_gen_run(seed, o, &e, &violations, text, TEXT_LEN, &d);

		CU_ASSERT_EQUAL(ret, 0);
		if (ret) {
			printf("\n  seed %llu: %s\n", (unsigned long long)seed, d.msg);
			continue;
		}
		if ((e > bound || violations) && !bad++)
			printf("\n  seed %llu: error %.4f %% of capacity (bound %.2f), %lu min-run "
			       "violations:\n%s", (unsigned long long)seed, e, bound, violations,
			       text);
		CU_ASSERT_TRUE(e <= bound);
		CU_ASSERT_EQUAL(violations, 0);
		if (e > worst)
			worst = e;
	}
	printf(" [%u seeds, worst %.4f %%] ", n, worst);
	free(text);
}

static void test_random_hogs(void)
{
	struct sim_gen_opts o = {
		.kind = SIM_GEN_HOGS, .max_lanes = 16, .max_vcpus = 256, .max_groups = 16,
		.max_depth = 10, .duration_ns = 10000000000ULL,
	};

	run_seeds(&o, 0, 200, 0.1);
}

static void test_random_duty(void)
{
	struct sim_gen_opts o = {
		.kind = SIM_GEN_DUTY, .max_lanes = 1, .max_vcpus = 64, .max_groups = 16,
		.max_depth = 10, .duration_ns = 10000000000ULL,
	};

	run_seeds(&o, 0, 60, 0.5);
}

static void test_random_duty_lanes(void)
{
	struct sim_gen_opts o = {
		.kind = SIM_GEN_DUTY, .max_lanes = 16, .max_vcpus = 256, .max_groups = 16,
		.max_depth = 10, .duration_ns = 10000000000ULL, .coarse_duty = true,
	};

	run_seeds(&o, 0, 200, 0.5);
}

static void test_random_caps(void)
{
	struct sim_gen_opts o = {
		.kind = SIM_GEN_CAPS, .max_lanes = 16, .max_vcpus = 256, .max_groups = 8,
		.max_depth = 10, .duration_ns = 10000000000ULL, .coarse_caps = true,
	};

	run_seeds(&o, 0, 150, 0.5);
}

/*
 * A seed's scenario runs the same whatever ran before it in the process. Ties between entities
 * broke by address, so seed 937 of the 10 ms caps kind gave 6.20 % alone, 5.67 % after seeds
 * 930-936 and 7.45 % after 0-936 (different allocations, different tie-breaks); by a fixed
 * order (vCPU id, then groups by creation) now.
 */
static void test_random_runs_repeat(void)
{
	struct sim_gen_opts o = {
		.kind = SIM_GEN_CAPS, .max_lanes = 16, .max_vcpus = 256, .max_groups = 16,
		.max_depth = 10, .duration_ns = 10000000000ULL,
	};
	char *text = malloc(TEXT_LEN);
	double e0 = -1, e1 = -2, e;
	unsigned long violations;
	struct diag d;
	uint64_t seed;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	diag_init(&d, NULL);
	CU_ASSERT_EQUAL(sim_gen_run(937, &o, &e0, &violations, text, TEXT_LEN, &d), 0);
	for (seed = 930; seed < 937; seed++)
		CU_ASSERT_EQUAL(sim_gen_run(seed, &o, &e, &violations, text, TEXT_LEN, &d), 0);
	CU_ASSERT_EQUAL(sim_gen_run(937, &o, &e1, &violations, text, TEXT_LEN, &d), 0);
	CU_ASSERT_EQUAL(e0, e1);
	free(text);
}

static CU_TestInfo random_tests[] = {
	{ "a seed runs the same whatever ran before", test_random_runs_repeat },
	{ "random hog-only trees within 0.1 %", test_random_hogs },
	{ "random duty and bursty vCPUs within 0.5 %", test_random_duty },
	{ "random duty and bursty vCPUs on 1-16 lanes within 0.5 %", test_random_duty_lanes },
	{ "random caps within 0.5 % of burst-then-throttle", test_random_caps },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim random", random_tests)
