// SPDX-License-Identifier: GPL-2.0
/*
 * A waiter's claim on a lane. When a vCPU starts waiting and every lane is busy, one lane may be
 * taken: from a cpu.idle holder at once, otherwise from the holder the waiter is furthest behind
 * (or whose lane is misplaced), once that holder has run min_run. Host mode's held-lane offers
 * ask the same rule ahead of the wake (sched_wake_takes_lane(), lanes_wake_idle.c).
 * docs/scheduler.md §3 "Wakes".
 */
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/*
 * The waiter's side (ew) holds fewer lanes than its rate rounded to whole lanes gives it, and the
 * holder's side (er) more (as idle_over() rounds): the lanes are wrong by a lane, not by turns of
 * one shared lane, and GPS would move it at once. The vt test alone made a waker that blocked
 * level (its last wake served at once, as GPS serves it) wait for the holder's rotation end, up
 * to a slice: on the runtime a halted vCPU's wall-clock work is lost meanwhile (docs/scheduler.md
 * §10, halt-duty). Whole lanes each way (ew a lane under its rate, er a lane over) left a waker
 * whose side is owed 0.9999 of the one lane waiting for the holder's rotation end at every other
 * wake (one lane, /d weight 10000 `sleep 1ms 20ms` beside a hog of weight 1, 8 ms slices:
 * 0.41 % of capacity, wake p50 4 ms; 0.008 % and 0 now; test "a waker owed most of a lane takes
 * it").
 */
static bool lane_misplaced(const struct sched_entity *ew, const struct sched_entity *er)
{
	return (double)ew->nr_running + 1.0 <= ew->rate + 0.5 + 1e-9 &&
	       (double)er->nr_running > er->rate + 0.5;
}

/*
 * Of the lanes held below side (where the waiter's path meets theirs), the one GPS takes the
 * waiter's share from: where two holders' paths part, the child holding the most lanes over its
 * rate loses it (ties keep l0, the first lane by index with the best key). Which lane of the side
 * is taken changes nothing at that level, but inside it the first by index was often a hog's,
 * owed nearly a CPU, beside a sibling holding a whole lane at a rate of a few per cent inside
 * its min_run: the hog lost what it can never make up, and a lane idled later that GPS keeps
 * busy (issue 13, `make fuzz-sim` kind 2 seed 1756; test "a waker takes the lane held most
 * over its rate").
 */
static int lane_most_over(struct sched *s, const struct sched_entity *se,
			  const struct sched_entity *side, int l0)
{
	int pref = l0;
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct vcpu_core *cur = lane_of(s, l)->cur;
		struct sched_entity *ew = (struct sched_entity *)se, *er, *a, *b;

		if ((int)l == pref || &cur->se == se || owns_lane(cur) ||
		    (lane_kept(s, lane_of(s, l)) && lane_deferred(s, lane_of(s, l))))
			continue;
		er = &cur->se;
		common_level(&ew, &er);
		if (er != side)
			continue;
		a = &cur->se;
		b = &lane_of(s, (unsigned int)pref)->cur->se;
		common_level(&a, &b);
		if ((double)a->nr_running - a->rate > (double)b->nr_running - b->rate + 1e-9)
			pref = (int)l;
	}
	return pref;
}

/*
 * The cpu.idle rule (non-idle beats idle at once, as check_preempt_wakeup_fair() does on a CPU)
 * where the idle side (er) holds more lanes than its rate, the rates counting the waker, rounded
 * to whole lanes gives it: lanes are whole, and a side that keeps its lane in GPS but for a
 * fraction keeps it here. Taking it whenever er held a lane at all gave a duty vCPU, at each
 * wake, the lane of a hog owed a whole CPU under a cpu.idle sibling group while a light
 * top-level group held a lane more than its rate (`make fuzz-sim` kind 2 seed 1332, 2.96 %;
 * test "a waker leaves an idle sibling at its rate alone"); taking it whenever it held more
 * than its rate took, at every wake of a duty vCPU beside it, the lane of an idle group's
 * vCPU owed 0.9 of it beside a weight-1 group (seed 284, 2.51 %; test "a waker leaves an idle
 * group its rounded share").
 */
static bool idle_over(const struct sched_entity *ew, const struct sched_entity *er)
{
	return er->idle && !ew->idle && (double)er->nr_running > er->rate + 0.5;
}

