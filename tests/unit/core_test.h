/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by the scheduler core's test files: take its decisions, look for one. */
#ifndef VSCHED_TESTS_CORE_TEST_H
#define VSCHED_TESTS_CORE_TEST_H

#include <stdbool.h>
#include <stddef.h>

#include "sched/core.h"

#define MS 1000000ULL

static inline size_t take(struct sched *s, struct sched_decision *d, size_t max)
{
	return sched_take_decisions(s, d, max);
}

static inline bool has(const struct sched_decision *d, size_t n, enum sched_decision_type t,
		       int vcpu)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (d[i].type == t && (vcpu < 0 || d[i].vcpu == (unsigned int)vcpu))
			return true;
	return false;
}

#endif
