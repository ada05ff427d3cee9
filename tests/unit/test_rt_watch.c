// SPDX-License-Identifier: GPL-2.0
/*
 * The helper's watch (sched/runtime/rt_watch.c) on a plain thread standing in for a vCPU
 * thread: WATCH_HALT reports that the thread leaves the CPU, WATCH_RUN that it uses CPU time,
 * WATCH_NONE nothing; a poke wakes the waiter. White-box: the watch is private to the runtime.
 * Skipped (counted) where the host refuses perf events.
 */
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "test.h"

/* The stand-in: asleep (no CPU use at all), spinning, or taking 1 ms naps (switch-outs). */
enum standin_mode { STANDIN_SLEEP, STANDIN_SPIN, STANDIN_NAP, STANDIN_STOP };

struct standin {
	atomic_int mode;
	atomic_int tid;
	int pipe[2];	/* asleep = blocked reading it; a mode change writes a byte */
};

static void *standin_main(void *arg)
{
	struct standin *s = arg;
	struct timespec nap = { 0, 1000000 };
	char c;
	int m;

	atomic_store(&s->tid, (int)syscall(SYS_gettid));
	while ((m = atomic_load(&s->mode)) != STANDIN_STOP)
		if (m == STANDIN_NAP)
			nanosleep(&nap, NULL);
		else if (m == STANDIN_SLEEP && read(s->pipe[0], &c, 1) < 0)
			break;
	return NULL;
}

static void standin_set(struct standin *s, enum standin_mode m)
{
	atomic_store(&s->mode, m);
	if (write(s->pipe[1], "", 1) < 0)
		CU_FAIL("stand-in pipe");
}

struct rig {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu rv;
	struct standin s;
	pthread_t th;
};

static bool rig_start(struct rig *g)
{
	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->rt.lock = &g->lock;
	g->rt.nr_vcpus = 1;
	g->rt.v = &g->rv;
	g->rv.rt = &g->rt;
	CU_ASSERT_EQUAL_FATAL(rt_watch_init(&g->rt), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(g->s.pipe), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&g->th, NULL, standin_main, &g->s), 0);
	while (!atomic_load(&g->s.tid))
		usleep(1000);
	g->rv.tid = atomic_load(&g->s.tid);
	rt_watch_open(&g->rv);
	if (!rt_watched(&g->rv)) {
		test_skip("perf events refused: the helper polls instead");
		return false;
	}
	return true;
}

static void rig_stop(struct rig *g)
{
	standin_set(&g->s, STANDIN_STOP);
	pthread_join(g->th, NULL);
	close(g->s.pipe[0]);
	close(g->s.pipe[1]);
	rt_watch_close(&g->rv);
	rt_watch_exit(&g->rt);
	pthread_mutex_destroy(&g->lock);
}

/* Waits up to ms for watch events; returns how many arrived. */
static uint64_t rig_wait(struct rig *g, unsigned int ms)
{
	uint64_t before = g->rt.st.watch_events, end = rt_now() + ms * 1000000ULL;

	mutex_lock(&g->lock);
	while (g->rt.st.watch_events == before && rt_now() < end)
		rt_watch_wait(&g->rt, end);
	mutex_unlock(&g->lock);
	return g->rt.st.watch_events - before;
}

/* A watched holder that stops running (here: sleeps, as a halted vCPU does) is reported. */
static void test_watch_halt_reports_switch_out(void)
{
	struct rig g;

	if (!rig_start(&g))
		goto out;
	rt_watch_set(&g.rv, WATCH_HALT);
	standin_set(&g.s, STANDIN_NAP);	/* each nap is a switch-out */
	CU_ASSERT_TRUE(rig_wait(&g, 1000) >= 1);
out:
	rig_stop(&g);
}

/* A lent vCPU is silent while it uses no CPU and reported once it runs. */
static void test_watch_run_reports_cpu_use(void)
{
	struct rig g;

	if (!rig_start(&g))
		goto out;
	rt_watch_set(&g.rv, WATCH_RUN);
	CU_ASSERT_EQUAL(rig_wait(&g, 200), 0);
	standin_set(&g.s, STANDIN_SPIN);
	CU_ASSERT_TRUE(rig_wait(&g, 1000) >= 1);
out:
	rig_stop(&g);
}

