// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical fairness by fluid rates and per-level virtual time.
 *
 * Rates (sched/rates.c). The fluid ideal solved for the current demand (weights, water-filling
 * and cpu.max caps as in sched/fluid.c) gives every runnable entity, vCPU or group, its rate: the
 * CPUs it is owed right now; a group's rate is the sum of its children's.
 *
 * Virtual time. Every group keeps its runnable children in a sum and the ones with a waiting
 * vCPU below in a queue ordered by virtual deadline (vt + request / rate, EEVDF); service d
 * advances an entity's vt by d / rate at every level. A lane goes to the vCPU reached by taking
 * the earliest eligible deadline at each level from the root down (sched/pick.c). Siblings
 * served exactly at their rates keep equal vt, so vt differences are time lags, and every
 * group's usage follows its fluid share at every level.
 *
 * Why rates and not weights: with P lanes, a child whose demand is below its weighted share
 * (one vCPU, or a cap) would under weights fall behind in vt and build up credit; with its
 * rate being what water-filling gives it, it keeps pace, and its siblings' rates already
 * include what it leaves over. A group owed 1.2 CPUs whose one-vCPU child is owed 0.9 keeps a
 * lane as long as that child needs it, because the child's vt, not the group's lane history,
 * decides inside the group.
 *
 * Lag. L = rate * (V - vt) is service owed, V being the rate-weighted mean vt of the runnable
 * (and delayed) siblings. A rate change keeps every L. An entity that goes to sleep owed
 * service keeps its L and gets it back on waking, bounded to lag_ns: no hoard of credit for a
 * long sleeper. One that goes to sleep ahead of its share stays delayed in the sum and the
 * rates until V catches up with it (fair_block()): its debt is repaid while it sleeps, as GPS
 * would go on serving the burst it ran ahead of, and it wakes level instead of waiting a
 * rotation while its work is due.
 *
 * Cost: pick, charge, enqueue are O(depth * log n); rates change only on wakes, blocks and
 * configuration changes (sched/rates.c).
 */

#include <math.h>

#include "internal.h"

/* The head of p's queue changed: p's request, and so its deadline, may have (fair_request()). */
static void head_changed(const struct sched *s, struct group_core *p)
{
	double base;

	if (heap_queued(&p->se.node)) {
		fair_request(s, &p->se, &base);
		if (base != p->se.breq)
			fair_requeue(s, &p->se);
	}
}

/* se's key changed: its place in its parent's queue. */
static void requeue_here(const struct sched *s, struct sched_entity *se)
{
	fair_set_key(s, se);
	if (heap_queued(&se->node))
		queue_fix(se->parent, se);
}

void fair_requeue(const struct sched *s, struct sched_entity *se)
{
	requeue_here(s, se);
	if (heap_queued(&se->node))
		head_changed(s, se->parent);
}

/* Queue se in its parent and, where the parent had nobody waiting, the parent in its own
 * parent, up to the root or a throttled group. */
void fair_enqueue(struct sched *s, struct sched_entity *se)
{
	struct group_core *p;

	while ((p = se->parent)) {
		bool was_empty = !p->queue.nr;

		fair_set_key(s, se);
		queue_insert(p, se);
		if (!was_empty) {
			if (heap_min(&p->queue) == &se->node)
				head_changed(s, p);
			break;
		}
		if (p->throttled || !p->se.parent)
			break;
		se = &p->se;
	}
}

void fair_dequeue(struct sched *s, struct sched_entity *se)
{
	struct group_core *gc;

	while ((gc = se->parent)) {
		bool head = heap_min(&gc->queue) == &se->node;

		queue_remove(gc, se);
		if (gc->queue.nr) {
			if (head)
				head_changed(s, gc);
			break;
		}
		se = &gc->se;
		if (!heap_queued(&se->node))
			break;
	}
}

bool fair_waiting(const struct vcpu_core *vc)
{
	return heap_queued(&vc->se.node);
}

