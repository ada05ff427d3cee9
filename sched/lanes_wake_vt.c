// SPDX-License-Identifier: GPL-2.0
/*
 * A virtual-time preemption decided ahead of the wake, for host mode's held-lane offers
 * (host/host_offer.c): the lane a blocked vCPU would take from its holder by lanes_waiter_arrived()'s
 * virtual-time rule (behind the holder by more than min_run at the level where the two meet,
 * once the holder has run min_run), computed read-only from the state between two events.
 *
 * What a wake does there, in rates_update() and set_rate() (sched/rates.c), is replayed in
 * closed form, on one lane only. There, with nobody waiting, the holder h is the only runnable
 * vCPU: every entity with a demand has a demand of at least one CPU, no more than the one lane
 * to share, so water-filling gives each level's demanding children shares by weight, and a
 * wake below level P (where the waker's side ew and the holder's side er meet) changes no rate
 * above P. At P the demanding children D (er, and delayed siblings) are scaled by
 * W_D / (W_D + W_ew) and ew joins with W_ew / (W_D + W_ew) of P's rate: rebased around V
 * (which does not move), ew at V less its bounded lag, then the joiner's rule (it keeps
 * L S / (S + r) of its lag) and share_owed() charging what it kept to D by how much their rates
 * fell. A delayed ew (delayed by the waker itself) moves no rate: both keep their vt.
 *
 * Nothing else moves between the events: the holder is not charged until the claim is honoured
 * (host_offer_honour() charges every holder but it; on one lane there is no other), so the key
 * is the same at every wake time t and only lane_kept() depends on t: the answer is "from
 * start + min_run on, until the next event". So no latest moment is needed on one lane. On
 * several lanes the other holders' charges (the daemon's wall-time estimates) move V and the
 * other lanes' keys between events, and the water-filling is no longer by weight alone: not
 * covered (docs/host.md, "Held-lane offers: what the rule covers").
 *
 * Conservative: any case outside the above (a cap on either path, an entity delayed by another
 * vCPU on the waker's path, whose release would redo every rate; a rate near a threshold; a
 * key within VT_MARGIN of the tie) names no lane. tests/unit/test_core_wake_lane.c replays every
 * lane named here on a twin core.
 */
#include <stdbool.h>
#include <stdint.h>

#include "internal.h"

/* Rounding of the closed form against the core's own sequence of operations: far below it. */
#define VT_MARGIN	100.0		/* ns of virtual time */
#define RATE_MARGIN	1e-6

static double se_weight(struct sched_entity *se)
{
	return se->is_group ? (double)se_group(se)->g->shares : (double)NICE_0_LOAD;
}

/*
 * P's children as fluid_claims() lists them: the weight and rate of those with a rate. False if
 * one demands without a rate or the other way round (a group asleep above a vCPU's delay): the
 * water-filling then counts a child the sum does not hold.
 */
static bool demanding(struct sched *s, const struct group *g, bool top, double *w, double *r)
{
	const struct sched_vcpu *v;
	const struct group *c;

	list_for_each_entry(v, &g->vcpus, group_node) {
		struct sched_entity *se = &s->core.vcpus[v->id].se;

		if ((se->rate > 0) != (s->core.demand[v->id] > 0))
			return false;
		if (se->rate > 0) {
			*w += NICE_0_LOAD;
			*r += se->rate;
		}
	}
	list_for_each_entry(c, &g->children, sibling) {
		struct sched_entity *se = &gcore(c)->se;

		if (!g->subtree_cpu) {
			if (!demanding(s, c, false, w, r))
				return false;
			continue;
		}
		if (!top)
			continue;
		if ((se->rate > 0) != (gcore(c)->demand > 0))
			return false;
		if (se->rate > 0) {
			*w += (double)c->shares;
			*r += se->rate;
		}
	}
	return true;
}

static bool path_capped(const struct sched_entity *se)
{
	const struct group_core *gc;

	for (gc = se->parent; gc; gc = gc->se.parent)
		if (gc->bw_enabled || gc->throttled)
			return true;
	return false;
}

/* Near a threshold the closed form and the core may disagree: no answer. */
static bool near(double x, double edge)
{
	return x > edge - RATE_MARGIN && x < edge + RATE_MARGIN;
}

int sched_wake_vt_lane(const struct sched *cs, unsigned int id, uint64_t *from)
{
	struct sched *s = (struct sched *)cs;	/* read only */
	double min_run = (double)s->core.params.min_run_ns, W_D = 0, R = 0, W_ew, f, key;
	double r_er, r_ew, rh, ew_vt, er_vt;
	const struct lane *ln = &s->core.lanes[0];
	struct sched_entity *ew, *er, *se;
	struct vcpu_core *vc, *h;
	bool misplaced;

	if (s->nr_lanes != 1 || id >= s->nr_vcpus)
		return -1;
	vc = &s->core.vcpus[id];
	h = ln->cur;
	if (!h || h == vc || h->told_lane < 0 || vc->runnable || path_capped(&vc->se) ||
	    path_capped(&h->se))
		return -1;
	ew = &vc->se;
	er = &h->se;
	common_level(&ew, &er);
	/* The cpu.idle rule's case (sched_wake_takes_lane()); a runnable ew is not one wake's. */
	if ((er->idle && !ew->idle) || ew->runnable || !er->runnable || er->rate <= RATE_MIN)
		return -1;
	/* Ending another vCPU's delay would redo every rate (rates_path_changed()). */
	for (se = &vc->se; se != &ew->parent->se; se = &se->parent->se)
		if (se->delayed && se->delayer != vc)
			return -1;
	rh = h->se.rate;
	if (ew->delayed) {
		/* w's demand is in the rates already: nothing moves at P. */
		r_ew = ew->rate;
		r_er = er->rate;
		ew_vt = ew->vt;
		er_vt = er->vt;
	} else {
		double V = fair_vclock(ew->parent), x, S, owed;

		if (vc->delaying || !demanding(s, ew->parent->g, true, &W_D, &R))
			return -1;
		W_ew = se_weight(ew);
		if (W_D <= 0 || R <= RATE_MIN)
			return -1;
		f = W_D / (W_D + W_ew);
		r_ew = R * (1 - f);
		S = R * f;
		r_er = er->rate * f;
		rh *= f;
		if (r_ew < RATE_MARGIN || r_er < RATE_MARGIN)
			return -1;
		/* set_rate(): rebased with its bounded lag, then the joiner's part of it. */
		x = rates_clamp_lag((double)s->core.params.lag_ns, ew->lag, r_ew) / r_ew;
		ew_vt = V - x * S / (S + r_ew);
		owed = -r_ew * (V - ew_vt);
		/* The holder's side keeps its lag at its new rate, then pays its part of owed. */
		er_vt = V - er->rate * (V - er->vt) / r_er;
		er_vt -= owed * (er->rate - r_er) / r_ew / r_er;
	}
	/* owns_lane() and lane_misplaced() at the new rates, away from their edges. */
	if (near(rh, 1.0) || rh >= 1.0 ||
	    near((double)ew->nr_running + 1.0, r_ew) || near((double)er->nr_running, r_er + 1.0))
		return -1;
	misplaced = (double)ew->nr_running + 1.0 <= r_ew && (double)er->nr_running >= r_er + 1.0;
	key = er_vt - ew_vt - (misplaced ? -min_run : min_run);
	if (!(key > VT_MARGIN))
		return -1;
	/* lane_kept() by time: taken once the holder has run min_run. */
	*from = ln->start + s->core.params.min_run_ns;
	if (*from < s->core.now)
		*from = s->core.now;
	return 0;
}
