// SPDX-License-Identifier: GPL-2.0
/*
 * The public API's hooks for a runtime (vsched.h): change notification, the clock, file events
 * (cgroup.events), the lock under threads hammering it, and the core's accounting read back.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "vs_test.h"
#include "sched/core.h"
#include "util/compiler.h"

struct events {
	int n[4];
	int locked_during_callback;
	char last[64];
};

static void on_change(struct vsched *vs, enum vsched_event ev, const char *path,
		      const char *file, void *arg)
{
	struct events *e = arg;

	e->n[ev]++;
	/* called outside the lock, so the runtime may take it */
	if (pthread_mutex_trylock(vsched_mutex(vs)))
		e->locked_during_callback++;
	else
		pthread_mutex_unlock(vsched_mutex(vs));
	snprintf(e->last, sizeof(e->last), "%s %s", path, file ? file : "-");
}

static uint64_t fake_now;
static int clock_reads;

static uint64_t fake_clock(void *arg)
{
	clock_reads++;
	return *(uint64_t *)arg;
}

static void test_api_notify_and_clock(void)
{
	struct vsched *vs = vs_new(2);
	struct events e = { { 0 }, 0, "" };
	char buf[256];

	vsched_set_notify(vs, on_change, &e);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_MKDIR], 1);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_WRITE], 1);	/* cgroup.type */
	WRITE_OK(vs, "t", "cpu.weight", "300");
	CU_ASSERT_STRING_EQUAL(e.last, "/t cpu.weight");
	/* The group's own path however spelled (a daemon's forward matches it by prefix). */
	WRITE_OK(vs, "//t/./", "cpu.weight", "300");
	CU_ASSERT_STRING_EQUAL(e.last, "/t cpu.weight");
	WRITE_OK(vs, "t/../t", "cpu.weight", "300");
	CU_ASSERT_STRING_EQUAL(e.last, "/t cpu.weight");
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "t/.."), 0);
	CU_ASSERT_STRING_EQUAL(e.last, "/ -");
	e.n[VSCHED_EV_ASSIGN]--;
	WRITE_IS(vs, "t", "cpu.weight", "0", -ERANGE);	/* failures notify nobody */
	CU_ASSERT_EQUAL(vsched_write(vs, "t", "cpu.weight", "", 0), 0);	/* neither do no-ops */
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_WRITE], 4);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "t"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "7", "t"), -ERANGE);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_ASSIGN], 1);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "/"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "t"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "t"), -ENOENT);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_RMDIR], 1);
	CU_ASSERT_EQUAL(e.locked_during_callback, 0);
	/* A refused mkdir_threaded (a domain child of a populated domain) made nothing: no events. */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/d"), 0);
	WRITE_OK(vs, "p/d", "cgroup.procs", "4000");
	memset(&e.n, 0, sizeof(e.n));
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "p/t"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_MKDIR] + e.n[VSCHED_EV_RMDIR] + e.n[VSCHED_EV_WRITE], 0);
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p/d"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p"), 0);
	memset(&e.n, 0, sizeof(e.n));
	vsched_set_notify(vs, NULL, NULL);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "u"), 0);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_MKDIR], 0);	/* unregistered */

	/* cpu.stat reads take "now" from the clock the VM was given */
	fake_now = 5000000;
	vsched_set_clock(vs, fake_clock, &fake_now);
	clock_reads = 0;
	CU_ASSERT_TRUE(vsched_read(vs, "u", "cpu.stat", buf, sizeof(buf)) > 0);
	CU_ASSERT_EQUAL(clock_reads, 1);
	vsched_set_clock(vs, NULL, NULL);
	CU_ASSERT_TRUE(vsched_read(vs, "u", "cpu.stat", buf, sizeof(buf)) > 0);
	CU_ASSERT_EQUAL(clock_reads, 1);
	vsched_destroy(vs);
}

/* Writers, readers and tree changes from several threads: every read is a whole value. */
struct hammer {
	struct vsched *vs;
	int id;
	int bad;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	char path[16], buf[64], val[16];
	int i;

	snprintf(path, sizeof(path), "g%d", h->id);
	for (i = 0; i < 2000; i++) {
		snprintf(val, sizeof(val), "%d", 1 + (i % 2) * 9999);	/* 1 or 10000 */
		if (vsched_write_str(h->vs, path, "cpu.weight", val))
			h->bad++;
		if (vsched_read(h->vs, path, "cpu.weight", buf, sizeof(buf)) < 0 ||
		    (strcmp(buf, "1\n") && strcmp(buf, "10000\n")))
			h->bad++;
		if (vsched_read(h->vs, "g0", "cpu.max", buf, sizeof(buf)) < 0 ||
		    (strcmp(buf, "max 100000\n") && strcmp(buf, "5000 100000\n")))
			h->bad++;
		if (h->id == 0 &&
		    vsched_write_str(h->vs, "g0", "cpu.max", i % 2 ? "5000" : "max"))
			h->bad++;
		if (h->id == 1) {
			if (vsched_mkdir(h->vs, "g1/tmp") || vsched_rmdir(h->vs, "g1/tmp"))
				h->bad++;
			if (vsched_assign(h->vs, i % 2 ? "0-1" : "2-3", "t"))
				h->bad++;
			if (vsched_assign(h->vs, "0-3", "/"))
				h->bad++;
		}
	}
	return NULL;
}

