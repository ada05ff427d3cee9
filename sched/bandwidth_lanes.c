// SPDX-License-Identifier: GPL-2.0
/*
 * What a capped pool means for a lane (sched/bandwidth.c keeps the pools): the bandwidth end a
 * lane is given (the pool's dry point, all its lanes running) and the pace end of a pool spread
 * over the lanes to its refill (docs/scheduler.md §4).
 */
#include <math.h>

#include "internal.h"

#define BW_SLICE_MIN_NS	50000ULL	/* shortest bandwidth end: about a kick's cost */

/*
 * The vCPUs beside gc, at the first level up that has any (runnable, below a throttled group or
 * not), are no more than that level's share: once gc is throttled they cannot use more lanes
 * than they are owed, so a lane they are owed during gc's burst and do not get is never repaid.
 * Those below a capped sibling the reference throttles this period (gc dry w from now) are not
 * counted: served their pool, they are not repaid either (bw_ref_bound_beside()).
 */
static bool siblings_unrepaid(const struct sched *s, const struct group_core *gc, double w)
{
	const struct group_core *c, *p;

	for (c = gc, p = gc->se.parent; p; c = p, p = p->se.parent) {
		unsigned int beside = p->nr_runnable - c->nr_runnable;

		if (beside) {
			beside -= bw_ref_bound_beside(s, p, &c->se, w);
			return beside <= (p->se.parent ? p->se.rate : (double)s->nr_lanes);
		}
	}
	return false;
}

/*
 * When the reference's rate for gc falls: the time from now until the first runnable vCPU below
 * it with a known mean burst (vc->burst; a hog never blocked) has done it at its rate, counting
 * what it was served since it woke and what it is owed; HUGE_VAL if none is foreseen. *r2 is
 * gc's rate then, no more than its vCPUs left can run.
 */
static double ref_drop(const struct sched *s, const struct group_core *gc, double r, double t,
		       double *r2)
{
	double first = HUGE_VAL;
	unsigned int i;

	*r2 = 0;
	if (gc->nr_runnable < 1)
		return HUGE_VAL;
	*r2 = r < (double)(gc->nr_runnable - 1) ? r : (double)(gc->nr_runnable - 1);
	for (i = 0; i < s->nr_vcpus; i++) {
		const struct vcpu_core *vc = &s->core.vcpus[i];
		double done, d;

		if (!vc->runnable || !(vc->burst > 0) || vc->se.rate < RATE_MIN ||
		    !se_under(&vc->se, gc))
			continue;
		done = (double)vc->ran + (double)vc->held +
		       vc->se.rate * (fair_vclock(vc->se.parent) - vc->se.vt);
		d = vc->burst > done ? (vc->burst - done) / vc->se.rate : 0;
		/* Back before the pool is drawn, by its mean sleep: no fall that lasts. */
		if (!(vc->nap > 0) || d + vc->nap / s->core.deliver < t)
			continue;
		if (d < first)
			first = d;
	}
	return first;
}

/*
 * From now, when the reference has drawn left from gc's pool at gc's rate r, which falls where a
 * vCPU below is foreseen to block (ref_drop()); HUGE_VAL if it never has.
 */
double bw_ref_dry_in(const struct sched *s, const struct group_core *gc, double r, double left)
{
	double t = left / r, r2, d = ref_drop(s, gc, r, t, &r2);

	if (d >= t)
		return t;
	if (r2 < RATE_MIN)
		return HUGE_VAL;
	return d + (left - r * d) / r2;
}

/*
 * The pace where the reference throttles gc at its dry point, left / r from now (below). Within
 * a lane of its rate (r < k < r + 1) only where its siblings cannot be repaid, and a k-th lane
 * is then refused (take) only once its pace end has passed: before it, gc is owed part of it.
 * At k = r + 1 it is owed none of the k-th lane: left alone there, a cpu.idle group at a rate of
 * exactly two held a third lane for min_run beside its parent's waiting hogs and dried early
 * (test "a throttled pool is paced to the reference's dry point", 0.333 % with ancestors_let()).
 */
