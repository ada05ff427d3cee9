// SPDX-License-Identifier: GPL-2.0
/*
 * Handing out lanes. A lane runs one vCPU until its slice end: the rotation end (slice after it
 * got the lane, only while some vCPU waits) or the moment a capped ancestor's pool runs dry,
 * whichever is first. With nobody waiting and no cap there is no slice end at all, so the
 * runtime never interrupts a vCPU for nothing.
 *
 * When a vCPU starts waiting and every lane is busy, one lane may be taken: from a cpu.idle
 * sibling at once, otherwise from the vCPU the waiter is furthest behind in virtual time (by
 * more than min_run), as soon as that vCPU has run min_run on its lane (credit2's ratelimit).
 * The other lanes get a rotation end so that the waiter's turn comes within a slice.
 *
 * At a rotation end the lane is picked again (lanes_repick.c). docs/scheduler.md has the
 * reasons.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "internal.h"

/*
 * A vCPU under a cpu.idle group whose level has a non-idle sibling waiting takes min_run turns,
 * not slices: its share is a few per mille, and in whole slices it arrived in lumps of a slice
 * (bench idle: 0.36 % of capacity where 0.29 % is owed, with 6 ms slices). Among idle siblings
 * only, turns stay a slice long.
 */
static bool idle_turn(const struct sched *s, const struct vcpu_core *vc)
{
	const struct sched_entity *se = &vc->se;
	const struct group_core *p;
	unsigned int i;

	if (!s->core.nr_idle_groups)
		return false;	/* every lane handed out asks: no walk up the path */
	while (se->parent && !se->idle)
		se = &se->parent->se;
	if (!se->parent)
		return false;
	p = se->parent;
	for (i = 0; i < p->queue.nr; i++)
		if (!container_of(p->queue.a[i], struct sched_entity, node)->idle)
			return true;
	return false;
}

/*
 * While others wait, a lane comes with a rotation end, prepaid at once so that the next lane
 * handed out at the same moment already sees it (fair_prepay()). A holder that ran alone for
 * longer than a slice is in its latest slice since it got the lane, as if slices had been
 * renewed all along (EEVDF renews a lone task's deadline so): its rotation ends when that slice
 * does, at least min_run from now. A whole new slice from now made every waiter that found the
 * lanes uncontended wait a full slice, e.g. a group back from throttling at its period start
 * (bench caps2: 8.1 ms in 7 of 53 periods).
 */
static void lane_set_rotation(struct sched *s, struct lane *ln)
{
	struct sched_core *c = &s->core;
	uint64_t len = idle_turn(s, ln->cur) ? c->params.min_run_ns : c->params.slice_ns;
	uint64_t end = ln->start + len;

	if (end <= c->now) {
		end = c->now + len - (c->now - ln->start) % len;
		if (end < c->now + c->params.min_run_ns)
			end = c->now + c->params.min_run_ns;
	}
	if (c->nr_bw_groups) {
		uint64_t owed = bw_lane_owed_end(s, ln->cur, end);

		if (owed < end)
			end = owed > c->now + c->params.min_run_ns ? owed :
			      c->now + c->params.min_run_ns;
	}
	ln->rot_until = end;
	fair_prepay(s, ln->cur, ln->rot_until - c->now);
}

/* ln's holder's turn ends at end instead: its prepaid slice paid again to that. */
void lanes_end_turn(struct sched *s, struct lane *ln, uint64_t end)
{
	fair_refund(s, ln->cur);
	ln->rot_until = end;
	fair_prepay(s, ln->cur, end - s->core.now);
}

/* ln's holder, inside its min_run, has its turn end when that is over (lanes_wake.c). */
void lanes_defer(struct sched *s, struct lane *ln)
{
	uint64_t end = ln->start + s->core.params.min_run_ns;

	if (ln->rot_until <= end || end <= s->core.now)
		return;
	ln->deferred_at = s->core.now;
	lanes_end_turn(s, ln, end);
}

void lanes_give(struct sched *s, unsigned int l, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, l);

	if (!ln->cur)
		s->core.nr_held++;
	s->core.lanes_moved = true;
	ln->cur = vc;
	/*
	 * A vCPU handed a lane again before the runtime was told it lost one (a rotation end that
	 * kept it, a lane swapped at flush) has held a lane all along: it is no fresh grant that
	 * min_run protects. Counting it as one let a vCPU re-picked first at a shared rotation end
	 * shield itself, so a group's furthest-behind vCPU gave up its lane instead (issue 13).
	 */
	ln->start = vc->told_lane >= 0 ? vc->since : s->core.now;
	vc->since = ln->start;
	ln->rot_until = SCHED_TIME_NONE;
	ln->bw_until = SCHED_TIME_NONE;
	ln->pace_until = SCHED_TIME_NONE;
	ln->pace_spent = false;
	if (ln->lent && ln->lent == vc->v->id + 1)
		ln->lent = 0;
	ln->deferred_at = SCHED_TIME_NONE;
	vc->lane = (int)l;
	fair_set_running(s, vc);
	if (gcore(&s->root)->queue.nr && !owns_lane(vc))
		lane_set_rotation(s, ln);
}

