// SPDX-License-Identifier: GPL-2.0
/*
 * A virtual-time preemption decided ahead of the wake, for host mode's held-lane offers
 * (host/host_offer.c): the lane a blocked vCPU would take from its holder by
 * lanes_waker_arrived()'s virtual-time rule (behind the holder at the level where the two meet by
 * more than min_run, on several lanes min_run of service at its side's rate, wake_gran(), once the
 * holder has run min_run), computed read-only from the state between two events.
 *
 * What a wake does there, in rates_update() and set_rate() (sched/rates.c), is replayed in closed
 * form, on one lane only. There, with nobody waiting, the holder h is the only runnable vCPU:
 * every entity with a demand has a demand of at least one CPU, no more than the one lane to share,
 * so water-filling gives each level's demanding children shares by weight, and a wake below level
 * P (where the waker's side ew and the holder's side er meet) changes no rate above P. At P the
 * demanding children D (er, and delayed siblings) are scaled by W_D / (W_D + W_ew) and ew joins
 * with W_ew / (W_D + W_ew) of P's rate: rebased around V (which does not move), ew at V less its
 * bounded lag, then the joiner's rule (it keeps L S / (S + r) of its lag) and share_owed()
 * charging what it kept to D by how much their rates fell. A delayed ew (delayed by the waker
 * itself) moves no rate: both keep their vt.
 *
 * Nothing else moves between the events: the holder is not charged until the claim is honoured
 * (host_offer_honour() charges every holder but it; on one lane there is no other), so the key is
 * the same at every wake time t and only lane_kept() depends on t: the answer is "from start +
 * min_run on, until the next event". So no latest moment is needed on one lane. On several lanes
 * the other holders' charges (the daemon's wall-time estimates) move V and the other lanes' keys
 * between events, and the water-filling is no longer by weight alone: covered only where neither
 * changes the answer (wake_vt_lanes(), below; docs/host.md, "Held-lane offers: what the rule
 * covers").
 *
 * Conservative: any case outside the above (a cap on either path, an entity delayed by another
 * vCPU on the waker's path, whose release would redo every rate; a rate near a threshold; a key
 * within VT_MARGIN of the tie) names no lane. tests/unit/test_core_wake_lane.c replays every lane
 * named here on a twin core.
 */
#include <stdbool.h>
#include <stdint.h>

#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "sched/fluid.h"

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

/* lane_misplaced() at the new rates r_ew, r_er; near one of its edges, no (the smaller key). */
static bool vt_misplaced(const struct sched_entity *ew, const struct sched_entity *er,
			 double r_ew, double r_er)
{
	double a = (double)ew->nr_running + 1.0, b = (double)er->nr_running;

	if (near(a, r_ew + 0.5) || near(b, r_er + 0.5))
		return false;
	return a <= r_ew + 0.5 && b > r_er + 0.5;
}

static int wake_vt_lanes(struct sched *s, unsigned int id, uint64_t *from);

int sched_wake_vt_lane(const struct sched *cs, unsigned int id, uint64_t *from)
{
	struct sched *s = (struct sched *)cs;	/* read only */
	double min_run = s->core.min_run, W_D = 0, R = 0, W_ew, f, key;
	double r_er, r_ew, rh, ew_vt, er_vt;
	const struct lane *ln = &s->core.lanes[0];
	struct sched_entity *ew, *er, *se;
	struct vcpu_core *vc, *h;
	bool misplaced;

	if (id >= s->nr_vcpus)
		return -1;
	if (s->nr_lanes != 1)
		return wake_vt_lanes(s, id, from);
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
	/*
	 * owns_lane() away from its edge; lane_misplaced() at the new rates, taken as not near
	 * its edges (equal sides on one lane sit on them): the smaller key, a claim the core
	 * makes either way.
	 */
	if (near(rh, 1.0) || rh >= 1.0)
		return -1;
	misplaced = vt_misplaced(ew, er, r_ew, r_er);
	key = er_vt - ew_vt - (misplaced ? -min_run : min_run);	/* one lane: by time */
	if (!(key > VT_MARGIN))
		return -1;
	/* lane_kept() by time: taken once the holder has run min_run. */
	*from = ln->start + s->core.params.min_run_ns;
	if (*from < s->core.now)
		*from = s->core.now;
	return 0;
}

