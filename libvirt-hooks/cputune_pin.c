// SPDX-License-Identifier: GPL-2.0
/*
 * <cputune>'s pinning elements: <vcpupin>, <emulatorpin>, <iothreadpin> (and the iothread ids
 * that <iothreadsched> checks too), with libvirt's messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputune_int.h"

/*
 * A host CPU list: CPUs 0 to 16383 as libvirt reads it (VIR_DOMAIN_CPUMASK_LEN; whether the host
 * has them is the start's business), not empty ("Invalid value of 'cpuset'"). set keeps the
 * CPUs below CPUSET_MAX.
 */
static int cputune_cpuset(struct cputune_ctx *c, xmlNode *n, const char *elem,
			  struct cpuset *set)
{
	char *raw = xml_prop_list(n, "cpuset");
	unsigned int count = 0;
	int ret = 0;

	if (!raw)
		return xerr(c->d, n, elem, NULL, "missing cpuset for %s", elem);
	if (cpulist_parse(raw, CPULIST_MAX, set, &count))
		ret = xerr(c->d, n, elem, raw, "Failed to parse bitmap '%s'", raw);
	else if (!count)
		ret = xerr(c->d, n, elem, raw, "Invalid value of 'cpuset': %s", raw);
	free(raw);
	return ret;
}

/* A pin's id attribute, an unsigned int as libvirt 9.0 reads it (virXMLPropUInt). */
static int pin_id(struct cputune_ctx *c, xmlNode *n, const char *elem, const char *attr,
		  unsigned long long *id)
{
	char *v = xml_prop(n, attr);
	int ret = 0;

	if (!v)
		return xerr(c->d, n, elem, NULL, "missing %s id in %s", attr, elem);
	if (parse_ull(v, id) || *id > UINT32_MAX)
		ret = xerr(c->d, n, elem, v, "Invalid value for attribute '%s' in element '%s': "
			   "'%s'. Expected non-negative integer value", attr, elem, v);
	free(v);
	return ret;
}

int cputune_vcpupin(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	unsigned long long id;
	struct cpuset set;
	int ret;

	/* The schema's unsignedShort is not enforced: an id beyond the vCPUs is only warned about. */
	ret = pin_id(c, n, "vcpupin", "vcpu", &id);
	if (ret)
		return ret;
	/* libvirt only warns here, before it reads the cpuset (libvirtd 9.0 defines
	 * <vcpupin vcpu='5'/> of 2 vCPUs, without a cpuset or with cpuset='x'). */
	if (id >= c->max_vcpus)
		return xwarn(c->d, n, "vcpupin", "Ignoring vcpupin for missing vcpus (vcpu %llu)",
			     id);
	ret = cputune_cpuset(c, n, "vcpupin", &set);
	if (ret)
		return ret;
	if (c->t->vcpus[id].pinned) {
		char buf[16];

		snprintf(buf, sizeof(buf), "%llu", id);
		return xerr(c->d, n, "vcpupin", buf, "duplicate vcpupin for vcpu '%llu'", id);
	}
	c->t->vcpus[id].pinned = true;
	c->t->vcpus[id].pin = set;
	if (!c->t->vcpupin_line)
		c->t->vcpupin_line = xml_line(n);
	return 0;
}

int cputune_emulatorpin(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	if (c->t->emulatorpin_set)
		return xerr(c->d, n, "emulatorpin", NULL, "only one emulatorpin is supported");
	c->t->emulatorpin_set = true;
	c->t->emulatorpin_line = xml_line(n);
	return cputune_cpuset(c, n, "emulatorpin", &c->t->emulatorpin);
}

/* An iothread id from iothreadpin/iothreadsched: > 0 and defined by <iothreads>. */
int cputune_iothread_id(struct cputune_ctx *c, xmlNode *n, const char *elem,
			       unsigned long long id)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%llu", id);
	if (id == 0)
		return xerr(c->d, n, elem, buf, "zero is an invalid iothread id value");
	if (!iothread_ids_has(c->io, id))
		return xerr(c->d, n, elem, buf, "Cannot find 'iothread' : %llu", id);
	return 0;
}

int cputune_iothreadpin(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	unsigned long long id;
	struct cputune_pin *pins;
	struct cpuset set;
	int ret;

	ret = pin_id(c, n, "iothreadpin", "iothread", &id);
	if (!ret)
		ret = cputune_iothread_id(c, n, "iothreadpin", id);
	if (!ret)
		ret = cputune_cpuset(c, n, "iothreadpin", &set);
	if (ret)
		return ret;
	pins = cputune_grow(c->pins, &c->cap_pins, c->nr_pins, sizeof(*pins));
	if (!pins)
		return -ENOMEM;
	c->pins = pins;
	c->pins[c->nr_pins++] = (struct cputune_pin){ (unsigned int)id, xml_line(n) };
	return 0;
}

static int cmp_pin(const void *a, const void *b)
{
	const struct cputune_pin *x = a, *y = b;

	return x->id != y->id ? (x->id < y->id ? -1 : 1) : (x->line > y->line) - (x->line < y->line);
}

/* "duplicate iothreadpin", at the first line that repeats an id. */
int cputune_pin_dups(struct cputune_ctx *c)
{
	const struct cputune_pin *dup = NULL;
	size_t i;

	if (c->nr_pins > 1)
		qsort(c->pins, c->nr_pins, sizeof(*c->pins), cmp_pin);
	for (i = 1; i < c->nr_pins; i++)
		if (c->pins[i].id == c->pins[i - 1].id && (!dup || c->pins[i].line < dup->line))
			dup = &c->pins[i];
	if (!dup)
		return 0;
	return diag_at(c->d, -EINVAL, dup->line, "iothreadpin", NULL,
		       "duplicate iothreadpin for same iothread '%u'", dup->id);
}
