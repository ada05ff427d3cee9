// SPDX-License-Identifier: GPL-2.0
/*
 * The contents of <cachetune> (<cache>, <monitor>) and <memorytune> (<node>, <monitor>), checked
 * as libvirt 9.0 checks them at `virsh define` (each rule and message seen here with libvirtd
 * 9.0.0; libvirt's cachetune-colliding-*.xml and memorytune-colliding-allocs.xml are refused).
 * vsched does not drive resctrl: a valid element is only named as not applied on a vsched VM.
 * Other children are ignored, as libvirt ignores them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputune_int.h"
#include "libvirt/domain.h"
#include "util/compiler.h"

#define RC_MAX_CHILDREN	64	/* of each kind; more are not compared with each other */

/* A required unsigned int attribute of child (virXMLPropUInt). */
static int rc_uint(struct cputune_ctx *c, xmlNode *n, const char *attr, unsigned int *out)
{
	const char *elem = (const char *)n->name;
	unsigned long long v;
	char *s = xml_prop(n, attr);
	int ret = 0;

	if (!s)
		return xerr(c->d, n, elem, NULL, "Missing required attribute '%s' in element '%s'",
			    attr, elem);
	if (parse_ull(s, &v) || v > UINT32_MAX)
		ret = xerr(c->d, n, elem, s, "Invalid value for attribute '%s' in element '%s': "
			   "'%s'. Expected non-negative integer value", attr, elem, s);
	else
		*out = (unsigned int)v;
	free(s);
	return ret;
}

static const char *const rc_types[] = { "both", "code", "data" };

struct rc_cache_key {
	unsigned int level, id, type;	/* type: index in rc_types */
};

/* <cache id level type size [unit]>. */
static int rc_cache(struct cputune_ctx *c, xmlNode *n, struct rc_cache_key *key)
{
	const char *const *types = rc_types;
	unsigned int id = 0, level = 0, t;
	char *type = NULL, *size = NULL, *unit = NULL;
	uint64_t bytes;
	int ret;

	ret = rc_uint(c, n, "id", &id);
	if (!ret)
		ret = rc_uint(c, n, "level", &level);
	if (!ret && !(type = xml_prop(n, "type")))
		ret = xerr(c->d, n, "cache", NULL, "Missing required attribute 'type' in element "
			   "'cache'");
	for (t = 0; !ret && t < ARRAY_SIZE(rc_types) && strcmp(type, types[t]); t++)
		;
	if (!ret && t == ARRAY_SIZE(rc_types))
		ret = xerr(c->d, n, "cache", type, "Invalid value for attribute 'type' in element "
			   "'cache': '%s'.", type);
	if (!ret && !(size = xml_prop(n, "size")))
		ret = xerr(c->d, n, "cache", NULL, "missing element or attribute './@size'");
	if (!ret && parse_ull(size, &(unsigned long long){ 0 }))
		ret = xerr(c->d, n, "cache", size, "Invalid value '%s' for element or attribute "
			   "'./@size'", size);
	unit = ret ? NULL : xml_prop(n, "unit");
	if (!ret && domain_scale_memory(size, unit, &bytes) == -EINVAL)
		ret = xerr(c->d, n, "cache", unit, "unknown suffix '%s'", unit);
	*key = (struct rc_cache_key){ level, id, t };
	free(type);
	free(size);
	free(unit);
	return ret;
}

/* A <monitor vcpus=...> of an element whose vCPUs are set: not empty, inside set. */
static int rc_monitor(struct cputune_ctx *c, xmlNode *n, bool mem, const struct cpuset *set,
		      struct cpuset *out)
{
	unsigned int level = 3, i;
	char *s;
	int ret = 0;

	if (!mem) {
		ret = rc_uint(c, n, "level", &level);
		if (!ret && level != 3) {
			char v[16];

			snprintf(v, sizeof(v), "%u", level);
			ret = xerr(c->d, n, "monitor", v, "Invalid monitor cache level '%u'", level);
		}
		if (ret)
			return ret;
	}
	s = xml_prop_list(n, "vcpus");
	if (!s)
		return xerr(c->d, n, "monitor", NULL, "Missing monitor attribute 'vcpus'");
	if (cpulist_parse(s, CPULIST_MAX, out, NULL))
		ret = xerr(c->d, n, "monitor", s, "Failed to parse bitmap '%s'", s);
	for (i = c->max_vcpus; i < CPUSET_MAX; i++)
		cpuset_unset(out, i);
	if (!ret && !cpuset_count(out))
		ret = xerr(c->d, n, "monitor", s, "vcpus is empty");
	for (i = 0; !ret && i < CPUSET_MAX / 64; i++)
		if (out->bits[i] & ~set->bits[i])
			ret = xerr(c->d, n, "monitor", s, "Monitor vcpus conflicts with allocation");
	free(s);
	return ret;
}

