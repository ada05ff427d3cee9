// SPDX-License-Identifier: GPL-2.0
/*
 * Issue 13, second pass: random scenarios that were over their bound, each once wrong for a
 * reason of its own (docs/scheduler.md §2, §3, §10), and the reference they are measured
 * against: GPS over the scenario's own arrivals, caps burning at the weighted rate until the
 * pool is dry (sched/sim/sim_ideal.c).
 */
#include <math.h>
#include <stdlib.h>

#include "test.h"
#include "sim_test.h"
#include "../sim/fuzz_kinds.h"
#include "sched/core.h"
#include "sched/group.h"

/*
 * Hog-only trees `make fuzz-sim` found over 0.1 % of capacity (seed: error before).
 * 4117 (6.6 %): two vCPUs owed a whole CPU each held credit from the start that they could never
 * use; counted in V it put every waiting sibling a slice ahead, nothing was eligible, and the
 * fallback (the earliest deadline all the way down) gave a group's extra lane to a child owed
 * 0.3 % of it, an idle group, which ended with a third of a lane. 1169 (0.25 %), 2072 (0.21 %),
 * 1208 (0.14 %): the same fallback. 12994 (0.11 %): a vCPU moved into a group took the lane its
 * group's siblings were owed first, at once.
 */
static void test_random_hog_seeds_that_failed(void)
{
	static const uint64_t seeds[] = { 1169, 1208, 2072, 4117, 12994 };
	unsigned int i;

	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		double e = gen_error(seeds[i], &fuzz_hogs);

		if (e > 0.1)
			printf("\n  seed %llu: %.4f %% of capacity\n", (unsigned long long)seeds[i], e);
		CU_ASSERT_TRUE(e >= 0 && e <= 0.1);
	}
}

/*
 * The reference is GPS over the actual arrivals. Two duty vCPUs of a weight-1000 group burst
 * together (5 ms every 20 ms) on two lanes beside a weight-100 hog: while both have work the
 * hog is owed 2 x 100 / 1100 = 0.18 CPU, the bursts take 5.5 ms at 0.91 CPU each, and it is
 * owed a whole CPU the other 14.5 ms: 0.775 CPU, 7750 ms in 10 s. The long-run water-filling of
 * mean demands (the first reference) owed it 10000 ms, which it cannot have got: the group's
 * share during its bursts was both lanes.
 */
static void test_ideal_is_gps(void)
{
	struct sim_result *r = run("lanes 2\nduration 10s\ngroup /a weight 1000\n"
				   "group /b weight 100\nvcpu 0 /a duty 5ms 20ms\n"
				   "vcpu 1 /a duty 5ms 20ms\nvcpu 2 /b hog\n");
	double u, ideal = 0;

	if (!r)
		return;
	CU_ASSERT_EQUAL(sim_group_usage(r, "/b", &u, &ideal), 0);
	CU_ASSERT_TRUE(fabs(ideal - 7750e6) <= 1e3);
	CU_ASSERT_EQUAL(sim_group_usage(r, "/a", &u, &ideal), 0);
	CU_ASSERT_TRUE(fabs(ideal - 5000e6) <= 1e3);
	sim_result_free(r);
}

/*
 * A duty vCPU (2 ms every 20 ms) beside a hog in a group owed 1.2 CPUs on three lanes. GPS owes
 * the group 1.2 CPUs while the duty vCPU has work (3.3 ms of every 20) and one CPU otherwise:
 * 1.03 CPU. A sleeper that kept a reservation of its recent demand (the first design) held the
 * group's share at 1.1 while it slept and got its bursts on a lane of their own: the group got
 * 1.10 (2.2 % of capacity over). A sleeper in debt now stays in the rates only until its debt is
 * repaid, as the kernel's delayed dequeue does.
 */
static void test_sleeper_reserves_only_its_debt(void)
{
	run_within("lanes 3\nduration 10s\ngroup /a weight 150\ngroup /b weight 100\n"
		   "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 /a hog\nvcpu 3 /b hog\n"
		   "vcpu 4 /b duty 2ms 20ms\n", 0.1);
}

