// SPDX-License-Identifier: GPL-2.0
/*
 * cpu.max and cpu.max.burst: one runtime pool per capped group, refilled by a period timer and
 * charged at every capped ancestor of a vCPU that ran (kernel/sched/fair.c, without per-CPU
 * silos: the pool is exact, and a lane's slice end is the moment the pool would run dry if all
 * lanes below the group keep running). The counters follow do_sched_cfs_period_timer():
 *
 *  nr_periods	 periods elapsed while the period timer was active; the timer starts when runtime
 *		 is drawn (or at a cpu.max write) and stops after a period with no draw and
 *		 nothing throttled;
 *  nr_throttled periods that ended with the group throttled;
 *  throttled_ns time throttled by the group's own pool, times the number of "CPUs" whose
 *		 runqueue of the group held work: min(runnable vCPUs below, lanes);
 *  nr_bursts, burst_ns  periods that drew more than quota from the pool, and the excess.
 *
 * Overrun past an empty pool (a late report from the runtime) is debt, paid from the next
 * refill after the burst snapshot, as the kernel pays a silo's negative runtime_remaining.
 */
#include "internal.h"
#include "sched/trace.h"

static bool timer_less(const struct heap_node *a, const struct heap_node *b)
{
	const struct group_core *x = container_of(a, struct group_core, timer_node);
	const struct group_core *y = container_of(b, struct group_core, timer_node);

	/*
	 * Equal refill times go by the heap's history, deterministic for the same events. By group
	 * creation order instead: `fuzz-sim --kind 5` seed 175 0.40 -> 0.54 % (test "a throttled
	 * subtree leaves V", bound 0.5).
	 */
	return x->next_refill < y->next_refill;
}

void bw_init(struct sched *s)
{
	heap_init(&s->core.timers, timer_less);
}

static bool timer_active(const struct group_core *gc)
{
	return heap_queued(&gc->timer_node);
}

/*
 * start_cfs_bandwidth(): the first point of the period grid after now, the moment the draw that
 * starts it began (a report covers service since the last one: counted from the report, a run
 * that began before a grid point was drawn from the period after it).
 */
static void timer_start(struct sched *s, struct group_core *gc, uint64_t now)
{

	if (timer_active(gc))
		return;
	gc->ref_used = 0;
	if (now < gc->phase)
		gc->next_refill = gc->phase;
	else
		gc->next_refill = gc->phase + ((now - gc->phase) / gc->period + 1) * gc->period;
	heap_insert(&s->core.timers, &gc->timer_node);
}

static void timer_stop(struct sched *s, struct group_core *gc)
{
	if (timer_active(gc))
		heap_remove(&s->core.timers, &gc->timer_node);
}

/* __refill_cfs_bandwidth_runtime(), burst statistics included. */
static void refill(struct sched *s, struct group_core *gc)
{
	struct cpu_stat *st = &gc->g->stat;

	if (!gc->bw_enabled)
		return;
	gc->runtime += gc->quota;
	if (gc->runtime_snap > gc->runtime) {
		st->burst_ns += gc->runtime_snap - gc->runtime;
		st->nr_bursts++;
		core_trace_group(s, gc, TRACE_BURST, gc->runtime_snap - gc->runtime);
	}
	if (gc->runtime > gc->quota + gc->burst)
		gc->runtime = gc->quota + gc->burst;
	gc->runtime_snap = gc->runtime;
}

static void pay_debt(struct group_core *gc)
{
	uint64_t pay = gc->debt < gc->runtime ? gc->debt : gc->runtime;

	gc->debt -= pay;
	gc->runtime -= pay;
}

static unsigned int throttle_width(const struct sched *s, const struct group_core *gc)
{
	return gc->nr_runnable < s->nr_lanes ? gc->nr_runnable : s->nr_lanes;
}

static void throttle_account(struct sched *s, struct group_core *gc)
{
	gc->g->stat.throttled_ns += throttle_width(s, gc) * (s->core.now - gc->throttle_clock);
	gc->throttle_clock = s->core.now;
}

static void local_account(struct sched *s, struct group_core *gc)
{
	gc->g->stat.local_throttled_ns += throttle_width(s, gc) * (s->core.now - gc->local_clock);
	gc->local_clock = s->core.now;
}