/* Unwatched, switches and CPU use stay silent; a poke still wakes the helper. */
static void test_watch_none_is_silent(void)
{
	uint64_t t0;
	struct rig g;

	if (!rig_start(&g))
		goto out;
	rt_watch_set(&g.rv, WATCH_HALT);
	rt_watch_set(&g.rv, WATCH_NONE);
	standin_set(&g.s, STANDIN_SPIN);
	usleep(20000);
	standin_set(&g.s, STANDIN_NAP);	/* switch-outs */
	CU_ASSERT_EQUAL(rig_wait(&g, 100), 0);
	rt_watch_poke(&g.rt);
	t0 = rt_now();
	mutex_lock(&g.lock);
	rt_watch_wait(&g.rt, RT_INF);	/* returns at once: the poke is kept */
	mutex_unlock(&g.lock);
	CU_ASSERT_TRUE(rt_now() - t0 < 1000000000ULL);
out:
	rig_stop(&g);
}

static int rig_policy(const struct rig *g)
{
	return sched_getscheduler(g->rv.tid) & ~SCHED_RESET_ON_FORK;
}

/*
 * A lent vCPU granted a lane while it runs on its own stays SCHED_FIFO until it leaves KVM_RUN:
 * lowered at the grant, the running thread waited behind other host work for ms of its busy
 * phase (docs/runtime.md). One that must wait for a lane, holds one without a slice end, or is
 * handed to the host, is lowered.
 */
static void test_watch_granted_lent_stays_raised(void)
{
	struct rig g;

	if (!rig_start(&g))
		goto out;
	standin_set(&g.s, STANDIN_NAP);
	g.rv.state = RT_LENT;
	g.rv.in_guest = true;
	g.rv.until = rt_now() + 8000000;	/* rt_grant() sets the slice end before the watch */
	rt_watch_set(&g.rv, WATCH_RUN);
	if (rig_policy(&g) != SCHED_FIFO) {
		test_skip("SCHED_FIFO refused: a lent vCPU stays a normal thread");
		goto out;
	}
	g.rv.state = RT_RUNNING;	/* rt_grant(): the lane back, still in KVM_RUN */
	rt_watch_set(&g.rv, WATCH_HALT);
	CU_ASSERT_EQUAL(rig_policy(&g), SCHED_FIFO);
	rt_watch_set(&g.rv, WATCH_RUN);	/* halted and lent again */
	CU_ASSERT_EQUAL(rig_policy(&g), SCHED_FIFO);
	g.rv.in_guest = false;		/* rt_charge(): out of KVM_RUN */
	rt_watch_set(&g.rv, WATCH_NONE);
	CU_ASSERT_EQUAL(rig_policy(&g), SCHED_OTHER);

	/* Reclaimed without a lane (kicked to wait), and the fallback: lowered at once. */
	g.rv.state = RT_LENT;
	g.rv.in_guest = true;
	rt_watch_set(&g.rv, WATCH_RUN);
	g.rv.state = RT_WAITING;
	rt_watch_set(&g.rv, WATCH_NONE);
	CU_ASSERT_EQUAL(rig_policy(&g), SCHED_OTHER);
	rt_watch_set(&g.rv, WATCH_RUN);
	g.rv.state = RT_RUNNING;
	g.rv.until = RT_INF;		/* a lane without a slice end: nothing would lower it */
	rt_watch_set(&g.rv, WATCH_HALT);
	CU_ASSERT_EQUAL(rig_policy(&g), SCHED_OTHER);
	rt_watch_set(&g.rv, WATCH_RUN);
	g.rv.until = rt_now() + 8000000;
	g.rt.fallback = true;
	rt_watch_set(&g.rv, WATCH_NONE);
	CU_ASSERT_EQUAL(rig_policy(&g), SCHED_OTHER);
out:
	rig_stop(&g);
}

static CU_TestInfo rt_watch_tests[] = {
	{ "WATCH_HALT reports a switch-out", test_watch_halt_reports_switch_out },
	{ "WATCH_RUN reports CPU use, not sleep", test_watch_run_reports_cpu_use },
	{ "WATCH_NONE is silent; a poke wakes", test_watch_none_is_silent },
	{ "a lent vCPU granted its lane in KVM_RUN stays SCHED_FIFO until it exits",
	  test_watch_granted_lent_stays_raised },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/watch", rt_watch_tests);