/*
 * The cpu.idle rule where the waker's side is kept to the lanes it holds: the misplaced lane its
 * side is owed stays with a holder owed more than min_run, so the side gets no lane more now, and
 * an idle side (er) beside the waker, whose rate counted the parent's whole share, is owed a few
 * per mille of the lanes the parent holds: over its rate at all, it gives its lane up. Rounded
 * (idle_over()), it kept it and the waker waited for a rotation end while both holders ran
 * (`make fuzz-sim` kind 2 seed 1116 reduced, 1.11 -> 0.85 % of capacity; docs/scheduler.md §10
 * "The wake nobody served").
 */
static bool idle_unrounded_over(const struct sched_entity *ew, const struct sched_entity *er)
{
	return er->idle && !ew->idle && (double)er->nr_running > er->rate + 1e-9;
}

/*
 * The slices paid up front (fair_prepay()) for lanes handed out below se at this very moment,
 * which the runtime has not been told about: at a refill, the free lanes the refill itself just
 * gave the group (bandwidth.c, unthrottle()). Not one of them has run.
 */
static double paid_now_below(const struct sched *s, const struct sched_entity *se)
{
	double paid = 0;
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		const struct vcpu_core *vc = s->core.lanes[l].cur;
		const struct sched_entity *e;

		if (!vc || !vc->resv || vc->told_lane >= 0)
			continue;
		for (e = &vc->se; e; e = e->parent ? &e->parent->se : NULL)
			if (e == se) {
				paid += (double)vc->resv;
				break;
			}
	}
	return paid;
}

/*
 * A lane a refill's claim can take at once where the lane the wake rule chose is inside its
 * holder's min_run (lanes_defer()): past its holder's min_run, held by a side (at the level where
 * it meets se) with more lanes than its rate, the most over; -1 if none. *side is se's side. The
 * reference runs a refilled group at its share from the refill on; deferred, its run began up
 * to min_run late, and its throttle with it: the core's rates, which follow its own throttle,
 * gave its siblings their larger share of the throttled part of the period that much later and
 * shorter, which no lag repays (docs/scheduler.md §4, "A refill is not deferred to a min_run").
 */
static int refill_lane_over(struct sched *s, struct sched_entity *se, struct sched_entity **side)
{
	double most = 1e-9;
	int pref = -1;
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		struct sched_entity *ew = se, *er;

		if (!ln->cur || lane_kept(s, ln) || lane_deferred(s, ln))
			continue;
		er = &ln->cur->se;
		common_level(&ew, &er);
		if (ew != er && (double)er->nr_running - er->rate > most) {
			most = (double)er->nr_running - er->rate;
			pref = (int)l;
			*side = ew;
		}
	}
	return pref;
}

/*
 * se is a capped group the reference throttles this period: its rate to its refill draws more
 * than the reference has left of its pool (owed_need()'s test, at the moment's rate), so the
 * reference serves it its pool, not its rate, and a lane it gives up now it runs later in the
 * period. A refill's claim takes such a sibling's lane before a lane of a side with no cap at a
 * like rate: that side is served its rate, and in a window after which lanes idle (it has no
 * more vCPUs than lanes) what it is not served there it never gets back. Judged by virtual time
 * alone, the side with no cap, alone at its level between its siblings' throttles and so never
 * owed there, was the one ahead of a sibling back from its throttle with credit, and lost its
 * lane for the whole window: three lanes, /g1 weight 5122 `max 3ms 5ms` with two hogs and a
 * duty vCPU, /g2 weight 610 `max 1ms 5ms` with two hogs, /g3 weight 609 with one; /g2 took a
 * free lane at its refill, /g1's claims took the other two from /g3 and /g2, and /g3 had no
 * turn in the 1.33 ms both ran where the reference gives it 0.29 of a lane, then ran alone
 * beside two idle lanes (kind 6 seed 3315, 3.01 % of capacity; test "a refill claims a capped
 * sibling's lane first"). Only a sibling of the group itself (as window_claim()), and only a
 * lane the claim would take anyway (key > 0, a kept lane's after its unrun slice): against a
 * capped sibling of an ancestor, /g1/g2/g3's refill took the lane /g1/g9 had just been given at
 * its own refill (10 ms caps seed 2539, 0.01 -> 0.60 %), and a kept lane of any key moved 2660
 * 0.71 -> 1.06.
 */
static bool pool_bound(const struct sched *s, const struct sched_entity *se)
{
	const struct group_core *gc;

	if (!se->is_group)
		return false;
	gc = se_group((struct sched_entity *)se);
	return gc->bw_enabled && gc->next_refill > s->core.now &&
	       se->rate * (double)(gc->next_refill - s->core.now) >
	       (double)gc->runtime_snap - gc->ref_used;
}