static __noinline double pace_to_ref_dry(const struct sched *s, const struct group_core *gc,
					 unsigned int k, double r, double left, bool take)
{
	double t, p;

	if (k <= gc->se.rate)
		return HUGE_VAL;
	t = gc->se.rate >= RATE_MIN && left > 0 ? bw_ref_dry_in(s, gc, gc->se.rate, left) : 0;
	if (t >= (double)(gc->next_refill - s->core.now)) {
		/* A block foreseen leaves the reference short of its dry point: no throttle. */
		t = (double)(gc->next_refill - s->core.now);
		return r >= k * t ? HUGE_VAL : r - (k - 1) * t;
	}
	if (r >= k * t)
		return HUGE_VAL;
	p = r - (k - 1) * t;
	if (gc->se.rate + 1 - k > RATE_MIN && ((take && p > 0) || !siblings_unrepaid(s, gc, t)))
		return HUGE_VAL;
	return p;
}

/*
 * The most that gc's capped ancestors let it draw in the t to its refill: each one's pool now and
 * a quota at each of its refills before then (the fewest over them), or HUGE_VAL where none is
 * capped with its timer running. A pool that large is never drawn dry this period, whatever the
 * schedule, so it is not paced: judged by its rate to its own refill, a group nested in a parent
 * that runs a window of a few ms a period was refused its lanes as they came free in the window,
 * and the parent's own vCPUs, owed almost nothing, took a slice each every window (class C of
 * `fuzz-sim --kind 6`, the audit's gg101: 0.866 -> 0.042 %; docs/scheduler.md §4).
 */
static __noinline double ancestors_let(const struct sched *s, const struct group_core *gc,
				       double t)
{
	const struct group_core *a;
	double let = HUGE_VAL;

	for (a = gc->se.parent; a; a = a->se.parent) {
		double to_refill, d;

		if (!a->bw_enabled || !heap_queued(&a->timer_node) || a->next_refill <= s->core.now)
			continue;
		to_refill = (double)(a->next_refill - s->core.now);
		d = (double)a->runtime;
		if (t > to_refill)
			d += ceil((t - to_refill) / (double)a->period) * (double)a->quota;
		if (d / s->core.deliver < let)
			let = d / s->core.deliver;
	}
	return let;
}

/*
 * Pacing: a pool that carries fewer than the k >= 2 lanes gc holds to T is spent so that it
 * does: k lanes until one can go and k - 1 carry it the rest of the way, R - (k - 1) T from now
 * (R the pool in lane time). T is when the reference is done with the pool: the refill where
 * it does not throttle gc this period (its rate of the moment r, over the time to the refill,
 * draws less than the reference has left of the pool), else its own dry point at r, where it
 * has burnt the pool at the group's weighted share, as the kernel does. Returns that, or
 * HUGE_VAL where gc is not paced: its pool carries the k lanes, or its capped ancestors cannot
 * let it draw the pool before the refill (ancestors_let()), or k < 2 (one lane runs dry
 * only at the dry point; withholding a first lane from a pool under min_run only left that
 * unspent, seed 1785 of the 10 ms caps kind on one lane 0.35 -> 0.80 %), or the reference
 * throttles gc and its k - 1 other lanes fall short of r + 1 (k < r + 1), unless its siblings
 * cannot be repaid (siblings_unrepaid()). So a group the reference throttles takes no lane
 * while it holds more than its rate (pick.c asks for k + 1) and gives one back only while the
 * rest still exceed it. Paced from k > r + 0.5 on (its rate rounded to whole lanes), it also
 * gave up lanes its rate nearly fills, and the siblings that took them ran where the reference
 * idles lanes: 10 ms caps 26 -> 27 seeds over 0.5 % (new 623, 642; 541 1.39 -> 1.80 %); from
 * k > r on, a group of rate 0.6 gave its second lane to an idle sibling whose parent kept it
 * (test "a throttle refunds before its group leaves", 0.76 %, bound 0.25), and a pool short of
 * min_run on its k-th lane was refused it (test "a refill claims as a waker", 1.29 %).
 * Within a lane of r, where the vCPUs beside gc cannot use more than they hold once it is
 * throttled, its k-th lane is given back at the pace end: held to the throttle, a sibling hog
 * owed a third of a lane during the burst got none of it and could not use a second lane
 * after (test "a pool is paced in its last lane", 1.65 -> 0.00 %). Where they can be repaid
 * they were: paced there too, 10 ms caps seeds 171 0.83 -> 0.97 % and 1176 0.20 -> 0.83 %.
 * Without it a group whose share is just under its quota ran on every lane in slices, drew its
 * pool early and was throttled while its siblings, too few vCPUs for the lanes, left one idle
 * that the reference uses (seed 13 of the 10 ms caps kind); one the reference throttles took
 * lanes beyond its rate from hogs ahead by less than a slice, dried before the reference and
 * left lanes idle the same way (seed 171 of the 100 ms caps kind, 0.43 -> 0.27 %; 1246 of the
 * 10 ms kind, 2.29 -> 0.61 %).
 *
 * Inline in bw_lane_pace() and bw_pool_paced(), its every call; the rare part, a pool the
 * reference throttles, out of line (inside, pace() was no longer inlined: +3.7 % instructions
 * per decision on sim/scenarios/caps.sim).
 */
