// SPDX-License-Identifier: GPL-2.0
/*
 * The trace recorder (sched/trace.h): a full ring keeps its first events and counts the rest
 * into one marker at the first loss; rings of several threads merge by time; the vCPU state
 * machine makes one slice per state, with its lane's slice and the CPU charged meanwhile; the
 * simulator's trace holds the core's group events and adds up to its report.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/sim.h"
#include "sched/trace.h"
#include "test.h"

static void test_trace_ring_overflow(void)
{
	struct trace_event ev[32];
	struct trace *tr;
	uint64_t dropped, i;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(trace_create(1, 1, 16, 0, &tr), 0);
	CU_ASSERT_EQUAL(trace_ring_events(tr), 16);
	for (i = 0; i < 20; i++)
		trace_emit(tr, TRACE_KICK, 0, 0, 100 + i, 0, i);
	n = trace_collect(tr, ev, 32, &dropped);
	/* The first 16 in order, then the marker at the 17th event's time, counting 4. */
	CU_ASSERT_EQUAL_FATAL(n, 17);
	CU_ASSERT_EQUAL(dropped, 4);
	for (i = 0; i < 16; i++) {
		CU_ASSERT_EQUAL(ev[i].kind, TRACE_KICK);
		CU_ASSERT_EQUAL(ev[i].ts, 100 + i);
		CU_ASSERT_EQUAL(ev[i].val, i);
	}
	CU_ASSERT_EQUAL(ev[16].kind, TRACE_KIND_NR);
	CU_ASSERT_EQUAL(ev[16].ts, 116);
	CU_ASSERT_EQUAL(ev[16].val, 4);
	trace_destroy(tr);
}

static void test_trace_ring_no_drop(void)
{
	struct trace_event ev[20];
	struct trace *tr;
	uint64_t dropped;
	unsigned int i;

	CU_ASSERT_EQUAL_FATAL(trace_create(1, 1, 16, 0, &tr), 0);
	for (i = 0; i < 16; i++)
		trace_emit(tr, TRACE_KICK, 0, 0, i, 0, 0);
	CU_ASSERT_EQUAL(trace_collect(tr, ev, 20, &dropped), 16);
	CU_ASSERT_EQUAL(dropped, 0);
	trace_destroy(tr);
}

struct emitter {
	struct trace *tr;
	uint64_t first;
};

/* Odd or even times from another thread: its own ring. */
static void *emit_thread(void *arg)
{
	struct emitter *e = arg;
	uint64_t t;

	for (t = e->first; t < 200; t += 2)
		trace_emit(e->tr, TRACE_KICK, (uint32_t)e->first, 0, t, 0, 0);
	return NULL;
}