/*
 * Several lanes. The wake's new rates come from the fluid ideal solved with the waker's demand
 * added (fluid_solve_scratch(), the water-filling rates_update() does along the waker's path);
 * the rule names a lane only where they leave every other holder its whole lane and its rate,
 * and P's rate as it was: then lanes_waiter_arrived() skips the other lanes (owns_lane()), and
 * only P's children change rates, rebased by refill_group() and set_rate() as below.
 *
 * Between the offer and its honour the other holders are charged their wall time. None is
 * below P (its charges would move P's V, where the waker is placed); one below P's parent
 * moves that parent's V, and so P's lag there, the due clock P's children keep their lags
 * against (due_clock(): V + L / sum_r, L clamped to a slice). L only grows with those charges
 * (nothing below P is charged: the taken holder is not, host_offer_honour()), and the key is
 * linear in the due clock: so the key is taken at both ends, L now and L at its clamp, and the
 * smaller must clear the margin. With no other holder below P's parent, L does not move and
 * the key is exact, as on one lane.
 */
struct vt_new {
	double *rate;			/* every vCPU's rate after the wake */
	double *demand;
	struct fluid_claim *cl;		/* solver scratch, then P's claims */
};

static bool se_below(const struct sched_entity *se, const struct group_core *gc)
{
	for (;; se = &se->parent->se) {
		if (se == &gc->se)
			return true;
		if (!se->parent)
			return false;
	}
}

static double new_rate(struct sched *s, struct sched_entity *e, const double *rate)
{
	return e->is_group ? fluid_group_rate(s, se_group(e)->g, rate) : rate[se_vcpu(e)->v->id];
}

static bool vt_new_solve(struct sched *s, unsigned int id, struct vt_new *o)
{
	size_t n = fluid_scratch_size(s);
	unsigned int i;

	o->rate = malloc(2 * s->nr_vcpus * sizeof(double));
	o->cl = malloc(2 * n * sizeof(struct fluid_claim));
	if (!o->rate || !o->cl)
		return false;
	o->demand = o->rate + s->nr_vcpus;
	for (i = 0; i < s->nr_vcpus; i++)
		o->demand[i] = rates_vcpu_demand(&s->core.vcpus[i]);
	o->demand[id] = 1.0;
	fluid_solve_scratch(s, o->demand, o->rate, o->cl, FLUID_NO_CAPS);
	return true;
}

/* P's children after the wake, but for the joiner ew: what refill_group() leaves in P's sum. */
struct vt_level {
	double S_old, S_new;	/* P's sum of rates before, and without ew after */
	double fell, rose;	/* share_owed()'s weights either way */
};

static bool vt_level(struct sched *s, struct group_core *P, struct sched_entity *ew,
		     struct vt_new *o, struct vt_level *lv)
{
	struct fluid_claim *cl = o->cl + fluid_scratch_size(s);
	unsigned int n = fluid_claims(P->g, o->demand, cl), i;

	*lv = (struct vt_level){ 0 };
	for (i = 0; i < n; i++) {
		struct sched_entity *e = cl[i].g ? &gcore(cl[i].g)->se :
				       &s->core.vcpus[cl[i].vcpu].se;
		double r = new_rate(s, e, o->rate);

		if (e == ew)
			continue;
		if (!e->runnable && !e->delayed) {
			if (r > RATE_MIN)
				return false;
			continue;
		}
		/* A leaver or a second joiner: not modelled. */
		if (e->rate < RATE_MARGIN || r < RATE_MARGIN)
			return false;
		lv->S_old += e->rate;
		lv->S_new += r;
		if (r < e->rate)
			lv->fell += e->rate - r;
		else
			lv->rose += r - e->rate;
	}
	return fabs(lv->S_old - P->sum_r) <= RATE_MARGIN * (1.0 + lv->S_old) &&
	       lv->S_new > RATE_MARGIN;
}

/*
 * er's vt less ew's after the wake, with P's due clock at w: refill_group()'s first pass
 * rebases the children whose rates moved against w (V goes to w + S_old (V - w) / S_new), the
 * second brings ew in around that V with the joiner's part of its lag, and share_owed() charges
 * what it kept to the children whose rates fell (or, ahead, rose) by how much.
 */
static double vt_gap(struct sched *s, struct group_core *P, struct sched_entity *ew,
		     struct sched_entity *er, double r_ew, double r_er,
		     const struct vt_level *lv, double w)
{
	double V = fair_vclock(P), V1, x, owed, er_vt = er->vt, dr;

	V1 = w + lv->S_old * (V - w) / lv->S_new;
	if (fabs(r_er - er->rate) > RATE_MIN)
		er_vt = w - er->rate * (w - er->vt) / r_er;
	x = rates_clamp_lag((double)s->core.params.lag_ns, ew->lag, r_ew) / r_ew;
	x *= lv->S_new / (lv->S_new + r_ew);
	owed = -r_ew * x;
	dr = owed > 0 ? r_er - er->rate : er->rate - r_er;
	if (dr > 0 && (owed > 0 ? lv->rose : lv->fell) > RATE_MIN)
		er_vt -= owed * dr / (owed > 0 ? lv->rose : lv->fell) / r_er;
	return er_vt - (V1 - x);
}

