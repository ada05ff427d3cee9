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
