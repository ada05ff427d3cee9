// SPDX-License-Identifier: GPL-2.0
/*
 * Caps of short periods against the burst-then-throttle model (docs/scheduler.md §4, §10):
 * scenarios reduced from `make fuzz-sim` seeds of the 10 ms caps kind, each once wrong for a
 * reason of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "sim_test.h"
#include "../sim/fuzz_kinds.h"

/*
 * A group of weight 3347 with three hogs capped at 14.56 ms per 10 ms beside three hogs of weight
 * 100 on two lanes: it is owed 1.84 CPU, so it burns its quota and is throttled every period.
 * The lanes it frees go to its siblings with slices paid up front at the rates of the throttle
 * (0.67 CPU each); paid at those after the refill too, the slice spanning it counted as served
 * while the group was out of the sum, its holder looked owed a second one, and the group lost
 * a slice of the lanes it needed to spend its quota, one period in four (seed 937 reduced:
 * 2797.6 ms of 2912, 2.86 % of capacity; 0.014 % now).
 */
static void test_prepaid_slice_repaid_at_refill(void)
{
	run_within("lanes 2\nduration 2s\n"
		   "group /g1 weight 3347 max 14560us 10000us\ngroup /g2\n"
		   "vcpu 0 / hog\nvcpu 1 / hog\nvcpu 2 /g1 hog\nvcpu 3 /g1 hog\n"
		   "vcpu 4 /g1 hog\nvcpu 5 /g2 hog\n", 0.1);
}

/*
 * One lane, four root hogs and a group of weight 100 capped at 1.859 ms per 10 ms: it is owed
 * 0.2 CPU, so it burns its quota at that rate for 9.3 ms and is throttled 0.7 ms every period.
 * On one lane it runs its quota in one go, 1.49 ms ahead of its rate, and is throttled with that
 * debt; before the refill the reference serves it what it ran ahead, so the debt is not owed
 * there. Kept, it waited behind every hog's slice after the refill and missed one period in
 * four (seed 1493 reduced: 267 ms of 372, 5.2 % of capacity; 0.000 % now).
 */
static void test_throttle_squares_the_period(void)
{
	run_within("lanes 1\nduration 2s\ngroup /g3 max 1859us 10000us\n"
		   "vcpu 0 / hog\nvcpu 1 / hog\nvcpu 2 / hog\nvcpu 3 / hog\n"
		   "vcpu 4 /g3 hog\nvcpu 5 /g3 hog\n", 0.1);
}

/*
 * The same credit where the reference does not throttle: 24 root hogs and a group of weight 41
 * capped at 1.528 ms per 10 ms on one lane are owed 0.017 CPU, far below the quota. Forgiving
 * the whole debt at the refill would give it its quota every period (seed 604, 10 s: 1507 ms of
 * 148, 13.6 % of capacity); it keeps what it ran beyond its share (0.107 % here in 2 s: the
 * bound is for that failure, not for the slice-sized rest).
 */
static void test_throttle_keeps_debt_beyond_share(void)
{
	char text[2048];
	int n = snprintf(text, sizeof(text), "lanes 1\nduration 2s\n"
			 "group /g1 nice 5 max 1528us 10000us\n");
	unsigned int i;

	for (i = 0; i < 26; i++)
		n += snprintf(text + n, sizeof(text) - (size_t)n, "vcpu %u %s hog\n", i,
			      i < 24 ? "/" : "/g1");
	run_within(text, 0.25);
}

/*
 * A pool that runs dry at the very moment its period ends: the charge came before the refill of
 * the same instant, so the group was throttled, its lanes taken (a vCPU inside its min_run among
 * them) and handed back at once. Seed 1317 of the 10 ms caps kind: 4 min-run violations; 0 now,
 * and none in seeds 0-1999 (main: 1275, 1317, 1496, 1705 had them).
 */
static void test_dry_at_refill_is_no_throttle(void)
{
	double e = gen_error(1317, &fuzz_caps);

	CU_ASSERT_TRUE(e >= 0 && e <= 0.5);
}

/*
 * One lane, three root hogs, /g8 with a hog and /g1 with a hog beside /g1/g15, two hogs capped
 * at 1.427 ms per 10 ms: /g1/g15 is owed 0.1 CPU, 1 ms a period, so the reference never
 * throttles it. On one lane it runs its pool in one go and is throttled; out of the rates until
 * the refill, its lag stood still while the reference went on serving it and its siblings took
 * its share, so time never repaid the debt of that run and it ran its pool again too soon
 * (seed 686 of the 10 ms caps kind reduced: 215.4 ms of 200 in 2 s, 0.77 % of capacity). It
 * keeps its rate while throttled now: 0.017 %.
 */
static void test_throttle_keeps_rate_reference_does_not_throttle(void)
{
	run_within("lanes 1\nduration 2s\ngroup /g1\ngroup /g1/g15 max 1427us 10000us\n"
		   "group /g8\nvcpu 0 / hog\nvcpu 1 / hog\nvcpu 2 / hog\nvcpu 3 /g8 hog\n"
		   "vcpu 4 /g1 hog\nvcpu 5 /g1/g15 hog\nvcpu 6 /g1/g15 hog\n", 0.1);
}

/*
 * The reference's own dry point, not the rate of the moment. Twelve lanes, three root hogs and
 * /g1 (weight 451: five hogs, /g1/g2 with three hogs capped at 18.829 ms per 10 ms, /g1/g3 of
 * weight 6 with five hogs capped at 60.081 ms per 50 ms, an idle group with two). /g1/g3 runs
 * its pool ahead of its rate and is throttled at 0.22 CPU, which would draw 11 ms in a period,
 * so it kept its rate until the refill; but its rate rises every time /g1/g2 is throttled, and
 * the reference runs it dry within the period (1.2 CPU, its quota). Kept, it held /g1's share
 * of the lanes /g1/g2 needed to spend its quota, and the idle group ran them (seed 1621 of the
 * 10 ms caps kind reduced: /g1/g2 3156.6 ms of 3765.8 in 2 s, 2.54 % of capacity). It leaves
 * the rates at the reference's dry point now (its rate integrated over the period): 0.058 %;
 * 0.025 % with the throttle's credit either way (0.100 % before it, with every lane charged
 * before a throttle: test below).
 */