static void sum_remove(struct sched_entity *e)
{
	struct group_core *p = e->parent;
	double V = fair_vclock(p);

	p->sum_rvt -= e->rate * e->vt;
	p->sum_r -= e->rate;
	if (p->sum_r <= RATE_MIN) {
		p->sum_r = 0;
		p->sum_rvt = 0;
		p->owed = 0;
		p->vbase = V;
	}
}

static void delay_end(struct sched *s, struct sched_entity *se)
{
	struct vcpu_core *d = se->delayer;

	list_del(&se->delay_node);
	se->delayed = false;
	se->delayer = NULL;
	/* Its vCPU demanded for it; with nothing left delayed it demands nothing. */
	if (!--d->delaying && !d->runnable)
		rates_path_changed(s, d);
}

/*
 * vc became runnable. Entities on its path that were not runnable become so: a delayed one is
 * still in its parent's sum and goes on with its vt; a sleeping one has rate 0 and its saved
 * lag, and as the new rates come in it joins its parent's sum with that lag back, bounded by
 * lag_ns (set_rate() in rates.c). One under a throttled group stays out until the refill.
 */
void fair_wake(struct sched *s, struct vcpu_core *vc)
{
	struct sched_entity *se;

	if (vc->slept_at) {
		double d = (double)(s->core.now + 1 - vc->slept_at);

		vc->nap = vc->nap > 0 ? (3 * vc->nap + d) / 4 : d;
		vc->slept_at = 0;
	}
	vc->ran = 0;
	vc->waited = 0;
	vc->woke_at = s->core.now;
	for (se = &vc->se; se->parent && !se->runnable; se = &se->parent->se) {
		if (se->delayed)
			delay_end(s, se);
		else
			se->rate = 0;
		se->runnable = true;
	}
	rates_path_changed(s, vc);
	rates_update(s);
}

/* se leaves its parent's sum, saving its lag. */
void fair_sum_leave(struct sched_entity *se)
{
	/* Rate 0: out of the sum already (owed nothing), its lag saved. */
	if (se->rate > 0) {
		se->lag = se->rate * (fair_vclock(se->parent) - se->vt);
		sum_remove(se);
	}
	se->rate = 0;
}

/*
 * se goes to sleep owed L > 0. It leaves its parent's sum as if it were at V, so V does not
 * move, and its siblings' debt, L in all (they ran while it waited), is forgiven by
 * rates_update() once their new rates are known: to the ones whose rates its leaving raised
 * (sched/rates.c, share_owed()).
 */
static void sum_leave_owed(struct sched_entity *se)
{
	struct group_core *p = se->parent;
	double V = fair_vclock(p), L = se->rate * (V - se->vt);

	if (!(L > 0) || p->sum_r - se->rate <= RATE_MIN) {
		fair_sum_leave(se);
		return;
	}
	se->lag = L;
	p->sum_rvt -= se->rate * V;
	p->sum_r -= se->rate;
	p->owed += L;
	se->rate = 0;
}

/*
 * The part of the service vc is owed as it blocks that it waited for: GPS would have served it
 * as it woke, so it would have done its work and be asleep, demanding nothing. While it waited
 * it counted as a CPU of demand in its ancestors' rates, which credited them a share they had
 * no work for (docs/scheduler.md §10). The time its lag stands for, at most the time it
 * actually waited since it woke; rates_update() forgives its ancestors' part (rates.c). That lag
 * is read where it is shared: at the topmost entity its block takes out of the sum (vc, or a
 * group left with nothing runnable), against the V of the level that stays. Read at vc's own
 * level, a vCPU alone in its group was never owed anything there (its V is its vt), and its
 * waits credited its ancestors in full: a duty vCPU alone in /a/b beside a hog in /a and a root
 * hog, 2.95 % of capacity against 0.17 with the vCPU in /a itself (`make fuzz-sim` kind 2 seed
 * 1883: 1.02 %; test "a waker alone in its group is forgiven its wait").
 */
static double wait_owed(const struct vcpu_core *vc)
{
	const struct sched_entity *se = &vc->se;
	double t;

	if (!vc->waited)
		return 0;
	/* fair_block() runs after the runnable counts dropped: an empty group leaves too. */
	while (se->parent->se.parent && !se->parent->nr_runnable)
		se = &se->parent->se;
	if (!(se->rate > 0))
		return 0;
	t = fair_vclock(se->parent) - se->vt;
	if (!(t > 0))
		return 0;
	return t < (double)vc->waited ? t : (double)vc->waited;
}