/*
 * libvirt's virDomainResctrlValidateMonitor(): the first earlier monitor that equals m or shares
 * a vCPU with it decides. Sharing is allowed to a monitor of all the element's vCPUs (libvirt's
 * cachetune-small.xml has monitors 0, 1 and 0-1 of vcpus 0-1: vsched refused it); an equal one
 * is refused, as all monitors of one element are of one type.
 */
static int rc_monitor_against(struct cputune_ctx *c, xmlNode *n, const struct cpuset *set,
			      const struct cpuset *mons, unsigned int nr, const struct cpuset *m)
{
	bool whole = !memcmp(m, set, sizeof(*m));
	unsigned int i, w;

	for (i = 0; i < nr; i++) {
		if (!memcmp(m, &mons[i], sizeof(*m)))
			return xerr(c->d, n, "monitor", NULL, "Identical vcpus found in same type "
				    "monitors");
		for (w = 0; w < CPUSET_MAX / 64 && !(m->bits[w] & mons[i].bits[w]); w++)
			;
		if (w < CPUSET_MAX / 64)
			return whole ? 0 : xerr(c->d, n, "monitor", NULL, "vcpus overlaps in "
						"resctrl groups");
	}
	return 0;
}

/* "Colliding cache allocations": same level and id, and one of them 'both' or the same type. */
static int rc_cache_collides(struct cputune_ctx *c, xmlNode *n, const struct rc_cache_key *keys,
			     unsigned int nr, const struct rc_cache_key *k)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (keys[i].level == k->level && keys[i].id == k->id &&
		    (!keys[i].type || !k->type || keys[i].type == k->type))
			return xerr(c->d, n, "cache", NULL, "Colliding cache allocations for cache "
				    "level '%u' id '%u', type '%s'", k->level, k->id,
				    rc_types[k->type]);
	return 0;
}

int cputune_resctrl_body(struct cputune_ctx *c, xmlNode *rc, bool mem, const struct cpuset *set)
{
	struct rc_cache_key keys[RC_MAX_CHILDREN], key = { 0 };
	unsigned int nodes[RC_MAX_CHILDREN], nr_keys = 0, nr_nodes = 0;
	struct cpuset mons[RC_MAX_CHILDREN];
	unsigned int nr_mons = 0, i;
	xmlNode *n;
	int ret = 0;

	for (n = rc->children; n && !ret; n = n->next) {
		if (!mem && xml_is(n, "cache")) {
			ret = rc_cache(c, n, &key);
			if (!ret)
				ret = rc_cache_collides(c, n, keys, nr_keys, &key);
			if (!ret && nr_keys < RC_MAX_CHILDREN)
				keys[nr_keys++] = key;
		} else if (mem && xml_is(n, "node")) {
			unsigned int id = 0, bw = 0;

			ret = rc_uint(c, n, "id", &id);
			if (!ret)
				ret = rc_uint(c, n, "bandwidth", &bw);
			if (!ret && bw > 100)
				ret = xerr(c->d, n, "node", NULL, "Memory Bandwidth value exceeding 100 "
					   "is invalid.");
			for (i = 0; !ret && i < nr_nodes; i++)
				if (nodes[i] == id)
					ret = xerr(c->d, n, "node", NULL, "Memory Bandwidth already "
						   "defined for node %u", id);
			if (!ret && nr_nodes < RC_MAX_CHILDREN)
				nodes[nr_nodes++] = id;
		} else if (xml_is(n, "monitor")) {
			struct cpuset m;

			ret = rc_monitor(c, n, mem, set, &m);
			if (!ret)
				ret = rc_monitor_against(c, n, set, mons, nr_mons, &m);
			if (!ret && nr_mons < RC_MAX_CHILDREN)
				mons[nr_mons++] = m;
		}
	}
	return ret;
}
