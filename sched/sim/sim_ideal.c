// SPDX-License-Identifier: GPL-2.0
/*
 * What the simulator measures against: a fluid scheduler with the kernel's semantics, integrated
 * exactly over time.
 *
 * Shares are the fluid ideal (sched/fluid.c): water-filling by weight, a vCPU's demand at most
 * one CPU. A duty-cycle or bursty vCPU demands the work that really arrived, per stretch of time
 * between scenario events, divided by its length: the patterns' means (busy / period) are what
 * a long run tends to, but over ten seconds a bursty vCPU's arrivals stray from their mean by
 * up to a few tenths of a per cent of a lane, which no scheduler can be blamed for. Work is not
 * done before it arrives, and work the ideal left undone is owed in the next stretch.
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

struct sim_ideal {
	const struct sim_scenario *sc;
	struct sched *s;
	struct group **groups;		/* [0] root, as struct sim */
	struct sim_result *r;
	unsigned int ng, nv;
	double deliver, now;
	double *demand, *rate, *grate;	/* per vCPU (this stretch), per vCPU, per group: CPUs */
	struct ideal_pool *pool;
	unsigned int seg, nr_seg;
	uint64_t *seg_end;
	double *seg_work;		/* [seg * nv + vcpu]: work arriving in the stretch (ns) */
	double *served, *owed;		/* per vCPU: this stretch; left over from the last ones */
};

static bool pool_off(const struct group *g, void *arg)
{
	struct sim_ideal *id = arg;
	unsigned int i;

	for (i = 1; i < id->ng; i++)
		if (id->groups[i] == g)
			return id->pool[i].off;
	return false;
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

/* The end of the current stretch of constant rates: a refill or a pool running dry. */
static double next_change(const struct sim_ideal *id, double to)
{
	unsigned int i;

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

/* Pools draw what their groups ran over dt; true if one ran dry or was unthrottled. */
static bool pools_step(struct sim_ideal *id, double dt)
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

		while (p->timer && p->next_refill <= id->now)
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
		for (i = 0; i < id->nv; i++) {
			id->r->vcpus[i].ideal += dt * id->rate[i];
			id->served[i] += dt * id->rate[i];
		}
		id->now = next;
		if (pools_step(id, dt) && (ret = solve(id)))
			return ret;
	}
	return 0;
}

/*
 * The work each duty or bursty vCPU really gets in each stretch between scenario events. Work
 * cannot be done before it arrives: what one lane could not do of it by the stretch's end goes
 * to the next stretch, and what it could not do by the end of the run is not owed.
 */
static void realized_work(struct sim_ideal *id)
{
	const struct sim_scenario *sc = id->sc;
	unsigned int i, k;

	for (i = 0; i < id->nv; i++) {
		const struct sim_vcpu_cfg *c = &sc->vcpus[i];
		uint64_t rng = sim_rng_seed(c->seed), t;

		if (c->kind != SIM_DUTY && c->kind != SIM_BURSTY)
			continue;
		t = c->kind == SIM_DUTY ? c->phase : c->phase + sim_rng_around(&rng, c->period) / 2;
		for (k = 0; t < sc->duration;) {
			double work = (double)(c->kind == SIM_DUTY ? c->busy :
								     sim_rng_around(&rng, c->busy));
			double from = (double)t;
			unsigned int j;

			while (t >= id->seg_end[k])
				k++;
			for (j = k; j < id->nr_seg && work > 0; j++) {
				double can = ((double)id->seg_end[j] - from) * id->deliver;
				double got = work < can ? work : can;

				id->seg_work[j * id->nv + i] += got;
				work -= got;
				from = (double)id->seg_end[j];
			}
			t += c->kind == SIM_DUTY ? c->period : sim_rng_around(&rng, c->period);
		}
	}
}

/* Splits the run at the scenario's event times. */
static int segments(struct sim_ideal *id)
{
	const struct sim_scenario *sc = id->sc;
	unsigned int i, n = 0;

	id->seg_end = calloc(sc->nr_events + 1, sizeof(*id->seg_end));
	if (!id->seg_end)
		return -ENOMEM;
	for (i = 0; i < sc->nr_events; i++)
		if (sc->events[i].at > (n ? id->seg_end[n - 1] : 0) &&
		    sc->events[i].at < sc->duration)
			id->seg_end[n++] = sc->events[i].at;
	id->seg_end[n++] = sc->duration;
	id->nr_seg = n;
	id->seg_work = calloc((size_t)n * id->nv + 1, sizeof(double));
	return id->seg_work ? 0 : -ENOMEM;
}

/*
 * A stretch's demand: a hog 1, a duty or bursty vCPU the work that arrives in it plus what the
 * ideal left undone before (its share was below its demand, say, until a weight changed), over
 * the stretch's length.
 */
static void use_segment(struct sim_ideal *id)
{
	unsigned int i;
	double len;

	while (id->seg + 1 < id->nr_seg && (uint64_t)id->now >= id->seg_end[id->seg]) {
		for (i = 0; i < id->nv; i++) {
			id->owed[i] += id->seg_work[(size_t)id->seg * id->nv + i] - id->served[i];
			if (id->owed[i] < 0)
				id->owed[i] = 0;
			id->served[i] = 0;
		}
		id->seg++;
	}
	len = (double)(id->seg_end[id->seg] - (id->seg ? id->seg_end[id->seg - 1] : 0));
	for (i = 0; i < id->nv; i++) {
		enum sim_pattern k = id->sc->vcpus[i].kind;

		id->demand[i] = k == SIM_HOG ? 1.0 :
				(id->seg_work[(size_t)id->seg * id->nv + i] + id->owed[i]) / len;
	}
}

static unsigned int group_index(const struct sim_ideal *id, const struct group *g)
{
	unsigned int i;

	for (i = 1; i < id->ng; i++)
		if (id->groups[i] == g)
			return i;
	return 0;
}

/* A scenario event was applied at the ideal's time: new settings, maybe a new stretch. */
int sim_ideal_event(struct sim_ideal *id, const struct sim_event *ev)
{
	unsigned int i;

	if (ev->type == SIM_EV_SET && (ev->set.has_max || ev->set.has_burst)) {
		i = group_index(id, group_lookup(id->s, ev->path));
		if (i)
			pool_configure(&id->pool[i], id->groups[i], id->now);
	}
	use_segment(id);
	return solve(id);
}

int sim_ideal_create(const struct sim_scenario *sc, struct sched *s, struct group **groups,
		     struct sim_result *r, struct sim_ideal **out)
{
	struct sim_ideal *id = calloc(1, sizeof(*id));
	unsigned int i;
	int ret;

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
	id->served = calloc(id->nv + 1, sizeof(double));
	id->owed = calloc(id->nv + 1, sizeof(double));
	if (!id->demand || !id->rate || !id->grate || !id->pool || !id->served || !id->owed)
		return -ENOMEM;
	ret = segments(id);
	if (ret)
		return ret;
	realized_work(id);
	for (i = 1; i < id->ng; i++)
		if (groups[i]->quota_us != RUNTIME_INF)
			pool_configure(&id->pool[i], groups[i], 0);
	use_segment(id);
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
	free(id->seg_end);
	free(id->seg_work);
	free(id->served);
	free(id->owed);
	free(id);
}
