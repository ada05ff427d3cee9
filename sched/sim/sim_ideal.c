// SPDX-License-Identifier: GPL-2.0
/*
 * What the simulator measures against: a fluid scheduler with the kernel's semantics, run over
 * the scenario's own arrivals and integrated exactly, event by event.
 *
 * GPS (design brief §6: "for a duty-cycle vCPU the fluid ideal is GPS: it gets min(its demand,
 * its fair share)"). A hog always demands a CPU; a duty-cycle or bursty vCPU demands a CPU while
 * it has work in the fluid: its own backlog, filled by the same arrivals as in the run (BUSY
 * every PERIOD, or the bursty pattern's draws) and drained at its fluid rate. Work is not done
 * before it arrives, and work the fluid has not done yet stays owed. At every moment the rates
 * are the fluid ideal (sched/fluid.c: water-filling by weight, at most a CPU per vCPU) of the
 * vCPUs with work. A sleeper reserves nothing: its share goes to the others until work arrives.
 * The first reference, water-filling of each stretch's mean demands, is no schedule anyone can
 * follow: where bursts of a heavy group overlap on several lanes it owed a hog beside them more
 * than the one CPU it can use.
 *
 * A closed-loop sleeper (`sleep BUSY SLEEP`: its next work comes SLEEP after it did the last) has
 * no arrivals of its own to replay: they depend on how it is served. It demands its mean,
 * BUSY / (BUSY / deliver + SLEEP), at every moment, as bench-fair's ideal takes its duty and
 * halt-duty guests: what it gets when it is served at once. Every wait for a lane it pays for
 * good.
 *
 * Caps are the kernel's: cpu.max is not a rate. A capped group runs at its weighted share until
 * its pool runs dry, then demands nothing until the refill, while its siblings share its part;
 * the pools follow sched/bandwidth.c's rules (refill on the period grid, quota + burst at most,
 * the timer stops after a period without a draw). Measured on the host's kernel (issue 13): two
 * hogs of weight 300 capped at "100000 100000" beside one hog of weight 100 on two CPUs get 1.01
 * CPU and the sibling 0.62; a rate cap would give the sibling 1.00.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/fluid.h"
#include "sim_types.h"

/* A group's pool in the ideal, in ns of CPU. */
struct ideal_pool {
	bool on;			/* a finite quota */
	bool timer, idle_period, off;	/* period timer active; nothing drawn; throttled */
	double quota, period, burst;
	double runtime, phase, next_refill;
};

/* A duty-cycle or bursty vCPU's work in the fluid. */
struct ideal_work {
	bool on;			/* a duty-cycle or bursty vCPU */
	double backlog;			/* ns of work arrived and not done yet */
	uint64_t next;			/* next arrival, drawn as sim.c's arrive() draws it */
	uint64_t rng;
};

/* A group and its index in struct sim_ideal's groups[], sorted by the group's address. */
struct ideal_slot {
	const struct group *g;
	unsigned int i;
};

struct sim_ideal {
	const struct sim_scenario *sc;
	struct sched *s;
	struct group **groups;		/* [0] root, as struct sim */
	struct ideal_slot *slots;	/* groups[] by address: fluid asks of every group each solve */
	struct sim_result *r;
	unsigned int ng, nv;
	double deliver, now;
	double *demand, *rate, *grate;	/* per vCPU (1 while it has work), per vCPU, per group */
	struct ideal_pool *pool;
	struct ideal_work *work;
};

static int slot_cmp(const void *a, const void *b)
{
	const struct group *x = ((const struct ideal_slot *)a)->g;
	const struct group *y = ((const struct ideal_slot *)b)->g;

	return x < y ? -1 : x > y;
}

/*
 * The index of g in groups[], 0 (the root's) if it is none of them. A search of groups[] in
 * pool_off(), once per group per solve, made every solve quadratic: 3000 groups and 3000 weight
 * events took 36 s (branch simcheck).
 */
static unsigned int group_index(const struct sim_ideal *id, const struct group *g)
{
	struct ideal_slot key = { .g = g }, *slot;

	slot = bsearch(&key, id->slots, id->ng, sizeof(*slot), slot_cmp);
	return slot ? slot->i : 0;
}

static bool pool_off(const struct group *g, void *arg)
{
	struct sim_ideal *id = arg;
	unsigned int i;

	/* An uncapped group's pool is never off (pool_configure() follows every cpu.max). */
	if (g->quota_us == RUNTIME_INF)
		return false;
	i = group_index(id, g);
	return i ? id->pool[i].off : false;
}

static int solve(struct sim_ideal *id)
{
	unsigned int i;
	int ret;

	ret = fluid_solve_pools(id->s, id->demand, id->rate, id->deliver, pool_off, id);
	if (ret)
		return ret;
	for (i = 0; i < id->ng; i++)
		id->grate[i] = fluid_group_rate(id->s, id->groups[i], id->rate);
	return 0;
}

