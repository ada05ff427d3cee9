// SPDX-License-Identifier: GPL-2.0
/*
 * Fluid rates of every entity, kept up to date (see sched/fair.c for how they are used).
 *
 * The rates are the fluid ideal (sched/fluid.c) solved for the current demand: a runnable vCPU
 * demands a whole CPU, and so does a blocked one while its block left an entity delayed (fair.c);
 * other sleepers demand nothing, as in GPS. cpu.max is not in them: a quota is runtime per
 * period, which a group may spend at any speed its weight allows until the pool runs dry
 * (sched/bandwidth.c throttles it then), as in the kernel; a throttled group demands nothing
 * until its refill, so its siblings share its part.
 * Rates capped at quota / period held a group that bursts within its quota to that rate while
 * it ran: a vCPU busy 20 ms of every 100 in a 0.3 CPU group ran at 0.3 CPU, losing over half
 * of each burst to rotation (bench-fair "burst": 4.4 % of capacity where the ideal is 10 %).
 * A wake or a block changes demands along one path only, so the water-filling is redone level by
 * level along that path, going down into another subtree only where its capacity moved.
 * Configuration changes and moves redo everything. Every rate change keeps the entity's lag
 * exactly.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "internal.h"
#include "sched/fluid.h"
#include "util/compiler.h"

int rates_init(struct sched *s)
{
	struct sched_core *c = &s->core;

	c->deliver = 1.0;
	c->demand = calloc(s->nr_vcpus + 1, sizeof(double));
	c->rate = calloc(s->nr_vcpus + 1, sizeof(double));
	c->ref_demand = calloc(s->nr_vcpus + 1, sizeof(double));
	if (!c->demand || !c->rate || !c->ref_demand)
		return -ENOMEM;
	return rates_reserve(s);
}

void rates_exit(struct sched *s)
{
	struct sched_core *c = &s->core;

	free(c->demand);
	free(c->rate);
	free(c->ref_demand);
	free(c->claims);
}

/* Scratch for the rate computation, grown as groups are created so events never allocate. */
int rates_reserve(struct sched *s)
{
	struct sched_core *c = &s->core;
	size_t n = fluid_scratch_size(s) + 1;
	struct fluid_claim *cl;

	if (n <= c->nr_claims)
		return 0;
	n *= 2;
	cl = realloc(c->claims, n * fluid_claim_size());
	if (!cl)
		return -ENOMEM;
	c->claims = cl;
	c->nr_claims = n;
	return 0;
}

void rates_changed(struct sched *s)
{
	s->core.rates_dirty = true;
}

/* Only vc's runnability changed: the rates can be redone along its path. */
void rates_path_changed(struct sched *s, struct vcpu_core *vc)
{
	struct sched_core *c = &s->core;

	if (c->path_dirty && c->path_dirty != vc)
		c->rates_dirty = true;
	c->path_dirty = vc;
}

/*
 * A vCPU's demand in the rates: a whole CPU while runnable, or while its block left an entity
 * delayed (it ran ahead and GPS is still serving that burst); otherwise nothing. GPS reserves
 * nothing for a sleeper: its share goes to the others until it has work again.
 */
static double vcpu_demand(const struct vcpu_core *vc)
{
	return vc->se.runnable || vc->delaying ? 1.0 : 0.0;
}

double rates_vcpu_demand(const struct vcpu_core *vc)
{
	return vcpu_demand(vc);
}

/* c->demand[] holds every vCPU's demand; refreshed for one vCPU when it changes. */
static void demand_refresh(struct sched *s, struct vcpu_core *vc)
{
	s->core.demand[vc->v->id] = vcpu_demand(vc);
}

/*
 * The claims' demand of a group with a task group, from cached demands: no cap (see top), and
 * nothing while it is throttled where the reference throttles it too (sched/bandwidth.c,
 * bw_ref_throttle_credit()).
 */
static double group_demand(struct sched *s, const struct group *g, struct fluid_claim *cl)
{
	unsigned int n = fluid_claims(g, s->core.demand, cl), i;
	double d = 0;

	if (gcore(g)->throttled && !gcore(g)->throttle_kept)
		return 0;
	for (i = 0; i < n; i++)
		d += cl[i].g ? gcore(cl[i].g)->demand : cl[i].demand;
	return d;
}

