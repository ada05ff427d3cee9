// SPDX-License-Identifier: GPL-2.0
/*
 * The reference's draw on each capped pool (sched/bandwidth.c keeps the pools): what the
 * burst-then-throttle model of docs/scheduler.md §4 would have drawn this period (ref_used),
 * integrated as time advances, the reference's own dry point of a group kept in the rates while
 * throttled, and the next moment the core must look at a pool (a refill or such a dry point).
 */
#include <math.h>

#include "internal.h"
#include "sched/fluid.h"

/*
 * When the reference stops serving gc: the earliest dry point in the reference (ref_out,
 * bw_ref_throttle_credit()) of a capped ancestor thrown out of the rates, HUGE_VAL if none is. The
 * core's throttle comes earlier wherever it ran the ancestor ahead of its share.
 */
static double ancestor_out_at(const struct group_core *gc)
{
	double out = HUGE_VAL;

	for (gc = gc->se.parent; gc; gc = gc->se.parent)
		if (gc->throttled && !gc->throttle_kept && gc->ref_out < out)
			out = gc->ref_out;
	return out;
}

/* A capped ancestor of gc is out of the rates and dry in the reference: gc is served nothing. */
static bool ancestor_out(const struct sched *s, const struct group_core *gc)
{
	return ancestor_out_at(gc) <= (double)s->core.now;
}

uint64_t bw_next_timer(const struct sched *s)
{
	struct heap_node *n = heap_min(&s->core.timers);
	uint64_t t = n ? container_of(n, struct group_core, timer_node)->next_refill : SCHED_TIME_NONE;
	unsigned int i;

	/*
	 * A pool dry in a report, to throw out now (bw_throttle_dry()); a kept group's dry point
	 * at its rate of the moment (bw_ref_dry()), none while a capped ancestor is out: it draws
	 * nothing then (bw_clock()), and a timer at a point that does not come would fire again
	 * and again.
	 */
	for (i = 0; i < s->core.timers.nr; i++) {
		const struct group_core *gc = container_of(s->core.timers.a[i], struct group_core,
							   timer_node);
		double left = (double)gc->runtime_snap - gc->ref_used;
		uint64_t d;

		if (gc->dry)
			return s->core.now;
		if (!gc->throttled || !gc->throttle_kept || gc->se.rate < RATE_MIN ||
		    ancestor_out(s, gc))
			continue;
		d = left > 0 ? (uint64_t)ceil(left / gc->se.rate) : 0;
		if (s->core.now + d < t)
			t = s->core.now + d;
	}
	return t;
}

/*
 * The reference's rates from time t, into c->rate; false where they are the core's (every
 * entity's se.rate). The core's rates count a vCPU that blocked ahead of its share as a CPU of
 * demand while its entity stays delayed (rates.c, vcpu_demand()): GPS is still serving that
 * burst. But GPS is done with it once it has served what the vCPU ran ahead at its rate
 * (delay_ref_end, fair_block()), while the delay lasts until its parent's V reaches its vt, and
 * V runs slow meanwhile: the delayed entities are in the sum and do not run. Integrated at the
 * core's rates, a capped weight-1 group beside a sibling whose duty vCPUs (2 ms every 10 ms,
 * done in 3 ms in GPS) stayed delayed 4-6 ms a burst drew its pool a third slower than the
 * reference: its throttle credit (pool - drawn) came back as 3-5 ms of lag at every refill,
 * which took a lane from a hog owed a whole CPU; the group ran dry early and its lane idled
 * where the reference kept it busy (fuzz-sim kind 6, class E of docs/scheduler.md §10: the
 * audit's gg21 reduced, 0.856 -> 0.356 % of capacity; test "the reference's draw ends a delayed
 * sleeper's burst where GPS does"). A sleeper that blocked owed, not delayed, GPS serves to its
 * wake plus its burst at its rate (fair_block()): counted to then too. *next is brought to the
 * first such end after t.
 */
static bool ref_rates(struct sched *s, double t, double *next)
{
	struct sched_core *c = &s->core;
	bool differ = false;
	unsigned int i;

	for (i = 0; i < s->nr_vcpus; i++) {
		const struct vcpu_core *vc = &c->vcpus[i];
		bool gps = !vc->se.runnable && t < vc->delay_ref_end;

		c->ref_demand[i] = vc->se.runnable || gps ? 1.0 : 0.0;
		differ |= !vc->se.runnable && (vc->delaying ? !gps : gps);
		if (gps && vc->delay_ref_end < *next)
			*next = vc->delay_ref_end;
	}
	if (differ)
		fluid_solve_scratch(s, c->ref_demand, c->rate, c->claims, FLUID_NO_CAPS);
	return differ;
}

