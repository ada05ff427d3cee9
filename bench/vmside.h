/* SPDX-License-Identifier: GPL-2.0 */
/* The vsched side of the benchmark: a scenario as a payload VM scheduled by the runtime, on
 * each vCPU backend there is. */
#ifndef VSCHED_BENCH_VMSIDE_H
#define VSCHED_BENCH_VMSIDE_H

#include <stdbool.h>

#include "result.h"
#include "scenario.h"
#include "sched/runtime.h"
#include "vmm/accel.h"

struct vsched;
/* The scenario's groups and vCPU membership through the --group/--assign specs. 0 or -errno. */
int vmside_groups(struct vsched *vs, const struct scenario *s);
/* The backends to run the vsched side on: kvm where it works (else why it does not, in why),
 * and thread. Returns how many are in accels[2]. */
unsigned int vmside_backends(enum vm_accel *accels, struct diag *why);
/*
 * Runs s as a payload VM on accel, on lanes host CPUs for warmup + seconds. scheduled: under the
 * runtime with the scenario's groups; else with no scheduler at all (the host kernel runs the
 * vCPU threads), the baseline for throughput. rst (may be NULL) gets the runtime's counters.
 */
int vmside_run(const struct scenario *s, enum vm_accel accel, unsigned int lanes, double seconds,
	       bool scheduled, struct bench_result *r, struct runtime_stats *rst);
/* The same, recording into tr (sched/trace.h; NULL: not) from the start to the window's end. */
struct trace;
int vmside_run_traced(const struct scenario *s, enum vm_accel accel, unsigned int lanes,
		      double seconds, bool scheduled, struct trace *tr, struct bench_result *r,
		      struct runtime_stats *rst);

#endif
