// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched sim [--quiet] [--decisions] [--trace FILE] SCENARIO`: a scenario on the scheduler core
 * (sched/sim/).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "sched/sim.h"
#include "sched/trace.h"
#include "util/diag.h"

struct sim_cfg {
	bool quiet;
	bool decisions;
	const char *trace;
};

static const struct cmd_opt sim_opts[] = {
	{ .name = "quiet", .key = 'q', .off = offsetof(struct sim_cfg, quiet),
	  .help = "print only the max group error (% of capacity)" },
	{ .name = "decisions", .key = 'D', .off = offsetof(struct sim_cfg, decisions),
	  .help = "print every decision of the core as it is taken" },
	{ .name = "trace", .key = 't', .arg = "FILE", .off = offsetof(struct sim_cfg, trace),
	  .help = "write the schedule as trace-event JSON (docs/trace.md)" },
};

static const struct cmd_desc sim_desc = {
	.prog = "vsched sim", .usage = "[--quiet] [--decisions] [--trace FILE] SCENARIO",
	.about = "Runs a scenario on the scheduler core with a virtual clock and prints per-group\n"
		 "and per-vCPU usage against the fluid ideal, and every group's cpu.stat\n"
		 "counters.\n",
	.opts = sim_opts, .nr_opts = ARRAY_SIZE(sim_opts),
	.footer = "The scenario format is in docs/scheduler.md and include/sched/sim.h.\n",
	.min_args = 1, .max_args = 1,
};

int cmd_sim(int argc, char **argv)
{
	struct sim_cfg cfg = { 0 };
	struct sim_scenario *sc;
	struct sim_result *r;
	const char *file;
	FILE *tf = NULL;
	struct diag d;
	bool trace_lost;
	size_t ring;
	int ret;

	ret = cmd_parse(&sim_desc, argc, argv, &cfg, NULL);
	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	file = argv[ret];
	/* The trace is written as the run goes: naming the scenario, it replaced it. */
	if (cfg.trace && run_same_file(cfg.trace, file)) {
		cmd_usage_error(&sim_desc, "--trace '%s' is the scenario file: it would be "
				"overwritten", cfg.trace);
		return CMD_EXIT_USAGE;
	}
	if (cfg.trace && trace_ring_events_env(&ring)) {
		cmd_usage_error(&sim_desc, TRACE_RING_EVENTS_ENV " '%s' is no count of %u to %u "
				"(trace events per recording thread)",
				getenv(TRACE_RING_EVENTS_ENV), TRACE_RING_EVENTS_MIN,
				TRACE_RING_EVENTS_MAX);
		return CMD_EXIT_USAGE;
	}
	diag_init(&d, NULL);
	ret = sim_load(file, &sc, &d);
	if (ret) {
		fprintf(stderr, "vsched sim: %s: %s\n", file, d.msg);
		goto out;
	}
	if (cfg.trace && !(tf = fopen(cfg.trace, "w"))) {
		ret = -errno;
		fprintf(stderr, "vsched sim: --trace %s: %s\n", cfg.trace, strerror(errno));
		sim_scenario_free(sc);
		goto out;
	}
	ret = sim_run_traced(sc, &r, cfg.decisions ? stdout : NULL, tf, &d);
	trace_lost = ret && tf && ferror(tf);
	sim_scenario_free(sc);
	if (tf && fclose(tf) && !ret) {
		ret = errno ? -errno : -EIO;
		sim_result_free(r);
		diag_set(&d, ret, "writing %s: %s", cfg.trace, strerror(-ret));
	}
	/* A trace that could not be written is named, not the scenario it came from. */
	if (trace_lost) {
		fprintf(stderr, "vsched sim: --trace %s: %s\n", cfg.trace, strerror(-ret));
		goto out;
	}
	if (ret) {
		fprintf(stderr, "vsched sim: %s: %s\n", file, d.msg);
		goto out;
	}
	if (cfg.quiet)
		printf("%.4f\n", sim_max_group_error(r));
	else
		sim_report(r, stdout);
	sim_result_free(r);
	/* A report (or --decisions) lost to a full disk or a closed pipe exited 0. */
	if ((fflush(stdout) || ferror(stdout)) && !ret) {
		ret = -EIO;
		fprintf(stderr, "vsched sim: writing the report: %s\n", strerror(errno ? errno : EIO));
	}
out:
	diag_free(&d);
	return ret ? 1 : 0;
}