void bw_runnable_changing(struct sched *s, struct group_core *gc)
{
	if (gc->throttled)
		throttle_account(s, gc);
	if (gc->throttle_count)
		local_account(s, gc);
}

void bw_throttle_pending(const struct sched *s, const struct group_core *gc, struct cpu_stat *st)
{
	if (gc->throttled && s->core.now > gc->throttle_clock)
		st->throttled_ns += throttle_width(s, gc) * (s->core.now - gc->throttle_clock);
	if (gc->throttle_count && s->core.now > gc->local_clock)
		st->local_throttled_ns += throttle_width(s, gc) * (s->core.now - gc->local_clock);
}

/*
 * cpu.stat.local: tg_throttle_down() and tg_unthrottle_up() over the group's subtree. A group's
 * clock runs while a group at or above it is throttled, weighted as throttled_ns is.
 */
static void local_throttle(struct sched *s, struct group *g, bool down)
{
	struct group_core *gc = gcore(g);
	struct group *c;

	if (down) {
		if (!gc->throttle_count++)
			gc->local_clock = s->core.now;
	} else if (!--gc->throttle_count) {
		local_account(s, gc);
	}
	list_for_each_entry(c, &g->children, sibling)
		local_throttle(s, c, down);
}

void bw_group_init(struct group_core *gc, const struct group_core *parent, uint64_t now)
{
	gc->throttle_count = parent->throttle_count;
	gc->local_clock = now;
}

/*
 * A throttled group demands nothing: its siblings share its part until the refill (rates.c).
 * At the refill, the slices lanes paid up front (fair_prepay()) and have not run yet are paid
 * again at the new rates: they will be served at those. Left at the throttle's, a slice handed
 * out while the group was out counted, after the refill, as served while its siblings shared
 * the group's part: everyone else was credited its share of it, and its holder looked owed a
 * second slice in a period whose lanes the group needed to spend its quota (random caps, 10 ms
 * periods). The throttle is the same change the other way: a slice paid at the rates of the
 * group's run and served after it moved P (r1 / S1 - r2 / S2) from the siblings whose share
 * rose most to the others at every throttle: a child group holding several lanes beside
 * one-lane vCPUs lost some 3 ms a period to them, for good (issue 13, 10 ms caps seed 1606:
 * /g1/g3/g4 1.01 % of capacity under its share; test "a throttle pays prepaid slices again").
 */
static void throttle_rates(struct sched *s, struct group_core *gc, bool throttled)
{
	lanes_unpay(s);
	gc->throttled = throttled;
	rates_changed(s);
	rates_update(s);
	lanes_repay(s);
}

/*
 * gc is thrown out. The slices its lanes paid up front (fair_prepay()) and did not run are
 * refunded first, while it is still in its parent's sum: the prepayment lowered its lag by
 * P (1 - r / R) (V moved by P / R with it), and refunded after it left, at rate 0, its saved lag
 * got the whole P back, a bonus of r P / R at every throttle mid-slice (seed 1375 of the 10 ms
 * caps kind reduced: /g2, thrown out 1 ms into a 3 ms slice, came back with 2 ms of lag where
 * 1.5 was its).
 */
static void throttle(struct sched *s, struct group_core *gc)
{
	unsigned int l;

	fair_charge_held(s);
	bw_ref_throttle_credit(s, gc);
	for (l = 0; l < s->nr_lanes; l++) {
		struct vcpu_core *vc = s->core.lanes[l].cur;

		if (vc && se_under(&vc->se, gc))
			fair_refund(s, vc);
	}
	throttle_rates(s, gc, true);
	gc->throttle_clock = s->core.now;
	local_throttle(s, gc->g, true);
	if (heap_queued(&gc->se.node))
		fair_dequeue(s, &gc->se);
	for (l = 0; l < s->nr_lanes; l++) {
		struct vcpu_core *vc = s->core.lanes[l].cur;

		if (vc && se_under(&vc->se, gc))
			lanes_put_back(s, vc);
	}
	core_emit(s, SCHED_THROTTLE, gc->g);
	core_trace_group(s, gc, TRACE_THROTTLE, 0);
	core_trace_group(s, gc, TRACE_QUOTA, gc->runtime);
}

