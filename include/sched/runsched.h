/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler side of `vsched run`: the group tree built from --group/--assign before the VM
 * exists, the runtime attached to the VM's vCPUs, per-group --stats and the live group table.
 */
#ifndef VSCHED_SCHED_RUNSCHED_H
#define VSCHED_SCHED_RUNSCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sched/runstats.h"

struct vm;
struct vsched;
struct runtime;
struct stats_run;

struct runsched {
	struct vsched *vs;
	struct runtime *rt;
	struct runstats_monitor *mon;
	struct runstats_ctx ctx;
	unsigned int lanes;
	bool scheduled;
	bool no_pin;		/* lanes float instead of running on host CPUs (--no-pin) */
	double *demand;		/* per vCPU, for the table's ideal column; NULL: unknown */
	const char *trace_path;	/* --trace: the schedule as trace-event JSON, written at the end */
	FILE *trace_file;
	struct trace *trace;
};

/* Host CPUs this process may use (its affinity mask): the default number of lanes. */
unsigned int runsched_default_lanes(void);
/* Builds the tree: every --group spec, then every --assign spec. On error msg says why. */
int runsched_setup(struct runsched *rs, unsigned int nr_vcpus, unsigned int lanes, bool scheduled,
		   const char *const *groups, unsigned int nr_groups, const char *const *assigns,
		   unsigned int nr_assigns, char *msg, size_t msglen);
/* --trace FILE: opened now (so a bad path fails before anything runs), recorded from attach,
 * written by runsched_finish(). 0 or -errno, msg saying why. */
int runsched_trace(struct runsched *rs, const char *path, char *msg, size_t msglen);
/* After vm_create(), before vm_start(): the runtime takes the vCPU hooks. monitor: print the
 * group table every second to stdout. 0 or -errno. */
int runsched_attach(struct runsched *rs, struct vm *vm, bool monitor);
/* Each vCPU's long-run demand in CPUs (0..1), when known (payload guests): the live table then
 * shows the fluid ideal beside the measured shares. Copied. 0 or -ENOMEM. */
int runsched_set_demand(struct runsched *rs, const double *demand, unsigned int nr_vcpus);
/* The --stats "groups" writer. */
void runsched_stats(struct runsched *rs, struct stats_run *sr);
/* After vm_join(): ends the live table (printing the whole-run table) and writes the trace.
 * 0, or -EIO if the trace could not be written. */
int runsched_finish(struct runsched *rs);
void runsched_destroy(struct runsched *rs);

#endif