/*
 * vc stopped being runnable: it, and groups left with nothing runnable, stop being runnable.
 * One that ran ahead of its share (lag < 0) and goes to sleep stays delayed: in its parent's
 * sum and in the rates, as the kernel's EEVDF keeps a sleeper in debt on its runqueue
 * (DELAY_DEQUEUE) and as GPS goes on serving a burst that ran ahead of it, until V has caught
 * up with it (fair_release()); its siblings get its share meanwhile, and repaid. The others,
 * and every one of them when vc only moves (sleep false), leave with their lag saved; what a
 * sleeper was owed its siblings owed, and that debt is forgiven (sum_leave_owed()).
 *
 * Why: a sleeper that left with its debt had it forgiven in V at once (its siblings lost what
 * it ran ahead) and brought it back on waking, to wait a rotation while its work was due; one
 * that kept a reservation of its recent demand while asleep (the first design) was owed credit
 * GPS does not give, and its group got its bursts at two lanes when its share was less (issue
 * 13: mixed.sim 2.3 % of capacity against GPS).
 */
void fair_block(struct sched *s, struct vcpu_core *vc, bool sleep)
{
	struct sched_entity *se = &vc->se;
	double wait = sleep ? wait_owed(vc) : 0, gps_end, ref_wait;

	/* Its request: what it ran from waking to blocking, averaged (fair_request()). */
	if (sleep)
		vc->burst = vc->burst > 0 ? (3 * vc->burst + (double)vc->ran) / 4 : (double)vc->ran;
	vc->slept_at = sleep ? s->core.now + 1 : 0;

	vc->delay_ref_end = (double)s->core.now;
	gps_end = vc->se.rate > RATE_MIN ? (double)vc->woke_at + (double)vc->ran / vc->se.rate : 0;
	for (; se->parent; se = &se->parent->se) {
		if (se->is_group && se_group(se)->nr_runnable)
			break;
		se->runnable = false;
		if (sleep && se->rate > 0 && se->vt > fair_vclock(se->parent)) {
			/* At its rate, GPS serves what it ran ahead in vt - V (bandwidth_ref.c). */
			double ref_end = (double)s->core.now + se->vt - fair_vclock(se->parent);

			if (ref_end > vc->delay_ref_end)
				vc->delay_ref_end = ref_end;
			se->delayed = true;
			se->delayer = vc;
			vc->delaying++;
			list_add_tail(&se->delay_node, &s->core.delayed);
			continue;
		}
		if (sleep)
			sum_leave_owed(se);
		else
			fair_sum_leave(se);
	}
	/*
	 * Blocked owed (not delayed: a delay times its own end), its burst still runs in GPS,
	 * at its rate from its wake (its rate before the block took it out): the reference's
	 * draw counts it to then (ref_rates() in bandwidth_ref.c). Left out from the block, a
	 * capped sibling's draw ran ahead of GPS and its throttles were credited as the
	 * reference's (docs/scheduler.md §4, "The reference serves an owed burst"). Delayed
	 * sleepers too moved the /latency vCPU of test "a sleeper repays its debt while asleep"
	 * to a median wait of 3 ms.
	 */
	if (sleep && !vc->delaying && gps_end > vc->delay_ref_end)
		vc->delay_ref_end = gps_end;
	/*
	 * The wait forgiven in the lags is taken out of the reference's draws too, over the part
	 * of it GPS had the vCPU gone: none where its burst still runs there (above), at most
	 * since its GPS end.
	 */
	ref_wait = vc->delaying || gps_end > (double)s->core.now ? 0 :
		   fmin(wait, (double)s->core.now - gps_end);
	/* New delays to time, or a group left whose delayed children wait no more. */
	if (!list_empty(&s->core.delayed) && s->core.next_release > s->core.now)
		s->core.next_release = s->core.now;
	rates_path_changed(s, vc);
	s->core.path_wait = wait;
	if (ref_wait > 0)
		bw_ref_wait_begin(s);
	rates_update(s);
	if (ref_wait > 0)
		bw_ref_wait_end(s, ref_wait);
}

