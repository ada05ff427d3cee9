/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The deterministic simulator: drives the scheduler core on a virtual clock with synthetic vCPUs
 * described in a scenario file, and compares what each group got with the fluid ideal.
 *
 * Scenario files are line based; '#' starts a comment. Times take a unit (ns, us, ms, s); a bare
 * number is microseconds, as in cpu.max.
 *
 *   lanes 2                       P, the vCPUs that may run at once
 *   deliver 60%                   each lane runs its vCPU 60 % of wall time (the host runs other
 *                                 work: steal); default 100 %
 *   duration 10s
 *   slice 3ms | min_run 1ms | lag 6ms          core parameters (optional)
 *   group /a weight 200           weight W | nice N | max QUOTA|max [PERIOD] (kept if not
 *   group /a/b max 20ms 100ms burst 10ms       given, as cpu.max) | burst B | idle 0|1
 *   group /c idle 1               (parents first)
 *   vcpu 0 /a hog                 always runnable
 *   vcpu 1 /a/b duty 3ms 10ms     BUSY of work arrives every PERIOD [phase T]
 *   vcpu 2 / bursty 5ms 20ms      work of 0.5-1.5 x BURST arrives every 0.5-1.5 x GAP [seed N]
 *                                 [phase T] (each draw at least 1 ns)
 *   vcpu 3 / idle                 never runnable
 *   vcpu 4 / sleep 3ms 7ms        BUSY of work, then sleeps SLEEP from when it is done [phase T]
 *                                 (bench-fair's duty guests; ideal: its mean demand, 30 % here)
 *   vcpu 5 / hog sys 30           any vcpu line: "sys PCT" charges PCT % of its time as system time
 *   at 5s move 1 /c               timed events: move, weight, nice, max, burst, idle
 *   at 2s max /a/b 20ms 100ms
 *
 * Times are plain decimals (no sign, exponent, inf or nan) of whole nanoseconds, cpu.max and
 * burst values of whole microseconds (as the files take them). Groups are defined after their
 * parent, at most 256 deep; vCPU ids run from 0 without gaps, each once; every path names "/" or
 * a defined group; events happen before the end, in any order (sorted by time, then line); the
 * one-value keywords come once a file; a line gives each setting once, weight or nice, neither
 * beside idle 1 (the kernel refuses cpu.weight while idle), a quota of max or >= 1ms, a period
 * of 1ms-1s, a burst <= its quota, in at most 32 words; a vcpu line each option once, phase on
 * duty/bursty/sleep, seed on bursty. A file is text of at most 1 MiB with at least one vcpu
 * line, whose run records at most 2^26 wakes and capped periods: anything else is refused, at
 * its line.
 */
#ifndef VSCHED_SCHED_SIM_H
#define VSCHED_SCHED_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/group.h"
#include "util/diag.h"

struct sim_scenario;
struct sim_result;

/* 0 or -errno; on error d (may be NULL) holds "line N: what" (sim_load(): or the errno's text). */
int sim_parse(const char *text, struct sim_scenario **out, struct diag *d);
int sim_load(const char *path, struct sim_scenario **out, struct diag *d);
void sim_scenario_free(struct sim_scenario *sc);

int sim_run(const struct sim_scenario *sc, struct sim_result **out, struct diag *d);
/*
 * The same, printing every decision of the core to decisions (if not NULL) as it is taken, and
 * writing the run's timeline to timeline (if not NULL) as trace-event JSON (sched/trace.h).
 */
int sim_run_traced(const struct sim_scenario *sc, struct sim_result **out, FILE *decisions,
		   FILE *timeline, struct diag *d);
/* The ideal alone, without running the core (usage stays 0): for benchmarks' references. */
int sim_ideal_only(const struct sim_scenario *sc, struct sim_result **out, struct diag *d);
void sim_result_free(struct sim_result *r);
void sim_report(const struct sim_result *r, FILE *f);

/* Results, for tests and tools. Paths as in the scenario ("/" is the root). */
double sim_capacity_ns(const struct sim_result *r);	/* lanes x duration */
double sim_max_group_error(const struct sim_result *r);	/* % of capacity, non-root groups */
double sim_max_vcpu_error(const struct sim_result *r);	/* % of capacity, every vCPU */
int sim_group_usage(const struct sim_result *r, const char *path, double *usage_ns,
		    double *ideal_ns);
int sim_group_stat(const struct sim_result *r, const char *path, struct cpu_stat *st);
int sim_vcpu_usage(const struct sim_result *r, unsigned int id, double *usage_ns,
		   double *ideal_ns);
unsigned long sim_preemptions(const struct sim_result *r);	/* PREEMPT decisions (kicks) */
unsigned long sim_timer_wakeups(const struct sim_result *r);	/* slice ends that fired */
unsigned long sim_min_run_violations(const struct sim_result *r);
/* Quantile q (0..1) of the delays from a vCPU becoming runnable to its lane; *nr wakes. */
uint64_t sim_wake_quantile(const struct sim_result *r, double q, size_t *nr);
/* Usage of a group in each of its bandwidth periods (ns), for per-period checks. */
size_t sim_group_periods(const struct sim_result *r, const char *path, const double **usage);

/*
 * A random scenario from seed (sim_gen.c), as scenario text in buf: its length, -ENOSPC if buf
 * is too small, -EINVAL for bad options. Hog-only uncapped trees, the same with duty-cycle and
 * bursty vCPUs, hogs under cpu.max caps, or small capped trees (1 to max_lanes lanes, 2 to
 * max_vcpus vCPUs, 1 to max_groups groups, periods 5-100 ms, quotas 10-150 % of a lane).
 */
enum sim_gen_kind { SIM_GEN_HOGS, SIM_GEN_DUTY, SIM_GEN_CAPS, SIM_GEN_SMALL_CAPS };
struct sim_gen_opts {
	enum sim_gen_kind kind;
	unsigned int max_lanes, max_vcpus, max_groups, max_depth;	/* groups <= 32 */
	uint64_t duration_ns;
	bool bursts_only;	/* SIM_GEN_DUTY: no hogs */
	bool coarse_caps;	/* SIM_GEN_CAPS: periods of 100 ms and more, quotas >= 5 ms */
	bool coarse_duty;	/* SIM_GEN_DUTY: work of 1 ms and more every 10 ms and more */
};
int sim_gen(uint64_t seed, const struct sim_gen_opts *o, char *buf, size_t len);
/* What sim_gen_run() measured: max errors in % of capacity (sim_max_*_error()). */
struct sim_gen_result {
	double group_error, vcpu_error;
	unsigned long violations;	/* min-run violations */
};
/*
 * Generates scenario `seed` into text (len bytes; 64 KiB hold any) and runs it. 0 or -errno, d
 * saying why.
 */
int sim_gen_run(uint64_t seed, const struct sim_gen_opts *o, struct sim_gen_result *res,
		char *text, size_t len, struct diag *d);

#endif
