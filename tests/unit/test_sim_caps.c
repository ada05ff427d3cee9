// SPDX-License-Identifier: GPL-2.0
/*
 * Caps of short periods against the burst-then-throttle model (docs/scheduler.md §4, §10):
 * scenarios reduced from `make fuzz-sim` seeds of the 10 ms caps kind, each once wrong for a
 * reason of its own.
 */
#include "test.h"
#include "sim_test.h"

/*
 * A group of weight 3347 with three hogs capped at 14.56 ms per 10 ms beside three hogs of weight
 * 100 on two lanes: it is owed 1.84 CPU, so it burns its quota and is throttled every period.
 * The lanes it frees go to its siblings with slices paid up front at the rates of the throttle
 * (0.67 CPU each); paid at those after the refill too, the slice spanning it counted as served
 * while the group was out of the sum, its holder looked owed a second one, and the group lost
 * a slice of the lanes it needed to spend its quota, one period in four (seed 937 reduced:
 * 2797.6 ms of 2912, 2.86 % of capacity; 0.014 % now).
 */
static void test_prepaid_slice_repaid_at_refill(void)
{
	struct sim_result *r = run("lanes 2\nduration 2s\n"
				   "group /g1 weight 3347 max 14560us 10000us\ngroup /g2\n"
				   "vcpu 0 / hog\nvcpu 1 / hog\nvcpu 2 /g1 hog\nvcpu 3 /g1 hog\n"
				   "vcpu 4 /g1 hog\nvcpu 5 /g2 hog\n");

	if (!r)
		return;
	if (sim_max_group_error(r) > 0.1)
		sim_report(r, stdout);
	CU_ASSERT_TRUE(sim_max_group_error(r) <= 0.1);
	sim_result_free(r);
}

static CU_TestInfo caps_tests[] = {
	{ "a prepaid slice is paid again at the refill", test_prepaid_slice_repaid_at_refill },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim caps", caps_tests)