/* start_cfs_bandwidth(): the first point of the period grid after now. */
static void timer_start(struct ideal_pool *p, double now)
{
	if (p->timer)
		return;
	p->timer = true;
	p->next_refill = now < p->phase ?
				 p->phase :
				 p->phase + ((double)(uint64_t)((now - p->phase) / p->period) + 1) *
						    p->period;
}

/* bw_configure(): the values of g now, a refill, the timer started, unthrottled. */
static void pool_configure(struct ideal_pool *p, const struct group *g, double now)
{
	p->on = g->quota_us != RUNTIME_INF;
	p->period = (double)g->period_us * 1000;
	p->burst = (double)g->burst_us * 1000;
	p->off = false;
	if (!p->on)
		return;
	p->quota = (double)g->quota_us * 1000;
	p->runtime += p->quota;
	if (p->runtime > p->quota + p->burst)
		p->runtime = p->quota + p->burst;
	if (!p->timer)
		p->phase = now;
	timer_start(p, now);
}

/* do_sched_cfs_period_timer() at its expiry; true if the group was unthrottled. */
static bool pool_refill(struct ideal_pool *p)
{
	bool throttled = p->off;

	p->next_refill += p->period;
	if (!p->on) {
		p->timer = false;
		return false;
	}
	p->runtime += p->quota;
	if (p->runtime > p->quota + p->burst)
		p->runtime = p->quota + p->burst;
	if (!throttled) {
		/* A whole period without a draw stops the timer. */
		if (p->idle_period)
			p->timer = false;
		p->idle_period = true;
		return false;
	}
	p->idle_period = false;
	p->off = p->runtime <= 0;
	return !p->off;
}

/* Arrivals due by now; true if a vCPU without work got some. */
static bool arrivals(struct sim_ideal *id)
{
	bool changed = false;
	unsigned int i;

	for (i = 0; i < id->nv; i++) {
		const struct sim_vcpu_cfg *c = &id->sc->vcpus[i];
		struct ideal_work *w = &id->work[i];

		while (w->on && (double)w->next <= id->now) {
			if (c->kind == SIM_DUTY) {
				w->backlog += (double)c->busy;
				w->next += c->period;
			} else {
				w->backlog += (double)sim_rng_around(&w->rng, c->busy);
				w->next += sim_rng_around(&w->rng, c->period);
			}
			changed |= !id->demand[i];
			id->demand[i] = 1.0;
		}
	}
	return changed;
}

/*
 * The end of the current stretch of constant rates: an arrival, a fluid backlog done, a refill
 * or a pool running dry.
 */
static double next_change(const struct sim_ideal *id, double to)
{
	unsigned int i;

	for (i = 0; i < id->nv; i++) {
		const struct ideal_work *w = &id->work[i];

		if (!w->on)
			continue;
		if ((double)w->next < to)
			to = (double)w->next;
		if (id->demand[i] && id->rate[i] > 0 && id->now + w->backlog / id->rate[i] < to)
			to = id->now + w->backlog / id->rate[i];
	}
	for (i = 1; i < id->ng; i++) {
		const struct ideal_pool *p = &id->pool[i];

		if (p->timer && p->next_refill < to)
			to = p->next_refill;
		if (p->on && !p->off && id->grate[i] > 0 &&
		    id->now + p->runtime / id->grate[i] < to)
			to = id->now + p->runtime / id->grate[i];
	}
	return to;
}

/* The fluid did dt of every backlog; true if one is done (up to rounding: ~1e-6 ns). */
static bool work_step(struct sim_ideal *id, double dt)
{
	bool changed = false;
	unsigned int i;

	for (i = 0; i < id->nv; i++) {
		struct ideal_work *w = &id->work[i];

		if (!w->on || !id->demand[i])
			continue;
		w->backlog -= id->rate[i] * dt;
		if (w->backlog <= 1e-3) {
			w->backlog = 0;
			id->demand[i] = 0;
			changed = true;
		}
	}
	return changed;
}

/*
 * Pools draw what their groups ran over dt; true if one ran dry or was unthrottled. Refills due
 * at end wait for the next call: a scenario event at end goes first, as in the core (sim_loop()),
 * so a cpu.max written on a grid point sets the period the refill there steps by.
 */