/* Takes vc off its lane and, if still runnable, queues it again (as a lane given back). */
void lanes_put_back(struct sched *s, struct vcpu_core *vc)
{
	struct lane *ln = lane_of(s, vc->lane);

	s->core.nr_held--;
	ln->cur = NULL;
	ln->rot_until = SCHED_TIME_NONE;
	ln->bw_until = SCHED_TIME_NONE;
	ln->pace_until = SCHED_TIME_NONE;
	ln->pace_spent = false;
	if (s->core.lending && vc->runnable)
		ln->lent = vc->v->id + 1;
	vc->lane = -1;
	fair_refund(s, vc);
	fair_clear_running(s, vc);
	if (vc->runnable)
		fair_enqueue(s, &vc->se);
}

void lanes_expire(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		bool pace;

		if (ln->promised_at <= s->core.now) {
			struct group_core *gc = ln->promised;

			ln->promised = NULL;
			ln->promised_at = SCHED_TIME_NONE;
			lanes_window_claim(s, gc);
		}
		if (!ln->cur || (ln->rot_until > s->core.now && ln->pace_until > s->core.now))
			continue;
		pace = ln->rot_until > s->core.now;
		/*
		 * A rotation end less than min_run before the lane's promise (lanes_window_claim())
		 * keeps the holder to it: a new holder's min_run put the claim off past it. Seed 324
		 * of `fuzz-sim --kind 6`: a /g3 hog rotated out 0.36 ms before /g1's claim, its
		 * sibling held the lane 1 ms, /g1 ran past the reference's dry point every period
		 * and /g3 ran where the reference idles a lane (1.43 -> 0.34 %).
		 */
		if (!pace && ln->promised_at > s->core.now &&
		    ln->promised_at < s->core.now + s->core.params.min_run_ns) {
			lanes_end_turn(s, ln, ln->promised_at);
			continue;
		}
		/*
		 * A lane its pace end hands out (at a rotation end of the same moment too) is lent
		 * to the paced group's refill, which takes it back (refill_lent(), bandwidth.c).
		 */
		s->core.lending = ln->pace_until <= s->core.now;
		lanes_repick(s, l);
		s->core.lending = false;
		/*
		 * A pace end hands the lane out once: if nobody outside the paced group could
		 * take it, it went back inside, and another end now would repeat that forever.
		 */
		if (pace)
			ln->pace_spent = true;
	}
}

#ifdef VSCHED_DEBUG
/*
 * What lanes_settle() and lanes_flush() trust instead of scanning every lane: nr_held counts the
 * held lanes, and unless lanes_moved every holder told a lane holds that one (debug builds).
 */
static void lanes_check(const struct sched *s)
{
	unsigned int l, held = 0;

	for (l = 0; l < s->nr_lanes; l++) {
		const struct vcpu_core *vc = s->core.lanes[l].cur;

		held += vc != NULL;
		BUG_ON(vc && !s->core.lanes_moved && vc->told_lane >= 0 &&
		       vc->told_lane != (int)l);
	}
	BUG_ON(held != s->core.nr_held);
}
#else
static inline void lanes_check(const struct sched *s)
{
	(void)s;
}
#endif

/* Fill free lanes, then give every busy lane the slice end the situation calls for. */
void lanes_settle(struct sched *s)
{
	/* Every event runs this over every lane: what no lane changes is read once. */
	struct sched_core *c = &s->core;
	struct lane *lanes = c->lanes;
	unsigned int l, nr = s->nr_lanes;
	uint64_t now = c->now, min_run = c->params.min_run_ns;
	bool capped = c->nr_bw_groups > 0, waiters;
	struct vcpu_core *vc;

	lanes_check(s);
	/* Most events leave every lane held: nothing to fill, not even a scan for a free one. */
	for (l = 0; c->nr_held < nr && l < nr; l++) {
		if (lanes[l].cur)
			continue;
		vc = c->left && l == c->left_lane ? fair_pick_kept(s, c->left) : fair_pick(s);
		if (!vc)
			break;
		lanes_give(s, l, vc);
	}
	c->left = NULL;
	waiters = gcore(&s->root)->queue.nr > 0;
	for (l = 0; l < nr; l++) {
		struct lane *ln = &lanes[l];

		if (!ln->cur)
			continue;
		if (!waiters || owns_lane(ln->cur)) {
			ln->rot_until = SCHED_TIME_NONE;
			fair_refund(s, ln->cur);
		} else if (ln->rot_until == SCHED_TIME_NONE) {
			lane_set_rotation(s, ln);
		}
		/* Its bandwidth end passed and the pool is not dry: the lanes deliver less. */
		if (ln->bw_until <= now)
			rates_delivery_missed(s);
		ln->bw_until = capped ? bw_lane_until(s, ln->cur) : SCHED_TIME_NONE;
		ln->pace_until = capped && waiters && !ln->pace_spent ?
				 bw_lane_pace(s, ln->cur) : SCHED_TIME_NONE;
		if (ln->pace_until < ln->start + min_run)
			ln->pace_until = ln->start + min_run;
	}
}

