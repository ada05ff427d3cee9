/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the simulator's test files. */
#ifndef VSCHED_TESTS_SIM_TEST_H
#define VSCHED_TESTS_SIM_TEST_H

#include <stdio.h>

#include "test.h"
#include "sched/sim.h"

/* Parses and runs text, asserting both succeed; the result, or NULL (reported). */
static inline struct sim_result *run(const char *text)
{
	struct sim_scenario *sc = NULL;
	struct sim_result *r = NULL;
	struct diag d;
	int ret;

	diag_init(&d, NULL);
	ret = sim_parse(text, &sc, &d);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret) {
		printf("\n  parse: %s\n", d.msg);
		return NULL;
	}
	ret = sim_run(sc, &r, &d);
	sim_scenario_free(sc);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret)
		printf("\n  run: %s\n", d.msg);
	return ret ? NULL : r;
}

/* Runs text and asserts its max group error is within bound (% of capacity); reports if not. */
static inline void run_within(const char *text, double bound)
{
	struct sim_result *r = run(text);

	if (!r)
		return;
	if (sim_max_group_error(r) > bound)
		sim_report(r, stdout);
	CU_ASSERT_TRUE(sim_max_group_error(r) <= bound);
	sim_result_free(r);
}

#endif
