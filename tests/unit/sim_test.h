/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the simulator's test files. */
#ifndef VSCHED_TESTS_SIM_TEST_H
#define VSCHED_TESTS_SIM_TEST_H

#include <stdio.h>
#include <stdlib.h>

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

#define SIM_TEST_TEXT_LEN	(64 * 1024)

/*
 * Runs generated scenario `seed` of `o` into *res, asserting it runs without min-run violations;
 * 0, or -1 if it failed (asserted).
 */
static inline int gen_run(uint64_t seed, const struct sim_gen_opts *o, struct sim_gen_result *res)
{
	char *text = malloc(SIM_TEST_TEXT_LEN);
	struct diag d;
	int ret;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	diag_init(&d, NULL);
	ret = sim_gen_run(seed, o, res, text, SIM_TEST_TEXT_LEN, &d);
	CU_ASSERT_EQUAL(ret, 0);
	if (ret)
		printf("\n  seed %llu: %s\n", (unsigned long long)seed, d.msg);
	else
		CU_ASSERT_EQUAL(res->violations, 0);
	free(text);
	return ret ? -1 : 0;
}

/* gen_run()'s max group error (% of capacity, printed over 0.5), or -1. */
static inline double gen_error(uint64_t seed, const struct sim_gen_opts *o)
{
	struct sim_gen_result res = { 0 };

	if (gen_run(seed, o, &res))
		return -1;
	if (res.group_error > 0.5)
		printf("\n  seed %llu: %.4f %% of capacity\n", (unsigned long long)seed,
		       res.group_error);
	return res.group_error;
}

#endif
