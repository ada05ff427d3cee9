// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's waker (sched/runtime/rt_xwait.c): a vCPU whose paravirtual sleep ended is
 * runnable at the daemon then, even while its own thread cannot run. Traced in t-host-xhand, a
 * sleeper's thread ran a median 0.5-0.65 ms late behind the other VM's lane holder, and its
 * RUNNABLE, so its handoff across VMs, came after that holder had released the lane.
 *
 * Everything here runs on one host CPU (the scenario thread is pinned there and every thread
 * inherits it; the daemon's lane and the VMMs' floating vCPUs too): VM b of one vCPU that runs
 * 1 ms and sleeps 20 ms, VM a of one hog, both joined with their offer pages shared, on a
 * one-lane in-process daemon whose thread runs SCHED_FIFO like the VMMs' helpers. Once b is
 * asleep at the daemon, a SCHED_FIFO spinner below those takes the CPU for 60 ms: no normal
 * thread runs, b's sleep ends 20 ms in, and 40 ms in b must be runnable at the daemon.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "../fixture/runvm.h"
#include "host/host.h"
#include "host_offer_test.h"
#include "sched/runtime.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

struct xw_rig {
	enum vm_accel accel;
	struct host *h;
	int stop_fd;
	pthread_t daemon;
	char dir[64], sock[128];
	int cpu;
	bool fifo;		/* SCHED_FIFO allowed here */
	const char *state;	/* b at the daemon, 40 ms into the spin */
	bool asleep;		/* b was asleep at the daemon when the spin began */
	unsigned int tries;
};

static void *xw_serve(void *arg)
{
	struct xw_rig *r = arg;
	struct sched_param sp = { .sched_priority = 2 };

	/* As the VMMs' helpers: this test takes the CPU from normal threads, not from it. */
	sched_setscheduler(0, SCHED_FIFO, &sp);
	host_run(r->h, r->stop_fd);
	return NULL;
}

static void xw_spin_ms(uint64_t from, unsigned int ms)
{
	while (time_mono_ns() < from + ms * NSEC_PER_MSEC)
		;
}

/* The spinner: b asleep at the daemon, the CPU taken, b's state 40 ms in. */
static void *xw_spinner(void *arg)
{
	struct xw_rig *r = arg;
	struct sched_param sp = { .sched_priority = 1 };
	uint64_t t0;

	if (sched_setscheduler(0, SCHED_FIFO, &sp)) {
		r->fifo = false;
		return NULL;
	}
	t0 = time_mono_ns();
	r->asleep = !strcmp(core_state(r->h, 0), "idle");
	xw_spin_ms(t0, 40);
	r->state = core_state(r->h, 0);
	xw_spin_ms(t0, 60);
	return NULL;
}

/* Waits (normal thread) until b is asleep at the daemon; false after 2 s. */
static bool xw_until_asleep(struct xw_rig *r)
{
	struct timespec ts = { 0, 100000 };
	unsigned int i;

	for (i = 0; i < 20000; i++) {
		if (!strcmp(core_state(r->h, 0), "idle"))
			return true;
		nanosleep(&ts, NULL);
	}
	return false;
}

static void *xw_scenario(void *arg)
{
	struct xw_rig *r = arg;
	struct host_opts o = { .nr_lanes = 1 };
	struct runvm a, b;
	pthread_t spin;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(r->cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		return NULL;
	snprintf(r->dir, sizeof(r->dir), "/tmp/vsched-xw-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(r->dir));
	snprintf(r->sock, sizeof(r->sock), "%s/host.sock", r->dir);
	CU_ASSERT_EQUAL_FATAL(host_create(&o, &r->h), 0);
	CU_ASSERT_EQUAL_FATAL(host_listen(r->h, r->sock), 0);
	r->stop_fd = eventfd(0, EFD_CLOEXEC);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&r->daemon, NULL, xw_serve, r), 0);
	/* b first: slot 0 at the daemon. */
	CU_ASSERT_EQUAL_FATAL(runvm_create(&b, "xwb", 1, 1, true), 0);
	CU_ASSERT_EQUAL_FATAL(payload_parse_kind("duty:1000/20000", &b.po->spec[0]), 0);
	b.vm.accel = r->accel;
	b.host_sock = r->sock;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&b), 0);
	CU_ASSERT_EQUAL_FATAL(runvm_create(&a, "xwa", 1, 1, true), 0);
	a.vm.accel = r->accel;
	a.host_sock = r->sock;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&a), 0);
	usleep(100000);
	/* A spin that began after b's sleep had ended (this thread late) proves nothing: again. */
	for (r->tries = 0; r->tries < 5 && r->fifo; r->tries++) {
		r->state = NULL;
		if (!xw_until_asleep(r))
			break;
		/*
		 * b's thread done with its BLOCKED: a thread taken off its CPU mid-send keeps the
		 * VMM's queue (rt_outbox.c), and the waker's RUNNABLE would wait for it too.
		 */
		usleep(3000);
		CU_ASSERT_EQUAL_FATAL(pthread_create(&spin, NULL, xw_spinner, r), 0);
		pthread_join(spin, NULL);
		if (r->asleep)
			break;
		usleep(30000);
	}
	runvm_destroy(&a);
	runvm_destroy(&b);
	CU_ASSERT_EQUAL(eventfd_write(r->stop_fd, 1), 0);
	pthread_join(r->daemon, NULL);
	host_destroy(r->h);
	close(r->stop_fd);
	unlink(r->sock);
	rmdir(r->dir);
	return NULL;
}

static void test_rt_xwait_sleeper(enum vm_accel accel)
{
	struct xw_rig r = { .accel = accel, .fifo = true };
	cpu_set_t set;
	pthread_t t;

	if (!test_accel_usable(accel))
		return;
	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(set), &set), 0);
	for (r.cpu = 0; r.cpu < CPU_SETSIZE && !CPU_ISSET(r.cpu, &set); r.cpu++)
		;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, xw_scenario, &r), 0);
	pthread_join(t, NULL);
	if (!r.fifo) {
		test_skip("SCHED_FIFO refused here: nothing can keep a vCPU's thread off its CPU");
		return;
	}
	CU_ASSERT_TRUE(r.asleep);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r.state);
	if (strcmp(r.state, "waiting") && strcmp(r.state, "running"))
		fprintf(stderr, "\n  b %s at the daemon 20 ms after its sleep ended (%u tries)\n",
			r.state, r.tries + 1);
	CU_ASSERT_TRUE(!strcmp(r.state, "waiting") || !strcmp(r.state, "running"));
}

ACCEL_TWINS(test_rt_xwait_sleeper)

static CU_TestInfo tests[] = {
	ACCEL_TESTS("host mode: a sleep's end is runnable at the daemon while its thread cannot run",
		    test_rt_xwait_sleeper),
	CU_TEST_INFO_NULL,
};

TEST_SUITE("rt_xwait", tests);