static void test_trace_threads_merge(void)
{
	struct trace_event ev[256];
	struct emitter a, b;
	pthread_t ta, tb;
	struct trace *tr;
	uint64_t dropped;
	size_t n, i;

	CU_ASSERT_EQUAL_FATAL(trace_create(1, 1, 128, 0, &tr), 0);
	a = (struct emitter){ tr, 0 };
	b = (struct emitter){ tr, 1 };
	pthread_create(&ta, NULL, emit_thread, &a);
	pthread_create(&tb, NULL, emit_thread, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	n = trace_collect(tr, ev, 256, &dropped);
	CU_ASSERT_EQUAL(n, 200);
	CU_ASSERT_EQUAL(dropped, 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(ev[i].ts, i);
		CU_ASSERT_EQUAL(ev[i].id, i % 2);
	}
	trace_destroy(tr);
}

static void test_trace_vcpu_slices(void)
{
	struct trace_event ev[16];
	struct trace *tr;
	uint64_t dropped;
	size_t n;

	CU_ASSERT_EQUAL_FATAL(trace_create(2, 2, 64, 0, &tr), 0);
	trace_vcpu_state(tr, 0, TRACE_V_WAITING, -1, 10);
	trace_vcpu_state(tr, 0, TRACE_V_WAITING, -1, 15);	/* no change: no slice */
	trace_vcpu_state(tr, 0, TRACE_V_RUNNING, 1, 20);
	trace_vcpu_cpu(tr, 0, 7);
	trace_vcpu_cpu(tr, 1, 99);				/* vCPU 1 is off: kept for later */
	trace_vcpu_state(tr, 0, TRACE_V_RUNNING, 0, 30);	/* another lane: a new slice */
	trace_vcpu_cpu(tr, 0, 5);
	trace_vcpu_state(tr, 0, TRACE_V_SLEEPING, 0, 25);	/* a clock read early: no going back */
	trace_finish(tr, 50);
	n = trace_collect(tr, ev, 16, &dropped);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	/* waiting 10-20, running on lane 1 20-30 (cpu 7), on lane 0 30-30 (cpu 5), sleeping to 50 */
	CU_ASSERT(ev[0].kind == TRACE_VCPU_SLICE && ev[0].arg == TRACE_V_WAITING);
	CU_ASSERT(ev[0].ts == 10 && ev[0].dur == 10 && ev[0].val == 0);
	CU_ASSERT(ev[1].kind == TRACE_VCPU_SLICE && ev[1].arg == TRACE_V_RUNNING);
	CU_ASSERT(ev[1].ts == 20 && ev[1].dur == 10 && ev[1].val == 7);
	CU_ASSERT(ev[2].kind == TRACE_LANE_SLICE && ev[2].id == 1 && ev[2].val == 0);
	CU_ASSERT(ev[2].ts == 20 && ev[2].dur == 10);
	CU_ASSERT(ev[3].kind == TRACE_VCPU_SLICE && ev[3].ts == 30 && ev[3].dur == 0);
	CU_ASSERT(ev[3].val == 5);
	CU_ASSERT(ev[4].kind == TRACE_LANE_SLICE && ev[4].id == 0);
	CU_ASSERT(ev[5].kind == TRACE_VCPU_SLICE && ev[5].arg == TRACE_V_SLEEPING);
	CU_ASSERT(ev[5].ts == 30 && ev[5].dur == 20);
	trace_destroy(tr);
}

static char *sim_trace_text(const char *scenario)
{
	struct sim_scenario *sc;
	struct sim_result *r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(sim_parse(scenario, &sc, NULL), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(sim_run_traced(sc, &r, NULL, f, NULL), 0);
	fclose(f);
	sim_result_free(r);
	sim_scenario_free(sc);
	return buf;
}

/* A capped group throttles, refills and unthrottles; settings and moves carry their values. */
static void test_trace_sim_events(void)
{
	char *t = sim_trace_text("lanes 1\nduration 300ms\ngroup /a max 20ms 100ms\n"
				 "group /b\nvcpu 0 /a hog\nvcpu 1 /b hog\n"
				 "at 150ms weight /b 300\nat 200ms move 1 /a\n");

	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"name\": \"throttle\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"name\": \"unthrottle\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"name\": \"refill\", \"s\": \"p\", "
					 "\"args\": {\"pool_ns\": 20000000}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"ts\": 150000, \"pid\": 4, \"tid\": 0, "
					 "\"name\": \"cpu.weight\", \"s\": \"p\", "
					 "\"args\": {\"value\": \"300\"}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"name\": \"move\", \"s\": \"t\", \"args\": {\"to\": \"/a\"}"));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"name\": \"throttled\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(t, "\"args\": {\"name\": \"group /a\"}"));
	CU_ASSERT_PTR_NULL(strstr(t, "dropped"));
	free(t);
}

/* Recording changes nothing the simulator computes. */
static void test_trace_sim_same_result(void)
{
	static const char sc_text[] = "lanes 2\nduration 500ms\ngroup /a max 30ms 100ms\n"
				      "vcpu 0 /a hog\nvcpu 1 / duty 2ms 7ms\nvcpu 2 / hog\n";
	struct sim_result *plain, *traced;
	struct sim_scenario *sc;
	char *buf = NULL;
	double u0, u1, i0, i1;
	size_t len = 0;
	unsigned int v;
	FILE *f;

	CU_ASSERT_EQUAL_FATAL(sim_parse(sc_text, &sc, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(sim_run(sc, &plain, NULL), 0);
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL_FATAL(sim_run_traced(sc, &traced, NULL, f, NULL), 0);
	fclose(f);
	for (v = 0; v < 3; v++) {
		sim_vcpu_usage(plain, v, &u0, &i0);
		sim_vcpu_usage(traced, v, &u1, &i1);
		CU_ASSERT_DOUBLE_EQUAL(u0, u1, 0);
	}
	CU_ASSERT_EQUAL(sim_preemptions(plain), sim_preemptions(traced));
	sim_result_free(plain);
	sim_result_free(traced);
	sim_scenario_free(sc);
	free(buf);
}

static CU_TestInfo trace_tests[] = {
	{ "full ring: first events kept, one dropped marker", test_trace_ring_overflow },
	{ "ring exactly full drops nothing", test_trace_ring_no_drop },
	{ "rings of two threads merge by time", test_trace_threads_merge },
	{ "vCPU states: slices, lane slices, CPU", test_trace_vcpu_slices },
	{ "simulator: group events and values", test_trace_sim_events },
	{ "simulator: recording changes no result", test_trace_sim_same_result },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/trace", trace_tests)
