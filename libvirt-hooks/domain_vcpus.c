// SPDX-License-Identifier: GPL-2.0
/*
 * Which vCPUs are online at start: <vcpu current='M'> (0 to M-1), or, when the domain lists them,
 * <vcpus><vcpu id='N' enabled='yes|no' hotpluggable='yes|no' order='K'/>...</vcpus>, which
 * libvirt takes as the master (virDomainDefParseXML: "if individual vcpu states are provided take
 * them as master"): the enabled ones are online, the rest (listed or not) offline, and current
 * becomes their number. libvirtd 9.0 here defined <vcpu current='1'>2</vcpu> with both listed
 * enabled as current='2', and started vCPUs 0 and 2 of <vcpus> {0 yes, 1 no, 2 yes}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/domain.h"

enum { HOT_ABSENT, HOT_YES, HOT_NO };

/* A yes/no attribute (virXMLPropTristateBool): *out stays as it is when absent. */
static int vcpus_yes_no(xmlNode *n, const char *attr, bool required, int *out, struct diag *d)
{
	char *v = xml_prop(n, attr);
	int ret = 0;

	if (!v && required)
		return xerr(d, n, "vcpu", NULL, "Missing required attribute '%s' in element 'vcpu'",
			    attr);
	if (v && strcmp(v, "yes") && strcmp(v, "no"))
		ret = xerr(d, n, "vcpu", v, "Invalid value for attribute '%s' in element 'vcpu': "
			   "'%s'.", attr, v);
	else if (v)
		*out = !strcmp(v, "yes") ? HOT_YES : HOT_NO;
	free(v);
	return ret;
}

/* An unsigned int attribute (virXMLPropUInt). */
static int vcpus_uint(xmlNode *n, const char *attr, bool required, unsigned long long *out,
		      struct diag *d)
{
	char *v = xml_prop(n, attr);
	int ret = 0;

	if (!v)
		return required ? xerr(d, n, "vcpu", NULL, "Missing required attribute '%s' in "
				       "element 'vcpu'", attr) : 0;
	if (parse_ull(v, out) || *out > UINT32_MAX)
		ret = xerr(d, n, "vcpu", v, "Invalid value for attribute '%s' in element 'vcpu': "
			   "'%s'. Expected non-negative integer value", attr, v);
	free(v);
	return ret;
}

/* One <vcpus><vcpu>: its state into online/hot; a later one of the same id wins, as libvirt. */
static int vcpus_one(xmlNode *n, struct domain_def *def, unsigned char *hot, struct diag *d)
{
	unsigned long long id = 0, order;
	int on = HOT_ABSENT, h = HOT_ABSENT, ret;

	ret = vcpus_uint(n, "id", true, &id, d);
	if (!ret && id >= def->max_vcpus) {
		char v[24];

		snprintf(v, sizeof(v), "%llu", id);
		return xerr(d, n, "vcpu", v, "vcpu id '%llu' is out of range of maximum vcpu count",
			    id);
	}
	if (!ret)
		ret = vcpus_yes_no(n, "enabled", true, &on, d);
	if (!ret)
		ret = vcpus_yes_no(n, "hotpluggable", false, &h, d);
	if (!ret)
		ret = vcpus_uint(n, "order", false, &order, d);
	if (ret)
		return ret;
	if (on == HOT_YES)
		cpuset_set(&def->online, (unsigned int)id);
	else
		cpuset_unset(&def->online, (unsigned int)id);
	hot[id] = (unsigned char)h;
	return 0;
}

/*
 * <vcpu current='M'> without listed vCPUs: 1 to N. libvirt skips both checks when <vcpus> lists
 * vCPUs (libvirtd 9.0 here defines current='0' and current='5' of 2 with vCPU 0 listed).
 */
static int vcpus_current(xmlNode *root, struct domain_def *def, struct diag *d)
{
	xmlNode *n = xml_child(root, "vcpu");
	char *c = n ? xml_prop(n, "current") : NULL;
	unsigned int i;
	int ret = 0;

	if (c && def->vcpus == 0)
		ret = xerr(d, n, "vcpu", c, "current vcpus count must be an integer");
	else if (c && def->vcpus > def->max_vcpus)
		ret = xerr(d, n, "vcpu", c, "maxvcpus must not be less than current vcpus (%u < %s)",
			   def->max_vcpus, c);
	free(c);
	for (i = 0; !ret && i < def->vcpus; i++)
		cpuset_set(&def->online, i);
	return ret;
}

int domain_vcpus(xmlNode *root, struct domain_def *def, struct diag *d)
{
	unsigned char hot[DOMAIN_VCPUS_MAX] = { 0 };
	xmlNode *vs, *n, *first = NULL;
	unsigned int i;
	int ret = 0;

	cpuset_clear(&def->online);
	/* XPath "./vcpus/vcpu": the vCPUs of every <vcpus>. */
	for (vs = root->children; vs && !ret; vs = vs->next) {
		if (!xml_is(vs, "vcpus"))
			continue;
		for (n = vs->children; n && !ret; n = n->next) {
			if (!xml_is(n, "vcpu"))
				continue;
			if (!first) {
				first = n;
				cpuset_clear(&def->online);
			}
			ret = vcpus_one(n, def, hot, d);
		}
	}
	if (!ret && !first)
		return vcpus_current(root, def, d);
	if (ret)
		return ret;
	def->vcpus = cpuset_count(&def->online);
	/* libvirt's checks (domain_validate.c, and its QEMU driver's for hotpluggable). */
	if (!cpuset_test(&def->online, 0))
		return xerr(d, first, "vcpus", NULL, "vcpu 0 can't be offline");
	if (hot[0] == HOT_YES)
		return xerr(d, first, "vcpus", NULL, "vcpu0 can't be hotpluggable");
	for (i = 0; i < def->max_vcpus; i++)
		if (!cpuset_test(&def->online, i) && hot[i] == HOT_NO) {
			char v[16];

			snprintf(v, sizeof(v), "%u", i);
			return xerr(d, first, "vcpus", v, "vcpu '%u' is both offline and not "
				    "hotpluggable", i);
		}
	return 0;
}
