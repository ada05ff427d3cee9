/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-group statistics of a run, read through the public API (the cpu.stat formatter is the
 * one in the file table; nothing here formats cpu.stat again, it only re-shapes its lines).
 */
#ifndef VSCHED_SCHED_RUNSTATS_H
#define VSCHED_SCHED_RUNSTATS_H

#include <stdint.h>
#include <stdio.h>

struct json;
struct vsched;
struct runtime;

/* The --stats "groups" key: [{"path": "/a", "cpu.weight": .., "cpu.max": "..", "cpu.stat":
 * {"usage_usec": .., ...}}, ...], root first, depth first, and the "runtime" counters when the
 * context has a runtime. arg is the struct runstats_ctx below. */
struct runstats_ctx {
	struct vsched *vs;
	struct runtime *rt;	/* may be NULL */
};
void runstats_write_groups(struct json *j, void *arg);

/*
 * One line per group: weight, cpu.max, CPU used as % of capacity between two snapshots, and,
 * given each vCPU's demand (CPUs, 0..1; NULL: no column), the fluid ideal (sched/fluid.h).
 */
struct runstats_snap {
	unsigned int nr;
	char path[32][256];
	uint64_t usage_usec[32];
	uint64_t nr_throttled[32];
	double lane_cpu_ns, lane_held_ns;	/* sched_delivery_totals() */
};
void runstats_snapshot(struct vsched *vs, struct runstats_snap *snap);
void runstats_print_table(FILE *f, struct vsched *vs, const struct runstats_snap *before,
			  const struct runstats_snap *after, double seconds, unsigned int lanes,
			  const double *demand);

/*
 * A thread printing the group table to f every interval_ns (CPU % over that interval), for the
 * demo's live view. runstats_monitor_stop() joins it and prints the table over the whole run.
 */
struct runstats_monitor;
int runstats_monitor_start(FILE *f, struct vsched *vs, unsigned int lanes, uint64_t interval_ns,
			   const double *demand, struct runstats_monitor **out);
void runstats_monitor_stop(struct runstats_monitor *m);

#endif