/* vc moves while asleep: what its block left delayed leaves now, keeping its debt. */
void fair_undelay_all(struct sched *s, struct vcpu_core *vc)
{
	struct sched_entity *se, *n;

	list_for_each_entry_safe(se, n, &s->core.delayed, delay_node) {
		if (se->delayer != vc)
			continue;
		delay_end(s, se);
		fair_sum_leave(se);
	}
}

/*
 * Delayed entities whose level's V has caught up with them leave its sum (lag 0, V does not
 * move), and so do those whose level is no longer served (their group left its own parent's
 * sum: their V stands still, and waiting, their vCPU would reserve a share nobody repays); the
 * time the next one is expected to (V advances about as fast as time while its level is served
 * at its rate), for sched_next_timer(). O(delayed) once per event that finds one due: the list
 * holds sleepers of the last few ms.
 */
void fair_release(struct sched *s)
{
	struct sched_core *c = &s->core;
	struct sched_entity *se, *n;
	uint64_t next = SCHED_TIME_NONE;

	if (c->next_release > c->now)
		return;
	list_for_each_entry_safe(se, n, &c->delayed, delay_node) {
		const struct sched_entity *p = &se->parent->se;
		double ahead = se->vt - fair_vclock(se->parent);

		if (ahead > 0.5 && se->rate > RATE_MIN &&
		    (!p->parent || p->runnable || p->delayed)) {
			if (c->now + (uint64_t)ahead + 1 < next)
				next = c->now + (uint64_t)ahead + 1;
			continue;
		}
		delay_end(s, se);
		fair_sum_leave(se);
	}
	c->next_release = next;
}

/*
 * What a group's running children are owed inside it: the lag of those behind its V. Nothing
 * waits below a saturated group, so they hold their lanes at a whole CPU each, and what they are
 * owed is what they gave up to a sibling's burst that is now delayed (GPS serves it still).
 */
static double owed_inside(struct group_core *gc)
{
	double V = fair_vclock(gc), owed = 0;
	struct sched_entity *c;

	list_for_each_entry(c, &gc->running, run_node)
		if (c->rate > 0 && c->vt < V)
			owed += c->rate * (V - c->vt);
	return owed;
}

/*
 * An entity running everything it has (lanes held, nobody waiting below) with fewer lanes than
 * its rate (its rate holds a delayed sleeper's share) cannot use what it is owed while it stays
 * so. Left in V, credit beyond a slice made its siblings look ahead and ineligible: keep it
 * within a slice of V, or, for a group, within what its running children are owed inside it.
 * GPS gives that much back to them at the group's next waiter; thrown away, it stayed with
 * the group's sibling (issue 13, `make fuzz-sim` kind 2 seed 843: a hog owed 0.26 of a lane
 * beside a group whose duty vCPU was delayed got 0.53 CPU; docs/scheduler.md §2 "Saturated
 * entities").
 */
static void bound_saturated(struct sched_entity *se, double slice)
{
	struct group_core *p = se->parent;
	double lo = fair_vclock(p) - slice / se->rate, owed;

	if (heap_queued(&se->node) || !se->nr_running || se->nr_running >= se->rate ||
	    se->vt >= lo)
		return;
	if (se->is_group && (owed = owed_inside(se_group(se))) > slice) {
		lo = fair_vclock(p) - owed / se->rate;
		if (se->vt >= lo)
			return;
	}
	p->sum_rvt += se->rate * (lo - se->vt);
	se->vt = lo;
}

/* Service d at every level from se up (a vCPU's, or a group's own: fair_charge_group()). */
static void charge_from(struct sched *s, struct sched_entity *se, double d)
{
	double slice = s->core.slice;

	for (; se->parent; se = &se->parent->se) {
		if (se->rate <= 0) {
			/* Reported after it stopped being runnable: its saved lag pays. */
			se->lag -= d;
			continue;
		}
		se->vt += d / se->rate;
		se->parent->sum_rvt += d;
		/* Every queued ancestor is requeued in turn: no head to pass up here. */
		if (heap_queued(&se->node))
			requeue_here(s, se);
		else if (d > 0)
			bound_saturated(se, slice);
	}
}