static void test_kept_rate_ends_at_reference_dry_point(void)
{
	run_within("lanes 12\nduration 2s\ngroup /g1 weight 451\n"
		   "group /g1/g2 max 18829us 10000us\ngroup /g1/g3 weight 6 max 60081us 50000us\n"
		   "group /g1/g6 idle 1\n"
		   "vcpu 0 / hog\nvcpu 1 /g1 hog\nvcpu 2 /g1/g2 hog\nvcpu 3 /g1/g2 hog\n"
		   "vcpu 4 /g1/g3 hog\nvcpu 5 /g1/g2 hog\nvcpu 6 /g1/g3 hog\nvcpu 7 /g1/g3 hog\n"
		   "vcpu 8 / hog\nvcpu 9 /g1 hog\nvcpu 10 /g1 hog\nvcpu 11 /g1 hog\n"
		   "vcpu 12 / hog\nvcpu 13 /g1/g6 hog\nvcpu 14 /g1/g3 hog\nvcpu 15 /g1/g6 hog\n"
		   "vcpu 16 /g1 hog\n", 0.1);
}

/*
 * A throttle the reference makes too squares the period either way: a group its rates drew past
 * its pool is owed nothing for the overrun. The scenario above with its vCPUs in another order,
 * on eleven lanes: /g1/g2 gets its three lanes one by one after a refill, its rates run it at 3
 * CPU past the reference's dry point, and that lag, credited and never debited, came out of the
 * cpu.idle /g1/g6, which then looked ahead when /g1/g3 came back, lost its slices to it, and
 * /g1/g3 ran dry early beside /g1/g2's throttle: two lanes idle (0.110 % of capacity on main,
 * 0.096 % with the throttle after every report; 0.025 % with the credit either way).
 */
static void test_throttle_debits_an_overrun(void)
{
	run_within("lanes 11\nduration 2s\ngroup /g1 weight 451\n"
		   "group /g1/g2 max 18829us 10000us\ngroup /g1/g3 weight 6 max 60081us 50000us\n"
		   "group /g1/g6 idle 1\n"
		   "vcpu 0 / hog\nvcpu 1 / hog\nvcpu 2 / hog\nvcpu 3 /g1 hog\nvcpu 4 /g1 hog\n"
		   "vcpu 5 /g1 hog\nvcpu 6 /g1 hog\nvcpu 7 /g1/g2 hog\nvcpu 8 /g1/g2 hog\n"
		   "vcpu 9 /g1/g2 hog\nvcpu 10 /g1/g3 hog\nvcpu 11 /g1/g3 hog\nvcpu 12 /g1/g3 hog\n"
		   "vcpu 13 /g1/g3 hog\nvcpu 14 /g1/g3 hog\nvcpu 15 /g1/g6 hog\nvcpu 16 /g1/g6 hog\n",
		   0.05);
}

/*
 * A period timer started by a report counts from when the reported run began. Two lanes: /g1/g3
 * (weight 2, one hog, capped at 14.454 ms per 10 ms: more than its hog can use) is idle while
 * its siblings run, so its timer stops; given a lane at 43.3 ms, its run was reported at 50 ms
 * and the timer started then, at the next grid point, 60 ms: the 6.7 ms run before 50 ms was
 * drawn from the period after it, and the hog was throttled at 57.8 ms with a lane idle (seed
 * 1776 of the 10 ms caps kind reduced: 1136.6 ms of 1173.4 in 2 s, 1.73 % of capacity; 0.007 %
 * now).
 */
static void test_timer_starts_when_the_run_began(void)
{
	run_within("lanes 2\nduration 2s\ngroup /g1 weight 1199\ngroup /g1/g2 nice -2\n"
		   "group /g1/g3 weight 2 max 14454us 10000us\n"
		   "group /g1/g2/g4 nice -7 max 50615us 100000us\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1/g3 hog\nvcpu 2 /g1/g2/g4 hog\nvcpu 3 /g1/g2/g4 hog\n",
		   0.1);
}

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
 * A throttle comes inside the report that dries the pool, before the other lanes' reports for
 * the same moment. Four lanes: /a (nice -14) holds a hog and /a/c, two hogs capped at 100 ms
 * per 100 ms; /b (weight 10) a hog; /d two hogs capped at 5 ms per 100 ms. /a/c runs 50 ms on
 * two lanes and is throttled; /a's and /b's hogs, on later lanes with no slice end since 8 ms,
 * were last charged then, so /a's rate change (3 to 1) measured /a's lag against a V of 29.6 ms
 * where it was 50.6: /a came out of it 19 ms of service ahead instead of 2 ms behind, and each
 * period added as much. At every refill /a was then not eligible, /d took both free lanes,
 * /a/c waited for /d's throttle and /b kept its lane (seed
 * 1656 of the 100 ms caps kind reduced: /b 1995 ms of 1900 in 2 s, 1.19 % of capacity; 0.000
 * now, every holder charged to the moment first).
 */
static void test_throttle_sees_lanes_charged(void)
{
	run_within("lanes 4\nduration 2s\ngroup /a nice -14\ngroup /a/c max 100000us 100000us\n"
		   "group /b weight 10\ngroup /d max 5000us 100000us\n"
		   "vcpu 0 /a/c hog\nvcpu 1 /a/c hog\nvcpu 2 /a hog\nvcpu 3 /b hog\n"
		   "vcpu 4 /d hog\nvcpu 5 /d hog\n", 0.1);
}

/*
 * A throttle judged by what the reference drew, not by the rate of the moment over the period.
 * One lane, three root hogs, /g4 with two, and /g2 capped at 1 ms per 10 ms holding two hogs and
 * /g2/g3 (one hog, capped at 1.136 ms per 20 ms). /g2 is owed 0.19 CPU and gets its 1 ms a
 * period; /g2/g3 a third of it, 0.67 ms per 20 ms, under its pool: the reference never throttles
 * it. On one lane it runs its pool and is throttled, at its rate of the moment while /g2 runs,
 * 0.064 CPU, which over its 20 ms period would draw 1.28 ms: called throttled by the reference,
 * it was credited that rate over the rest of the period, although /g2 was out nine tenths of
 * it, and won /g2's lane at every refill by its short request (seed 1375 of the 10 ms caps kind
 * reduced: 113.6 ms of 66.7 in 2 s, 2.35 % of capacity). Judged by its rates integrated over the
 * period, nothing drawn while /g2 is throttled (bw_clock()), it keeps its rate: 0.094 %.
 */