static void unthrottle(struct sched *s, struct group_core *gc)
{
	throttle_account(s, gc);
	local_throttle(s, gc->g, false);
	gc->se.lag += gc->throttle_credit;
	gc->throttle_credit = 0;
	gc->throttle_kept = false;
	throttle_rates(s, gc, false);
	if (gc->queue.nr && gc->se.parent) {
		struct vcpu_core *vc;
		unsigned int n, l;

		/*
		 * Every vCPU below woke at once: each claims its lane by the wake rule, as GPS gives
		 * the group its whole share at the refill. One claim, the rest left to rotation ends,
		 * ran its quota up to a slice late while a sibling held its lanes over its rate and
		 * shared that among its children by the rates of the group's run, where GPS, the
		 * group done, gives it to the children with room: one-lane vCPUs took part of their
		 * many-lane sibling's share (issue 13, 10 ms caps seed 1606, /g1/g3/g4 1.01 %).
		 * Free lanes first, by fair_pick() as lanes_settle() would: a claim that finds one
		 * takes none, and the claims stopped there, so a group refilled beside a lane left
		 * idle got that one lane and ran on fewer than its weighted share for up to a slice,
		 * spending its pool late (10 ms caps seed 213 0.877 %, 743 2.998 %: docs/scheduler.md
		 * §4 "A refill claims past a free lane"). The claims are a waker's, judged by what
		 * the group had and within its pace (lanes_refill_claim()).
		 */
		fair_enqueue(s, &gc->se);
		for (l = 0; l < s->nr_lanes; l++)
			if (!s->core.lanes[l].cur && (vc = fair_pick(s)))
				lanes_give(s, l, vc);
		for (n = 0; n < s->nr_lanes && heap_queued(&gc->se.node); n++)
			if (!lanes_refill_claim(s, gc))
				break;
	}
	core_emit(s, SCHED_UNTHROTTLE, gc->g);
	core_trace_group(s, gc, TRACE_UNTHROTTLE, 0);
}

bool bw_path_throttled(const struct vcpu_core *vc)
{
	const struct group_core *gc;

	for (gc = vc->se.parent; gc; gc = gc->se.parent)
		if (gc->throttled)
			return true;
	return false;
}

void bw_charge(struct sched *s, struct group_core *gc, uint64_t delta)
{
	gc->idle_period = false;
	timer_start(s, gc, s->core.now > delta ? s->core.now - delta : 0);
	if (gc->runtime >= delta) {
		gc->runtime -= delta;
	} else {
		gc->debt += delta - gc->runtime;
		gc->runtime = 0;
	}
	/* Dry: thrown out at the core's timer of this instant (bw_throttle_dry()). */
	if (!gc->runtime && !gc->throttled)
		s->core.bw_dry = gc->dry = true;
}

/*
 * Throw out the groups whose pool ran dry in a report, deepest first (the order the charges
 * came in), at the core's timer of the same instant (bw_next_timer() asks for it) or the next
 * wake or block. A throttle takes the group's lag, and the lanes it frees go to whoever is
 * first: both are judged from everyone's virtual time, and lanes report one by one (the
 * simulator at each step, the runtime's tick in rt_charge_running(), before sched_timer()).
 * Thrown out in the report, the group left with its siblings' service of the same moment, not
 * reported yet, counted as its own run ahead, and the lanes it freed went by virtual times that
 * lacked it: the result hung on the order the lanes reported (seed 175 of the 10 ms caps kind
 * static, 2 s, with the draw rule: 0.59 % of capacity in lane order, 0.25 % the other way round;
 * 0.09 % either way now).
 * Dry at the very moment its period ends: the refill at this same instant settles it
 * (sched_timer() refills first). Throttled first, the group lost its lanes and got them back at
 * once, a vCPU inside its min_run among them.
 */
void bw_throttle_dry(struct sched *s)
{
	unsigned int i;

	if (!s->core.bw_dry)
		return;
	s->core.bw_dry = false;
	for (;;) {
		struct group_core *gc = NULL;

		for (i = 0; i < s->core.timers.nr; i++) {
			struct group_core *x = container_of(s->core.timers.a[i], struct group_core,
							    timer_node);

			if (x->dry && (!gc || x->g->depth > gc->g->depth))
				gc = x;
		}
		if (!gc)
			return;
		gc->dry = false;
		if (gc->bw_enabled && !gc->runtime && !gc->throttled &&
		    gc->next_refill > s->core.now)
			throttle(s, gc);
	}
}