/* (bound, key) after (best_bound, best): a pool-bound side first, then the larger key. */
static bool key_after(bool bound, double key, bool best_bound, double best)
{
	return bound != best_bound ? bound : key > best;
}

/* Who claims: a vCPU moved while runnable, a vCPU with new work, a refilled group. */
enum claim_by { CLAIM_MOVE, CLAIM_WAKE, CLAIM_REFILL };

/*
 * se's claim; false if it took no lane and deferred none (a refill's claims stop there).
 * CLAIM_WAKE: se has just become runnable, with new work: from a holder that has run, on
 * several lanes, it needs min_run of service at its side's rate (wake_gran()). A vCPU moved
 * while runnable had its work all along, a holder given its lane at this instant loses nothing
 * it ran, and on one lane a holder served less catches up once the waker is done (no lane
 * idles): those claims are by time (min_run), as before. CLAIM_REFILL is by service against
 * every holder, on any number of lanes: under a cap the lane does idle, and by time a group at
 * a low rate took a slice on a few us of lag (the holder's unrun prepaid slice alone puts a
 * level group that far behind), drawing its pool into time the reference leaves idle (10 ms
 * caps seed 1623; docs/scheduler.md §4 "A refill claims as a waker"). It judges a misplaced
 * lane by the service the group had: the misplaced test already counts the lanes the refill
 * just gave it, so the slices those lanes were paid up front at this instant are not counted
 * again in its virtual time.
 */
static bool claim(struct sched *s, struct sched_entity *se, enum claim_by by)
{
	double min_run = s->core.min_run, best_key = 0, kept_key = 0;
	struct sched_entity *best_ew = NULL, *best_er = NULL, *idle_ew = NULL;
	bool wake = by == CLAIM_WAKE && s->nr_lanes > 1, refused = false;
	bool best_bound = false, kept_bound = false;
	struct vcpu_core *vc;
	int best = -1, kept = -1, idle = -1;
	unsigned int l;

	if (lanes_path_throttled(se))
		return false;
	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		struct sched_entity *ew = se, *er;
		double key, gran;
		bool misplaced, bound;

		if (!ln->cur)
			return false;	/* a free lane: lanes_settle() fills it */
		er = &ln->cur->se;
		if (er == se)
			continue;
		common_level(&ew, &er);
		if (idle_over(ew, er)) {
			best = (int)l;
			best_ew = ew;
			best_er = NULL;	/* the cpu.idle rule: this lane */
			break;
		}
		if (owns_lane(ln->cur))
			continue;
		if (wake && idle < 0 && idle_unrounded_over(ew, er)) {
			idle = (int)l;
			idle_ew = ew;
		}
		/*
		 * How far behind the waiter is, in time, past what is worth a kick (a near tie is
		 * not): for a wake or a refill, min_run of service at its side's rate (wake_gran()),
		 * otherwise min_run; for a misplaced lane, the holder's side being owed min_run.
		 */
		misplaced = lane_misplaced(ew, er);
		if (misplaced)
			gran = -min_run;
		else if (by == CLAIM_REFILL ||
			 (by == CLAIM_WAKE && s->nr_lanes > 1 && ln->start < s->core.now))
			gran = wake_gran(min_run, ew->rate);
		else
			gran = min_run;
		key = er->vt - ew->vt - gran;
		if (misplaced && !(key > 0))
			refused = true;
		if (by == CLAIM_REFILL && misplaced)
			key += paid_now_below(s, ew) / ew->rate;
		bound = by == CLAIM_REFILL && key > 0 && ew == se && pool_bound(s, er);
		if (lane_kept(s, ln)) {
			if (lane_deferred(s, ln))
				continue;	/* promised to an earlier waiter already */
			/* Its slice paid up front and not run yet is no service it had. */
			key -= (double)ln->cur->resv / er->rate;
			bound = bound && key > 0;
			if (key_after(bound, key, kept_bound, kept_key)) {
				kept_key = key;
				kept_bound = bound;
				kept = (int)l;
			}
		} else if (key > 0 && key_after(bound, key, best_bound, best_key)) {
			best_key = key;
			best_bound = bound;
			best = (int)l;
			best_ew = ew;
			best_er = er;
		}
	}
	/*
	 * The waiter is furthest behind a holder inside its min_run: that holder's turn ends when
	 * it has (credit2's ratelimit delays a preemption, it does not send it elsewhere). Taking
	 * the lane of the next holder instead, often a sibling in the waiter's own group, gave the
	 * group no lane back while the holder it was behind ran its whole slice (issue 13). A
	 * refill takes, besides, a lane past its min_run from a side over its rate, if any.
	 */
	if (kept >= 0 && key_after(kept_bound, kept_key, best_bound, best_key)) {
		best = by == CLAIM_REFILL ? refill_lane_over(s, se, &best_ew) : -1;
		lanes_defer(s, lane_of(s, kept));
		if (best < 0)
			return true;
		best_er = NULL;	/* that lane, its holder past min_run */
	}
	if (best < 0 && wake && refused && idle >= 0) {
		best = idle;
		best_ew = idle_ew;	/* the cpu.idle rule, at the side's lanes (above) */
	}
	if (best < 0)
		return false;
	if (best_er) {
		int over = lane_most_over(s, se, best_er, best);

		/* Inside its min_run, that holder's turn ends when it is over, as above. */
		if (over != best && lane_kept(s, lane_of(s, (unsigned int)over))) {
			lanes_defer(s, lane_of(s, (unsigned int)over));
			return true;
		}
		best = over;
	}
	/*
	 * The lane goes to the side that is behind, and inside it to whoever is first there:
	 * not necessarily the waiter that arrived (handing it the lane gave a vCPU moved or woken
	 * into a group a turn its siblings were owed first; issue 13, random hog trees).
	 */
	lanes_put_back(s, lane_of(s, best)->cur);
	vc = fair_pick_below(s, best_ew);
	lanes_give(s, (unsigned int)best, vc ? vc : fair_pick(s));
	return true;
}

