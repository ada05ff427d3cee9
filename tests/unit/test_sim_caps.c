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
	{ "a throttle sees every lane charged to the moment", test_throttle_sees_lanes_charged },
	{ "a throttle is judged by what the reference drew", test_throttle_judged_by_reference_draw },
	{ "a throttle waits for every lane's report", test_throttle_after_every_report },
	{ "a throttle refunds before its group leaves", test_throttle_refunds_before_leaving },
	{ "a throttle pays prepaid slices again", test_throttle_pays_prepaid_again },
	{ "a cpu.idle sibling asks min_run", test_idle_sibling_asks_min_run },
	{ "a pool's request is passed up", test_pool_request_passed_up },
	{ "a throttle counts its ancestors' windows", test_throttle_counts_ancestor_windows },
	{ "a renewal ends at a capped sibling's last start",
	  test_renewal_ends_at_capped_last_start },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim caps", caps_tests)