/* Bottom-up over the groups that have a task group (the others' vCPUs count in an ancestor). */
static void cache_demands(struct sched *s, struct group *g)
{
	struct group *c;

	if (g->subtree_cpu)
		list_for_each_entry(c, &g->children, sibling)
			cache_demands(s, c);
	gcore(g)->demand = group_demand(s, g, s->core.claims);
}

/*
 * Lag (service) brought back on a wake: at most bound (lag_ns) either way, times the rate above
 * one CPU (an entity holding several lanes lags by several). Credit as large as debt: an entity
 * waiting its turn among many is owed up to a slice whatever its rate, and a bound scaled by the
 * rate (the first design) took that from every low-rate waiter at every rate change.
 */
double rates_clamp_lag(double bound, double lag, double r)
{
	double b = bound * (r > 1.0 ? r : 1.0);

	return lag > b ? b : lag < -b ? -b : lag;
}

/*
 * A runnable child's rate changes to r: its lag r * (V - vt) is kept exactly, as the kernel's
 * reweight_eevdf() keeps a reweighted entity's. Bounding it here (the first design) forgave a
 * group running ahead of its rate at every wake or block below it; with wakes every few ms its
 * level's V stood still and its low-rate siblings starved (issue 13's random scenarios). One
 * that joins the sum (woken, or unthrottled) gets back the lag it saved, bounded.
 *
 * One owed nothing (demand zero: a throttled group, or one with everything below it throttled)
 * leaves its parent's sum, its lag saved, as the kernel dequeues a throttled cfs_rq's entity
 * and the parents left empty. Left in at the minimum rate it kept its lag in V, and its siblings
 * looked ahead by it until the refill: a group that burnt its quota ahead of a sibling vCPU left
 * that vCPU ineligible for the rest of every period, and a parent of such a group made an idle
 * group's siblings look 390 ms ahead (random caps scenarios).
 */
static void rebase(struct sched *s, struct sched_entity *e, double r, double V)
{
	if (e->rate > 0)
		e->vt = V - e->rate * (V - e->vt) / r;
	else
		e->vt = V - rates_clamp_lag((double)s->core.params.lag_ns, e->lag, r) / r;
	e->rate = r;
}

/*
 * A runnable child of gc changes rate: its lag against gc's due clock is kept (refill_group()),
 * a joiner's comes back around V.
 */
static void set_rate(struct sched *s, struct group_core *gc, struct sched_entity *e, double r)
{
	double V = fair_vclock(gc);
	bool join = e->rate <= 0;

	if (!e->runnable && !e->delayed)
		return;
	if (r < RATE_MIN) {
		fair_sum_leave(e);
		return;
	}
	if (!join) {
		gc->sum_rvt -= e->rate * e->vt;
		gc->sum_r -= e->rate;
	}
	rebase(s, e, r, join ? V : gc->wclock);
	/*
	 * A joiner keeps the lag V moving would have left it, L W / (W + r) of its L, but comes in
	 * at V, which then does not move: share_owed() charges that lag to the others. Where the
	 * group holds no lane, a stayer waits and the group is behind at its parent (wlag), that
	 * shortfall is the waiting stayers', built up before the joiner came: it comes in wlag / W
	 * on, V moving by its part, so that the catch-up goes to them. Shared by rate, a duty vCPU
	 * waking beside a hog kept from its lane by a capped sibling took half the hog's catch-up,
	 * its burst ended in the sibling's window, and the hog alone then idled a lane
	 * (docs/scheduler.md §2).
	 */
	if (join && gc->sum_r > RATE_MIN) {
		bool behind = gc->queue.nr && !gc->se.nr_running && !heap_queued(&e->node) &&
			      gc->wlag > 0;
		double d = behind ? gc->wlag / gc->sum_r : 0;

		e->vt = V - (V - e->vt) * gc->sum_r / (gc->sum_r + e->rate);
		gc->sum_rvt += e->rate * V;
		gc->owed -= e->rate * (V - e->vt);
		e->vt += d;
		gc->sum_rvt += e->rate * d;
	} else {
		gc->sum_rvt += e->rate * e->vt;
	}
	gc->sum_r += e->rate;
	fair_requeue(s, e);
}