/* Lane l's holder h taken by virtual time, the rates after the wake being o's. */
static bool vt_lane_try(struct sched *s, struct vcpu_core *vc, unsigned int l, struct vt_new *o)
{
	double min_run = s->core.min_run, slice = s->core.slice;
	struct vcpu_core *h = s->core.lanes[l].cur;
	struct sched_entity *ew = &vc->se, *er = &h->se, *se;
	double r_ew, r_er, rh, key, w[2];
	bool misplaced, under_parent = false;
	struct group_core *P;
	struct vt_level lv;
	unsigned int j, k;

	common_level(&ew, &er);
	P = ew->parent;
	if (ew->runnable || !er->runnable || er->rate <= RATE_MIN || !P->se.parent)
		return false;
	for (se = &vc->se; se != &P->se; se = &se->parent->se)
		if (se->delayed && se->delayer != vc)
			return false;
	/* Every other holder keeps its whole lane and its rate, outside P. */
	for (j = 0; j < s->nr_lanes; j++) {
		struct vcpu_core *hj = s->core.lanes[j].cur;

		if (j == l)
			continue;
		if (!owns_lane(hj) || fabs(o->rate[hj->v->id] - hj->se.rate) > 1e-9 ||
		    se_below(&hj->se, P))
			return false;
		under_parent |= se_below(&hj->se, P->se.parent);
	}
	rh = o->rate[h->v->id];
	if (ew->delayed) {
		/* The waker's demand is in the rates already: nothing moves. */
		r_ew = ew->rate;
		r_er = er->rate;
		w[0] = w[1] = er->vt - ew->vt;
	} else {
		double L, R = P->sum_r;

		if (vc->delaying || fabs(P->owed) > RATE_MARGIN ||
		    fabs(new_rate(s, &P->se, o->rate) - P->se.rate) > 1e-9 ||
		    !vt_level(s, P, ew, o, &lv))
			return false;
		r_ew = new_rate(s, ew, o->rate);
		r_er = new_rate(s, er, o->rate);
		if (r_ew < RATE_MARGIN || r_er < RATE_MARGIN)
			return false;
		/* due_clock() now, and with L at its clamp if the other holders' charges move it. */
		L = P->se.rate * (fair_vclock(P->se.parent) - P->se.vt);
		L = L > slice ? slice : L < -slice ? -slice : L;
		w[0] = fair_vclock(P) + (P->se.rate > 0 && R > RATE_MIN ? L / R : 0);
		w[1] = under_parent && R > RATE_MIN ? fair_vclock(P) + slice / R : w[0];
		for (k = 0; k < 2; k++)
			w[k] = vt_gap(s, P, ew, er, r_ew, r_er, &lv, w[k]);
	}
	if (near(rh, 1.0) || rh >= 1.0)
		return false;
	misplaced = vt_misplaced(ew, er, r_ew, r_er);
	key = (w[0] < w[1] ? w[0] : w[1]) - (misplaced ? -min_run : wake_gran(min_run, r_ew));
	return key > VT_MARGIN;
}

static int wake_vt_lanes(struct sched *s, unsigned int id, uint64_t *from)
{
	struct vcpu_core *vc = &s->core.vcpus[id];
	struct vt_new o = { 0 };
	unsigned int l, cand = s->nr_lanes, owned = 0;
	int ret = -1;

	if (vc->runnable || gcore(&s->root)->queue.nr || path_capped(&vc->se))
		return -1;
	for (l = 0; l < s->nr_lanes; l++) {
		const struct lane *ln = &s->core.lanes[l];
		struct sched_entity *ew = &vc->se, *er;

		if (!ln->cur || ln->cur == vc || ln->cur->told_lane < 0 || ln->cur->resv ||
		    path_capped(&ln->cur->se))
			return -1;
		er = &ln->cur->se;
		common_level(&ew, &er);
		/* The cpu.idle rule's case (sched_wake_idle_lane()). */
		if (er->idle && !ew->idle)
			return -1;
		owned += owns_lane(ln->cur);
	}
	/* A wake raises no other holder's rate: all but the taken one own their lanes already. */
	if (owned + 1 < s->nr_lanes || !vt_new_solve(s, id, &o))
		goto out;
	/* The one lane whose holder the wake leaves without a whole lane. */
	for (l = 0; l < s->nr_lanes; l++) {
		if (o.rate[s->core.lanes[l].cur->v->id] >= 1.0 - 1e-9)
			continue;
		if (cand < s->nr_lanes)
			goto out;
		cand = l;
	}
	if (cand < s->nr_lanes && vt_lane_try(s, vc, cand, &o)) {
		*from = s->core.lanes[cand].start + s->core.params.min_run_ns;
		if (*from < s->core.now)
			*from = s->core.now;
		ret = (int)cand;
	}
out:
	free(o.rate);
	free(o.cl);
	return ret;
}