/*
 * At the refill of gc, not throttled, the lanes its pace end lent outside it in the period just
 * ended (lanes_expire()) come back: their holders' turns end now, or at their min_run. The pace
 * lends a lane because the pool does not carry all of gc's lanes to the refill; from the refill
 * the reference runs gc at its share again, and nothing else asks the lane back (the refill of a
 * group not throttled makes no claim). Left to the rotation, the holder kept it its whole slice
 * past the refill, and gc's refilled pool went unspent: two lanes, /a (weight 5000, two hogs)
 * `max 19ms 10ms` beside three hogs, its pace lending a lane at 9 ms, a hog held it to 12 every
 * period: /a 1.85 CPU of 1.887 (1.84 % of capacity; docs/scheduler.md §4).
 */
static void refill_lent(struct sched *s, const struct group_core *gc)
{
	uint64_t min_run = s->core.params.min_run_ns, now = s->core.now;
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct lane *ln = lane_of(s, l);
		uint64_t end;

		if (!ln->lent || !ln->cur || ln->start + gc->period <= now ||
		    !se_under(&s->core.vcpus[ln->lent - 1].se, gc) || se_under(&ln->cur->se, gc))
			continue;
		ln->lent = 0;
		end = ln->start + min_run > now ? ln->start + min_run : now;
		if (ln->rot_until > end)
			lanes_end_turn(s, ln, end);
	}
}

/* do_sched_cfs_period_timer() for every group whose period ended by now. */
void bw_timer(struct sched *s)
{
	struct heap_node *n;

	while ((n = heap_min(&s->core.timers))) {
		struct group_core *gc = container_of(n, struct group_core, timer_node);
		uint64_t overrun;
		bool throttled;

		if (gc->next_refill > s->core.now)
			break;
		overrun = 1 + (s->core.now - gc->next_refill) / gc->period;
		gc->next_refill += overrun * gc->period;
		if (!gc->bw_enabled) {
			timer_stop(s, gc);
			continue;
		}
		throttled = gc->throttled;
		gc->g->stat.nr_periods += overrun;
		refill(s, gc);
		gc->ref_used = 0;
		pay_debt(gc);
		core_trace_group(s, gc, TRACE_REFILL, gc->runtime);
		core_trace_group(s, gc, TRACE_QUOTA, gc->runtime);
		if (gc->idle_period && !throttled) {
			timer_stop(s, gc);
			continue;
		}
		heap_fix(&s->core.timers, n);
		if (!throttled) {
			gc->idle_period = true;
			refill_lent(s, gc);
			continue;
		}
		gc->g->stat.nr_throttled += overrun;
		if (gc->runtime)
			unthrottle(s, gc);
		gc->idle_period = false;
	}
	/* Only a group with its period timer running draws, so runs dry: none without one. */
	if (n && s->core.bw_dry)
		bw_throttle_dry(s);
}

/*
 * tg_set_cfs_bandwidth()'s side effects, on every successful write: new values, debts
 * forgiven, a refill, the period timer started, and the group unthrottled.
 */
void bw_configure(struct sched *s, struct group_core *gc)
{
	struct group *g = gc->g;
	bool enable = g->quota_us != RUNTIME_INF && group_has_cpu(g);

	if (enable != gc->bw_enabled) {
		if (enable)
			s->core.nr_bw_groups++;
		else
			s->core.nr_bw_groups--;
	}
	gc->bw_enabled = enable;
	gc->period = g->period_us * 1000;
	gc->burst = g->burst_us * 1000;
	gc->dry = false;
	if (enable) {
		gc->quota = g->quota_us * 1000;
		gc->debt = 0;
		refill(s, gc);
		gc->ref_used = 0;
		if (!timer_active(gc))
			gc->phase = s->core.now;
		timer_start(s, gc, s->core.now);
	}
	if (gc->throttled)
		unthrottle(s, gc);
}

void bw_group_exit(struct sched *s, struct group_core *gc)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++)
		if (s->core.lanes[l].promised == gc) {
			s->core.lanes[l].promised = NULL;
			s->core.lanes[l].promised_at = SCHED_TIME_NONE;
		}
	timer_stop(s, gc);
	if (gc->bw_enabled)
		s->core.nr_bw_groups--;
}
