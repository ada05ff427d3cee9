/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fairness scenarios shared by both sides of the benchmark: the same groups and the same vCPU
 * work run once as a payload VM under vsched and once as plain host threads in the host kernel's
 * cgroup cpu controller.
 */
#ifndef VSCHED_BENCH_SCENARIO_H
#define VSCHED_BENCH_SCENARIO_H

#include <stdbool.h>
#include <stdint.h>

#define SCN_MAX_GROUPS	8
#define SCN_MAX_VCPUS	16

enum work_kind {
	WORK_HOG,		/* spins forever */
	WORK_DUTY,		/* busy busy_us of CPU, then sleeps sleep_us (paravirtual sleep) */
	WORK_HALT,		/* the same, but the sleep is a HLT (in-kernel halt) in the guest */
};

struct scn_group {
	const char *path;	/* "a/b"; parents are listed before children */
	unsigned int weight;	/* cpu.weight, 0 = default (100) */
	uint64_t quota_us;	/* 0 = "max" */
	uint64_t period_us;	/* 0 = default (100000) */
	uint64_t burst_us;
	bool idle;
};

struct scn_vcpu {
	enum work_kind kind;
	const char *group;	/* a path from groups[] */
	unsigned int busy_us, sleep_us;
};

struct scenario {
	const char *name;
	const char *what;	/* one line for the table */
	struct scn_group groups[SCN_MAX_GROUPS];
	struct scn_vcpu vcpus[SCN_MAX_VCPUS];
	bool has_sleepers;	/* duty or halt vCPUs take part: goal 2 % instead of 1 % */
};

extern const struct scenario scenarios[];
extern const unsigned int nr_scenarios;

unsigned int scn_nr_groups(const struct scenario *s);
unsigned int scn_nr_vcpus(const struct scenario *s);
int scn_group_index(const struct scenario *s, const char *path);	/* -1 if absent */
/* Index of path's parent group in s->groups, or -1 when the parent is the root. */
int scn_parent_index(const struct scenario *s, unsigned int gi);
const char *work_kind_name(enum work_kind k);

#endif