/*
 * Caps of 10 ms periods (seed 175: 17.5 % of capacity): a group capped at 1.2 ms per 10 ms
 * inside a capped parent. A throttled group left its parent's V at the minimum rate with its
 * lag, and so did its parents left with nothing but it below them: their siblings looked
 * hundreds of ms ahead and an idle group took their lanes. An entity owed nothing is out of V.
 */
static void test_throttled_subtree_leaves_v(void)
{
	double e = gen_error(175, &fuzz_caps);

	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * The `vsched run` demo's 30 % duty vCPU (3 ms every 10 ms) at the runtime's 8 ms slice. Its
 * request was a whole slice, so its deadline came 24 ms after it woke, behind the hogs': its
 * worst 1 % of wakes waited 23 ms for a lane. It asks for what it runs before it blocks (3 ms).
 */
static void test_short_bursts_ask_short_requests(void)
{
	struct sim_result *r = run("lanes 2\nduration 10s\nslice 8ms\nlag 16ms\n"
				   "group /web weight 300\ngroup /batch\ngroup /latency\n"
				   "group /capped max 20ms 100ms\n"
				   "vcpu 0 /web hog\nvcpu 1 /web hog\nvcpu 2 /batch hog\n"
				   "vcpu 3 /batch hog\nvcpu 4 /latency duty 3ms 10ms\n"
				   "vcpu 5 /capped hog\n");
	size_t n;

	if (!r)
		return;
	CU_ASSERT_TRUE(sim_wake_quantile(r, 0.99, &n) <= 16 * SCHED_MIN_RUN_DFL_NS);
	CU_ASSERT_TRUE(sim_max_group_error(r) <= 0.1);
	sim_result_free(r);
}

/*
 * A vCPU that blocks ahead of its sibling stays delayed in its group until the group's V catches
 * up. If the group then stops too (its other vCPU blocks, owed nothing), its V stands still: the
 * delay must end there, or the sleeper demands a CPU, and its group a share, until it wakes
 * (`mixed.sim` 0.42 % of capacity with that leak, 0.24 % without).
 */
static void test_delay_ends_when_group_stops(void)
{
	const uint64_t ms = 1000000;
	struct sched *s = sched_create(1, 3);
	struct sched_decision d[16];
	struct group *g;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(group_create(s, sched_root(s), "g", &g), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 1, g), 0);
	CU_ASSERT_EQUAL(sched_vcpu_move(s, 2, g), 0);
	sched_vcpu_runnable(s, 1, 0);
	sched_vcpu_runnable(s, 2, 0);
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 1);
	/* vCPU 1 ran 2 ms, vCPU 2 nothing: 1 blocks ahead of its share and is delayed. */
	sched_vcpu_ran(s, 1, 2 * ms, 0, 2 * ms);
	sched_vcpu_blocked(s, 1, 2 * ms);
	CU_ASSERT_EQUAL(sched_vcpu_demand(s, 1), 1.0);
	/* vCPU 2 blocks owed service: /g stops, and vCPU 1's delay ends with it. */
	sched_vcpu_blocked(s, 2, 2 * ms);
	CU_ASSERT_EQUAL(sched_vcpu_demand(s, 1), 0.0);
	sched_timer(s, 50 * ms);
	CU_ASSERT_EQUAL(sched_vcpu_demand(s, 1), 0.0);
	while (sched_take_decisions(s, d, 16))
		;
	sched_destroy(s);
}

/*
 * Issue 13, third pass: duty vCPUs beside hogs on several lanes (`make fuzz-sim`, seeds 162 and
 * 587, reduced). A root hog took a lane whenever the duty vCPU of a heavy group blocked, and when
 * the duty vCPU woke 57 us later that hog was still inside its min_run: the waiter took the lane
 * of its own group's hog instead, so the group got no lane back while the root hog ran its whole
 * slice (1.78 % of capacity). The preemption now waits for the hog's min_run (0.83 %: the duty
 * vCPU wakes every 570 us, which a 1 ms min_run cannot follow as GPS does).
 */
static void test_preemption_waits_for_min_run(void)
{
	run_within("lanes 2\nduration 2s\ngroup /a nice -16\ngroup /a/b\ngroup /a/c\n"
		   "vcpu 0 /a/c duty 335us 570us phase 17us\nvcpu 1 / hog\nvcpu 2 /a/b hog\n", 1.0);
}

