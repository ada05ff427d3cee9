// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's VMM sends nothing to the daemon while it holds its lock (rt_outbox.c): a
 * datagram wakes the daemon, whose wake-up preempts the sender on its pinned CPU, and a sender
 * preempted with the lock held stalled every vCPU of its VMM that wanted it, one granted the
 * other lane among them (docs/host.md, "Capacity: the lane change, traced"). A daemon and a
 * VMM of three hog vCPUs on its two lanes run in this process for a while (slice ends, RAN,
 * TICK, PREEMPT, GRANT, the API's cpu.stat reads); the send path checks (BUG_ON, debug build)
 * that the sending thread does not hold the VMM's lock, and the BUGs are counted here. The
 * VMM must stay joined and the daemon must have charged its vCPUs: the datagrams got there.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../fixture/runvm.h"
#include "host_live_test.h"
#include "sched/runtime.h"
#include "test.h"
#include "vs_test.h"
#include "util/debug.h"
#include "vsched.h"

static unsigned int bugs;
static char bug_what[256];

static void unl_bug(const char *file, int line, const char *what)
{
	if (!__atomic_fetch_add(&bugs, 1, __ATOMIC_RELAXED))
		snprintf(bug_what, sizeof(bug_what), "%s:%d: %s", file, line, what);
}

static void unl_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void test_rt_sends_unlocked(enum vm_accel accel)
{
	struct runtime_stats st;
	struct live_daemon d;
	debug_bug_fn old;
	struct runvm r;
	const char *group;
	char path[256];
	uint64_t vm_usage = 0, daemon_usage = 0;
	unsigned int i;

	if (!test_accel_usable(accel))
		return;
	live_daemon_start(&d, 2);
	bugs = 0;
	old = debug_set_bug_hook(unl_bug);
	CU_ASSERT_EQUAL_FATAL(runvm_create(&r, "unl", 3, 2, true), 0);
	r.vm.accel = accel;
	r.host_sock = d.sock;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&r), 0);
	/*
	 * Slice ends on both lanes (8 ms), and the API's reads between them (RAN from its clock):
	 * at least 400 ms, and on a loaded host until both sides count 100 ms (up to 30 s). The
	 * daemon's count lags the VM's by its reports: read once after the VM's passed 100 ms,
	 * it was under (ASan, nice 19, load 10: 1 of 7 runs; the VM's own under 100 ms after 5 s
	 * in 4 of 7).
	 */
	for (i = 0; i < 8 || ((vm_usage <= 100000 || daemon_usage <= 100000) && i < 600); i++) {
		unl_sleep_ms(50);
		vm_usage = vs_usage_usec(r.vs, "");
		group = runtime_host_group(r.rt);
		snprintf(path, sizeof(path), "%s", group && group[0] == '/' ? group + 1 : "");
		daemon_usage = vs_usage_usec(host_vsched(d.h), path);
	}
	runtime_get_stats(r.rt, &st);
	runvm_destroy(&r);
	debug_set_bug_hook(old);
	live_daemon_stop(&d);
	if (bugs)
		fprintf(stderr, "\n  %u BUGs, the first: %s\n", bugs, bug_what);
	CU_ASSERT_EQUAL(bugs, 0);
	CU_ASSERT_FALSE(st.fallback);
	/* 400 ms or more on two lanes: each side saw 100 ms of it. */
	CU_ASSERT_TRUE(vm_usage > 100000);
	CU_ASSERT_TRUE(daemon_usage > 100000);
}

ACCEL_TWINS(test_rt_sends_unlocked)

/* The scheduling policy of this process's thread named comm, -1 if there is none. */
static int unl_policy(const char *comm)
{
	pid_t tid = test_thread_named(comm);

	return tid ? sched_getscheduler(tid) & ~SCHED_RESET_ON_FORK : -1;
}

/*
 * The agent runs SCHED_FIFO where the helper does: the VMM's lock is a PI mutex, whose unlock
 * hands it to the waiter, and an agent woken to take it on a CPU where another VM's lane holder
 * ran held it, not running, for up to 4 ms while this VM's vCPU just granted the other lane
 * slept on it (docs/host.md, "Capacity: the lane change, traced").
 */
static void test_rt_agent_fifo(void)
{
	struct live_daemon d;
	struct runvm r;
	int helper = -1, agent = -1, i;

	live_daemon_start(&d, 2);
	CU_ASSERT_EQUAL_FATAL(runvm_create(&r, "fifo", 2, 2, true), 0);
	r.vm.accel = VM_ACCEL_THREAD;
	r.host_sock = d.sock;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&r), 0);
	/*
	 * Each thread names itself and takes SCHED_FIFO as it starts: polled, not read once after
	 * 50 ms (under load neither thread was named yet: both -1, failed). Up to 5 s for both to
	 * be SCHED_FIFO; a helper named but still SCHED_OTHER after 1 s was refused it.
	 */
	for (i = 0; i < 500; i++) {
		helper = unl_policy("vsched-rt");
		agent = unl_policy("vsched-host");
		if (helper == SCHED_FIFO && agent == SCHED_FIFO)
			break;
		if (i >= 100 && helper != -1 && agent != -1 && helper != SCHED_FIFO)
			break;
		unl_sleep_ms(10);
	}
	runvm_destroy(&r);
	live_daemon_stop(&d);
	CU_ASSERT_NOT_EQUAL(helper, -1);
	CU_ASSERT_NOT_EQUAL(agent, -1);
	if (helper != SCHED_FIFO) {
		test_skip("SCHED_FIFO refused here: the helper and the agent stay normal threads");
		return;
	}
	CU_ASSERT_EQUAL(agent, SCHED_FIFO);
}

static CU_TestInfo tests[] = {
	ACCEL_TESTS("host mode: no datagram sent with the VMM's lock held", test_rt_sends_unlocked),
	{ "host mode: the agent runs SCHED_FIFO where the helper does", test_rt_agent_fifo },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("rt_unlocked", tests);