static void test_throttle_judged_by_reference_draw(void)
{
	run_within("lanes 1\nduration 2s\ngroup /g2 max 1000us 10000us\n"
		   "group /g2/g3 max 1136us 20000us\ngroup /g4\n"
		   "vcpu 0 /g2/g3 hog\nvcpu 1 /g2 hog\nvcpu 2 /g2 hog\nvcpu 3 / hog\n"
		   "vcpu 4 / hog\nvcpu 5 / hog\nvcpu 6 /g4 hog\nvcpu 7 /g4 hog\n", 0.25);
}

/*
 * A pool dry in a report is thrown out once every lane has reported that instant. Six lanes:
 * /g1 (three hogs, 2.27 CPU per 100 ms), /g2 (two hogs, 3.95 CPU per 10 ms) holding, three levels
 * down, /g2/g3/g4/g5/g6 (weight 9755, 1.176 ms per 10 ms, two hogs and an idle child with three)
 * beside /g2/g3/g7 (two hogs), and /g11, weight 5, with an idle child of two hogs. /g2 runs dry
 * 9.88 ms into its period while /g1 is throttled, on its four lanes; thrown out inside the report
 * of its fourth, it left with the service /g11's two lanes gave in the same 9.5 ms, not reported
 * yet, counted as its own run ahead (a lag of -13.9 ms where -1.3 was its), and at the refill
 * that debt went to /g1 and /g11 as credit: /g11 1189.9 ms of 1119.5 in 2 s (seed 175 of the
 * 10 ms caps kind, static, 2 s: 0.49 % of capacity on main, 0.59 % with the draw rule; the
 * other report order gave 0.25 %). Thrown out at the timer of that instant: 0.09 %.
 */
static void test_throttle_after_every_report(void)
{
	run_within("lanes 6\nduration 2s\ngroup /g1 max 226770us 100000us\n"
		   "group /g2 max 39527us 10000us\ngroup /g2/g3 nice 0\ngroup /g2/g3/g4\n"
		   "group /g2/g3/g4/g5 nice -17\n"
		   "group /g2/g3/g4/g5/g6 weight 9755 max 1176us 10000us\n"
		   "group /g2/g3/g7 nice 15\ngroup /g2/g3/g4/g5/g6/g8\n"
		   "group /g2/g3/g4/g5/g6/g9 nice 18\ngroup /g2/g3/g4/g5/g6/g8/g10 idle 1\n"
		   "group /g11 nice 13\ngroup /g11/g12 idle 1\ngroup /g1/g13\n"
		   "vcpu 0 /g2/g3/g4/g5/g6/g8 hog\nvcpu 1 /g2/g3/g4/g5/g6/g8/g10 hog\n"
		   "vcpu 2 /g1/g13 hog\nvcpu 3 /g2 hog\nvcpu 4 /g2/g3/g4/g5/g6/g8/g10 hog\n"
		   "vcpu 5 /g2/g3/g4/g5/g6/g8/g10 hog\nvcpu 6 /g2/g3/g4/g5/g6/g8 hog\n"
		   "vcpu 7 /g2/g3/g7 hog\nvcpu 8 /g1/g13 hog\nvcpu 9 /g1 hog\nvcpu 10 /g2/g3/g7 hog\n"
		   "vcpu 11 /g2 hog\nvcpu 12 /g11/g12 hog\nvcpu 13 /g11/g12 hog\n", 0.25);
}

/*
 * A throttle refunds the slices its lanes paid up front before its group leaves its parent's
 * sum. Four lanes: /g1 capped at 2.11 CPU per 10 ms holding /g1/g2 (two hogs, 13.477 ms per
 * 50 ms), /g1/g3 (nice 5: /g1/g3/g4, weight 1038, two hogs at 1 ms per 10 ms, beside an idle
 * child with one hog), /g1/g6 (two hogs) and an idle /g1/g7 (one hog). Refunded after the leave,
 * at rate 0, each unrun slice came back whole into the saved lag, where paying it had cost the
 * lag only P (1 - r / R): the idle /g1/g3/g5 came back with credit it ran off against /g1/g7
 * (seed 1553 of the 10 ms caps kind reduced: /g1/g7 511 ms of 684 in 2 s, 2.19 % of capacity on
 * main, 2.16 % with the throttle at the timer alone); 0.045 % now.
 */
static void test_throttle_refunds_before_leaving(void)
{
	run_within("lanes 4\nduration 2s\ngroup /g1 max 21121us 10000us\n"
		   "group /g1/g2 max 13477us 50000us\ngroup /g1/g3 nice 5\n"
		   "group /g1/g3/g4 weight 1038 max 1000us 10000us\ngroup /g1/g3/g5 idle 1\n"
		   "group /g1/g6\ngroup /g1/g7 idle 1\n"
		   "vcpu 0 /g1/g6 hog\nvcpu 1 /g1/g3/g4 hog\nvcpu 2 /g1/g3/g5 hog\n"
		   "vcpu 3 /g1/g2 hog\nvcpu 4 /g1/g6 hog\nvcpu 5 /g1/g2 hog\nvcpu 6 /g1/g7 hog\n"
		   "vcpu 7 /g1/g3/g4 hog\n", 0.25);
}

/*
 * A throttle is a change of rates like the refill: the slices lanes paid up front are paid
 * again at the new ones. Four lanes: /a (weight 6) holds two hogs and /a/b (weight 135, six
 * hogs) beside /c, one hog capped at 6 ms per 10 ms. While /c runs, /a has three lanes, its
 * hogs 0.90 CPU each and /a/b 1.21; at the throttle /a gets the fourth, and /a/b's slices paid at
 * 0.40 of /a's rate were served at 0.50: 0.1 P of /a/b's lag went to the two hogs at every
 * throttle, never to come back while each held its lane at rate 1 (issue 13, seed 1606 of the
 * 10 ms caps kind reduced: /a/b 2986 ms of 3050 in 2 s, 0.81 % of capacity; 0.006 % now).
 */
