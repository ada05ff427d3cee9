// SPDX-License-Identifier: GPL-2.0
/*
 * <cputune>'s scheduling elements: <vcpusched>, <iothreadsched>, <emulatorsched>, with
 * libvirt's messages; a vsched VM names the policies it does not use.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputune_int.h"

/* schedparam: scheduler batch|idle, or fifo|rr with a priority (any int, 0 included). */
static int cputune_schedparam(struct cputune_ctx *c, xmlNode *n, const char *elem,
			      enum vcpu_policy *policy, int *prio)
{
	char *s = xml_prop(n, "scheduler"), *p;
	long long v;
	int ret = 0;

	if (!s)
		return xerr(c->d, n, elem, NULL, "Missing scheduler attribute");
	if (!strcmp(s, "batch"))
		*policy = VCPU_SCHED_BATCH;
	else if (!strcmp(s, "idle"))
		*policy = VCPU_SCHED_IDLE;
	else if (!strcmp(s, "fifo"))
		*policy = VCPU_SCHED_FIFO;
	else if (!strcmp(s, "rr"))
		*policy = VCPU_SCHED_RR;
	else
		ret = xerr(c->d, n, elem, s, "Invalid scheduler attribute: '%s'", s);
	free(s);
	if (ret || (*policy != VCPU_SCHED_FIFO && *policy != VCPU_SCHED_RR))
		return ret;
	p = xml_prop(n, "priority");
	if (!p)
		return xerr(c->d, n, elem, NULL, "Missing scheduler priority");
	if (parse_ll(p, &v) || v < INT32_MIN || v > INT32_MAX)
		ret = xerr(c->d, n, elem, p, "Invalid value for attribute 'priority' in element "
			   "'%s': '%s'. Expected integer value", elem, p);
	else
		*prio = (int)v;
	free(p);
	return ret;
}

/* The id list of vcpusched/iothreadsched: mandatory, non-empty, disjoint from earlier ones. */
static int cputune_sched_ids(struct cputune_ctx *c, xmlNode *n, const char *elem,
			     const char *attr, struct cpuset *seen, struct cpuset *set)
{
	char *s = xml_prop_list(n, attr);
	unsigned int w;
	int ret = 0;

	/* libvirt's wording, "%ssched" with the attribute: "vcpussched", "iothreadssched". */
	if (!s)
		return xerr(c->d, n, elem, NULL, "Missing attribute '%s' in element '%ssched'", attr,
			    attr);
	if (cpuset_parse(s, CPUSET_MAX, set))
		ret = xerr(c->d, n, elem, s, "Invalid value of '%s': %s", attr, s);
	else if (!cpuset_count(set))
		ret = xerr(c->d, n, elem, s, "'%s' scheduler bitmap '%s' is empty", attr, s);
	if (!ret)
		for (w = 0; w < CPUSET_MAX / 64; w++)
			if (seen->bits[w] & set->bits[w]) {
				ret = xerr(c->d, n, elem, s, "%ssched attributes '%s' must not overlap",
					   attr, attr);
				break;
			}
	if (!ret)
		for (w = 0; w < CPUSET_MAX / 64; w++)
			seen->bits[w] |= set->bits[w];
	free(s);
	return ret;
}

/* libvirt sets these policies on a QEMU domain's threads; a vsched VM says so (RR is the last). */
static const char *const policy_unused[] = {
	[VCPU_SCHED_BATCH] = "scheduler 'batch': vsched groups have no batch class, the vCPUs are "
			     "scheduled as normal ones",
	[VCPU_SCHED_FIFO] = "real-time scheduler 'fifo' is not used by vsched, the vCPUs are "
			    "scheduled by weight",
	[VCPU_SCHED_RR] = "real-time scheduler 'rr' is not used by vsched, the vCPUs are "
			  "scheduled by weight",
};

int cputune_vcpusched(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	enum vcpu_policy policy = VCPU_SCHED_NONE;
	struct cpuset set;
	unsigned int i;
	int prio = 0, ret;

	ret = cputune_sched_ids(c, n, "vcpusched", "vcpus", &c->sched_vcpus, &set);
	if (!ret)
		ret = cputune_schedparam(c, n, "vcpusched", &policy, &prio);
	if (ret)
		return ret;
	for (i = 0; i < CPUSET_MAX; i++) {
		if (!cpuset_test(&set, i))
			continue;
		if (i >= c->max_vcpus) {
			char buf[16];

			snprintf(buf, sizeof(buf), "%u", i);
			return xerr(c->d, n, "vcpusched", buf, "invalid vcpu '%u' for vcpusched", i);
		}
		c->t->vcpus[i].policy = policy;
		c->t->vcpus[i].priority = prio;
	}
	if (policy_unused[policy])
		cputune_ignore(c->t, "vcpusched", policy_unused[policy], xml_line(n));
	return 0;
}

int cputune_iothreadsched(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	enum vcpu_policy policy;
	struct cpuset set;
	unsigned int i;
	int prio, ret;

	ret = cputune_sched_ids(c, n, "iothreadsched", "iothreads", &c->sched_iothreads, &set);
	if (!ret)
		ret = cputune_schedparam(c, n, "iothreadsched", &policy, &prio);
	for (i = 0; !ret && i < CPUSET_MAX; i++)
		if (cpuset_test(&set, i))
			ret = cputune_iothread_id(c, n, "iothreadsched", i);
	return ret;
}

int cputune_emulatorsched(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	enum vcpu_policy policy;
	int prio;

	return cputune_schedparam(c, n, "emulatorsched", &policy, &prio);
}