/*
 * Time advances by dt: every capped group with an active period timer adds its reference rate
 * over dt to ref_used, what the reference drew from its pool this period (the rates are the
 * reference's while the same groups are out of them, but for delayed sleepers GPS is done
 * with: ref_rates()), in steps at those ends. Not once a capped ancestor out of the rates is dry
 * in the reference too: its children keep their rates inside it (rates.c, retag_group()), but
 * the reference, which throttles that ancestor at its own dry point
 * (bw_ref_throttle_credit()), serves them nothing from there to its refill.
 */
void bw_clock(struct sched *s, uint64_t dt)
{
	double t = (double)s->core.now, end = t + (double)dt;
	unsigned int i;

	if (!s->core.timers.nr)
		return;
	while (t < end) {
		double next = end;
		bool ref = ref_rates(s, t, &next);

		for (i = 0; i < s->core.timers.nr; i++) {
			struct group_core *gc = container_of(s->core.timers.a[i],
							     struct group_core, timer_node);
			double out = ancestor_out_at(gc);

			if (out > t)
				gc->ref_used += (ref ? fluid_group_rate(s, gc->g, s->core.rate) :
						       gc->se.rate) * (fmin(next, out) - t);
		}
		t = next;
	}
}

/*
 * gc's rate in the reference now: the core's, but for a delayed sleeper GPS is done with
 * (ref_rates()), whose demand the core's rates still count until its delay ends. Judged at the
 * core's rate, a window claim due inside that gap found the reference not throttling gc and
 * was dropped (lanes_wake.c, window_claim(); docs/scheduler.md §4).
 */
double bw_ref_rate(struct sched *s, const struct group_core *gc)
{
	double next = HUGE_VAL;

	return ref_rates(s, (double)s->core.now, &next) ? fluid_group_rate(s, gc->g, s->core.rate) :
							  gc->se.rate;
}

/*
 * A group kept in the rates while throttled (bw_ref_throttle_credit()) leaves them at the
 * reference's own dry point: its rate integrated over the period reached its pool. Judged only
 * from the rate of the moment at the throttle, a group whose rate rose later in the period (a
 * sibling throttled) kept its share until the refill while the reference throttled it: seed 1621
 * of the 10 ms caps kind, 1.69 % of capacity. Its lag is then exact (the reference's rates all
 * period), so it leaves with it saved and no credit. Keeping every throttled group until that
 * point, also those the reference throttles in the period at the rate of the moment, is worse: a
 * group that ran its pool on more lanes than its rate dries before the reference, and kept, its
 * lanes go to siblings' children ahead of tiny rates while vCPUs owed a whole CPU cannot take them
 * back (make check's random caps seed 60: 0.33 -> 1.02 %).
 */
void bw_ref_dry(struct sched *s)
{
	unsigned int i;

	for (i = 0; i < s->core.timers.nr; i++) {
		struct group_core *gc = container_of(s->core.timers.a[i], struct group_core,
						     timer_node);

		if (gc->throttled && gc->throttle_kept &&
		    gc->ref_used >= (double)gc->runtime_snap - 1) {
			gc->throttle_kept = false;
			rates_changed(s);
		}
	}
}

/*
 * A vCPU blocks owed service it waited for (fair.c, wait_owed(): path_wait): GPS would have
 * served it as it woke and had it asleep for that long, and rates_update() forgives its
 * ancestors the share its demand gave them then (rates.c, forgive_wait()), moving it to the
 * siblings whose rates its block raises. ref_used integrated the core's rates, the waiting
 * vCPU's demand in them, so a capped sibling drew its pool at its rate beside the waiter,
 * slower than the reference, which had it at its rate without: at its throttle the credit
 * (pool - drawn) came back as lag the forgiveness had already given it, and the group ran its
 * pool at the next refill on a lane while the waker waited again. Each capped group's draw over
 * the wait moves as its lag did, by its rate's change at the block: where it rose (a sibling of
 * the waker's path) it drew more, where it fell (an ancestor) less.
 * Example (kind 6 seed 2668 reduced, test "a waited block moves the reference's draw"): three
 * lanes, /g1 weight 2 `max 5ms 10ms` with a hog beside /g2's two hogs and a duty vCPU 537 us
 * every 1337. The reference runs /g1 on the lane the duty vCPU leaves and dries it 8.2 ms into
 * each period; the duty vCPU waits for the hog's min_run at most wakes, so /g1 drew 1.1-2.9 ms
 * by its throttle by the core's rates, came back owed 2-4 ms, took its lane for 5 ms straight
 * and left it idle for the rest of the period: 3.79 % of capacity (0.90 % now, the rest the
 * hog's min_run at each wake). ref_rate_was holds each capped group's rate before the block
 * (bw_ref_wait_begin()). Moved only where the rate rose, kind 6 seed 360 went 0.39 -> 0.58 %.
 */
