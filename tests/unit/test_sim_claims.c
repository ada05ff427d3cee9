// SPDX-License-Identifier: GPL-2.0
/*
 * Capped groups' claims on lanes at a refill and inside the reference's window (sched/lanes_wake.c,
 * docs/scheduler.md §4): scenarios reduced from `make fuzz-sim` seeds of the caps kinds, each once
 * wrong for a reason of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test.h"
#include "sim_test.h"
#include "../sim/fuzz_kinds.h"

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

/*
 * Two lanes, /a (a duty vCPU, 3 ms every 10 ms, and a hog) at 8 ms per 10 ms beside /b's
 * weight-50 hog: the reference runs /a at 1.33 while the duty vCPU has work (4.5 ms), then at 1,
 * dry at 6.5 ms; /b gets 8.5 ms a period. The window claim, planned for the end of a window
 * worked out at the rate of the moment, came after the duty vCPU's block (3 ms into a whole
 * lane) and found /a with nothing to run on a second lane: /a ran on one lane to 8 ms, /b 954 ms
 * of 850 (5.2 % of capacity). Now the window counts the foreseen block and the claim comes
 * while /a still has a vCPU to run there (docs/scheduler.md §4, "A window counts its blocks").
 */
static void test_window_counts_foreseen_block(void)
{
	run_within("lanes 2\nduration 1s\ngroup /a max 8000us 10000us\ngroup /b weight 50\n"
		   "vcpu 0 /a duty 3ms 10ms\nvcpu 1 /a hog\nvcpu 2 /b hog\n", 0.25);
}

static CU_TestInfo claims_tests[] = {
	{ "a refill claims every lane its vCPUs would", test_refill_claims_every_lane },
	{ "a refill claims past a free lane", test_refill_claims_past_free_lane },
	{ "a refill claims as a waker", test_refill_claims_as_a_waker },
	{ "a refill is owed its siblings' lanes in its window", test_refill_owed_in_its_window },
	{ "a refill is not deferred to a min_run", test_refill_not_deferred_to_min_run },
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
	{ "a refill claims a capped sibling's lane first",
	  test_refill_claims_capped_sibling_first },
	{ "a window counts a foreseen block", test_window_counts_foreseen_block },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim claims", claims_tests)