static struct sched_entity *claim_entity(struct sched *s, const struct fluid_claim *c)
{
	return c->g ? &gcore(c->g)->se : &s->core.vcpus[c->vcpu].se;
}

/* What a leave or join left to share, with no rates to go by: V moves, as in EEVDF. */
static void owed_flush(struct group_core *gc)
{
	gc->sum_rvt += gc->owed;
	gc->owed = 0;
}

/*
 * A sleeper that leaves the sum owed L forgives its siblings L of debt (fair.c); one that joins
 * charges them the lag it keeps. That lag goes to the siblings whose rates the leave raised, or
 * the join lowered, in proportion to the change: water-filling hands the sleeper's share to
 * them and takes it back from them. Shared by rate instead (V moving), siblings owed nearly a
 * CPU each, whose rates hardly move, got a share of every leave: credit they could never use,
 * holding their lanes anyway, but that kept them from ever giving one up, while a low-weight
 * group beside them, whose rate moves most, starved (docs/scheduler.md §2). With no rate moved
 * that way, V moves. cl[i].demand holds each child's rate before the change.
 */
static void share_owed(struct sched *s, struct group_core *gc, struct fluid_claim *cl,
		       unsigned int n)
{
	double sign = gc->owed > 0 ? 1.0 : -1.0, w = 0, dr;
	unsigned int i;

	for (i = 0; i < n && gc->owed; i++) {
		const struct sched_entity *e = claim_entity(s, &cl[i]);

		dr = sign * (e->rate - cl[i].demand);
		if (cl[i].demand > 0 && dr > 0 && e->rate > 0)
			w += dr;
	}
	if (w <= RATE_MIN) {
		owed_flush(gc);
		return;
	}
	for (i = 0; i < n; i++) {
		struct sched_entity *e = claim_entity(s, &cl[i]);

		dr = sign * (e->rate - cl[i].demand);
		if (cl[i].demand > 0 && dr > 0 && e->rate > 0) {
			e->vt -= gc->owed * dr / w / e->rate;
			fair_requeue(s, e);
		}
	}
	gc->owed = 0;
}

/*
 * A vCPU blocking owed service waited path_wait for a lane GPS would have given it at once
 * (fair.c, wait_owed()): e, an ancestor of it that stays runnable, was credited its rate rise
 * over that wait, a share it had no work for. It is forgiven as e's rate drops, to the siblings
 * whose rates rise (share_owed()). Unforgiven, a group holding three lanes at rate 3.69 for a
 * waiting duty vCPU gained 0.3 CPU-s a second at the root, and its root sibling was always the
 * one whose lane a wake took (docs/scheduler.md §10). old is e's rate before the change.
 */
static void forgive_wait(struct sched *s, struct group_core *gc, struct sched_entity *e,
			 double old)
{
	double x;

	if (!(old > e->rate) || e->rate <= RATE_MIN)
		return;
	x = (old - e->rate) * s->core.path_wait;
	e->vt += x / e->rate;
	gc->owed += x;
	fair_requeue(s, e);
}

/*
 * The clock a group's children's lags are kept against when their rates change: V moved by the
 * group's own lag at its parent, L / R, so that the children's lags add up to what the group is
 * owed. Against V alone (the children's lags adding up to nothing) a group that fell behind while
 * one child was owed most of its rate, and caught up after its rates changed, gave the catch-up
 * to whoever was owed most then: a hog beside a low-weight group, the group's rate swinging
 * between 2 and 1 with a duty vCPU elsewhere, was served the low-weight group's share of every
 * shortfall (`make fuzz-sim` coarse duty, seeds 228 and 827 reduced: 1.14 and 1.22 % of capacity,
 * 0.003 and 0.06 % now; docs/scheduler.md §10). Only the lag within a slice counts: a group's lag
 * beyond that is credit or debt it got at once (a sleeper's lag shared out, a joiner's charge, a
 * slice paid up front), not shortfall accrued at its children's present rates, and shared out by
 * them it took a cpu.idle child's siblings' service (seed 1063 of that kind: 0.29 -> 2.67 %).
 */