/*
 * A duty vCPU that waited for a lane blocks owed service it has no work for: its siblings ran
 * into debt meanwhile, and both are forgiven when it leaves. Shared by rate (V moving), most of
 * it went to siblings owed nearly a CPU, hogs that hold their lanes anyway, and built up there
 * as credit they could never use but that kept them from ever giving a lane up; a low-weight
 * group beside them, whose rate moves most when the sleeper leaves, starved. The lag a sleeper
 * leaves or brings back goes to the siblings whose rates its leave raises or its return lowers.
 * Four lanes, a weight-4 group beside two hogs and duty vCPUs (work every 30 ms and more,
 * `make fuzz-sim` seed 494 of that kind, reduced): 1.59 % of capacity, 0.36 % now.
 */
static void test_sleeper_lag_goes_where_rates_move(void)
{
	run_within("lanes 4\nduration 5s\ngroup /g1\ngroup /g1/g2 weight 4\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1 hog\nvcpu 2 /g1 duty 18009us 46061us phase 17312us\n"
		   "vcpu 3 /g1/g2 hog\nvcpu 4 /g1 duty 2778us 32533us phase 25117us\n"
		   "vcpu 5 / bursty 5439us 47140us seed 34557\nvcpu 6 / hog\n", 0.5);
}

/*
 * A duty vCPU alone in its group waits for a lane as one beside siblings does, and is forgiven
 * the same when it blocks: what its wait credited its ancestors, measured by the lag of the
 * entities that leave with it (its group's at the parent), not by its own lag in its group,
 * always 0 there. Two lanes, /a with a hog and a duty vCPU, /b (weight 8) with a hog: GPS shares
 * the hog's lane between the hog and /b while the duty vCPU has work. With the duty vCPU in /a
 * itself both get their due (0.14 %); in /a/y, /a kept the credit of every wait, /b never took
 * the hog's lane and got only what the duty vCPU left (3.01 % of capacity). `make fuzz-sim`
 * seed 1615 of the 1-16 lane kind is this in a deeper tree (1.32 %).
 */
