// SPDX-License-Identifier: GPL-2.0
/*
 * Wakes and blocks at every level (fair.c has the model): an entity that stops being runnable
 * leaves its parent's sum with its lag saved, or stays delayed in it while in debt until V
 * catches up (fair_release()); one that wakes joins again with its lag.
 */

#include <math.h>

#include "internal.h"

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