static inline double pace(const struct sched *s, const struct group_core *gc, unsigned int k,
			  bool take)
{
	double t, r, left;

	if (!gc->bw_enabled || gc->throttled || k < 2 || !heap_queued(&gc->timer_node) ||
	    gc->next_refill <= s->core.now)
		return HUGE_VAL;
	t = (double)(gc->next_refill - s->core.now);
	r = (double)gc->runtime / s->core.deliver;
	if (r >= k * t)
		return HUGE_VAL;
	if (r >= ancestors_let(s, gc, t))
		return HUGE_VAL;
	left = (double)gc->runtime_snap - gc->ref_used;
	if (gc->se.rate * t > left)
		return pace_to_ref_dry(s, gc, k, r, left, take);
	return r - (k - 1) * t;
}

/*
 * A k-th lane taken now is held min_run, past gc's refill: whether the next period's pool (at
 * most what is left now and a quota, within quota + burst), on the k lanes, runs dry before the
 * pace can lend any of them, at refill + R - (k - 1) P, or once the first of them is out of its
 * min_run. Then the throttle hands every lane out,
 * for min_run each, past the next refill again. Two lanes, /a (weight 5000, two hogs) at 1.9 ms
 * per 1 ms beside three hogs: /a took both lanes 50 us before its refill as the hogs' turns ended
 * together, was dry at 0.95 ms, inside both lanes' min_run, and ran two lanes half the time
 * (1.0 CPU of 1.887, 44.3 % of capacity; 24.5 % refused; docs/scheduler.md §4).
 */
static __noinline bool spans_dry_refill(const struct sched *s, const struct group_core *gc,
					unsigned int k)
{
	uint64_t now = s->core.now, first = now + s->core.params.min_run_ns;
	uint64_t pool = gc->runtime < gc->burst ? gc->runtime + gc->quota : gc->quota + gc->burst;
	double p = (double)gc->period, r = (double)pool / s->core.deliver, e;
	unsigned int l;

	if (k < 2 || r >= k * p)
		return false;
	for (l = 0; l < s->nr_lanes; l++) {
		const struct lane *ln = &s->core.lanes[l];

		if (ln->cur && ln->start + s->core.params.min_run_ns < first &&
		    se_under(&ln->cur->se, gc))
			first = ln->start + s->core.params.min_run_ns;
	}
	e = (double)gc->next_refill + r - (k - 1) * p;
	if (e < (double)first)
		e = (double)first;
	return e >= (double)gc->next_refill + r / k;
}

/*
 * Whether capped gc, paced by its pool, would not carry one more lane than its nr_running for
 * min_run, or that lane would dry its next pool before the pace could lend one (above): the pick
 * gives it none while anyone else waits (pick.c, paced()), and a refill claims none for it
 * (lanes_refill_claim()).
 */
bool bw_pool_paced(const struct sched *s, const struct group_core *gc, unsigned int nr_running)
{
	if (pace(s, gc, nr_running + 1, true) < s->core.min_run)
		return true;
	return gc->next_refill > s->core.now &&
	       gc->next_refill < s->core.now + s->core.params.min_run_ns && gc->bw_enabled &&
	       !gc->throttled && heap_queued(&gc->timer_node) &&
	       spans_dry_refill(s, gc, nr_running + 1);
}

/*
 * Time from now to the moment a capped ancestor of gc runs dry at the lanes it holds, of those
 * whose refill comes no earlier than gc's (HUGE_VAL if none): gc draws nothing after it this
 * period, whatever its own pool has left.
 */
double bw_ancestors_dry(const struct sched *s, const struct group_core *gc)
{
	const struct group_core *a;
	double dry = HUGE_VAL;

	for (a = gc->se.parent; a; a = a->se.parent) {
		double d;

		if (!a->bw_enabled || !a->se.nr_running || !heap_queued(&a->timer_node) ||
		    a->next_refill < gc->next_refill)
			continue;
		d = (double)a->runtime / (a->se.nr_running * s->core.deliver);
		if (d < dry)
			dry = d;
	}
	return dry;
}

