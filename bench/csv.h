/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-fair's CSV output for plots (bench/plot.sh, gnuplot): each side's group shares over the
 * window beside that side's ideal, and the summary of errors. Written when $BENCH_CSV_DIR is set
 * (bench/run.sh sets it to build/plots); docs/bench/README.md describes the files.
 */
#ifndef VSCHED_BENCH_CSV_H
#define VSCHED_BENCH_CSV_H

#include "result.h"

/*
 * <dir>/<scenario>.<side>.csv: t_s, then per group the CPU it got in each step of the window in
 * % of capacity (P lanes), then per group the ideal on the CPU the host gave the side (given[]:
 * weights share that, cpu.max caps stay absolute; % of capacity too). 0, or -errno.
 */
int csv_write_shares(const char *dir, const struct scenario *s, const char *side,
		     const struct bench_result *r, const double *given);

/* <dir>/summary.csv: "scenario,<side>,..." then one row per scenario (max nerr, %). */
struct csv_summary {
	unsigned int nr_sides, nr_rows;
	const char *sides[4];
	const char *scenario[64];
	double err[64][4];		/* NAN: that side did not run */
};
int csv_write_summary(const char *dir, const struct csv_summary *sum);

#endif
