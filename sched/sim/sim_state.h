/* SPDX-License-Identifier: GPL-2.0 */
/* One simulation run's state, shared by sim.c (the loop) and sim_run.c (setup, result). */
#ifndef VSCHED_SIM_STATE_H
#define VSCHED_SIM_STATE_H

#include <stdio.h>

#include "sim_types.h"

struct sim_vcpu {
	uint64_t backlog;		/* work left (ns); UINT64_MAX for a hog */
	uint64_t next_arrival;		/* SCHED_TIME_NONE if none */
	uint64_t rng;
	uint64_t run_start;
	uint64_t woke;			/* became runnable at, until it got a lane; else NONE */
	bool runnable;
};

struct sim {
	const struct sim_scenario *sc;
	struct sched *s;
	struct sim_vcpu *v;
	struct group **groups;		/* [0] root, [i + 1] scenario group i */
	uint64_t *next_sample;		/* per group: end of its current period sample */
	double *sample_base;
	struct sim_ideal *ideal;
	struct sim_result *r;
	uint64_t now;
	struct diag *diag;
	FILE *trace;			/* decisions as text, or NULL */
	struct trace *tr;		/* the timeline (sched/trace.h), or NULL */
};

/* sim_fail() with the run's diag. */
static inline int fail(struct sim *sim, int ret, unsigned int line, const char *what,
		       const char *path)
{
	return sim_fail(sim->diag, ret, line, what, path);
}

/* sim.c: the core's decisions at sim->now applied to the vCPUs. */
void sim_drain(struct sim *sim);
/* Every vCPU's track after the decisions at now, and the group counters when due. */
void sim_trace_states(struct sim *sim);
/* Runs the scenario from its set-up state to its duration; 0 or -errno (message in diag). */
int sim_loop(struct sim *sim);

#endif