static void test_throttle_pays_prepaid_again(void)
{
	run_within("lanes 4\nduration 2s\ngroup /a weight 6\ngroup /a/b weight 135\n"
		   "group /c nice 1 max 6000us 10000us\n"
		   "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 /a/b hog\nvcpu 3 /a/b hog\n"
		   "vcpu 4 /a/b hog\nvcpu 5 /a/b hog\nvcpu 6 /a/b hog\nvcpu 7 /a/b hog\n"
		   "vcpu 8 /c hog\n", 0.1);
}

/*
 * A refill wakes every vCPU of the group at once, and each claims its lane by the wake rule.
 * Five lanes, /a and /a/b as above (eight hogs in /a/b) beside /c, three hogs capped at
 * 8.455 ms per 10 ms: GPS gives /c three lanes at the refill for 2.8 ms. With one claim, the
 * others left to rotation ends, /c got them over a slice and ran its quota up to 4 ms late,
 * while /a held them over its rate and shared that by its rates of /c's run, 0.30 to each
 * hog, where GPS, /c done, gives it all to /a/b: /a/b 4487 ms of 4763 in 2 s (2.76 % of
 * capacity; 1.75 % with the throttle's repayment alone, 0.90 % with the claims alone; 0.016 %
 * with both). Seed 1606 of the 10 ms caps kind reduced.
 */
static void test_refill_claims_every_lane(void)
{
	run_within("lanes 5\nduration 2s\ngroup /a weight 6\ngroup /a/b weight 135\n"
		   "group /c nice 1 max 8455us 10000us\n"
		   "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 /a/b hog\nvcpu 3 /a/b hog\n"
		   "vcpu 4 /a/b hog\nvcpu 5 /a/b hog\nvcpu 6 /a/b hog\nvcpu 7 /a/b hog\n"
		   "vcpu 8 /a/b hog\nvcpu 9 /a/b hog\nvcpu 10 /c hog\nvcpu 11 /c hog\n"
		   "vcpu 12 /c hog\n", 0.1);
}

/*
 * A cpu.idle sibling holding no lane asks min_run, the turn it gets. The groups of "a kept rate
 * ends at the reference's dry point" at the root on four lanes: /g2 (three hogs, 18.829 ms per
 * 10 ms) is throttled 3.7 ms a period, and /g3 (weight 6, five hogs, 60.081 ms per 50 ms) runs
 * its pool on the lanes beside it, where the reference gives the idle /g6 (two hogs) 0.05 to
 * 0.19 CPU of them. /g6 asked a slice, so its deadline stood slice / rate (16 ms at 0.19) after
 * its vt: owed 2.4 ms, it lost every lane handed out to /g3, which drew its pool ahead of the
 * reference and was throttled 0.46 ms early each time; /g6, two hogs, cannot use the four lanes
 * then, and the 2 lanes idle while /g2 was throttled too were its loss: 1188 ms of 1225.6 in
 * 2 s (0.469 % of capacity; 0.011 % before the throttle's credit went either way, 0.227 % with
 * it, 0.469 with the refill's claims). Asking min_run, the turn it takes beside non-idle
 * siblings (lanes.c), it gets its turns while /g3 runs: 0.093 %.
 */
