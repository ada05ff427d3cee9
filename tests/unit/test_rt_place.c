// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's SCHED_FIFO threads (the helper, host mode's agent and waker) run off the lanes'
 * CPUs where the process's mask has others (sched/runtime/rt_place.c): floating, one that landed
 * on a lane's CPU preempted that lane's holder at each of its wake-ups for the VMM's life. Where
 * every CPU is a lane's they float over the mask. The masks are read back from the threads.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "../fixture/runvm.h"
#include "host_live_test.h"
#include "sched/runtime.h"
#include "test.h"

static void place_set(cpu_set_t *s, const int *cpus)
{
	CPU_ZERO(s);
	for (; *cpus >= 0; cpus++)
		CPU_SET(*cpus, s);
}

static bool place_is(const cpu_set_t *s, const int *cpus)
{
	cpu_set_t want;

	place_set(&want, cpus);
	return CPU_EQUAL(s, &want);
}

/* The CPUs chosen for given masks and lanes' CPUs. */
static void test_place_off(void)
{
	static const int none[] = { -1 }, c0[] = { 0, -1 }, c1[] = { 1, -1 }, c01[] = { 0, 1, -1 },
			 c0123[] = { 0, 1, 2, 3, -1 }, c23[] = { 2, 3, -1 }, c45[] = { 4, 5, -1 },
			 c13[] = { 1, 3, -1 }, c3[] = { 3, -1 };
	cpu_set_t mask, lanes, off;

	/* `vsched run --cpus 1` on 2 CPUs: the other CPU. */
	place_set(&mask, c01);
	place_set(&lanes, c0);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 1);
	CU_ASSERT_TRUE(place_is(&off, c1));
	/* Every CPU a lane's: the whole mask (they float). */
	place_set(&lanes, c01);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 0);
	CU_ASSERT_TRUE(place_is(&off, c01));
	/* No lane known (host mode before a grant, lanes that float): the mask. */
	place_set(&lanes, none);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 2);
	CU_ASSERT_TRUE(place_is(&off, c01));
	/* Two lanes of four CPUs. */
	place_set(&mask, c0123);
	place_set(&lanes, c01);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 2);
	CU_ASSERT_TRUE(place_is(&off, c23));
	/* A daemon's lanes outside the VMM's cpuset: the VMM's mask as it is. */
	place_set(&mask, c23);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 2);
	CU_ASSERT_TRUE(place_is(&off, c23));
	place_set(&lanes, c45);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 2);
	CU_ASSERT_TRUE(place_is(&off, c23));
	/* A sparse mask (taskset -c 1,3), a lane on one of them. */
	place_set(&mask, c13);
	place_set(&lanes, c1);
	CU_ASSERT_EQUAL(rt_place_off(&mask, &lanes, &off), 1);
	CU_ASSERT_TRUE(place_is(&off, c3));
}

/*
 * A mask the kernel refuses (a cpuset changed under the VMM; here CPUs that do not exist): the
 * thread stays where it was, the runtime goes on and says so once.
 */
static void test_place_refused(void)
{
	struct runtime *rt = calloc(1, sizeof(*rt));
	cpu_set_t before, after;

	CU_ASSERT_PTR_NOT_NULL_FATAL(rt);
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(before), &before), 0);
	CPU_ZERO(&rt->host_cpus);
	CPU_SET(CPU_SETSIZE - 2, &rt->host_cpus);
	CPU_SET(CPU_SETSIZE - 1, &rt->host_cpus);
	rt_place_init(rt);
	rt->place_tid[RT_PLACE_HELPER] = (pid_t)syscall(SYS_gettid);
	rt_place_seen(rt, CPU_SETSIZE - 2);	/* off the lanes: CPU_SETSIZE - 1 */
	CU_ASSERT_TRUE(rt->place_warned);
	rt_place_reset(rt);			/* refused again, not said again */
	CU_ASSERT_EQUAL(sched_getaffinity(0, sizeof(after), &after), 0);
	CU_ASSERT_TRUE(CPU_EQUAL(&before, &after));
	free(rt);
}