void bw_ref_wait_begin(struct sched *s)
{
	unsigned int i;

	for (i = 0; i < s->core.timers.nr; i++) {
		struct group_core *gc = container_of(s->core.timers.a[i], struct group_core,
						     timer_node);

		gc->ref_rate_was = gc->se.rate;
	}
}

/* After the block's rates: the draw over the wait (this period's part) moved by the change. */
void bw_ref_wait_end(struct sched *s, double wait)
{
	unsigned int i;

	for (i = 0; i < s->core.timers.nr; i++) {
		struct group_core *gc = container_of(s->core.timers.a[i], struct group_core,
						     timer_node);
		double t = (double)(s->core.now - (gc->next_refill - gc->period));

		if (ancestor_out(s, gc))
			continue;
		gc->ref_used += (gc->se.rate - gc->ref_rate_was) * (wait < t ? wait : t);
		if (gc->ref_used < 0)
			gc->ref_used = 0;
	}
}

/*
 * A capped child e of p beside c that the reference throttles this period once c is dry w from
 * now: e's rate r until then and, after it, r with c's share spread over the level (no more than
 * e's vCPUs can run), to e's refill, draws more than the reference has left of e's pool. The
 * rate of the moment alone misses the rise: a sibling at 0.36 beside c at 1.33 draws 1.1-2
 * lanes once c is dry (kind 6 seed 5555).
 */
static bool sibling_pool_bound(const struct sched *s, const struct group_core *p,
			       const struct sched_entity *c, const struct sched_entity *e, double w)
{
	const struct group_core *g;
	double t, r2;

	if (e == c || !e->is_group)
		return false;
	g = container_of(e, struct group_core, se);
	if (!g->bw_enabled || g->throttled || g->next_refill <= s->core.now)
		return false;
	t = (double)(g->next_refill - s->core.now);
	r2 = p->sum_r - c->rate > RATE_MIN ? e->rate * p->sum_r / (p->sum_r - c->rate) : e->rate;
	if (r2 > (double)g->nr_runnable)
		r2 = (double)g->nr_runnable;
	if (w < t)
		return e->rate * w + r2 * (t - w) > (double)g->runtime_snap - g->ref_used;
	return e->rate * t > (double)g->runtime_snap - g->ref_used;
}

/* The runnable vCPUs below p's children beside c that are sibling_pool_bound(). */
unsigned int bw_ref_bound_beside(const struct sched *s, const struct group_core *p,
				 const struct sched_entity *c, double w)
{
	const struct sched_entity *e;
	unsigned int i, n = 0;

	for (i = 0; i < p->queue.nr; i++) {
		e = container_of(p->queue.a[i], struct sched_entity, node);
		if (sibling_pool_bound(s, p, c, e, w))
			n += container_of(e, struct group_core, se)->nr_runnable;
	}
	list_for_each_entry(e, &p->running, run_node)
		if (!heap_queued(&e->node) && sibling_pool_bound(s, p, c, e, w))
			n += container_of(e, struct group_core, se)->nr_runnable;
	return n;
}

/*
 * How long the reference still serves gc at its rate: to its refill, but no longer than each
 * capped ancestor's pool lasts at that ancestor's rate, since the reference throttles the
 * ancestor there and serves nothing below it until the ancestor's refill. Counted to gc's own
 * refill, a child whose capped parent runs a window of a few ms a period (one lane) looked
 * drawn by the reference at its dry point, got its run ahead of the window's share back as
 * credit at every throttle and ran its pool first, every period, beside a sibling owed as much
 * (10 ms caps seed 9 reduced: /g1 capped at 2.874 ms per 10 ms with a hog, beside /g1/g16, one
 * hog capped at 1.694 ms: 1.67 % of capacity; docs/scheduler.md §4, "A throttle counts its
 * ancestors' windows").
 */
static double ref_window(const struct sched *s, const struct group_core *gc)
{
	double t = (double)(gc->next_refill - s->core.now);
	const struct group_core *a;

	for (a = gc->se.parent; a; a = a->se.parent)
		if (a->bw_enabled && a->se.rate > RATE_MIN &&
		    (double)a->runtime < t * a->se.rate * s->core.deliver)
			t = (double)a->runtime / (a->se.rate * s->core.deliver);
	return t;
}