static double due_clock(const struct sched *s, const struct group_core *gc)
{
	double V = fair_vclock(gc), b = s->core.slice, L;

	if (!gc->se.parent || gc->se.rate <= 0 || gc->sum_r <= RATE_MIN)
		return V;
	L = gc->se.rate * (fair_vclock(gc->se.parent) - gc->se.vt);
	L = L > b ? b : L < -b ? -b : L;
	return V + L / gc->sum_r;
}

/*
 * Water-fill cap among g's children from the cached demands and change the rates that moved;
 * go down only where a child's capacity moved or its demand changed below it. A wake or a block
 * thus costs the siblings along one path, unless it shifts capacity across whole subtrees.
 * The children staying in the sum get their new rates first, then a leaver's lag is shared,
 * then joiners come in and their lag is shared (share_owed()).
 */
static void refill_group(struct sched *s, struct group *g, double cap, struct fluid_claim *cl)
{
	struct group_core *gc = gcore(g);
	double V = fair_vclock(gc);
	unsigned int n, i, pass;

	if (gc->throttled) {
		owed_flush(gc);
		return;	/* frozen inside: see retag_group() */
	}
	gc->wclock = due_clock(s, gc);
	gc->wlag = (gc->wclock - V) * gc->sum_r;
	n = fluid_claims(g, s->core.demand, cl);
	for (i = 0; i < n; i++) {
		if (cl[i].g) {
			cl[i].demand = gcore(cl[i].g)->demand;
			cl[i].done = cl[i].demand <= 0;
		}
	}
	fluid_water_fill(cl, n, cap);
	for (i = 0; i < n; i++) {
		const struct sched_entity *e = claim_entity(s, &cl[i]);

		cl[i].demand = e->runnable || e->delayed ? e->rate : 0;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < n; i++) {
			struct sched_entity *e = claim_entity(s, &cl[i]);
			struct group_core *cc = cl[i].g ? gcore(cl[i].g) : NULL;
			bool moved = fabs(cl[i].got - e->rate) > RATE_MIN;
			bool path = cc && cc->on_path;

			if (cc && !pass && (moved || path))
				refill_group(s, (struct group *)cl[i].g, cl[i].got, cl + n);
			if (cc && !pass)
				cc->on_path = false;
			if (moved && (e->rate <= 0 && cl[i].got >= RATE_MIN) == pass)
				set_rate(s, gc, e, cl[i].got);
			if (path && !pass && s->core.path_wait > 0)
				forgive_wait(s, gc, e, cl[i].demand);
		}
		share_owed(s, gc, cl, n);
	}
	if (gc->sum_r <= RATE_MIN) {
		gc->sum_r = 0;
		gc->sum_rvt = 0;
		gc->vbase = V;
	}
}

/* Out of line as rates_solve() is: rates_update() runs at every event, this at a wake or block. */
static __noinline void update_path(struct sched *s, struct vcpu_core *vc)
{
	struct group *g, *root = &s->root;
	double cap;

	demand_refresh(s, vc);
	for (g = group_cpu_group(vc->v->group); g; g = g->parent) {
		gcore(g)->demand = group_demand(s, g, s->core.claims);
		gcore(g)->on_path = true;
	}
	cap = gcore(root)->demand < s->nr_lanes ? gcore(root)->demand : s->nr_lanes;
	refill_group(s, root, cap, s->core.claims);
	gcore(root)->on_path = false;
}

static void zero_rates(struct group *g)
{
	struct group *c;

	gcore(g)->se.new_rate = 0;
	list_for_each_entry(c, &g->children, sibling)
		zero_rates(c);
}

static void retag_child(struct sched *s, struct group_core *gc, struct sched_entity *e,
			double V)
{
	if (!e->runnable && !e->delayed) {
		e->rate = 0;
		return;
	}
	/* retag_group() emptied gc's sum: e enters it again, unless it is owed nothing. */
	if (e->new_rate < RATE_MIN) {
		if (e->rate > 0)
			e->lag = e->rate * (V - e->vt);
		e->rate = 0;
		return;
	}
	/* A rate change keeps the lag against the due clock (as set_rate()), a joiner's is at V. */
	rebase(s, e, e->new_rate, e->rate > 0 ? gc->wclock : V);
	gc->sum_rvt += e->rate * e->vt;
	gc->sum_r += e->rate;
	fair_requeue(s, e);
}