/*
 * Where the reference throttles gc at its own dry point this period (as pace() tells it): *win,
 * the time from now to that point, the window in which the reference burns the pool at gc's
 * weighted share, and *need, the pool's lane time the lanes gc holds do not carry to it, which
 * the reference serves gc on its siblings' lanes inside the window, which ends at a capped
 * ancestor's dry point if that comes first (bw_ancestors_dry()). False where there is none
 * (or less than a bandwidth end's shortest: not worth a lane).
 */
bool bw_ref_window(struct sched *s, const struct group_core *gc, double *need, double *win)
{
	double t, left, dry, r;

	if (!gc->bw_enabled || gc->throttled || !heap_queued(&gc->timer_node) ||
	    gc->next_refill <= s->core.now)
		return false;
	r = bw_ref_rate(s, gc);
	if (r < RATE_MIN)
		return false;
	t = (double)(gc->next_refill - s->core.now);
	left = (double)gc->runtime_snap - gc->ref_used;
	if (left <= 0 || r * t <= left)
		return false;
	*win = bw_ref_dry_in(s, gc, r, left);
	if (*win >= t)
		return false;
	dry = bw_ancestors_dry(s, gc);
	if (dry < *win)
		*win = dry;
	*need = (double)gc->runtime / s->core.deliver - gc->se.nr_running * *win;
	return *need >= (double)BW_SLICE_MIN_NS;
}

/*
 * How long gc keeps a vCPU waiting beyond the lanes it holds, foreseen from the vCPUs' mean
 * bursts (vc->burst; none for one that never blocked, a hog): a holder blocks once its service
 * since it woke reaches its burst, and a waiter that would block so inside win, given a lane,
 * makes the group's extra lane one it can use only now (0). 0 with no waiter, HUGE_VAL where no
 * block that ends the wait is foreseen.
 */
double bw_waiters_end(struct sched *s, const struct group_core *gc, double win)
{
	unsigned int waiters, l, n, i;
	double end = 0;

	if (gc->nr_runnable <= gc->se.nr_running)
		return 0;
	for (i = 0; i < s->nr_vcpus; i++) {
		const struct vcpu_core *vc = &s->core.vcpus[i];

		if (vc->runnable && vc->lane < 0 && vc->burst > 0 && se_under(&vc->se, gc) &&
		    (vc->burst - (double)vc->ran) / s->core.deliver < win)
			return 0;
	}
	waiters = gc->nr_runnable - gc->se.nr_running;
	for (n = 0; n < waiters; n++) {
		double next = HUGE_VAL;

		for (l = 0; l < s->nr_lanes; l++) {
			const struct vcpu_core *vc = lane_of(s, l)->cur;
			double rem;

			if (!vc || !se_under(&vc->se, gc) || !(vc->burst > 0))
				continue;
			rem = (vc->burst - (double)vc->ran - (double)vc->held) / s->core.deliver;
			if (rem < 0)
				rem = 0;
			if (rem > end && rem < next)
				next = rem;
		}
		if (next == HUGE_VAL)
			return HUGE_VAL;
		end = next;
	}
	return end;
}

/*
 * The earliest moment a capped ancestor of running vc runs dry, all its lanes running and each
 * delivering what lanes were measured to deliver (sched/rates.c). Expecting full CPUs on a
 * loaded host would end slices early and again and again, a timer (a kick) each, for a pool
 * that is not dry; expecting too little only overruns into debt, paid at the next refill.
 *
 * Never closer than BW_SLICE_MIN_NS: a pool with less than that left is let overrun (debt)
 * rather than chased. Chasing it, each early end left a remainder a fraction of the last one,
 * and a remainder the lanes cannot consume before their timer (a few ns, lanes delivering less
 * than a CPU each) re-timed the lane every nanosecond until the refill (issue 13: deliver 70 %,
 * 28.5 M timer wake-ups in one simulated second).
 */
