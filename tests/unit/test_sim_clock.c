// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario event acts at its own time (issue 13): the simulator brings the core's clock to an
 * event before applying it, as the runtime does before a change. It did not, so a vCPU moved out
 * of a throttled group, with no lane running since the throttle, got its lane stamped at the
 * throttle: the refill then took the lane as if it had run past min_run (`fuzz-sim --kind 5`
 * seed 1075: moved at 2829.841 ms, stamped 2823.7435 ms, preempted at 2830 ms), and its slice
 * ended early. Both scenarios move a vCPU at 9.5 ms, off every timer, out of /a throttled at
 * 5 ms (quota used up) into uncapped /b; /a's refill comes at 10 ms.
 */
#include "sim_test.h"

#define MS	1000000.0

/*
 * Two lanes, /b of weight 1: the refill gives both lanes back to /a's hogs, but the moved vCPU
 * keeps its lane for min_run from the move (to 10.5 ms), not from the throttle.
 */
static void test_clock_move_min_run(void)
{
	struct sim_result *r = run("lanes 2\n"
				   "duration 12ms\n"
				   "min_run 1ms\n"
				   "slice 3ms\n"
				   "group /a max 7500us 10000us\n"
				   "group /b weight 1\n"
				   "vcpu 0 /a hog\n"
				   "vcpu 1 /a hog\n"
				   "vcpu 2 /a hog\n"
				   "at 9500us move 2 /b\n");
	double usage, ideal;

	if (!r)
		return;
	CU_ASSERT_EQUAL(sim_min_run_violations(r), 0);
	CU_ASSERT_EQUAL(sim_group_usage(r, "/b", &usage, &ideal), 0);
	if (usage != 1 * MS)
		printf("\n  /b ran %.6f ms, wanted min_run from the move, 1 ms\n", usage / MS);
	CU_ASSERT_DOUBLE_EQUAL(usage, 1 * MS, 1);
	sim_result_free(r);
}

/* One lane: the moved vCPU's slice counts from the move, 9.5 + 3 ms, not from the throttle. */
static void test_clock_move_slice(void)
{
	struct sim_result *r = run("lanes 1\n"
				   "duration 13ms\n"
				   "min_run 1ms\n"
				   "slice 3ms\n"
				   "group /a max 5000us 10000us\n"
				   "group /b\n"
				   "vcpu 0 /a hog\n"
				   "vcpu 1 /a hog\n"
				   "at 9500us move 1 /b\n");
	double usage, ideal;

	if (!r)
		return;
	CU_ASSERT_EQUAL(sim_min_run_violations(r), 0);
	CU_ASSERT_EQUAL(sim_group_usage(r, "/b", &usage, &ideal), 0);
	if (usage != 3 * MS)
		printf("\n  /b ran %.6f ms, wanted a slice from the move, 3 ms\n", usage / MS);
	CU_ASSERT_DOUBLE_EQUAL(usage, 3 * MS, 1);
	sim_result_free(r);
}

static CU_TestInfo clock_tests[] = {
	{ "a vCPU moved off a timer keeps its lane min_run from the move", test_clock_move_min_run },
	{ "a vCPU moved off a timer gets its slice from the move", test_clock_move_slice },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim clock", clock_tests)
