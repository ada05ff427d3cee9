// SPDX-License-Identifier: GPL-2.0
/*
 * Capped pools paced across their period, and the reference's draw they are judged by
 * (sched/bandwidth_lanes.c, sched/bandwidth_ref.c, docs/scheduler.md §4): scenarios reduced
 * from `make fuzz-sim` seeds of the caps kinds, each once wrong for a reason of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "sim_test.h"
#include "../sim/fuzz_kinds.h"

/*
 * Pacing (§4): two lanes, a root hog and /g3 of weight 175 with two hogs capped at 13.064 ms
 * per 10 ms. /g3 is owed 1.27 CPU, just under its quota, so the reference never throttles it;
 * in slices it held both lanes long enough to draw its pool early, was throttled, and the root
 * hog, one vCPU, left a lane idle (seed 13 of the 10 ms caps kind reduced: 2520.9 ms of 2545.5
 * in 2 s, 0.61 % of capacity, 69 throttles). Paced, it takes a second lane only for as long as
 * its pool carries one to the refill: 0.010 %, no throttle.
 */
static void test_pool_paced_to_the_refill(void)
{
	run_within("lanes 2\nduration 2s\ngroup /g3 weight 175 max 13064us 10000us\n"
		   "vcpu 0 /g3 hog\nvcpu 1 /g3 hog\nvcpu 2 / hog\n", 0.1);
}

/*
 * A pool the reference throttles is paced to the reference's dry point (bandwidth_lanes.c,
 * bw_pace()): the reference burns it at the group's weighted share, as the kernel does, so a
 * group holding more lanes than its rate drew it early. Seed 171 of the 100 ms caps kind
 * reduced: five lanes, /g1 with three hogs beside /g1/g2 (four hogs, nice -7, 14.551 ms per
 * 100 ms) and the cpu.idle /g1/g3 (four hogs in capped children, a rate of about two while
 * /g1/g2 is throttled). In the period at 500 ms /g1/g3 took all four lanes /g1/g2's throttle
 * freed (505.54 ms) and ran dry at 506.64; with both out, /g1's three hogs leave two lanes idle
 * that the reference fills while the pools last: the root 6282 ms of 6317 in 2 s, each hog
 * 11 ms under (0.345 % of capacity). Paced, /g1/g3 holds three lanes, gives one back at its
 * min_run end and runs dry at 507.18 ms: the root 6298 ms (0.191 %). That held only while
 * /g1/g3/g5/g13 was paced too, by its own pool, which /g1/g3 can never let it draw; unpaced
 * (ancestors_let()), /g1/g3 held its third lane for min_run at a rate of exactly two, owed none
 * of it, and dried at 506.37 (0.333 %). Owed none of its k-th lane (k = r + 1), it is paced as
 * beyond its rate: it holds two lanes, 6313 ms (0.038 %).
 */
static void test_throttled_pool_paced_to_ref_dry(void)
{
	run_within("lanes 5\nduration 2s\ngroup /g1 nice -9\n"
		   "group /g1/g2 nice -7 max 14551us 100000us\n"
		   "group /g1/g3 idle 1 max 6373us 100000us burst 3295us\n"
		   "group /g1/g3/g5 weight 31 max 20314us 250000us burst 18220us\n"
		   "group /g1/g2/g6 nice 3\ngroup /g1/g2/g8\n"
		   "group /g1/g3/g5/g10 weight 2161 max 37461us 100000us burst 21847us\n"
		   "group /g1/g3/g5/g13 nice -6 max 19139us 250000us burst 2956us\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1/g2/g6 hog\nvcpu 2 /g1/g2 hog\n"
		   "vcpu 3 /g1/g3/g5/g13 hog\nvcpu 4 /g1/g3/g5/g13 hog\nvcpu 5 /g1/g2 hog\n"
		   "vcpu 6 /g1/g3/g5/g10 hog\nvcpu 7 /g1/g3/g5 hog\nvcpu 8 /g1 hog\n"
		   "vcpu 9 /g1 hog\nvcpu 10 /g1/g2/g8 hog\n", 0.1);
}