bool lanes_waiter_arrived(struct sched *s, struct sched_entity *se)
{
	return claim(s, se, CLAIM_MOVE);
}

bool lanes_waker_arrived(struct sched *s, struct vcpu_core *vc)
{
	return claim(s, &vc->se, CLAIM_WAKE);
}

/*
 * A refilled group the reference throttles at its dry point, with a pool its lanes do not carry
 * there (bw_ref_window()): inside that window the reference runs it at its weighted share and a
 * sibling holding a lane over its rate at its own, so the sibling's lane is the group's for the
 * part of the window the sibling is not owed, (lanes over its rate) x window, up to what the
 * pool needs. The group takes it for that part at the end of its window, to its dry point: now
 * if that is all the window left, else the claim is made again then (the lane's promised_at),
 * and judged again, the group having had its turns meanwhile. In that order a part shorter than
 * min_run ends at the group's throttle, not inside a min_run. Judged by virtual time alone (the
 * wake rule, claim()), a group square at its refill never took the lane: the slice its free
 * lane had just been paid counted as service in its vt, the holder kept its lane to its
 * rotation end and by the sticky tie a slice more, the group's burst stretched past the
 * reference's dry point and the holder ran on a lane the reference idles after it (two lanes,
 * /a weight 300 with two hogs at 5 ms per 10 ms beside /b's hog: /b 900 ms of 833.3 in 1 s,
 * 3.33 % of capacity; weight 150, 4.12 %). Only against a sibling (the holder's side at the
 * group's own level), where the window's shares are the group's and that side's rates, and at
 * the refill not at once against one owed more than min_run (as claim() leaves a misplaced
 * lane to a holder repaying its lag; the refill's free lanes' slices not counted): taken, a
 * group that had burst ahead took back a lane its capped sibling was repaying (10 ms caps
 * seed 1176, 0.30 -> 0.70 %). Such a side is claimed once it has repaid that, when its vt, at
 * its lanes over its rate, has closed in to min_run of the group's: left alone, it kept the
 * lane to its rotation end, a slice, for a lag under 1 ms (kind 6 seed 14, a root hog owed
 * 0.19-0.94 ms held up to 2.9 ms of /g1's 3.26 ms window: 0.70 -> 0.00 %). On one lane no
 * lane idles, and a claim at every refill moved seed 1785 0.31 -> 0.67 %; but a holder's turn
 * that ends past the refill less the pool's need leaves the pool to expire unused: there the
 * lane is claimed (one lane, /g1 capped at 9.4 ms per 10 ms beside two hogs: a hog ran its 3
 * ms slice from the throttle past the refill every other period, 8.86 -> 0.66 %). That point
 * is the refill or, sooner, a capped ancestor's dry point, which the holder's turn draws too
 * (bw_ancestors_dry(): /p at 4 ms per 10 ms over /p/c at 1.5 per 5 ms, /p/d holding the lane
 * from 4.5 to /p's dry point at 7 left /p/c's second pool to expire, 6.14 -> 1.36 %). True if
 * it took a lane.
 */
