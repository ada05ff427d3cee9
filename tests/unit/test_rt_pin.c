// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode, a holder at its slice end (sched/runtime/rt_pin.c): unpinned before its TICK wakes
 * the daemon, so that the host kernel can move it, preempted with the VMM's lock held, to a CPU
 * a lane change left idle; pinned back to its lane when it keeps it. White-box, on this
 * thread's own affinity.
 */
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "test.h"

static bool pinned_to(int cpu)
{
	cpu_set_t set;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(set), &set), 0);
	return CPU_COUNT(&set) == 1 && CPU_ISSET(cpu, &set);
}

static void test_pin_float_and_again(void)
{
	static struct runtime rt;
	struct rt_vcpu rv = { .tid = gettid(), .cpu = -1, .lane = -1, .state = RT_RUNNING };
	int lane_cpu[2], cpu, n = 0;
	cpu_set_t all;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(all), &all), 0);
	for (cpu = 0; cpu < CPU_SETSIZE && n < 2; cpu++)
		if (CPU_ISSET(cpu, &all))
			lane_cpu[n++] = cpu;
	if (n < 2)
		return;		/* one CPU: nothing to float over */
	memset(&rt, 0, sizeof(rt));
	rt.nr_lanes = 2;
	rt.lane_cpu = lane_cpu;
	rt.host_cpus = all;
	rt.remote = (struct rt_remote *)&rt;	/* only its presence is read */

	rt_pin_lane(&rt, &rv, 1);
	CU_ASSERT_TRUE(pinned_to(lane_cpu[1]));
	rt_pin_float(&rt, &rv);		/* the slice end */
	{
		cpu_set_t now;

		CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof(now), &now), 0);
		CU_ASSERT_TRUE(CPU_EQUAL(&now, &all));
	}
	CU_ASSERT_EQUAL(rv.cpu, -1);
	rt_pin_again(&rt, &rv);		/* kept its lane (RETIME): back on its CPU */
	CU_ASSERT_TRUE(pinned_to(lane_cpu[1]));
	CU_ASSERT_EQUAL(rv.cpu, lane_cpu[1]);

	/* A holder that lost its lane meanwhile is pinned by its next grant, not here. */
	rt_pin_float(&rt, &rv);
	rv.state = RT_WAITING;
	rt_pin_again(&rt, &rv);
	CU_ASSERT_EQUAL(rv.cpu, -1);

	/* Embedded: the runtime's own slice end wakes no daemon; the pin stays. */
	rv.state = RT_RUNNING;
	rt_pin_lane(&rt, &rv, 0);
	rt.remote = NULL;
	rt_pin_float(&rt, &rv);
	CU_ASSERT_TRUE(pinned_to(lane_cpu[0]));
	sched_setaffinity(0, sizeof(all), &all);
}

static CU_TestInfo rt_pin_tests[] = {
	{ "a host-mode holder floats at its slice end, pinned again if it keeps its lane",
	  test_pin_float_and_again },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/pin", rt_pin_tests);
