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
 * throttle_credit()) of a capped ancestor thrown out of the rates, HUGE_VAL if none is. The
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
 * the reference, which throttles that ancestor at its own dry point (throttle_credit()), serves
 * them nothing from there to its refill.
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
 * A group kept in the rates while throttled (throttle_credit()) leaves them at the reference's
 * own dry point: its rate integrated over the period reached its pool. Judged only from the
 * rate of the moment at the throttle, a group whose rate rose later in the period (a sibling
 * throttled) kept its share until the refill while the reference throttled it: seed 1621 of the
 * 10 ms caps kind, 1.69 % of capacity. Its lag is then exact (the reference's rates all period),
 * so it leaves with it saved and no credit. Keeping every throttled group until that point, also
 * those the reference throttles in the period at the rate of the moment, is worse: a group that
 * ran its pool on more lanes than its rate dries before the reference, and kept, its lanes go
 * to siblings' children ahead of tiny rates while vCPUs owed a whole CPU cannot take them back
 * (make check's random caps seed 60: 0.33 -> 1.02 %).
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