/*
 * Every group's due clock before retag_group() moves anything: it reads the parent's V, which
 * retag_group() rebuilds child by child. Against V instead, a rate rise through refill_group()
 * (kept against the due clock) and its fall back through a throttle's or refill's retag (kept
 * against V) did not cancel: a weight-1 group whose rate swung 0.01 <-> 0.98 each period under a
 * group owed 0.9 ms lost 0.8 ms a period to its hog sibling (docs/scheduler.md §2).
 */
static void snap_due_clocks(struct sched *s, struct group *g)
{
	struct group *c;

	gcore(g)->wclock = due_clock(s, gcore(g));
	list_for_each_entry(c, &g->children, sibling)
		snap_due_clocks(s, c);
}

/*
 * A throttled group demands nothing from its parent, but inside it nothing changes: its
 * children keep their rates and virtual times until the refill, as a throttled cfs_rq keeps its
 * tasks' vruntimes. Retagged to the minimum rate they lost their lags (when rate changes still
 * bounded lag by the rate), and with a quota below a slice the same vCPU won every period.
 */
static void retag_group(struct sched *s, struct group *g, struct fluid_claim *cl)
{
	struct group_core *gc = gcore(g);
	double V = fair_vclock(gc);
	unsigned int n, i;

	if (gc->throttled)
		return;
	gc->owed = 0;	/* the sum is rebuilt from every vt: V moves */
	n = fluid_claims(g, s->core.demand, cl);
	/*
	 * Only among the same children: a joiner comes in at V, outside the due clock's sum, so a
	 * group owed credit it cannot use (a hog at its lane, throttled siblings) handed it to the
	 * stayer at every refill and took back half at the throttle (audit gg7: 1.46 -> 3.97 %).
	 */
	for (i = 0; i < n; i++) {
		const struct sched_entity *e = claim_entity(s, &cl[i]);

		if ((e->runnable || e->delayed) && (e->new_rate >= RATE_MIN) != (e->rate > 0)) {
			gc->wclock = V;
			break;
		}
	}
	gc->sum_rvt = 0;
	gc->sum_r = 0;
	for (i = 0; i < n; i++) {
		if (!cl[i].g) {
			retag_child(s, gc, &s->core.vcpus[cl[i].vcpu].se, V);
			continue;
		}
		retag_child(s, gc, &gcore(cl[i].g)->se, V);
		retag_group(s, (struct group *)cl[i].g, cl + n);
	}
	if (gc->sum_r <= 0)
		gc->vbase = V;
}

/*
 * The whole solve, out of line: every event calls rates_update(), most change no rate, and
 * inlined its registers were saved and restored on every call (callgrind, bench-decision).
 */
static __noinline void rates_solve(struct sched *s)
{
	struct sched_core *c = &s->core;
	unsigned int i;

	c->rates_dirty = false;
	c->path_dirty = NULL;
	c->path_wait = 0;
	for (i = 0; i < s->nr_vcpus; i++)
		c->demand[i] = vcpu_demand(&c->vcpus[i]);
	cache_demands(s, &s->root);
	fluid_solve_scratch(s, c->demand, c->rate, c->claims, FLUID_NO_CAPS);
	zero_rates(&s->root);
	for (i = 0; i < s->nr_vcpus; i++) {
		struct group *g;

		c->vcpus[i].se.new_rate = c->rate[i];
		for (g = group_cpu_group(s->vcpus[i].group); g; g = g->parent)
			gcore(g)->se.new_rate += c->rate[i];
	}
	snap_due_clocks(s, &s->root);
	retag_group(s, &s->root, c->claims);
}

void rates_update(struct sched *s)
{
	struct sched_core *c = &s->core;

	if (c->rates_dirty) {
		rates_solve(s);
		return;
	}
	if (c->path_dirty)
		update_path(s, c->path_dirty);
	c->path_dirty = NULL;
	c->path_wait = 0;
}
