// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's vCPU states (sched/runtime/rt_state.c) and the lock checks of util/debug.h:
 * exactly the transitions drawn in rt.h pass, every other one is a BUG; nr_waiting and nr_lent
 * follow the states through any legal sequence; entry points of the runtime and of the core
 * called without their lock are a BUG. The unit tests link the debug build of the library, and
 * a hook records BUGs instead of aborting.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../../sched/runtime/rt.h"
#include "sched/core.h"
#include "sched/group.h"
#include "test.h"
#include "util/debug.h"

#define NR_V 3

static unsigned int nr_bugs;
static char last_bug[128];

static void record_bug(const char *file __attribute__((unused)), int line __attribute__((unused)),
		       const char *what)
{
	nr_bugs++;
	snprintf(last_bug, sizeof(last_bug), "%s", what);
}

struct state_rig {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v[NR_V];
	debug_bug_fn old_hook;
};

static void rig_init(struct state_rig *g)
{
	unsigned int i;

	memset(g, 0, sizeof(*g));
	pthread_mutex_init(&g->lock, NULL);
	g->rt.lock = &g->lock;
	g->rt.v = g->v;
	g->rt.nr_vcpus = NR_V;
	for (i = 0; i < NR_V; i++) {
		g->v[i].rt = &g->rt;
		g->v[i].id = i;
	}
	nr_bugs = 0;
	last_bug[0] = '\0';
	g->old_hook = debug_set_bug_hook(record_bug);
	mutex_lock(&g->lock);
}

static void rig_exit(struct state_rig *g)
{
	mutex_unlock(&g->lock);
	debug_set_bug_hook(g->old_hook);
	pthread_mutex_destroy(&g->lock);
}

/* The counters against the states, counted. */
static bool rig_consistent(const struct state_rig *g)
{
	unsigned int i, waiting = 0, lent = 0;

	for (i = 0; i < NR_V; i++) {
		waiting += g->v[i].state == RT_WAITING;
		lent += g->v[i].state == RT_LENT;
	}
	return g->rt.nr_waiting == waiting && g->rt.nr_lent == lent;
}

/* The table as rt.h draws it, written out again: the code must agree with the picture. */
static const char *const drawn[RT_NR_STATES] = {
	/* to: OFF BLOCKED WAITING RUNNING LENT */
	[RT_OFF] = ".x...",
	[RT_BLOCKED] = "xxx..",
	[RT_WAITING] = "xx.x.",
	[RT_RUNNING] = "xxxxx",
	[RT_LENT] = "xxxx.",
};

/* Every pair: the drawn transitions pass silently, all others are caught, and either way the
 * counters stay right (a caught one still goes through, as in a release build). */
static void test_state_table(void)
{
	struct state_rig g;
	enum rt_state from, to;

	rig_init(&g);
	for (from = RT_OFF; from < RT_NR_STATES; from++) {
		for (to = RT_OFF; to < RT_NR_STATES; to++) {
			bool legal = drawn[from][to] == 'x';
			unsigned int before;

			/* Into `from` by the path a vCPU takes (illegal steps recorded, ignored). */
			rt_set_state(&g.v[0], RT_OFF, 0);
			rt_set_state(&g.v[0], RT_BLOCKED, 0);
			if (from == RT_OFF)
				rt_set_state(&g.v[0], RT_OFF, 0);
			if (from >= RT_WAITING)
				rt_set_state(&g.v[0], RT_WAITING, 0);
			if (from >= RT_RUNNING)
				rt_set_state(&g.v[0], RT_RUNNING, 0);
			if (from == RT_LENT)
				rt_set_state(&g.v[0], RT_LENT, 0);
			CU_ASSERT_EQUAL_FATAL(g.v[0].state, from);
			before = nr_bugs;
			rt_set_state(&g.v[0], to, 0);
			CU_ASSERT_EQUAL(rt_state_legal(from, to), legal);
			CU_ASSERT_EQUAL(nr_bugs - before, legal ? 0 : 1);
			CU_ASSERT_EQUAL(g.v[0].state, to);
			CU_ASSERT_TRUE(rig_consistent(&g));
		}
	}
	rig_exit(&g);
}