static void place_sleep_ms(unsigned int ms)
{
	struct timespec ts = { 0, (long)ms * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

/*
 * Polls (up to 10 s: threads name themselves as they start, a VMM learns the daemon's lanes at
 * its first grant) until each of the threads named in comms has the mask want; true if all did.
 * The last mask read of a thread that did not is in got.
 */
static bool place_wait(const char *const *comms, const cpu_set_t *want, cpu_set_t *got)
{
	unsigned int i, k;
	pid_t tid;

	for (i = 0; i < 1000; i++) {
		for (k = 0; comms[k]; k++) {
			tid = test_thread_named(comms[k]);
			CPU_ZERO(got);
			if (!tid || sched_getaffinity(tid, sizeof(*got), got) || !CPU_EQUAL(got, want))
				break;
		}
		if (!comms[k])
			return true;
		place_sleep_ms(10);
	}
	return false;
}

static int place_first(const cpu_set_t *mask)
{
	int cpu;

	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, mask))
			return cpu;
	return -1;
}

/* Embedded, one lane (`vsched run --cpus 1`): the helper on the mask's other CPUs. */
static void test_place_embedded(void)
{
	static const char *const helper[] = { "vsched-rt", NULL };
	cpu_set_t mask, want, got;
	struct runvm r;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(mask), &mask), 0);
	if (CPU_COUNT(&mask) < 2) {
		test_skip("one CPU: no CPU off the lanes");
		return;
	}
	want = mask;
	CPU_CLR(place_first(&mask), &want);	/* lane 0 is the mask's first CPU (rt_pin_init()) */
	CU_ASSERT_EQUAL_FATAL(runvm_create(&r, "place1", 2, 1, true), 0);
	r.vm.accel = VM_ACCEL_THREAD;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&r), 0);
	CU_ASSERT_TRUE(place_wait(helper, &want, &got));
	runvm_destroy(&r);
	CU_ASSERT_FALSE(CPU_ISSET(place_first(&mask), &got));
}

/* Embedded, a lane on every CPU of the mask: no CPU is off them, the helper floats. */
static void test_place_every_cpu(void)
{
	static const char *const helper[] = { "vsched-rt", NULL };
	cpu_set_t mask, got;
	struct runvm r;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(mask), &mask), 0);
	if (CPU_COUNT(&mask) > 64) {
		test_skip("more than 64 CPUs: not a lane on each here");
		return;
	}
	CU_ASSERT_EQUAL_FATAL(runvm_create(&r, "placeall", 2, (unsigned int)CPU_COUNT(&mask), true),
			      0);
	r.vm.accel = VM_ACCEL_THREAD;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&r), 0);
	CU_ASSERT_TRUE(place_wait(helper, &mask, &got));
	runvm_destroy(&r);
}

/*
 * Host mode: a daemon of one lane (on this process's first CPU, as host_lanes_pin() places it).
 * Once granted, the VMM's helper, agent and waker leave that CPU; when the daemon is gone
 * (the fallback: the host kernel schedules every vCPU), they float again.
 */
static void test_place_host(void)
{
	static const char *const threads[] = { "vsched-rt", "vsched-host", "vsched-xw", NULL };
	cpu_set_t mask, want, got;
	struct live_daemon d;
	struct runvm r;
	bool off, floats;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(mask), &mask), 0);
	if (CPU_COUNT(&mask) < 2) {
		test_skip("one CPU: no CPU off the lanes");
		return;
	}
	want = mask;
	CPU_CLR(place_first(&mask), &want);
	live_daemon_start(&d, 1);
	CU_ASSERT_EQUAL_FATAL(runvm_create(&r, "placeh", 2, 1, true), 0);
	r.vm.accel = VM_ACCEL_THREAD;
	r.host_sock = d.sock;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&r), 0);
	off = place_wait(threads, &want, &got);
	CU_ASSERT_TRUE(off);
	CU_ASSERT_FALSE(CPU_ISSET(place_first(&mask), &got));
	live_daemon_stop(&d);
	floats = place_wait(threads, &mask, &got);
	runvm_destroy(&r);
	CU_ASSERT_TRUE(floats);
}

static CU_TestInfo tests[] = {
	{ "the CPUs off the lanes for given masks", test_place_off },
	{ "a mask the kernel refuses: the thread stays, said once", test_place_refused },
	{ "embedded, one lane of two CPUs: the helper off the lane's CPU", test_place_embedded },
	{ "embedded, a lane on every CPU: the helper floats", test_place_every_cpu },
	{ "host mode: helper, agent and waker off the daemon's lanes, float after it is gone",
	  test_place_host },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/place", tests);
