/* SPDX-License-Identifier: GPL-2.0 */
/* bench-fair's judgement: each side's error against the fluid ideal, caps, the verdicts. */
#ifndef VSCHED_BENCH_FAIR_H
#define VSCHED_BENCH_FAIR_H

#include <stdbool.h>

#include "result.h"
#include "scenario.h"
#include "sched/runtime.h"
#include "vmm/accel.h"

/* One side of a scenario: vsched on a vCPU backend, or the host kernel's cgroups. */
struct side {
	const char *name;	/* "kvm", "thread", "kernel" */
	bool vsched;
	enum vm_accel accel;
	bool ok;		/* it ran the current scenario */
	struct bench_result r;
	struct runtime_stats rst;
	/* Judged against the fluid ideal (eval_side()). */
	double used;		/* CPUs the host gave all vCPUs */
	double given[SCN_MAX_GROUPS];	/* the ideal on that, percent of lanes */
	double nerr[SCN_MAX_GROUPS];
	double max, noise;	/* the largest nerr and its standard error */
};

/* A vsched side's result in one scenario, against the kernel's in the same run. */
struct summary {
	const char *name, *side;
	double vmax, hmax, goal;
	double vnoise, hnoise;	/* standard error of vmax, hmax (noise.c) */
	bool hok, capped;
	/* Capped scenarios: the binding caps' worst use, % off quota (fair_cap_worst()); the CPUs
	   the side was given and the ideal needs (all its groups at their ideal). */
	double vcap, hcap, used, need;
};

#define CAP_GOAL	1.0	/* cpu.max: use within +-1 % of quota */

/* Twice the standard error of vmax - hmax: a difference within it is the windows' luck. */
double fair_noise(const struct summary *s);
void fair_eval_side(const struct scenario *s, const double *ideal, unsigned int lanes,
		    struct side *sd);
/* A cap that binds in the ideal: judged by its cpu.max line instead. */
bool fair_cap_binds(const struct scenario *s, const double *ideal, unsigned int g,
		    unsigned int lanes);
double fair_cap_pct(const struct scn_group *sg, unsigned int lanes);
double fair_cap_worst(const struct scenario *s, const double *ideal, unsigned int lanes,
		      const struct side *sd);
double fair_ideal_cpus(const struct scenario *s, const double *ideal, unsigned int lanes);
const char *fair_verdict(const struct summary *s);

#endif