/*
 * The rates are about to change (a wake, a block, a move, a refill): the slices lanes paid up
 * front come out, to be paid again at the new rates (lanes_repay()). A slice P paid at rate r1
 * of a level whose rates sum to S1 and refunded at r2 of S2 moves its holder's lag by
 * P (r1 / S1 - r2 / S2), not 0. When a vCPU blocks, its ancestors' rates drop, and the slices
 * their other lanes paid, refunded once nobody waits, credit them P times that drop over S,
 * paid by the siblings whose rates rose: a bonus for the blocker's group at its next wake
 * (docs/scheduler.md §10). Nothing hands lanes out in between, so each lane keeps its holder.
 */
void lanes_unpay(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);

		ln->repay = ln->cur ? ln->cur->resv : 0;
		if (ln->repay)
			fair_refund(s, ln->cur);
	}
}

/* A holder now below a throttled group is about to give its lane up: nothing to pay. */
void lanes_repay(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);

		if (ln->repay && ln->cur && !bw_path_throttled(ln->cur))
			fair_prepay(s, ln->cur, ln->repay);
		ln->repay = 0;
	}
}

uint64_t lanes_until(const struct lane *ln)
{
	uint64_t t = ln->rot_until < ln->bw_until ? ln->rot_until : ln->bw_until;

	if (ln->promised_at < t)
		t = ln->promised_at;
	return ln->pace_until < t ? ln->pace_until : t;
}

static void emit_lane(struct sched *s, enum sched_decision_type type, unsigned int l,
		      struct vcpu_core *vc, uint64_t until)
{
	struct sched_core *c = &s->core;

	c->dec[c->nr_dec++] = (struct sched_decision){
		.type = type, .lane = l, .vcpu = vc->v->id, .until = until,
	};
}

/*
 * Tell the runtime what changed since it was last told. Lanes are interchangeable permits, so a
 * vCPU that was re-granted a lane is first moved back to the lane it was told about: no kick for
 * a vCPU that keeps running.
 */
void lanes_flush(struct sched *s)
{
	/* As in lanes_settle(): run by every event, what no lane changes is read once. */
	struct lane *lanes = s->core.lanes;
	unsigned int l, nr = s->nr_lanes;
	uint64_t now = s->core.now;
	bool room;

	lanes_check(s);
	/*
	 * Holders are put back on the lanes they were told first. Only lanes_give() misplaces
	 * one: after this pass every holder told a lane holds that one, and the second pass
	 * only tells holders their own lane.
	 */
	for (l = 0; s->core.lanes_moved && l < nr; l++) {
		struct lane *ln = &lanes[l];

		while (ln->cur && ln->cur->told_lane >= 0 && ln->cur->told_lane != (int)l) {
			struct lane *other = &lanes[ln->cur->told_lane], tmp;

			tmp = *other;
			other->cur = ln->cur;
			other->start = ln->start;
			other->rot_until = ln->rot_until;
			other->bw_until = ln->bw_until;
			other->pace_until = ln->pace_until;
			other->pace_spent = ln->pace_spent;
			other->lent = ln->lent;
			other->promised = ln->promised;
			other->promised_at = ln->promised_at;
			ln->cur = tmp.cur;
			ln->start = tmp.start;
			ln->rot_until = tmp.rot_until;
			ln->bw_until = tmp.bw_until;
			ln->pace_until = tmp.pace_until;
			ln->pace_spent = tmp.pace_spent;
			ln->lent = tmp.lent;
			ln->promised = tmp.promised;
			ln->promised_at = tmp.promised_at;
			other->cur->lane = (int)(other - lanes);
			if (ln->cur)
				ln->cur->lane = (int)l;
		}
	}
	s->core.lanes_moved = false;
	/* A lane emits two decisions at most: room for every lane at once, else lane by lane. */
	room = core_dec_reserve(&s->core, 2 * (size_t)nr);
	for (l = 0; l < nr; l++) {
		struct lane *ln = &lanes[l];
		uint64_t until = lanes_until(ln);

		if (!room && !core_dec_reserve(&s->core, 2))
			return;
		if (ln->told_cur != ln->cur) {
			if (ln->told_cur) {
				if (ln->told_cur->runnable) {
					emit_lane(s, SCHED_PREEMPT, l, ln->told_cur, 0);
					core_wait_begin(ln->told_cur, now);
				}
				ln->told_cur->told_lane = -1;
			}
			if (ln->cur) {
				emit_lane(s, SCHED_RUN, l, ln->cur, until);
				core_wait_end(ln->cur, now);
				ln->cur->told_lane = (int)l;
				s->core.nr_switches++;
			}
			ln->told_cur = ln->cur;
			ln->told_until = until;
		} else if (ln->cur && until != ln->told_until) {
			emit_lane(s, SCHED_RETIME, l, ln->cur, until);
			ln->told_until = until;
		}
	}
}