static void test_api_concurrency(void)
{
	struct vsched *vs = vs_new(4);
	struct hammer h[4];
	pthread_t th[4];
	int i;

	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	for (i = 0; i < 4; i++) {
		char path[16];

		snprintf(path, sizeof(path), "g%d", i);
		CU_ASSERT_EQUAL(vsched_mkdir(vs, path), 0);
		h[i] = (struct hammer){ vs, i, 0 };
	}
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(pthread_create(&th[i], NULL, hammer_thread, &h[i]), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(h[i].bad, 0);
	}
	READ_IS(vs, "g2", "cpu.weight", "10000\n");
	READ_IS(vs, "g0", "cpu.max", "5000 100000\n");
	READ_IS(vs, "/", "vsched.vcpus", "0-3\n");
	READ_IS(vs, "/", "cgroup.stat",
		"nr_descendants 5\nnr_subsys_cpu 6\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	vsched_destroy(vs);
}

/* End to end: time the core charged shows in cpu.stat of the group and of every ancestor. */
static void test_api_cpu_stat_from_core(void)
{
	struct vsched *vs = vsched_create(2, 2);
	struct sched_decision d[8];
	struct sched *s;
	uint64_t now = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	vsched_set_clock(vs, fake_clock, &now);
	vsched_set_vcpu_tid(vs, 1, VS_TID0 + 1);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "t"), 0);
	vsched_lock(vs);
	s = vsched_sched(vs);
	CU_ASSERT_EQUAL(sched_vcpu_runnable(s, 1, 1000), 0);
	sched_take_decisions(s, d, ARRAY_SIZE(d));
	CU_ASSERT_EQUAL(sched_vcpu_ran(s, 1, 2500000, 500999, 3001999), 0);
	sched_take_decisions(s, d, ARRAY_SIZE(d));
	vsched_unlock(vs);
	now = 3001999;
	READ_IS(vs, "t", "cpu.stat",
		"usage_usec 3000\nuser_usec 2500\nsystem_usec 500\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	READ_IS(vs, "/", "cpu.stat",
		"usage_usec 3000\nuser_usec 2500\nsystem_usec 500\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	READ_IS(vs, "t", "vsched.vcpu.stat",
		"1 tid=4002 usage_usec=3000 user_usec=2500 system_usec=500 state=running lane=0 "
		"wait_usec=0 nr_waits=1 wait_hist=0:1\n");
	/* the usage stays with the group when the vCPU leaves, as in the kernel */
	now = 7000000;
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "/"), 0);
	/* a change is applied at the VM's "now": the API brought the core's clock there first */
	vsched_lock(vs);
	CU_ASSERT_EQUAL(sched_now(vsched_sched(vs)), 7000000);
	vsched_unlock(vs);
	now = 8000000;
	WRITE_OK(vs, "t", "cpu.max", "5000");
	vsched_lock(vs);
	CU_ASSERT_EQUAL(sched_now(vsched_sched(vs)), 8000000);
	vsched_unlock(vs);
	READ_IS(vs, "t", "cpu.stat",
		"usage_usec 3000\nuser_usec 2500\nsystem_usec 500\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	READ_IS(vs, "t", "cpu.max", "5000 100000\n");
	/* the same for a typed file (a table row without a write handler of its own) */
	now = 9000000;
	WRITE_OK(vs, "t", "cpu.weight", "200");
	vsched_lock(vs);
	CU_ASSERT_EQUAL(sched_now(vsched_sched(vs)), 9000000);
	vsched_unlock(vs);
	vsched_destroy(vs);
}

static void count_events(struct vsched *vs __unused, void *arg)
{
	(*(int *)arg)++;
}

/* cgroup.events' event count: populated flips, in the group and its ancestors (kernfs_notify()). */
static void test_api_file_events(void)
{
	struct vsched *vs = vs_new(2);
	uint64_t ev;
	int calls = 0;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "g/t"), 0);
	vsched_set_events_fn(vs, count_events, &calls);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 1);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "nope", &ev), -ENOENT);
	WRITE_OK(vs, "/", "cgroup.procs", "4000");	/* nothing moves: no event */
	CU_ASSERT_EQUAL(calls, 0);
	WRITE_OK(vs, "g", "cgroup.procs", "4000");	/* g and g/t's parent populated */
	CU_ASSERT_EQUAL(calls, 1);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 2);
	WRITE_OK(vs, "g/t", "cgroup.threads", "4001");	/* g stays populated; g/t becomes so */
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g/t", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g/t", "cgroup.procs", &ev), 0);
	CU_ASSERT_EQUAL(ev, 1);				/* only cgroup.events has events */
	vsched_set_events_fn(vs, NULL, NULL);
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 3);
	vsched_destroy(vs);
}

static CU_TestInfo api_hooks_tests[] = {
	{ "change notification and clock", test_api_notify_and_clock },
	{ "concurrent writers and readers", test_api_concurrency },
	{ "cpu.stat from the core's accounting", test_api_cpu_stat_from_core },
	{ "file events (cgroup.events, poll)", test_api_file_events },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/api hooks", api_hooks_tests)