/*
 * What the reference would still serve the group before the refill. It has drawn `drawn` of
 * its pool this period (below); if that and its rate r to the refill reach the pool, the
 * reference throttles it too, at its own dry point: both have drawn the pool by the refill, so
 * the period is square, and the group is owed what the lag counts it ahead, or owes what it
 * counts it behind: min(pool - drawn, r * rest), of either sign.
 *
 * If they do not, the reference never throttles it: it is served r all period and its
 * siblings get none of its share. So it keeps its rate while throttled (throttle_kept; the
 * rates leave it in, sched/rates.c): time repays the debt of running its pool in one go, and
 * its siblings, running on its lanes, run into the matching debt. Out of the rates (demand 0,
 * the reference's throttle), its lag stood still until the refill while its siblings took its
 * share: the debt of each early run was never repaid by time, and the group ran its pool again
 * too soon (random caps, seed 686 reduced, one lane: 215 ms of 200 in 2 s, 0.77 %).
 *
 * What the reference drew is its rates integrated over the period (ref_used, bw_clock(); lane
 * time, so times what a lane delivers), not r times the period: r is the rate of the moment,
 * and a capped ancestor's throttles, or siblings', move it within the period. Judged by
 * r * period, a group nested in a capped parent that is served a tenth of the time looked
 * throttled by the reference, and its credit (r over the rest of the period) bought it its
 * whole pool every period (random caps, seed 1375 reduced, one lane: 113.6 ms of 66.7 in 2 s,
 * 2.35 %).
 *
 * The credit goes either way: pool - drawn is negative for a group its rates drew past its pool
 * (it got its lanes late after a refill, and the core throttles it after the reference's dry
 * point), and it is owed nothing for the overrun: the reference had it dry, and that lag would
 * come out of its siblings. Credited only (0 at least), and judged by the larger of ref_used
 * and r * ran, a group's lag took in every late start and never a run ahead at a rate of the
 * moment above its mean: a capped group that got its three lanes one by one after each refill
 * came back owed 5 ms period after period, and the cpu.idle sibling it took that from looked
 * ahead whenever a capped neighbour came back, lost its slices to it, and the neighbour ran its
 * pool dry early, beside the first one throttled: two lanes idle (test "a kept rate ends at the
 * reference's dry point", 0.100 % of capacity with every lane charged before a throttle; 0.025 %
 * now).
 *
 * A kept group leaves the rates when ref_used reaches the pool: the reference's own dry point
 * (bw_ref_dry()). One whose rate draws the pool exactly at the refill (to a nanosecond) is kept:
 * the reference is dry at the very moment its period ends, which is no throttle (bw_charge()).
 * Judged throttled, a group whose share is exactly its quota (caps.sim's /a/x) was credited the
 * rest of the period in wall time and came back level; whether it then spent its pool before the
 * refill hung on the phase of its siblings' slices, and it missed 25 ms in 10 s (0.135 % of
 * capacity with the refund below exact; 0.005 % kept).
 *
 * A group thrown out that the reference throttles too is dry there only at its own dry point,
 * (pool - drawn) / r from now (ref_out), later than the core's throttle wherever the core ran
 * it ahead: until then the reference still serves its children, and their draws go on
 * (bw_clock()). Stopped at the core's throttle, a child whose period spans several of its
 * parent's drew too little, looked short of its own dry point at its throttle and kept its rate
 * to its refill, leaving its sibling hog a sliver of its parent that the vt made ineligible: the
 * parent's pool expired unused (10 ms caps seed 5784, one lane, /g1/g2 at 4.548 ms per 20 ms
 * over /g1/g2/g3 at 15.971 ms per 100 ms: 3.74 % of capacity; docs/scheduler.md §4, "A child
 * draws to its parent's reference dry point").
 */
void bw_ref_throttle_credit(struct sched *s, struct group_core *gc)
{
	double drawn = gc->ref_used * s->core.deliver;
	double left = (double)gc->runtime_snap - drawn;
	double rest = gc->se.rate * ref_window(s, gc);

	gc->throttle_kept = rest < (double)gc->runtime_snap - gc->ref_used + 1.0;
	gc->throttle_credit = gc->throttle_kept ? 0 : left < rest ? left : rest;
	gc->ref_out = (double)s->core.now;
	if (!gc->throttle_kept && left > 0 && gc->se.rate > RATE_MIN)
		gc->ref_out += left / (gc->se.rate * s->core.deliver);
}