/* What a BUG says: the vCPU and both states. */
static void test_state_illegal_named(void)
{
	struct state_rig g;

	rig_init(&g);
	rt_set_state(&g.v[2], RT_BLOCKED, 0);
	rt_set_state(&g.v[2], RT_LENT, 0);	/* a halt without a lane */
	CU_ASSERT_EQUAL(nr_bugs, 1);
	CU_ASSERT_STRING_EQUAL(last_bug, "vcpu2: illegal state change BLOCKED -> LENT");
	rig_exit(&g);
}

/* Random walks over the legal transitions of three vCPUs: the counters never drift, and each
 * entry into WAITING starts the vCPU's wait. */
static void test_state_counters_follow(void)
{
	struct state_rig g;
	unsigned int step, seed = 1;

	rig_init(&g);
	for (step = 0; step < 20000; step++) {
		struct rt_vcpu *rv = &g.v[rand_r(&seed) % NR_V];
		enum rt_state to;

		do
			to = (enum rt_state)(rand_r(&seed) % RT_NR_STATES);
		while (!rt_state_legal(rv->state, to));
		rt_set_state(rv, to, 1000 + step);
		if (to == RT_WAITING)
			CU_ASSERT_EQUAL(rv->wait_since, 1000 + step);
		if (!rig_consistent(&g)) {
			CU_FAIL("nr_waiting/nr_lent drifted from the states");
			break;
		}
	}
	CU_ASSERT_EQUAL(nr_bugs, 0);
	rig_exit(&g);
}

/* Another thread holding the lock: it takes it, lets the test call in, then lets go. */
struct holder {
	pthread_mutex_t *lock;
	pthread_barrier_t held, done;
};

static void *holder_main(void *arg)
{
	struct holder *h = arg;

	mutex_lock(h->lock);
	pthread_barrier_wait(&h->held);
	pthread_barrier_wait(&h->done);
	mutex_unlock(h->lock);
	return NULL;
}

/* The runtime's entry points and the core's check their lock; holding it, nothing is caught. */
static void test_lock_asserts(void)
{
	struct sched *s = sched_create(1, NR_V);
	struct state_rig g;
	struct holder h;
	pthread_t th;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	rig_init(&g);
	g.rt.s = s;
	sched_set_lock(s, &g.lock);
	CU_ASSERT_EQUAL(rt_core_next_timer(&g.rt), RT_INF);
	sched_timer(s, 1000);
	rt_set_state(&g.v[0], RT_BLOCKED, 0);
	CU_ASSERT_EQUAL(nr_bugs, 0);

	mutex_unlock(&g.lock);
	rt_core_next_timer(&g.rt);
	CU_ASSERT_EQUAL(nr_bugs, 1);
	sched_timer(s, 2000);
	CU_ASSERT_EQUAL(nr_bugs, 2);
	CU_ASSERT_STRING_EQUAL(last_bug, "!lockdep_is_held(s->lock)");
	rt_set_state(&g.v[0], RT_OFF, 0);
	CU_ASSERT_EQUAL(nr_bugs, 3);

	/* Held, but by another thread: that is not the caller's hold. */
	h.lock = &g.lock;
	pthread_barrier_init(&h.held, NULL, 2);
	pthread_barrier_init(&h.done, NULL, 2);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&th, NULL, holder_main, &h), 0);
	pthread_barrier_wait(&h.held);
	rt_core_next_timer(&g.rt);
	CU_ASSERT_EQUAL(nr_bugs, 4);
	pthread_barrier_wait(&h.done);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&h.held);
	pthread_barrier_destroy(&h.done);

	mutex_lock(&g.lock);
	rig_exit(&g);
	sched_destroy(s);
}

static CU_TestInfo rt_state_tests[] = {
	{ "exactly the drawn transitions are legal; others are a BUG", test_state_table },
	{ "an illegal transition names the vCPU and both states", test_state_illegal_named },
	{ "nr_waiting and nr_lent follow the states through legal walks",
	  test_state_counters_follow },
	{ "runtime and core entry points without their lock are a BUG", test_lock_asserts },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/state", rt_state_tests);