static void test_idle_sibling_asks_min_run(void)
{
	run_within("lanes 4\nduration 2s\ngroup /g2 max 18829us 10000us\n"
		   "group /g3 weight 6 max 60081us 50000us\ngroup /g6 idle 1\n"
		   "vcpu 0 /g2 hog\nvcpu 1 /g2 hog\nvcpu 2 /g2 hog\nvcpu 3 /g3 hog\n"
		   "vcpu 4 /g3 hog\nvcpu 5 /g3 hog\nvcpu 6 /g3 hog\nvcpu 7 /g3 hog\n"
		   "vcpu 8 /g6 hog\nvcpu 9 /g6 hog\n", 0.1);
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
 * A refill that finds a lane free still claims the rest (bandwidth.c, unthrottle()). Seed 213 of
 * the 10 ms caps kind reduced: four lanes, two root hogs, /g1 (nice -12) with a hog and /g1/g3
 * (weight 2531, 9.108 ms per 50 ms) holding /g1/g3/g4 (three hogs), the cpu.idle /g1/g3/g4/g5
 * and /g1/g3/g4/g6 (weight 12), a hog each. While /g1/g3 is throttled three hogs hold three
 * lanes; at each refill /g1/g3 took the free one, and its first claim stopped there (a free
 * lane: the wake rule leaves it to lanes_settle()), so its other hogs waited for the holders'
 * slice ends, 1.57 ms. Behind, /g1/g3 then took a fourth lane, which only /g1/g3/g4/g6 (owed
 * 0.375 of a lane) could use, to the throttle: 76.1 ms of 40.4 in 2 s, each hog of /g1/g3/g4
 * 12 ms under (0.447 % of capacity; the seed 0.877 %). Every lane held first, the claims come at
 * the refill: 0.103 %.
 */
static void test_refill_claims_past_free_lane(void)
{
	run_within("lanes 4\nduration 2s\ngroup /g1 nice -12\n"
		   "group /g1/g3 weight 2531 max 9108us 50000us\n"
		   "group /g1/g3/g4 max 69052us 100000us\n"
		   "group /g1/g3/g4/g5 idle 1 max 134684us 50000us\n"
		   "group /g1/g3/g4/g6 weight 12\n"
		   "vcpu 0 / hog\nvcpu 1 /g1 hog\nvcpu 2 /g1/g3/g4 hog\nvcpu 3 /g1/g3/g4/g5 hog\n"
		   "vcpu 4 /g1/g3/g4 hog\nvcpu 5 /g1/g3/g4 hog\nvcpu 6 /g1/g3/g4/g6 hog\n"
		   "vcpu 7 / hog\n", 0.2);
}

/*
 * A refill's claims are a waker's, judged by what the group had (lanes_wake.c,
 * lanes_refill_claim()). Seed 1885 of the 10 ms caps kind reduced: four lanes, a root hog, /g1
 * (weight 165) with a hog and /g1/g2 (weight 546, four hogs, 2.442 ms per 10 ms). /g1 is owed
 * three lanes; while /g1/g2 runs it is owed 2.54 of them and /g1's hog 0.46, so the reference
 * bursts /g1/g2 at 2.54 lanes for 0.96 ms a period. At each refill it took the two free lanes,
 * each paid a slice up front, and its claim on the hog's lane (misplaced: 2 held, 2.54 owed)
 * counted those two unrun slices as service, 2.37 ms of its virtual time: it looked owed less
 * than the hog and took nothing, ran its pool on two lanes and left the hog its whole lane:
 * 2000 ms of 1896.8 in 2 s (1.29 % of capacity). Now it takes the third lane: 0.74 %, the rest
 * being the reference's 0.52 ms share of that lane a period, under min_run.
 */
static void test_refill_claims_as_a_waker(void)
{
	run_within("lanes 4\nduration 2s\ngroup /g1 weight 165\n"
		   "group /g1/g2 weight 546 max 2442us 10000us\n"
		   "vcpu 0 / hog\nvcpu 1 /g1 hog\nvcpu 2 /g1/g2 hog\nvcpu 3 /g1/g2 hog\n"
		   "vcpu 4 /g1/g2 hog\nvcpu 5 /g1/g2 hog\n", 0.8);
}

/*
 * A capped group's request is what its pool holds, and so is what its parent asks for it. One
 * lane, /g1 capped at 6.105 ms per 50 ms holding /g1/g2 (nice 6) and /g1/g13 (nice 8, capped) with
 * a hog each, and /g1/g5 (weight 11) whose child /g1/g5/g14 (one hog, 1 ms per 10 ms) is owed 0.2
 * of /g1's runs, 1 ms a period. /g1/g5 passed up a slice, so its deadline at /g1's level stood
 * 3 ms / 0.2 after its vt: owed 1.5 ms at each refill of /g1, it still came after its siblings'
 * slices and got 0.1 ms before /g1 ran dry, and in the next period its own pool held it to 1 ms:
 * 21.9 ms of 40 in 2 s, /g1/g13 100.3 of 79.1 (10 ms caps seed 755 reduced, 1.06 % of capacity).
 * Asking what its pool holds (0.9 ms), it runs first: 35.5 ms (0.22 %).
 */
static void test_pool_request_passed_up(void)
{
	run_within("lanes 1\nduration 2s\ngroup /g1 max 6105us 50000us\ngroup /g1/g2 nice 6\n"
		   "group /g1/g5 weight 11\ngroup /g1/g13 nice 8 max 5016us 100000us burst 4887us\n"
		   "group /g1/g5/g14 max 1000us 10000us\n"
		   "vcpu 0 /g1/g5/g14 hog\nvcpu 1 /g1/g2 hog\nvcpu 2 /g1/g13 hog\n", 0.3);
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
 * What the reference still serves a throttled group is bounded by its capped ancestors' pools
 * too. One lane, /g1 capped at 2.874 ms per 10 ms holding a hog and /g1/g16, one hog capped at
 * 1.694 ms per 10 ms: the reference splits each 2.874 ms window 1:1, so /g1/g16 gets 1.437 ms a
 * period and is never throttled by its own pool. The core ran its pool first in one go and was
 * credited the rest of it as if the reference would serve it at 0.5 to its refill, past /g1's
 * dry point: square at every throttle, it ran first every period, 1.694 ms of 1.437 (10 ms caps
 * seed 9 reduced, 1.67 % of capacity; 0.056 % with the window).
 */
static void test_throttle_counts_ancestor_windows(void)
{
	run_within("lanes 1\nduration 2s\ngroup /g1 max 2874us 10000us\n"
		   "group /g1/g16 max 1694us 10000us\n"
		   "vcpu 0 /g1/g16 hog\nvcpu 1 /g1 hog\n", 0.2);
}

/*
 * A capped group is owed its siblings' lanes inside the window the reference burns its pool in
 * (lanes_wake.c, lanes_window_claim()). Two lanes, /a (weight W, two hogs, 5 ms per 10 ms) beside
 * /b (weight 100, one hog): while /a runs, /b is owed between half a lane and one (W = 300:
 * 0.5, /a 1.5 and dry 3.33 ms into the period, /b 8.33 ms a period). /b's lane was not
 * misplaced (its rate rounds to it), the refill's claim saw /a, square, ahead by the slice its
 * free lane had just been paid, and /b kept its lane to its rotation end and by the sticky tie a
 * slice more: /a's burst stretched past the reference's dry point and /b ran on the lane the
 * reference idles after it (900 ms of 833.3 in 1 s, 3.33 % of capacity; W = 150 4.12 %,
 * 200 1.40, 250 2.50). Three lanes, /a with three hogs at 10 ms per 10 ms: W = 300 3.67 %,
 * 400 2.21. Now /a claims /b's lane for the part of its window /b is not owed, at its end: 0.013 %
 * at most (W = 200).
 */
static void test_refill_owed_in_its_window(void)
{
	static const unsigned int w2[] = { 150, 200, 250, 300 }, w3[] = { 300, 400 };
	char text[512];
	unsigned int i;

	for (i = 0; i < sizeof(w2) / sizeof(w2[0]); i++) {
		snprintf(text, sizeof(text), "lanes 2\nduration 1s\n"
			 "group /a weight %u max 5ms 10ms\ngroup /b weight 100\n"
			 "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 /b hog\n", w2[i]);
		run_within(text, 0.1);
	}
	for (i = 0; i < sizeof(w3) / sizeof(w3[0]); i++) {
		snprintf(text, sizeof(text), "lanes 3\nduration 1s\n"
			 "group /a weight %u max 10ms 10ms\ngroup /b weight 100\n"
			 "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 /a hog\nvcpu 3 /b hog\n", w3[i]);
		run_within(text, 0.1);
	}
}

/*
 * A slice renewed across the moment a capped sibling must get the lane to spend its pool before
 * its refill (issue 13, class B of `fuzz-sim --kind 6`). One lane, /a capped at 4.5 ms per 10 ms
 * beside /b at weight 99: /a's rate (0.503) draws 5.03 ms a period, so the reference throttles it
 * and it spends its whole pool. /a ran 40-43 ms, /b 43-46, /b's slice was renewed at 46 to 49 (a
 * near tie) and /a had 1 ms to the refill at 50: 4.0 ms of 4.5 a period (1.25 % of capacity; 4.9
 * ms quotas 2.25 %). Seed 1854 reduced, /g3 capped at 2.4 ms per 5 ms beside /g2 at equal weight:
 * 0.53 %. Both 0.000 % with the renewal ending at /a's last start (bw_lane_owed_end()).
 */
static void test_renewal_ends_at_capped_last_start(void)
{
	run_within("lanes 1\nduration 2s\ngroup /a max 4500us 10000us\ngroup /b weight 99\n"
		   "vcpu 0 /a hog\nvcpu 1 /b hog\n", 0.1);
	run_within("lanes 1\nduration 2s\ngroup /a max 4900us 10000us\ngroup /b weight 99\n"
		   "vcpu 0 /a hog\nvcpu 1 /b hog\n", 0.1);
	run_within("lanes 1\nduration 2s\ngroup /g3 max 2400us 5000us\ngroup /g2\n"
		   "vcpu 0 /g3 hog\nvcpu 1 /g2 hog\n", 0.1);
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
 * A refill's claim deferred to a holder inside its min_run takes a lane past its min_run from a
 * side over its rate instead. Four lanes, /g1 (weight 5540) capped at 4.05 ms per 5 ms with a
 * hog, /g2 (weight 10000) with two hogs and /g2/g3 with one, two root hogs (weight 100 each):
 * the reference runs /g1 4.05 ms from each refill and gives the root hogs half a lane each for
 * the 0.95 ms it is throttled. The root hog that took /g1's lane at the throttle was inside its
 * min_run at the refill, the claim waited for it, and /g1's run and throttle began later every
 * period (4.72 ms from refill to throttle on average, 91 periods of 2000 not throttled): the
 * core's rates gave the root hogs their half lanes for less, 1.13 % of capacity to /g2 (kind 6
 * seed 1830 of `make fuzz-sim`, class A' of docs/scheduler.md §10; 0.10 % now).
 */
static void test_refill_not_deferred_to_min_run(void)
{
	run_within("lanes 4\nduration 10s\ngroup /g1 weight 5540 max 4050us 5000us\n"
		   "group /g2 weight 10000\ngroup /g2/g3 weight 10000\n"
		   "vcpu 0 / hog\nvcpu 1 /g1 hog\nvcpu 2 /g2 hog\nvcpu 3 /g2 hog\n"
		   "vcpu 4 / hog\nvcpu 5 /g2/g3 hog\n", 0.25);
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
 * A waker does not share the lag its group's waiting children built up (set_rate() in
 * sched/rates.c; class E of `fuzz-sim --kind 6`, seed 1956 reduced, docs/scheduler.md §2). Two
 * lanes, /g1 capped at 6 ms per 10 ms with two hogs beside /g2 (weight 30) with a hog and a duty
 * vCPU (3 ms every 10, 2 ms into each period). At each refill /g1 takes both lanes for 2 ms (its
 * pace end) where the reference serves /g2's hog 0.46 of a lane; the duty vCPU then woke level
 * with the hog inside /g2, the lane /g1 gives back went to it every other period, its burst
 * ended inside /g1's window, and in the throttle the hog alone left a lane idle that the
 * reference fills with the rest of the burst: /g2 998.5 ms of 1046.1 in 1 s (2.38 % of
 * capacity; 0.12 % now).
 */
static void test_waker_not_owed_group_lag(void)
{
	run_within("lanes 2\ngroup /g1 max 6ms 10ms\ngroup /g2 weight 30\n"
		   "vcpu 0 /g2 hog\nvcpu 1 /g1 hog\nvcpu 2 /g1 hog\n"
		   "vcpu 3 /g2 duty 3ms 10ms phase 2ms\n", 0.5);
}

/*
 * A lane promised to a refilled group's window claim (lanes_window_claim()) is not handed out at
 * a rotation end less than min_run before the promise: its holder keeps it to the promise. Three
 * lanes, /g1 (weight 70, two hogs and /g1/g2 with one) capped at 7.5 ms per 5 ms beside /g3
 * (weight 15, two hogs): the reference runs /g1 at 2.47 to its dry point 3.04 ms into each period
 * and /g3 at 0.53 meanwhile, so /g1 claims /g3's lane 1.61 ms in. /g3's hog rotated out at 1.25
 * ms and its sibling took the lane with a min_run to 2.25 ms: /g1 got its third lane 0.64 ms
 * late every period, ran past the reference's dry point, and /g3 had the lane the reference
 * idles after it (kind 6 seed 324 reduced, class A of docs/scheduler.md §10: 1150 ms of 1107 in
 * 1 s, 1.43 % of capacity; 0.35 % now, the rest a bandwidth end's 50 us overrun, §10).
 */
static void test_promised_lane_kept_to_the_promise(void)
{
	run_within("lanes 3\nduration 1s\ngroup /g1 weight 70 max 7500us 5000us\n"
		   "group /g1/g2\ngroup /g3 weight 15\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1/g2 hog\nvcpu 2 /g3 hog\nvcpu 3 /g1 hog\n"
		   "vcpu 4 /g1/g2 hog\nvcpu 5 /g3 hog\n", 0.5);
}

/*
 * A refill's window claim against a sibling owed more than min_run waits until that sibling has
 * repaid it on its lane, not to its rotation end. Three lanes, /g1 (weight 4999, three hogs)
 * capped at 9.4 ms per 10 ms beside a root hog and /g2's hog (weight 100 each): the reference
 * runs /g1 at 2.88 to its dry point 3.26 ms into each period and each hog at 0.06 meanwhile.
 * The hog whose lane /g1's refill took at once came to the next refill owed 0.19-0.94 ms (3.3-16
 * ms of virtual time at its rate); the claim left its lane alone for that, and it kept the lane
 * to its rotation end, up to 2.9 ms of /g1's window: /g1 ran its pool to 4.1 ms in and the hogs
 * ran where the reference idles a lane (kind 6 seed 14, class A of docs/scheduler.md §10: 713.8
 * ms of 692.9 each in 1 s, 0.70 % of capacity; 0.000 % now, the claim at the window's start,
 * 0.38 ms after the refill, or when the hog has closed in to min_run, within 1 ms).
 */
static void test_window_claim_waits_for_repayment(void)
{
	run_within("lanes 3\nduration 1s\ngroup /g1 weight 4999 max 9400us 10000us\n"
		   "group /g2\nvcpu 0 /g1 hog\nvcpu 1 /g1 hog\nvcpu 2 /g1 hog\n"
		   "vcpu 3 / hog\nvcpu 4 /g2 hog\n", 0.1);
}

/*
 * A refilled group claims by service, as a waker does (docs/scheduler.md §4, "A refill claims as
 * a waker"). One lane, /g2 (weight 5, 5.63 ms per 20 ms, a hog) beside /g5 (nice -10, 29.091 ms
 * per 50 ms, a hog and /g5/g6 with one): while /g5 runs /g2 is owed 0.005 of the lane. At its
 * refill it came back level, but 2 ms of vt behind the holder, whose unrun prepaid slice counts
 * in its vt: judged by time (min_run of vt, 5 us of /g2's service) it took the lane for a 3 ms
 * slice where the reference serves it 0.1 ms, and /g5 ran its pool later, into time the
 * reference leaves idle: 398.8 ms of 358.1 in 2 s, 2.03 % of capacity (`fuzz-sim --kind 5` seed
 * 1623 reduced; 0.06 % now).
 */
static void test_refill_claims_by_service(void)
{
	run_within("lanes 1\nduration 2s\ngroup /g2 weight 5 max 5630us 20000us\n"
		   "group /g2/g10\ngroup /g5 nice -10 max 29091us 50000us\ngroup /g5/g6\n"
		   "vcpu 0 /g2/g10 hog\nvcpu 1 /g5 hog\nvcpu 2 /g5/g6 hog\n", 0.25);
}

/*
 * On one lane a refilled group claims the lane at the end of its window too (window_claim()),
 * where the holder's turn would end past the point its pool can still be drawn before the next
 * refill. One lane, /g1 (weight 4999, four hogs) capped at 9.4 ms per 10 ms beside a root hog
 * and /g2's: the reference runs /g1 at 0.96 to its dry point 9.78 ms into each period. The
 * throttled 0.6 ms went to a hog that then ran its whole 3 ms slice past the refill, /g1's
 * pool expired 2.2 ms short and it ran 17 ms through the next refill: 851 ms of 940 in 1 s
 * (8.86 % of capacity, found by k6a2's reducer sliding kind 6 seed 14 to one lane). Now the
 * hog's turn ends at its min_run: 0.66 %, the floor of a min_run longer than the throttled
 * part of the period (the hogs run 1 ms where the reference gives them 0.6; docs/scheduler.md
 * §10).
 */
static void test_one_lane_window_claim(void)
{
	run_within("lanes 1\nduration 1s\ngroup /g1 weight 4999 max 9400us 10000us\ngroup /g2\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1 hog\nvcpu 2 /g1 hog\nvcpu 3 / hog\n"
		   "vcpu 4 /g1 hog\nvcpu 5 /g2 hog\n", 1.0);
}

/*
 * On one lane the pool a refilled child can still draw ends where a capped ancestor the holder
 * draws too runs dry (bw_ancestors_dry()), not at the child's own refill. One lane, /p capped
 * at 4 ms per 10 ms holding /p/c (weight 1000, two hogs, 1.5 ms per 5 ms) and /p/d (one hog),
 * beside a root hog (scripts/sim-grid.py's nested-109 at 4 ms for 5 ms, 5.05 %): /p ran its
 * window 3-7 ms into each period, /p/c drew its pool by 4.5 ms and was refilled at 5, but /p/d
 * held the lane to its turn's end at 7, where /p ran dry: the claim saw 7 <= 10 - 1.5 and left
 * it, and /p/c's second pool expired unused every period: 225 ms of 286.4 in 1 s (6.14 % of
 * capacity). Now /p/c claims by 5.5 (/p/d's min_run), its window cut at /p's dry point:
 * 1.36 %, /p/d's one min_run where the reference gives it 1.14 ms (docs/scheduler.md §4,
 * "A capped ancestor's dry point ends the window").
 */
static void test_one_lane_claim_before_ancestor_dry(void)
{
	run_within("lanes 1\nduration 1s\ngroup /p max 4000us 10000us\n"
		   "group /p/c weight 1000 max 1500us 5000us\ngroup /p/d\n"
		   "vcpu 0 /p/c hog\nvcpu 1 /p/c hog\nvcpu 2 /p/d hog\nvcpu 3 / hog\n", 1.5);
}

/*
 * A lane a pace end lent outside its group comes back at the group's refill (refill_lent()). Two
 * lanes, /a (weight 5000, two hogs) capped at 19 ms per 10 ms beside two root hogs and /b's: the
 * reference runs /a at 1.887, under its quota, and never throttles it; holding both lanes its
 * pool does not carry them to the refill, so its pace lends one 9 ms into each period. The hog
 * that took it kept it a whole 3 ms slice, past the refill, where nothing asked it back: /a 1.85
 * CPU of 1.887 (docs/scheduler.md §10's grid of simple trees: 1.84 % of capacity; 0.015 % now).
 */
static void test_lent_lane_back_at_refill(void)
{
	run_within("lanes 2\nduration 2s\ngroup /a weight 5000 max 19ms 10ms\ngroup /b\n"
		   "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 / hog\nvcpu 3 / hog\nvcpu 4 /b hog\n", 0.1);
}

/*
 * A lane taken across the refill is refused where the next period's pool, on all the group's
 * lanes, runs dry before the pace can lend any of them (spans_dry_refill()). Two lanes, /a
 * (weight 5000, two hogs) capped at 1.9 ms per 1 ms, a period as short as min_run, beside two
 * root hogs and /b's: /a took both lanes as the hogs' turns ended together, 50 us before its
 * refill; both were inside their min_run when the pace end (0.9 ms in) came, the pool was dry at
 * 0.95 ms and the throttle gave both lanes to hogs for min_run, past the refill: /a ran two lanes
 * half the time (1.0 CPU of 1.887, 44.3 % of capacity). Now it takes one there, and from then on
 * lends one lane a min_run every other period: 24.5 %. The floor of a 1 ms min_run is 14.3 %
 * (docs/scheduler.md §10, "A cap the reference never reaches, on short periods").
 */
static void test_lane_across_refill_refused(void)
{
	run_within("lanes 2\nduration 1s\ngroup /a weight 5000 max 1900us 1000us\ngroup /b\n"
		   "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 / hog\nvcpu 3 / hog\nvcpu 4 /b hog\n", 30.0);
}

/*
 * A window claim due while a root vCPU's delay outlasts its GPS burst is judged at the
 * reference's rate: at the core's, which still counts that vCPU, /a looked unthrottled by the
 * reference, the claim was dropped, and /a ran its pool on one lane past the reference's dry
 * point while /b kept its lane (4.37 % of capacity; docs/scheduler.md §4).
 */
static void test_window_claim_at_reference_rate(void)
{
	run_within("lanes 2\nduration 2s\ngroup /a max 9500us 10000us\ngroup /b weight 50\n"
		   "vcpu 0 /a hog\nvcpu 1 /a hog\nvcpu 2 /a hog\nvcpu 3 /b hog\n"
		   "vcpu 4 / duty 3ms 10ms phase 1ms\n", 0.3);
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
 * A refill's claim takes a capped sibling's lane, one the reference throttles this period,
 * before a lane of a sibling with no cap at a like rate. Three lanes, /g1 weight 5122 capped at
 * 3 ms per 5 ms with three hogs, /g2 weight 610 at 1 ms per 5 ms with two, /g3 weight 609 with
 * one: the reference gives /g3 0.29 of a lane while both capped groups run (1.3-1.6 ms of each
 * 5) and a lane after. /g2 took the free lanes at its refill; /g1's claims, by virtual time,
 * took /g3's (alone between the throttles, never owed) and one of /g2's, and /g3 had no turn
 * in the window, then ran beside two idle lanes (kind 6 seed 3315 of `make fuzz-sim`, all hogs,
 * 1 s: 2.97 % of capacity; 0.35 % now).
 */
static void test_refill_claims_capped_sibling_first(void)
{
	run_within("lanes 3\ngroup /g1 weight 5122 max 3000us 5000us\n"
		   "group /g2 weight 610 max 1000us 5000us\ngroup /g3 weight 609\n"
		   "vcpu 0 /g1 hog\nvcpu 1 /g1 hog\nvcpu 2 /g3 hog\nvcpu 3 /g2 hog\n"
		   "vcpu 4 /g1 hog\nvcpu 5 /g2 hog\n", 0.6);
}

static CU_TestInfo caps_tests[] = {
	{ "a prepaid slice is paid again at the refill", test_prepaid_slice_repaid_at_refill },
	{ "a throttle squares the period", test_throttle_squares_the_period },
	{ "a throttle keeps debt beyond the share", test_throttle_keeps_debt_beyond_share },
	{ "dry at the refill is no throttle", test_dry_at_refill_is_no_throttle },
	{ "a throttle the reference does not make keeps the rate",
	  test_throttle_keeps_rate_reference_does_not_throttle },
	{ "a kept rate ends at the reference's dry point",
	  test_kept_rate_ends_at_reference_dry_point },
	{ "a throttle debits an overrun", test_throttle_debits_an_overrun },
	{ "a period timer starts when the run began", test_timer_starts_when_the_run_began },
	{ "a pool is paced to the refill", test_pool_paced_to_the_refill },
	{ "a throttle sees every lane charged to the moment", test_throttle_sees_lanes_charged },
	{ "a throttle is judged by what the reference drew", test_throttle_judged_by_reference_draw },
	{ "a throttle waits for every lane's report", test_throttle_after_every_report },
	{ "a throttle refunds before its group leaves", test_throttle_refunds_before_leaving },
	{ "a throttle pays prepaid slices again", test_throttle_pays_prepaid_again },
	{ "a refill claims every lane its vCPUs would", test_refill_claims_every_lane },
	{ "a cpu.idle sibling asks min_run", test_idle_sibling_asks_min_run },
	{ "a throttled pool is paced to the reference's dry point",
	  test_throttled_pool_paced_to_ref_dry },
	{ "a refill claims past a free lane", test_refill_claims_past_free_lane },
	{ "a refill claims as a waker", test_refill_claims_as_a_waker },
	{ "a pool's request is passed up", test_pool_request_passed_up },
	{ "a pool is paced in its last lane", test_pool_paced_in_its_last_lane },
	{ "a throttle counts its ancestors' windows", test_throttle_counts_ancestor_windows },
	{ "a refill is owed its siblings' lanes in its window", test_refill_owed_in_its_window },
	{ "a renewal ends at a capped sibling's last start",
	  test_renewal_ends_at_capped_last_start },
	{ "the reference's draw ends a delayed sleeper's burst where GPS does",
	  test_reference_draw_ends_delayed_burst },
	{ "a refill is not deferred to a min_run", test_refill_not_deferred_to_min_run },
	{ "a pool its ancestors cannot let it draw is not paced",
	  test_pool_ancestors_cannot_let_draw },
	{ "a waker does not share its group's waiting children's lag", test_waker_not_owed_group_lag },
	{ "a promised lane is kept to the promise", test_promised_lane_kept_to_the_promise },
	{ "a window claim waits for an owed sibling's repayment",
	  test_window_claim_waits_for_repayment },
	{ "a window claim is judged at the reference's rate", test_window_claim_at_reference_rate },
	{ "a refill claims by service", test_refill_claims_by_service },
	{ "one lane: a refill claims at its window's end", test_one_lane_window_claim },
	{ "one lane: a refill claims before a capped ancestor runs dry",
	  test_one_lane_claim_before_ancestor_dry },
	{ "a lane the pace lent comes back at the refill", test_lent_lane_back_at_refill },
	{ "a lane across the refill is refused where the next pool dries first",
	  test_lane_across_refill_refused },
	{ "a spent pace end stays spent", test_spent_pace_end_stays_spent },
	{ "a child draws to its parent's reference dry point", test_child_draws_to_parent_ref_dry },
	{ "a waited block moves the reference's draw", test_waited_block_moves_reference_draw },
	{ "a refill claims a capped sibling's lane first",
	  test_refill_claims_capped_sibling_first },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim caps", caps_tests)