/*
 * A capped group owed between k - 1 and k lanes is paced to the reference's dry point on its
 * k lanes too where its siblings cannot be repaid (bandwidth_lanes.c, pace_to_ref_dry()).
 * Three lanes: a root hog, /g0 with a hog beside /g0/g1 (weight 500, two hogs, 5 ms per 10 ms).
 * /g0 is owed two lanes; while /g0/g1 runs it is owed 1.67 of them and /g0's hog 0.33, so the
 * reference burns /g0/g1's pool in 3 ms and serves the hog 1 ms of it. At each refill /g0/g1
 * took both lanes and dried at 2.5 ms, and the hog, one vCPU, could not use /g0's second lane
 * after the throttle: 0.5 ms lost a period, 750 ms of 800 in 1 s (1.65 % of capacity; scratch
 * gg7 1.46 %). Paced, /g0/g1 gives the lane back 2 ms after the refill and dries at 3 ms, the
 * reference's point. The same without /g0 (the root's hog beside the group on two lanes) lost
 * as much, 750 ms of 800, which the group error (the root left out) does not show: that hog's
 * usage is checked.
 */
static void test_pool_paced_in_its_last_lane(void)
{
	struct sim_result *r;
	double u = 0, ideal = 0;

	run_within("lanes 3\nduration 1s\ngroup /g0\ngroup /g0/g1 weight 500 max 5ms 10ms\n"
		   "vcpu 0 / hog\nvcpu 1 /g0 hog\nvcpu 2 /g0/g1 hog\nvcpu 3 /g0/g1 hog\n", 0.1);
	r = run("lanes 2\nduration 1s\ngroup /g1 weight 500 max 5ms 10ms\n"
		"vcpu 0 / hog\nvcpu 1 /g1 hog\nvcpu 2 /g1 hog\n");
	if (!r)
		return;
	CU_ASSERT_EQUAL(sim_vcpu_usage(r, 0, &u, &ideal), 0);
	if (fabs(u - ideal) > 0.001 * sim_capacity_ns(r))
		sim_report(r, stdout);
	CU_ASSERT_TRUE(fabs(u - ideal) <= 0.001 * sim_capacity_ns(r));
	sim_result_free(r);
}

/*
 * What the reference drew from a pool is integrated at the reference's rates, where a vCPU that
 * blocked ahead of its share demands until GPS has served what it ran ahead, not for as long as
 * its entity stays delayed in the core. Two lanes, /g1 weight 1 capped at 40 ms per 200 ms with
 * a hog beside /g0 (weight 100) with a hog, a duty vCPU and /g0/g4 with another (2 ms every 10,
 * together): at the core's rates /g1 looked served 0.02 CPU for 4-6 ms of each burst where GPS
 * has the duty vCPUs done in 3, so its throttle credit came back as 3-5 ms of lag at every
 * refill; it took /g0's hog's lane, ran dry before the reference and its lane idled: the total
 * 17 ms under, all of it /g0's hog (the audit's gg21 reduced, class E of docs/scheduler.md §10:
 * 0.856 % of capacity; 0.356 % now).
 */
static void test_reference_draw_ends_delayed_burst(void)
{
	run_within("lanes 2\ngroup /g0\ngroup /g1 weight 1 max 40ms 200ms\n"
		   "group /g0/g4 max 15ms 10ms\ngroup /g1/g5\n"
		   "vcpu 0 /g0 duty 2ms 10ms\nvcpu 1 /g1/g5 hog\nvcpu 2 /g0 hog\n"
		   "vcpu 3 /g0/g4 duty 2ms 10ms\n", 0.5);
}

/*
 * A pool its capped ancestors cannot let it draw is not paced (ancestors_let(); class C of
 * `fuzz-sim --kind 6`, the audit's gg101 reduced by hand, docs/scheduler.md §4). Four lanes, /g0
 * capped at 20 ms per 50 ms holding /g0/g1 (weight 10000, four hogs, 150 ms per 100 ms) and two
 * hogs of its own (weight 100), beside two root duty vCPUs (2 ms every 10): /g0 runs a window of
 * about 6 ms a period and lets /g1 draw at most 40 ms of its 150 per 100 ms. Judged by its rate to
 * its own refill (1.96 while the duty vCPUs ran), /g1 looked to draw its pool, its third lane was
 * refused as they blocked, and /g0's own hogs, owed 0.2 ms a window, took a slice each every
 * window: 42 ms of 3.9 each in 1 s, /g1 316 ms of 392 (1.90 % of capacity; 0.071 % now).
 */