static bool pools_step(struct sim_ideal *id, double dt, double end)
{
	bool changed = false;
	unsigned int i;

	for (i = 1; i < id->ng; i++) {
		struct ideal_pool *p = &id->pool[i];
		double used = id->grate[i] * dt;

		if (!p->on || p->off)
			continue;
		p->runtime -= used;
		/* Dry up to rounding (runtime is ~1e7 ns, exact to ~1e-9 ns). */
		if (id->grate[i] > 0 && p->runtime <= 1e-3) {
			p->runtime = 0;
			p->off = true;
			changed = true;
		}
	}
	for (i = 1; i < id->ng; i++) {
		struct ideal_pool *p = &id->pool[i];

		while (p->timer && p->next_refill <= id->now && id->now < end)
			changed |= pool_refill(p);
	}
	return changed;
}

/* Integrates the ideal up to `to` (ns). */
int sim_ideal_advance(struct sim_ideal *id, uint64_t to)
{
	double end = (double)to;
	unsigned int i;
	int ret;

	while (id->now < end) {
		double next, dt;
		bool changed;

		if (arrivals(id) && (ret = solve(id)))
			return ret;
		/* A group that draws starts its period timer (a charge does, in the core). */
		for (i = 1; i < id->ng; i++) {
			if (id->pool[i].on && !id->pool[i].off && id->grate[i] > 0) {
				id->pool[i].idle_period = false;
				timer_start(&id->pool[i], id->now);
			}
		}
		next = next_change(id, end);
		dt = next - id->now;
		for (i = 0; i < id->ng; i++)
			id->r->groups[i].ideal += dt * id->grate[i];
		for (i = 0; i < id->nv; i++)
			id->r->vcpus[i].ideal += dt * id->rate[i];
		id->now = next;
		changed = work_step(id, dt);
		changed |= pools_step(id, dt, end);
		if (changed && (ret = solve(id)))
			return ret;
	}
	return 0;
}

/* A scenario event was applied at the ideal's time: new settings, new rates. */
int sim_ideal_event(struct sim_ideal *id, const struct sim_event *ev)
{
	unsigned int i;

	if (ev->type == SIM_EV_SET && (ev->set.has_max || ev->set.has_burst)) {
		i = group_index(id, group_lookup(id->s, ev->path));
		if (i)
			pool_configure(&id->pool[i], id->groups[i], id->now);
	}
	return solve(id);
}

int sim_ideal_create(const struct sim_scenario *sc, struct sched *s, struct group **groups,
		     struct sim_result *r, struct sim_ideal **out)
{
	struct sim_ideal *id = calloc(1, sizeof(*id));
	unsigned int i;

	if (!id)
		return -ENOMEM;
	*out = id;
	id->sc = sc;
	id->s = s;
	id->groups = groups;
	id->r = r;
	id->ng = sc->nr_groups + 1;
	id->nv = sc->nr_vcpus;
	id->deliver = (double)sc->deliver_pct / 100.0;
	id->demand = calloc(id->nv + 1, sizeof(double));
	id->rate = calloc(id->nv + 1, sizeof(double));
	id->grate = calloc(id->ng, sizeof(double));
	id->pool = calloc(id->ng, sizeof(*id->pool));
	id->work = calloc(id->nv + 1, sizeof(*id->work));
	id->slots = calloc(id->ng, sizeof(*id->slots));
	if (!id->demand || !id->rate || !id->grate || !id->pool || !id->work || !id->slots)
		return -ENOMEM;
	for (i = 0; i < id->ng; i++)
		id->slots[i] = (struct ideal_slot){ .g = groups[i], .i = i };
	qsort(id->slots, id->ng, sizeof(*id->slots), slot_cmp);
	for (i = 0; i < id->nv; i++) {
		const struct sim_vcpu_cfg *c = &sc->vcpus[i];
		struct ideal_work *w = &id->work[i];

		id->demand[i] = c->kind == SIM_HOG;
		/*
		 * Served at once, its BUSY takes BUSY / deliver of wall: BUSY / (BUSY + SLEEP) alone
		 * owed a lane at 50 % a third more than it can take (300 ms of 1 s for 231).
		 */
		if (c->kind == SIM_SLEEP)
			id->demand[i] = (double)c->busy /
					((double)c->busy / id->deliver + (double)c->period);
		w->on = c->kind == SIM_DUTY || c->kind == SIM_BURSTY;
		w->rng = sim_rng_seed(c->seed);
		if (c->kind == SIM_DUTY)
			w->next = c->phase;
		else if (c->kind == SIM_BURSTY)
			w->next = c->phase + sim_rng_around(&w->rng, c->period) / 2;
	}
	for (i = 1; i < id->ng; i++)
		if (groups[i]->quota_us != RUNTIME_INF)
			pool_configure(&id->pool[i], groups[i], 0);
	arrivals(id);
	return solve(id);
}

void sim_ideal_free(struct sim_ideal *id)
{
	if (!id)
		return;
	free(id->demand);
	free(id->rate);
	free(id->grate);
	free(id->pool);
	free(id->work);
	free(id->slots);
	free(id);
}