static bool window_claim(struct sched *s, struct group_core *gc, bool refill)
{
	struct sched_entity *se = &gc->se;
	double need, win, give, best_give = 0, min_run = s->core.min_run;
	double vt_now, wait, best_wait = 0, pool_end, ends;
	struct lane *best = NULL;
	struct vcpu_core *vc;
	uint64_t at;
	unsigned int l;

	if (!heap_queued(&se->node) || lanes_path_throttled(se) || !bw_ref_window(s, gc, &need, &win))
		return false;
	vt_now = refill ? se->vt - paid_now_below(s, se) / se->rate : 0;
	pool_end = (double)s->core.now + bw_ancestors_dry(s, gc);
	if (pool_end > (double)gc->next_refill)
		pool_end = (double)gc->next_refill;
	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		struct sched_entity *ew = se, *er;

		if (!ln->cur)
			return false;	/* a free lane: lanes_settle() fills it */
		er = &ln->cur->se;
		common_level(&ew, &er);
		if (ew != se || er == se || owns_lane(ln->cur) || lane_deferred(s, ln))
			continue;
		/* One lane idles nothing: only a turn the pool could not be drawn after. */
		if (s->nr_lanes == 1 && (ln->rot_until == SCHED_TIME_NONE ||
					 (double)ln->rot_until <= pool_end - need))
			continue;
		/* Owed more than min_run: it repays first (above); where it never does, left. */
		wait = 0;
		if (refill && vt_now - er->vt > min_run) {
			double close = ((double)er->nr_running / er->rate -
					(double)se->nr_running / se->rate) * s->core.deliver;

			if (!(close > 0))
				continue;
			wait = (vt_now - er->vt - min_run) / close;
		}
		give = ((double)er->nr_running - er->rate) * win;
		if (give > need)
			give = need;
		if (give > win - wait)
			give = win - wait;
		if (give > best_give) {
			best_give = give;
			best_wait = wait;
			best = ln;
		}
	}
	if (!best)
		return false;
	at = s->core.now + (uint64_t)(win > need ? win - need : 0);
	/*
	 * No later than the group's waiters are foreseen gone (a duty vCPU's block): after that
	 * it has nothing to run on the lane, and the claim lapses. At a promise, at once: judged
	 * again there, the end only draws nearer and the promise would chase it. Only for a give
	 * of min_run or more, or the lane is held min_run past the need (docs/scheduler.md §4,
	 * "A window counts its blocks").
	 */
	ends = bw_waiters_end(s, gc, win);
	if (best_give >= min_run && (double)at > (double)s->core.now + ends - best_give)
		at = s->core.now + (uint64_t)(refill && ends > best_give ? ends - best_give : 0);
	if (at < s->core.now + (uint64_t)best_wait)
		at = s->core.now + (uint64_t)best_wait;
	if (lane_kept(s, best) && at < best->start + s->core.params.min_run_ns)
		at = best->start + s->core.params.min_run_ns;
	if (at > s->core.now) {
		best->promised = gc;	/* nothing taken now: a refill's claims stop here */
		best->promised_at = at;
		return false;
	}
	lanes_put_back(s, best->cur);
	vc = fair_pick_below(s, se);
	lanes_give(s, (unsigned int)(best - s->core.lanes), vc ? vc : fair_pick(s));
	return true;
}

/* At a lane's promised_at (lanes_expire()): the claim made again. */
bool lanes_window_claim(struct sched *s, struct group_core *gc)
{
	return window_claim(s, gc, false);
}

/*
 * A refilled group's claim: a refill wakes every vCPU below it, so the group claims as a waker
 * does (claim()), judged by what it had, and never where the pick would not give it a lane: a
 * pool paced to its refill or its reference's dry point takes no lane beyond its pace
 * (pick.c, paced()). Counted with the slices its free lanes had just been paid, the group looked
 * k slices / r ahead and took no lane its rate rounds to: four hogs of a group owed 2.54 CPU on
 * two free lanes beside a hog owed 0.46 (10 ms caps seed 1885, docs/scheduler.md §4 "A refill
 * claims as a waker"). Without the pace, that claim took lanes the pick withholds (test "a
 * throttled pool is paced to the reference's dry point", 0.191 -> 0.351 %). Where the wake rule
 * takes nothing, the group may still be owed a sibling's lane inside its window
 * (lanes_window_claim()).
 */
bool lanes_refill_claim(struct sched *s, struct group_core *gc)
{
	if (bw_pool_paced(s, gc, gc->se.nr_running))
		return false;
	return claim(s, &gc->se, CLAIM_REFILL) || window_claim(s, gc, true);
}