static void test_pool_ancestors_cannot_let_draw(void)
{
	run_within("lanes 4\nduration 1s\ngroup /g0 max 20ms 50ms\n"
		   "group /g0/g1 weight 10000 max 150ms 100ms\n"
		   "vcpu 0 /g0/g1 hog\nvcpu 1 /g0/g1 hog\nvcpu 2 /g0/g1 hog\nvcpu 3 /g0/g1 hog\n"
		   "vcpu 4 /g0 hog\nvcpu 5 /g0 hog\nvcpu 6 / duty 2ms 10ms\nvcpu 7 / duty 2ms 10ms\n",
		   0.25);
}

/*
 * A pace end spent stays spent where lanes_repick()'s victim is given its own lane back at once.
 * Cleared there, two paced lanes each named the other's holder the victim at their pace ends and
 * the core re-timed them at one instant for ever: `fuzz-sim --kind 4` seed 2287 (12 lanes, /g1
 * capped over capped /g1/g2) and `--kind 5` seed 3068 stopped with "no progress" (the simulator's
 * 100000 turns at one time; docs/scheduler.md §10).
 */
static void test_spent_pace_end_stays_spent(void)
{
	double e = gen_error(2287, &fuzz_coarse_caps);

	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
	e = gen_error(3068, &fuzz_caps);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * A child's draw goes on while the reference still serves its thrown-out parent. One lane, two
 * root hogs, /a with a hog and /a/b (weight 250, 4.5 ms per 20 ms) holding a hog and /a/b/c
 * (weight 1000, 16 ms per 100 ms) with one: /a/b is owed 0.238 of the lane, so the reference
 * burns its pool to 18.9 ms into each period, /a/b/c drawing 0.22 of the lane meanwhile, and
 * throttles /a/b/c within its own period. The core runs /a/b's pool on the whole lane and
 * throws it out early; what /a/b/c drew stood still from there to /a/b's refill as if the
 * reference, too, served /a/b nothing, so at /a/b/c's own throttle the reference looked short
 * of its dry point and /a/b/c kept its rate (throttle_kept) to its refill: /a/b's hog had a
 * sliver of /a/b's rate, ran ahead by vt on it and was ineligible inside /a/b, whose pool
 * expired unused (fuzz-sim --kind 5 seed 5784 reduced: /a/b 385.5 ms of 450 in 2 s, 3.23 % of
 * capacity; 0.000 % now, the seed 3.74 -> 0.02 %).
 */
static void test_child_draws_to_parent_ref_dry(void)
{
	double e;

	run_within("lanes 1\nduration 2s\ngroup /a\ngroup /a/b weight 250 max 4500us 20000us\n"
		   "group /a/b/c weight 1000 max 16000us 100000us\n"
		   "vcpu 0 / hog\nvcpu 1 / hog\nvcpu 2 /a hog\nvcpu 3 /a/b hog\n"
		   "vcpu 4 /a/b/c hog\n", 0.1);
	e = gen_error(5784, &fuzz_caps);
	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * A vCPU blocking after a wait moves a capped sibling's reference draw as the wait's forgiveness
 * moves its lag. Three lanes, /g1 weight 2 capped at 5 ms per 10 ms with a hog beside /g2's two
 * hogs and a duty vCPU (537 us every 1337): the reference runs /g1 on the lane the duty vCPU
 * leaves and dries it 8.2 ms into each period. The duty vCPU waited for the hog's min_run at
 * most wakes, the core's rates had /g1 at 0.06 meanwhile, so by them /g1 drew 1.1-2.9 ms of its
 * pool by its throttle; the credit came back as 2-4 ms of lag, and /g1 ran its pool in one go
 * after the refill while the duty vCPU waited, its lane idle for the rest of the period (kind 6
 * seed 2668 of `make fuzz-sim` reduced: 3.79 % of capacity; 0.90 % now, the rest the hog's
 * min_run at each wake).
 */
static void test_waited_block_moves_reference_draw(void)
{
	run_within("lanes 3\ngroup /g1 weight 2 max 5000us 10000us\ngroup /g2\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g2 hog\nvcpu 2 /g2 duty 537us 1337us phase 134us\n"
		   "vcpu 3 /g2 hog\n", 1.2);
}

/*
 * sim-grid's chain capped twice (deep, D4 "two", 5 ms periods): the outer cap plays no part.
 * /d1's duty vCPU (1 ms every 5 ms) runs its burst on a whole lane, owed from earlier waits, so
 * it blocks undelayed; GPS serves it at 0.5 to 2 ms after its wake. Left out of the reference's
 * draw from its block, /d1/d2/d3/d4's ref_used ran ahead of GPS, its throttles were credited as
 * the reference's, and it took its whole quota every period: 569.8 ms of 533.3, /s as much
 * under (1.82 % of capacity; docs/scheduler.md §4, "The reference serves an owed burst").
 */
static void test_reference_serves_owed_burst(void)
{
	run_within("lanes 2\nduration 1s\ngroup /d1\ngroup /d1/d2 max 4750us 5000us\n"
		   "group /d1/d2/s weight 50\ngroup /d1/d2/d3\n"
		   "group /d1/d2/d3/d4 max 2849us 5000us\nvcpu 0 /d1/d2/d3/d4 hog\n"
		   "vcpu 1 /d1/d2/d3/d4 hog\nvcpu 2 /d1/d2/s hog\nvcpu 3 /d1 duty 1ms 5ms\n"
		   "vcpu 4 / hog\n", 0.3);
}

/*
 * Within a lane of its rate a capped group is paced only where its siblings cannot be repaid,
 * and a capped sibling the reference throttles this period cannot: it is served its pool, not
 * its lag. Three lanes, /g1 weight 22 (two hogs, 5.7 ms per 10 ms), /g2 weight 6 (three hogs,
 * 4.6 ms per 10 ms), /g3 weight 5 (a hog) and a root duty vCPU (2.218 ms every 3.034). The
 * reference runs /g1 at 1.33 to its dry point 3.5 ms into each period, /g2 at 0.36 meanwhile and
 * at 1.1-2 after it, dry some 6 ms in, and idles a lane after that. Counted as repaid, /g2 let
 * /g1 run both its lanes to 2.85 ms; /g2 came out of /g1's window 1.07 ms behind the
 * reference, drew its pool on one lane beside /g3's to 6.56 ms, and /g3 ran where the
 * reference idles: 52.5 ms over in 1 s (kind 6 seed 5555 reduced, 1.60 % of capacity; 0.11 %
 * now; docs/scheduler.md §4, "A capped sibling is not repaid").
 */
static void test_capped_sibling_not_repaid(void)
{
	run_within("lanes 3\nduration 1s\ngroup /g1 weight 22 max 5700us 10000us\n"
		   "group /g2 weight 6 max 4600us 10000us\ngroup /g3 weight 5\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1 hog\nvcpu 2 /g2 hog\nvcpu 3 /g2 hog\n"
		   "vcpu 4 /g2 hog\nvcpu 5 /g3 hog\nvcpu 6 / duty 2218us 3034us phase 459us\n", 0.25);
}

static CU_TestInfo pace_tests[] = {
	{ "a pool is paced to the refill", test_pool_paced_to_the_refill },
	{ "a throttled pool is paced to the reference's dry point",
	  test_throttled_pool_paced_to_ref_dry },
	{ "a pool is paced in its last lane", test_pool_paced_in_its_last_lane },
	{ "the reference's draw ends a delayed sleeper's burst where GPS does",
	  test_reference_draw_ends_delayed_burst },
	{ "a pool its ancestors cannot let it draw is not paced",
	  test_pool_ancestors_cannot_let_draw },
	{ "a spent pace end stays spent", test_spent_pace_end_stays_spent },
	{ "a child draws to its parent's reference dry point", test_child_draws_to_parent_ref_dry },
	{ "a waited block moves the reference's draw", test_waited_block_moves_reference_draw },
	{ "the reference serves an owed burst at its rate", test_reference_serves_owed_burst },
	{ "a capped sibling is not repaid", test_capped_sibling_not_repaid },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim pace", pace_tests)