uint64_t bw_lane_until(const struct sched *s, const struct vcpu_core *vc)
{
	uint64_t until = SCHED_TIME_NONE;
	const struct group_core *gc;

	for (gc = vc->se.parent; gc; gc = gc->se.parent) {
		unsigned int k = gc->se.nr_running;
		uint64_t d;

		if (!gc->bw_enabled || !k)
			continue;
		d = (uint64_t)ceil((double)gc->runtime / (k * s->core.deliver));
		if (d < BW_SLICE_MIN_NS)
			d = BW_SLICE_MIN_NS;
		if (s->core.now + d < until)
			until = s->core.now + d;
	}
	return until;
}

/*
 * When running vc's lane goes back to a waiter (lanes_settle() asks only while someone waits):
 * the earliest pace end of its capped ancestors (pace()), SCHED_TIME_NONE if none is paced.
 * With exact reports the moment stays put as the pool is drawn (k lanes draw it k times as fast
 * as the time to the refill shrinks, k - 1 of them carrying it on), and the lane is handed out
 * again there (lanes_expire()); the paced group takes no lane back while others wait (pick.c).
 */
uint64_t bw_lane_pace(const struct sched *s, const struct vcpu_core *vc)
{
	uint64_t until = SCHED_TIME_NONE;
	const struct group_core *gc;

	for (gc = vc->se.parent; gc; gc = gc->se.parent) {
		double p = pace(s, gc, gc->se.nr_running, false);
		uint64_t t;

		if (p == HUGE_VAL)
			continue;
		t = s->core.now + (p > 0 ? (uint64_t)ceil(p) : 0);
		if (t < until)
			until = t;
	}
	return until;
}

/*
 * The lane time waiting capped gc needs beyond its k running lanes to spend its pool before the
 * refill (pool - k t, t the time to it), where the reference throttles gc this period: its rate
 * to the refill draws more than the reference has left of the pool, so it serves gc the whole
 * pool, and what is unspent at the refill is lost. 0 where gc needs none, is not waiting, or
 * holds vc (below it). The rate is the lower of the moment's and the period's mean so far: the
 * moment's is high while a capped sibling is throttled that the reference still serves, and
 * judged by it a group the reference leaves short was given its pool every period (10 ms caps
 * seed 1272, /g4/g6 beside /g4/g7 capped: 0.40 -> 1.28 % of capacity; 0.52 by the lower).
 */
static double owed_need(const struct sched *s, const struct group_core *gc,
			const struct vcpu_core *vc, double *t)
{
	const struct sched_core *c = &s->core;
	double need, el, r;

	if (gc->throttled || !heap_queued(&gc->se.node) || gc->next_refill <= c->now)
		return 0;
	if (se_under(&vc->se, gc))
		return 0;
	*t = (double)(gc->next_refill - c->now);
	el = (double)(c->now + gc->period - gc->next_refill);
	r = el > 0 && gc->ref_used < gc->se.rate * el ? gc->ref_used / el : gc->se.rate;
	if (r * *t <= (double)gc->runtime_snap - gc->ref_used)
		return 0;	/* the reference does not throttle gc: owed its rate only */
	need = (double)gc->runtime / c->deliver - gc->se.nr_running * *t;
	return need > 0 ? need : 0;
}

/*
 * A rotation end for a lane held outside waiting capped gc no later than the last moment one
 * more lane must go to gc for its pool to be spent before the refill (owed_need() from then on).
 * A slice renewed across that moment (a holder re-picked in a near tie) left gc the rest of its
 * window: one lane, /a max 4.5 ms per 10 ms beside /b weight 99, /b renewed at 46 ms to 49, /a
 * 4.0 ms of 4.5 at the refill at 50 (docs/scheduler.md §10, class B). Returns end, or that moment
 * where it is earlier and after now; a holder re-picked there gets a whole slice (the moment is
 * then past).
 */
uint64_t bw_lane_owed_end(const struct sched *s, const struct vcpu_core *vc, uint64_t end)
{
	const struct sched_core *c = &s->core;
	unsigned int i;

	for (i = 0; i < c->timers.nr; i++) {
		const struct group_core *gc = container_of(c->timers.a[i], struct group_core,
							   timer_node);
		double t, need;
		uint64_t latest;

		if (gc->next_refill >= end + (uint64_t)((double)gc->runtime / c->deliver))
			continue;	/* its last start is after end whatever it holds */
		need = owed_need(s, gc, vc, &t);
		if (need <= 0 || need >= t)
			continue;
		latest = gc->next_refill - (uint64_t)ceil(need);
		if (latest < end && latest > c->now)
			end = latest;
	}
	return end;
}