static void test_lone_vcpu_wait_forgiven(void)
{
	struct sim_result *flat = run("lanes 2\nduration 5s\ngroup /a\ngroup /b weight 8\n"
				      "vcpu 0 /a hog\nvcpu 1 /a duty 1392us 1850us\n"
				      "vcpu 2 /b hog\n");
	struct sim_result *r = run("lanes 2\nduration 5s\ngroup /a\ngroup /a/y\ngroup /b weight 8\n"
				   "vcpu 0 /a hog\nvcpu 1 /a/y duty 1392us 1850us\n"
				   "vcpu 2 /b hog\n");
	double e;

	if (flat && r) {
		if (sim_max_group_error(r) > 0.2)
			sim_report(r, stdout);
		CU_ASSERT_TRUE(sim_max_group_error(flat) <= 0.2);
		CU_ASSERT_TRUE(sim_max_group_error(r) <= 0.2);
	}
	sim_result_free(flat);
	sim_result_free(r);
	e = gen_error(1615, &fuzz_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * A closed-loop sleeper (`sleep BUSY SLEEP`: its next work comes SLEEP after it finished the
 * last, as bench-fair's duty and halt-duty guests do) has no arrivals to replay: its ideal is
 * its mean demand, 0.3 CPU here, which it gets if it is served when it wakes. Every ms it waits
 * is lost for good, where open-loop work (`duty`) waits and is done later at no cost to the
 * 10 s total. Alone on a lane it gets its 3000 ms; beside a hog on one lane, with the 3 ms
 * slices, it waits 2 ms a burst and gets less: the error open-loop scenarios do not show.
 */
static void test_sleep_pattern_closed_loop(void)
{
	struct sim_result *r = run("lanes 1\nduration 10s\nvcpu 0 / sleep 3ms 7ms phase 1ms\n");
	double u, ideal, hu, hideal;

	if (!r)
		return;
	CU_ASSERT_EQUAL(sim_vcpu_usage(r, 0, &u, &ideal), 0);
	CU_ASSERT_TRUE(fabs(u - 3000e6) <= 1e3 && fabs(ideal - 3000e6) <= 1e3);
	sim_result_free(r);
	r = run("lanes 1\nduration 10s\nvcpu 0 / sleep 3ms 7ms\nvcpu 1 / hog\n");
	if (!r)
		return;
	CU_ASSERT_EQUAL(sim_vcpu_usage(r, 0, &u, &ideal), 0);
	CU_ASSERT_EQUAL(sim_vcpu_usage(r, 1, &hu, &hideal), 0);
	CU_ASSERT_TRUE(fabs(ideal - 3000e6) <= 1e3 && fabs(hideal - 7000e6) <= 1e3);
	CU_ASSERT_TRUE(u < 2900e6);
	CU_ASSERT_TRUE(fabs(u + hu - 10000e6) <= 1e3);
	sim_result_free(r);
}

/*
 * bench-fair's duty scenario as the runtime runs it: two closed-loop guests (3 ms of work, 7 ms
 * of sleep) in /d beside two hogs in /h, at the 8 ms slice (lag 16 ms) the runtime settles at on
 * this host. /d is owed 0.6 CPU and gets it when its vCPUs are served as they wake. The fourth
 * duty pass (reverted, docs/scheduler.md §10) made them wait (p50 1 ms, p99 6 ms): 5547 ms of
 * 6000, 2.27 % of capacity here, and on the runtime duty 0.23 -> 3.45 %, halt-duty 2.27 ->
 * 9.87 %; `make fuzz-sim`'s open-loop work, done later when it waits, never showed it.
 */
static void test_bench_duty_at_runtime_slice(void)
{
	run_within("lanes 2\nduration 10s\nslice 8ms\nlag 16ms\ngroup /d\ngroup /h\n"
		   "vcpu 0 /d sleep 3ms 7ms\nvcpu 1 /d sleep 3ms 7ms phase 1ms\n"
		   "vcpu 2 /h hog\nvcpu 3 /h hog\n", 0.5);
}

/*
 * A waker whose group is a whole lane short of its rate takes a lane from a group a whole lane
 * over it unless that group is owed min_run, not only when the waker is behind by min_run.
 * bench-fair's duty and halt-duty: two closed-loop guests in /d (rate 1 whenever one is awake)
 * beside two hogs in /h. A guest served at once blocks level, and woke level with /h, which
 * held both lanes at rate 1: it waited for a hog's rotation end (every second wake at the
 * default 3 ms slice: p50 1 ms, /d 5455 ms of 6000, 2.73 % of capacity; at the runtime's 8 ms
 * slice, offset 5 ms, a wait of up to 5 ms). On the runtime a halted guest's wall-clock work is
 * lost meanwhile: halt-duty 3.9-4.5 % of capacity on the thread backend (docs/scheduler.md §10).
 */
static struct sim_result *run_duty_pair(const char *params, const char *phase)
{
	char text[256];

	snprintf(text, sizeof(text), "lanes 2\nduration 10s\n%sgroup /d\ngroup /h\n"
		 "vcpu 0 /d sleep 3ms 7ms\nvcpu 1 /d sleep 3ms 7ms phase %s\n"
		 "vcpu 2 /h hog\nvcpu 3 /h hog\n", params, phase);
	return run(text);
}

static void test_level_waker_takes_misplaced_lane(void)
{
	struct sim_result *r = run_duty_pair("", "1ms");
	size_t nr;

	if (!r)
		return;
	CU_ASSERT_TRUE(sim_max_group_error(r) <= 0.1);
	CU_ASSERT_EQUAL(sim_wake_quantile(r, 0.99, &nr), 0);
	CU_ASSERT_EQUAL(nr, 2000);
	sim_result_free(r);
	r = run_duty_pair("slice 8ms\nlag 16ms\n", "5ms");
	if (!r)
		return;
	CU_ASSERT_TRUE(sim_wake_quantile(r, 1.0, &nr) <= SCHED_MIN_RUN_DFL_NS);
	sim_result_free(r);
}

/*
 * Eligible against the others, never against itself. The competing V of a level leaves out
 * children holding lanes at their rate (their credit cannot be repaid); when all a waiting
 * child's siblings are such, the mean that was left was the waiter's own vt, and it was eligible
 * however far ahead. A group holding more lanes than its rate took another by its deadline and
 * handed it, inside, to its cpu.idle child, deep in debt. Four lanes, /a/y/z idle beside two
 * hogs, duty vCPUs in /c and at the root (the five-vCPU reduction of `mixed.sim` with its move,
 * docs/scheduler.md §10): /a/y/z never gave its lane up, 1.06 % of capacity, 0.23 % now.
 * Seed 747 of the 10 ms caps kind (an idle child of a group with four hogs holding more lanes
 * than its rate while a capped sibling is throttled): 4.34 %, 0.15 % now.
 */
static void test_eligible_against_the_others(void)
{
	double e;

	run_within("lanes 4\nduration 5s\ngroup /a weight 200\ngroup /a/y weight 300\n"
		   "group /a/y/z idle 1\ngroup /c nice 5\nvcpu 0 /a/y hog\nvcpu 1 /a/y hog\n"
		   "vcpu 2 /a/y/z hog\nvcpu 3 /c duty 2ms 5ms\nvcpu 4 / duty 3ms 30ms\n", 0.5);
	e = gen_error(747, &fuzz_caps);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * A child's lag is kept against its group's due clock when rates change inside the group, so
 * that the children's lags add up to what the group is owed (rates.c, due_clock()). Seed 228
 * of the coarse duty kind, reduced: two lanes, a root duty vCPU, /g1 holding a hog and /g1/g2
 * (weight 31) with a hog. While the duty vCPU has work /g1 has one lane and /g1/g2 is owed
 * 0.236 of it; it got 37 ms of 264 in 10 s, 1.14 % of capacity: /g1 fell behind while its
 * hog was owed most of it and caught up after the duty vCPU blocked, when the rates were 1 and
 * 1. Seed 827 reduced (three lanes, a weight-2 group beside a hog in a nice-19 group, a bursty
 * and a duty vCPU in its sibling, a bursty root vCPU): 1.25 %. Both about 0 now.
 */
static void test_group_lag_kept_as_accrued(void)
{
	double e;

	run_within("lanes 2\nduration 5s\ngroup /g1\ngroup /g1/g2 weight 31\ngroup /g1/g2/g4\n"
		   "vcpu 0 / duty 1913us 17133us phase 8830us\nvcpu 1 /g1 hog\n"
		   "vcpu 2 /g1/g2/g4 hog\n", 0.1);
	run_within("lanes 3\nduration 5s\ngroup /g1 weight 1169\ngroup /g1/g2\n"
		   "group /g1/g2/g3 nice 19\ngroup /g1/g2/g3/g4 weight 2\ngroup /g1/g2/g6\n"
		   "group /g1/g2/g6/g7\nvcpu 0 /g1/g2/g3 hog\n"
		   "vcpu 1 /g1/g2/g6 bursty 14268us 29316us seed 19073\n"
		   "vcpu 2 /g1/g2/g6/g7 duty 3116us 30106us phase 19775us\nvcpu 3 /g1 hog\n"
		   "vcpu 4 / bursty 18799us 78796us seed 11659\nvcpu 5 /g1/g2/g3/g4 hog\n", 0.1);
	e = gen_error(827, &fuzz_coarse_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * The due clock holds at a throttle's or refill's full retag too (rates.c, snap_due_clocks()).
 * Two lanes, a root duty vCPU on /g1's period grid, /g1 capped at one CPU holding a hog and
 * /g1/g3 (weight 10000) with a hog and a nice-19 group with a hog. /g1 runs 2 ms of each period
 * at rate 1 (the nice-19 hog owed 0.014) and 4 at rate 2 (owed 0.98): 3.94 ms a period by hand,
 * as the reference. Its rate rose through refill_group() against the due clock of /g1/g3, owed
 * 0.9 ms after the /g1 hog's first slice, and fell back through the refill's retag against V:
 * the nice-19 group lost 0.8 ms a period, and the /g1 hog, owed 0.1 ms, took 0.86 (audit gg107
 * reduced: 319 ms of 395, 3.8 % of capacity; gg107 itself 4.22 -> 0.68 %).
 */
static void test_due_clock_kept_at_retag(void)
{
	run_within("lanes 2\ngroup /g1 max 10ms 10ms\ngroup /g1/g3 weight 10000\n"
		   "group /g1/g3/g4 nice 19\nvcpu 0 /g1 hog\nvcpu 1 /g1/g3 hog\n"
		   "vcpu 2 /g1/g3/g4 hog\nvcpu 3 / duty 2ms 10ms\n", 0.3);
}

/*
 * A waker whose lane comes from a side holding several takes it, inside that side, from the child
 * holding the most over its rate, waiting for its min_run if need be, not from the first lane by
 * index. Two lanes: /w's duty vCPU (0.9 ms every 1.8 ms) beside /a (weight 35) holding /a/b with a
 * hog and /a/c (nice 19) with a duty vCPU. At each wake /a is owed one lane and /a/c 0.01 of it;
 * /a/c's vCPU, often inside its min_run, kept its lane and the hog gave its own up: the hog got
 * 1851 ms of the 1995 owed, a loss it can never make up, lanes idling later that GPS keeps busy
 * (3.60 % of capacity; 0.12 % now). `make fuzz-sim` kind 2 seed 1756, whose shape this is: 3.82 %.
 */
static void test_waker_takes_lane_most_over_rate(void)
{
	double e;

	run_within("lanes 2\nduration 2s\ngroup /a weight 35\ngroup /a/b\ngroup /a/c nice 19\n"
		   "group /w\nvcpu 0 /w duty 903us 1769us\nvcpu 1 /a/b hog\n"
		   "vcpu 2 /a/c duty 1773us 12150us\n", 0.2);
	e = gen_error(1756, &fuzz_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * `make fuzz-sim` coarse duty seed 627, reduced: a root duty vCPU's wake finds /g1's two lanes
 * held by its hog and by /g1/g2 (weight 1, owed 0.001 of a lane while the duty vCPU has work).
 * The lane must come from /g1/g2, the child of /g1 holding the most over its rate (its hog is
 * owed the lane), deferred to its min_run if its holder has just got it; taking the hog's lane
 * instead (the first lane by index) let /g1/g2 run on through the burst: 2.97 % of capacity
 * before, 0.009 % now (found by branch coarse3; docs/scheduler.md §10).
 */
static void test_wake_takes_lane_of_side_over_rate(void)
{
	double e;

	run_within("lanes 2\nduration 5s\ngroup /g1 weight 5\ngroup /g1/g2 weight 1\n"
		   "group /g1/g2/g3\nvcpu 0 / duty 2557us 20650us phase 5160us\n"
		   "vcpu 1 /g1 hog\nvcpu 2 /g1/g2 hog\nvcpu 3 /g1/g2/g3 hog\n", 0.1);
	e = gen_error(627, &fuzz_coarse_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * `make fuzz-sim` coarse duty seed 1756, reduced: two lanes, /g1 and /g7 at the root; in /g1,
 * /g1/g2/g6 holds a hog and a bursty vCPU, /g1/g4 (nice 19) a bursty and a duty vCPU; /g7 a
 * bursty vCPU. While /g1 holds both lanes for the hog and its sibling (each owed 0.99 of one),
 * /g1/g4's vCPU woke owed 72 us of service, 2.5 ms behind in virtual time at its rate of 0.029:
 * more than min_run of time, so it took the hog's lane for a slice, its work was done long
 * before GPS does it, and a lane idled later that GPS keeps busy, the hog short by what it can
 * never make up (0.64 % of capacity, the seed 0.83 %, seed 1670 0.65 %). A wake now takes a lane
 * only on min_run of service at its side's rate (wake_gran()): 0.20 %, 0.28 %, 0.09 %.
 */
static void test_low_rate_waker_owed_little_waits(void)
{
	double e;

	run_within("lanes 2\nduration 7500ms\ngroup /g1\ngroup /g1/g2\ngroup /g1/g4 nice 19\n"
		   "group /g1/g2/g6\ngroup /g7\ngroup /g1/g4/g10\ngroup /g1/g4/g11\n"
		   "vcpu 0 /g1/g4/g10 bursty 4135us 30012us seed 29783\n"
		   "vcpu 1 /g1/g2/g6 bursty 17100us 53242us seed 13144\n"
		   "vcpu 2 /g1/g4/g11 duty 3631us 35963us phase 1718us\n"
		   "vcpu 3 /g1/g2/g6 hog\nvcpu 4 /g7 bursty 2667us 13896us seed 10595\n", 0.3);
	e = gen_error(1756, &fuzz_coarse_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
	e = gen_error(1670, &fuzz_coarse_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * `make fuzz-sim` kind 2 seed 1390, reduced: six lanes, a root hog, /g1 (owed 3.76 lanes) with
 * seven vCPUs, /g4 (weight 33, owed 1.24) with a hog beside /g4/g5 (nice -20) holding a hog and
 * a rare duty vCPU. GPS serves /g4/g5's hog a whole lane (0.61 while the duty vCPU has
 * work) and /g4's hog the 0.24 left. /g4 ahead of /g1 lost its last lane (the /g4/g5 hog's, at a
 * rotation end or a block), its catch-up came as a second lane, which only /g4's hog could use:
 * /g4's total right, /g4/g5's hog 133 ms short in 2.5 s (0.89 %). A side owed a whole lane now
 * keeps it for a vCPU below owed service in all (fair_pick_sticky(), fair_pick_kept()): 0.21 %.
 */
static void test_side_keeps_whole_lane(void)
{
	double e;

	run_within("lanes 6\nduration 2500ms\ngroup /g1\ngroup /g1/g3\ngroup /g4 weight 33\n"
		   "group /g4/g5 nice -20\ngroup /g1/g6 nice -18\nvcpu 0 / hog\nvcpu 1 /g4 hog\n"
		   "vcpu 2 /g1 hog\nvcpu 3 /g1/g3 hog\nvcpu 4 /g1/g3 hog\n"
		   "vcpu 5 /g1 duty 2207us 6495us phase 5214us\nvcpu 6 /g4/g5 hog\n"
		   "vcpu 7 /g1/g6 hog\nvcpu 8 /g4/g5 duty 1746us 25599us phase 23208us\n"
		   "vcpu 9 /g1 duty 1273us 2429us phase 64us\nvcpu 10 /g1/g3 hog\n", 0.4);
	e = gen_error(1390, &fuzz_duty);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

static CU_TestInfo gps_tests[] = {
	{ "random hog-only seeds that failed", test_random_hog_seeds_that_failed },
	{ "the ideal is GPS over the arrivals", test_ideal_is_gps },
	{ "a sleeper reserves only its debt", test_sleeper_reserves_only_its_debt },
	{ "a throttled subtree leaves V", test_throttled_subtree_leaves_v },
	{ "short bursts ask short requests", test_short_bursts_ask_short_requests },
	{ "a delay ends when its group stops", test_delay_ends_when_group_stops },
	{ "a preemption waits for min_run", test_preemption_waits_for_min_run },
	{ "a sleeper's lag goes where rates move", test_sleeper_lag_goes_where_rates_move },
	{ "a lone vCPU's wait is forgiven", test_lone_vcpu_wait_forgiven },
	{ "a closed-loop sleeper's work comes after it is done", test_sleep_pattern_closed_loop },
	{ "bench-fair's duty at the runtime's slice", test_bench_duty_at_runtime_slice },
	{ "a level waker takes a misplaced lane", test_level_waker_takes_misplaced_lane },
	{ "eligible against the others", test_eligible_against_the_others },
	{ "a group's lag is kept as it accrued", test_group_lag_kept_as_accrued },
	{ "the due clock holds at a retag", test_due_clock_kept_at_retag },
	{ "a waker takes the lane held most over its rate", test_waker_takes_lane_most_over_rate },
	{ "a wake takes the lane of the side's child over its rate (seed 627)",
	  test_wake_takes_lane_of_side_over_rate },
	{ "a low-rate waker owed little waits (seed 1756)", test_low_rate_waker_owed_little_waits },
	{ "a side owed a whole lane keeps it (seed 1390)", test_side_keeps_whole_lane },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim gps", gps_tests)
