// SPDX-License-Identifier: GPL-2.0
/*
 * `fuzz-sim --kind 6`, small capped trees (sched/sim/sim_gen.c gen_small()): the generator alone,
 * not the core's errors (seeds of it are over 0.5 % on main, docs/scheduler.md §10). A seed must
 * name one scenario, so "seed N of kind 6" is a file to reduce; and every scenario must be what
 * the kind promises: 1-4 lanes, 2-8 vCPUs, 1-3 groups at depth 1-2, at least one cap with a
 * period of 5-100 ms and a quota of 10-150 % of a lane (at least CPU_QUOTA_MIN_US), a burst no
 * larger than the quota, weights in 1..10000, hogs and duty vCPUs only, no events; and it runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "sched/group.h"
#include "sched/sim.h"
#include "../sim/fuzz_kinds.h"

#define TEXT_LEN	(64 * 1024)
#define SEEDS		300

/* Counts of what one scenario holds, from its text; false (asserted) if a line is off. */
struct small_shape {
	unsigned int lanes, vcpus, groups, capped, half_lane_caps;
};

static bool check_group(const char *line, struct small_shape *sh)
{
	char path[128], rest[128] = "";
	unsigned long long quota, period, burst, w;
	const char *p;
	unsigned int depth = 0;

	if (sscanf(line, "group %127s %127[^\n]", path, rest) < 1)
		return false;
	for (p = path; *p; p++)
		depth += *p == '/';
	if (depth < 1 || depth > 2)
		return false;
	sh->groups++;
	p = strstr(rest, "weight ");
	if (p && (sscanf(p, "weight %llu", &w) != 1 || w < 1 || w > 10000))
		return false;
	p = strstr(rest, "max ");
	if (!p)
		return true;
	if (sscanf(p, "max %lluus %lluus", &quota, &period) != 2 || period < 5000 ||
	    period > 100000 || quota < CPU_QUOTA_MIN_US || quota > period * 3 / 2 ||
	    (quota < period / 10 && quota != CPU_QUOTA_MIN_US))
		return false;
	p = strstr(rest, "burst ");
	if (p && (sscanf(p, "burst %lluus", &burst) != 1 || burst > quota))
		return false;
	sh->capped++;
	sh->half_lane_caps += quota * 2 == period;
	return true;
}

static bool check_line(const char *line, struct small_shape *sh)
{
	char path[128], pattern[16];
	unsigned int id;

	if (line[0] == '#' || !strncmp(line, "duration ", 9))
		return true;
	if (sscanf(line, "lanes %u", &sh->lanes) == 1)
		return true;
	if (!strncmp(line, "group ", 6))
		return check_group(line, sh);
	if (sscanf(line, "vcpu %u %127s %15s", &id, path, pattern) == 3 && id == sh->vcpus) {
		sh->vcpus++;
		return !strcmp(pattern, "hog") || !strcmp(pattern, "duty");
	}
	return false;
}

static void test_small_caps_shape(void)
{
	char *text = malloc(TEXT_LEN), *again = malloc(TEXT_LEN), *line, *save;
	unsigned int seed, differ = 0, two_lanes_half = 0, lanes_seen = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(again);
	for (seed = 0; seed < SEEDS; seed++) {
		struct small_shape sh = { 0 };
		bool ok = true;

		CU_ASSERT_TRUE_FATAL(sim_gen(seed, &fuzz_small_caps, again, TEXT_LEN) > 0);
		/* Past the "# sim_gen seed N" line, which differs anyway. */
		differ += seed && strcmp(strchr(text, '\n'), strchr(again, '\n'));
		CU_ASSERT_TRUE_FATAL(sim_gen(seed, &fuzz_small_caps, text, TEXT_LEN) > 0);
		CU_ASSERT_STRING_EQUAL(text, again);
		for (line = strtok_r(again, "\n", &save); line && ok;
		     line = strtok_r(NULL, "\n", &save))
			ok = check_line(line, &sh);
		if (!ok || sh.lanes < 1 || sh.lanes > 4 || sh.vcpus < 2 || sh.vcpus > 8 ||
		    sh.groups < 1 || sh.groups > 3 || !sh.capped) {
			printf("\n  seed %u: not a small capped tree:\n%s", seed, text);
			CU_FAIL("not a small capped tree");
		}
		lanes_seen |= 1u << sh.lanes;
		two_lanes_half += sh.lanes == 2 && sh.half_lane_caps;
	}
	CU_ASSERT_TRUE(differ >= SEEDS * 9 / 10);
	CU_ASSERT_EQUAL(lanes_seen, 0x1e);	/* 1, 2, 3 and 4 lanes */
	CU_ASSERT_TRUE(two_lanes_half > 0);	/* the shape of §10's half-lane class */
	free(text);
	free(again);
}

/* Every scenario parses and runs (its error is fuzz-sim's to report, not asserted here). */
static void test_small_caps_run(void)
{
	char *text = malloc(TEXT_LEN);
	unsigned int seed;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (seed = 0; seed < 40; seed++) {
		struct sim_gen_result res = { 0 };
		struct diag d;
		int ret;

		diag_init(&d, NULL);
		ret = sim_gen_run(seed, &fuzz_small_caps, &res, text, TEXT_LEN, &d);
		if (ret)
			printf("\n  seed %u: %s\n", seed, d.msg);
		CU_ASSERT_EQUAL(ret, 0);
	}
	free(text);
}

static CU_TestInfo gen_tests[] = {
	{ "kind 6 is deterministic and makes small capped trees", test_small_caps_shape },
	{ "kind 6's scenarios parse and run", test_small_caps_run },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/sim gen", gen_tests)