static void charge_path(struct sched *s, struct vcpu_core *vc, double d)
{
	charge_from(s, &vc->se, d);
}

/* CPU the group's own threads used (sched_group_charge()): its entity and every one above. */
void fair_charge_group(struct sched *s, struct group_core *gc, uint64_t delta)
{
	charge_from(s, &gc->se, (double)delta);
}

/*
 * Charge first (scx_flatcg): a vCPU given a lane with a slice end pays for the slice at once,
 * at every level. Lanes handed out at the same moment then see each other: they spread over
 * groups by share instead of all going to whoever was behind, so a group holds its lanes as
 * evenly over time as its share allows. Service first uses up the prepayment; what is left is
 * refunded when the vCPU leaves the lane or nobody waits any more.
 */
void fair_prepay(struct sched *s, struct vcpu_core *vc, uint64_t slice)
{
	(void)s;
	vc->resv += slice;
	charge_path(s, vc, (double)slice);
}

void fair_refund(struct sched *s, struct vcpu_core *vc)
{
	(void)s;
	if (!vc->resv)
		return;
	charge_path(s, vc, -(double)vc->resv);
	vc->resv = 0;
}

/* Service beyond the prepaid slice: what fair_charge_held() charged early is paid already. */
static void charge_rest(struct sched *s, struct vcpu_core *vc, uint64_t delta)
{
	uint64_t used = delta < vc->early ? delta : vc->early;

	vc->early -= used;
	if (delta > used)
		charge_path(s, vc, (double)(delta - used));
}

void fair_charge(struct sched *s, struct vcpu_core *vc, uint64_t delta)
{
	uint64_t used = delta < vc->resv ? delta : vc->resv;

	vc->ran += delta;
	vc->resv -= used;
	if (delta > used)
		charge_rest(s, vc, delta - used);
}

/*
 * A throttle comes inside one holder's report, when that report dries the pool, and its rate
 * change measures every lag against V. The other holders' reports for the same moment come
 * after it (the simulator and the runtime report lanes one by one), so their virtual times lack
 * what they ran since their last report, and V with them: up to the whole time since the last
 * event, where no slice end made one. Whatever the rates change then moves by that error for
 * good (issue 13, caps of 100 ms seed 1656: a group of weight 2271 whose capped child was
 * throttled after 72 ms alone with three hogs of a light group unreported for 22 ms came out of
 * it 39 ms ahead instead of 5 ms behind, waited at every refill while the light group kept its
 * lanes, 1.11 % of capacity). So each holder is first charged what its lane time since its last
 * report delivered, beyond what it paid up front; its report then pays only the rest.
 */
void fair_charge_held(struct sched *s)
{
	unsigned int l;

	for (l = 0; l < s->nr_lanes; l++) {
		struct vcpu_core *vc = s->core.lanes[l].cur;
		uint64_t ran, paid;

		if (!vc || !vc->held)
			continue;
		ran = (uint64_t)((double)vc->held * s->core.deliver);
		paid = vc->resv + vc->early;
		if (ran > paid) {
			charge_path(s, vc, (double)(ran - paid));
			vc->early += ran - paid;
		}
	}
}

static void running_inc(struct sched_entity *se)
{
	for (; se; se = se->parent ? &se->parent->se : NULL)
		if (!se->nr_running++ && se->parent)
			list_add_tail(&se->run_node, &se->parent->running);
}

static void running_dec(struct sched_entity *se)
{
	for (; se; se = se->parent ? &se->parent->se : NULL)
		if (!--se->nr_running && se->parent)
			list_del(&se->run_node);
}

void fair_set_running(struct sched *s, struct vcpu_core *vc)
{
	if (heap_queued(&vc->se.node))
		fair_dequeue(s, &vc->se);
	running_inc(&vc->se);
}

void fair_clear_running(struct sched *s, struct vcpu_core *vc)
{
	(void)s;
	running_dec(&vc->se);
}
