// SPDX-License-Identifier: GPL-2.0
/* `vsched sim [--quiet] [--trace] SCENARIO`: a scenario on the scheduler core (sched/sim/). */
#include <stdbool.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "sched/sim.h"

struct sim_cfg {
	bool quiet;
	bool trace;
};

static const struct cmd_opt sim_opts[] = {
	{ .name = "quiet", .key = 'q', .off = offsetof(struct sim_cfg, quiet),
	  .help = "print only the max group error (% of capacity)" },
	{ .name = "trace", .key = 't', .off = offsetof(struct sim_cfg, trace),
	  .help = "print every decision of the core as it is taken" },
};

static const struct cmd_desc sim_desc = {
	.prog = "vsched sim", .usage = "[--quiet] [--trace] SCENARIO",
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
	struct diag d;
	int ret;

	ret = cmd_parse(&sim_desc, argc, argv, &cfg, NULL);
	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	file = argv[ret];
	diag_init(&d, NULL);
	ret = sim_load(file, &sc, &d);
	if (ret) {
		fprintf(stderr, "vsched sim: %s: %s\n", file, d.msg);
		return 1;
	}
	ret = sim_run_traced(sc, &r, cfg.trace ? stdout : NULL, &d);
	sim_scenario_free(sc);
	if (ret) {
		fprintf(stderr, "vsched sim: %s: %s\n", file, d.msg);
		return 1;
	}
	if (cfg.quiet)
		printf("%.4f\n", sim_max_group_error(r));
	else
		sim_report(r, stdout);
	sim_result_free(r);
	return 0;
}
