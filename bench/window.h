/* SPDX-License-Identifier: GPL-2.0 */
/* The measurement window, the same for both sides of bench-fair. */
#ifndef VSCHED_BENCH_WINDOW_H
#define VSCHED_BENCH_WINDOW_H

#include <stdint.h>

#include "result.h"

/* Reads every vCPU's (thread's) CPU time and work units now. */
typedef void (*window_snap_fn)(void *arg, uint64_t *cpu, uint64_t *work);

/*
 * Measures a window of `seconds` from now: RESULT_STEPS + 1 readings evenly spaced, which fill
 * r->seconds, the per-vCPU and per-group totals and r->step_ns (for noise.c). r->lanes and the
 * cpu.stat counters are the caller's.
 */
void window_measure(struct bench_result *r, const struct scenario *s, double seconds,
		    window_snap_fn snap, void *arg);

#endif
