// SPDX-License-Identifier: GPL-2.0
/*
 * A simulation run: its state set up from the scenario (the core, the tree, the vCPUs' first
 * work, the ideal), sim_loop() called, the result collected; sim_run(), sim_run_traced() (with a
 * timeline) and sim_ideal_only() around it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sched/core.h"
#include "sched/trace.h"
#include "sim_state.h"

/* The simulator records in one thread for the whole run: a large ring, touched only as it fills. */
#define SIM_TRACE_EVENTS	(4U << 20)

static int sim_setup(struct sim *sim)
{
	const struct sim_scenario *sc = sim->sc;
	unsigned int i, nv = sc->nr_vcpus, ng = sc->nr_groups + 1;
	struct sim_result *r;
	int ret;

	sim->s = sched_create(sc->lanes, nv);
	if (sim->s && sim->tr)
		sched_set_trace(sim->s, sim->tr);
	r = sim->r = calloc(1, sizeof(*r));
	sim->v = calloc(nv + 1, sizeof(*sim->v));
	sim->groups = calloc(ng, sizeof(*sim->groups));
	sim->next_sample = calloc(ng, sizeof(*sim->next_sample));
	sim->sample_base = calloc(ng, sizeof(*sim->sample_base));
	if (r) {
		r->groups = calloc(ng, sizeof(*r->groups));
		r->vcpus = calloc(nv + 1, sizeof(*r->vcpus));
	}
	if (!sim->s || !r || !sim->v || !sim->groups || !sim->next_sample || !sim->sample_base ||
	    !r->groups || !r->vcpus)
		return fail(sim, -ENOMEM, 0, "setting up", "the simulation");
	r->lanes = sc->lanes;
	r->deliver_pct = sc->deliver_pct;
	r->duration = sc->duration;
	r->nr_groups = ng;
	r->nr_vcpus = nv;
	/* The values and the rule: "slice 10ms" alone is refused (lag stays 6 ms), which EINVAL hid. */
	if (sc->has_params && (ret = sched_set_params(sim->s, &sc->params)))
		return diag_at(sim->diag, ret, (int)sc->params_line, NULL, NULL,
			       "slice %.15g ms, min_run %.15g ms, lag %.15g ms: need 1 ms <= min_run <= "
			       "slice <= lag", (double)sc->params.slice_ns / 1e6,
			       (double)sc->params.min_run_ns / 1e6, (double)sc->params.lag_ns / 1e6);
	ret = sim_build_tree(sc, sim->s, sim->groups, sim->diag);
	if (ret)
		return ret;
	for (i = 1; i < ng; i++)
		if (sim->groups[i]->quota_us != RUNTIME_INF)
			sim->next_sample[i] = sim->groups[i]->period_us * 1000;
	for (i = 0; i < nv; i++) {
		const struct sim_vcpu_cfg *c = &sc->vcpus[i];
		struct sim_vcpu *v = &sim->v[i];

		v->rng = sim_rng_seed(c->seed);
		v->woke = SCHED_TIME_NONE;
		v->next_arrival = SCHED_TIME_NONE;
		if (c->kind == SIM_HOG) {
			v->backlog = UINT64_MAX;
			v->runnable = true;
			sched_vcpu_runnable(sim->s, i, 0);
		} else if (c->kind == SIM_DUTY || c->kind == SIM_SLEEP) {
			v->next_arrival = c->phase;
		} else if (c->kind == SIM_BURSTY) {
			v->next_arrival = c->phase + sim_rng_around(&v->rng, c->period) / 2;
		}
	}
	sim_drain(sim);
	sim_trace_states(sim);
	ret = sim_ideal_create(sc, sim->s, sim->groups, r, &sim->ideal);
	return ret ? fail(sim, ret, 0, "setting up", "the ideal") : 0;
}

static void collect(struct sim *sim)
{
	struct sim_result *r = sim->r;
	unsigned int i;

	for (i = 0; i < r->nr_groups; i++) {
		struct sim_group_result *gr = &r->groups[i];
		struct group *g = sim->groups[i];

		group_path(g, gr->path, sizeof(gr->path));
		gr->usage = (double)g->stat.usage_ns;
		group_stat(sim->s, g, sim->now, &gr->stat);
		gr->weight = sched_weight_to_cgroup(g->shares);
		gr->quota_us = g->quota_us;
		gr->period_us = g->period_us;
		gr->burst_us = g->burst_us;
		gr->idle = g->idle;
	}
	for (i = 0; i < r->nr_vcpus; i++) {
		struct sched_vcpu *v = sched_vcpu(sim->s, i);

		group_path(v->group, r->vcpus[i].path, sizeof(r->vcpus[i].path));
		r->vcpus[i].kind = sim->sc->vcpus[i].kind;
		r->vcpus[i].usage = (double)v->stat.usage_ns;
	}
}

static int sim_do(const struct sim_scenario *sc, struct sim_result **out, FILE *trace,
		  struct trace *tr, bool ideal_only, struct diag *d)
{
	struct sim sim = { .sc = sc, .diag = d, .trace = trace, .tr = tr };
	int ret;

	ret = sim_setup(&sim);
	if (!ret && ideal_only)
		ret = sim_ideal_advance(sim.ideal, sc->duration);
	else if (!ret)
		ret = sim_loop(&sim);
	if (!ret)
		collect(&sim);
	if (tr)
		trace_finish(tr, sim.now);
	sched_destroy(sim.s);
	free(sim.v);
	free(sim.groups);
	free(sim.next_sample);
	free(sim.sample_base);
	sim_ideal_free(sim.ideal);
	if (ret) {
		sim_result_free(sim.r);
		return ret;
	}
	*out = sim.r;
	return 0;
}

int sim_run(const struct sim_scenario *sc, struct sim_result **out, struct diag *d)
{
	return sim_do(sc, out, NULL, NULL, false, d);
}

int sim_run_traced(const struct sim_scenario *sc, struct sim_result **out, FILE *decisions,
		   FILE *timeline, struct diag *d)
{
	struct trace *tr = NULL;
	size_t ring;
	int ret;

	/* The simulator's own default unless the variable gives a count (empty: unset) */
	if (trace_ring_events_env(&ring) || !ring)
		ring = SIM_TRACE_EVENTS;
	if (timeline && (ret = trace_create(sc->nr_vcpus, sc->lanes, ring, 0, &tr)))
		return sim_fail(d, ret, 0, "setting up", "the trace");
	ret = sim_do(sc, out, decisions, tr, false, d);
	if (!ret && tr && (ret = trace_write_json(tr, timeline))) {
		ret = sim_fail(d, ret, 0, "writing", "the trace");
		sim_result_free(*out);
	}
	trace_destroy(tr);
	return ret;
}

int sim_ideal_only(const struct sim_scenario *sc, struct sim_result **out, struct diag *d)
{
	return sim_do(sc, out, NULL, NULL, true, d);
}

void sim_result_free(struct sim_result *r)
{
	unsigned int i;

	if (!r)
		return;
	for (i = 0; r->groups && i < r->nr_groups; i++)
		free(r->groups[i].period_usage);
	free(r->wake_ns);
	free(r->groups);
	free(r->vcpus);
	free(r);
}
