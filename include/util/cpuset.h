/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libvirt's cpuset syntax ("0-3,^2,8"): vCPU lists for --payload, --assign, XML and
 * vsched.vcpus.
 */
#ifndef VSCHED_UTIL_CPUSET_H
#define VSCHED_UTIL_CPUSET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CPUSET_MAX 1024
/* Host CPU lists as libvirt reads them (VIR_DOMAIN_CPUMASK_LEN): CPUs 0 to 16383. */
#define CPULIST_MAX 16384

struct cpuset {
	uint64_t bits[CPUSET_MAX / 64];
};

/* Parses s into set; every index must be < limit. 0, -EINVAL (syntax) or -ERANGE (>= limit);
 * set is left alone on error. */
int cpuset_parse(const char *s, unsigned int limit, struct cpuset *set);
/*
 * The same for lists with indexes up to CPULIST_MAX (host CPUs): the part below CPUSET_MAX goes
 * to low (if not NULL), the size of the whole set to count (if not NULL).
 */
int cpulist_parse(const char *s, unsigned int limit, struct cpuset *low, unsigned int *count);
/* Formats as ranges ("0-2,5"); "" for an empty set. Returns the length or -ENOSPC. */
int cpuset_format(const struct cpuset *set, char *buf, size_t len);

static inline void cpuset_clear(struct cpuset *set)
{
	*set = (struct cpuset){ 0 };
}

static inline void cpuset_set(struct cpuset *set, unsigned int i)
{
	set->bits[i / 64] |= 1ULL << (i % 64);
}

static inline void cpuset_unset(struct cpuset *set, unsigned int i)
{
	set->bits[i / 64] &= ~(1ULL << (i % 64));
}

static inline bool cpuset_test(const struct cpuset *set, unsigned int i)
{
	return i < CPUSET_MAX && (set->bits[i / 64] >> (i % 64)) & 1;
}

unsigned int cpuset_count(const struct cpuset *set);

#endif
