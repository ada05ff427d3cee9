// SPDX-License-Identifier: GPL-2.0
/*
 * <cputune>: children in any order (the RNG uses <interleave>). Scalars are read like libvirt's
 * XPath "name[1]": the first one counts. Ranges and messages follow libvirt's
 * virDomainDefCputuneValidate() and the list-element parsers of domain_conf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cputune_int.h"

bool iothread_ids_has(const struct iothread_ids *io, unsigned long long id)
{
	unsigned int lo = 0, hi = io->nr_given, mid;

	if (id == 0 || id > UINT32_MAX)
		return false;
	/* lo = given ids below id (the array is sorted); found if one equals it. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (io->given[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < io->nr_given && io->given[lo] == id)
		return true;
	/* A filled-in id: the (id - lo)-th free one, filled while the count lasts. */
	return id - lo <= (unsigned long long)io->count - io->nr_given;
}

/* arr with room for one more element (nr of *cap used), maybe moved; NULL: no memory. */
void *cputune_grow(void *arr, size_t *cap, size_t nr, size_t size)
{
	size_t n = *cap ? 2 * *cap : 16;
	void *p;

	if (nr < *cap)
		return arr;
	p = realloc(arr, n * size);
	if (p)
		*cap = n;
	return p;
}

/* Named on a vsched VM by plan_warn_vsched(): the first of each element and reason. */
void cputune_ignore(struct cputune *t, const char *elem, const char *why, int line)
{
	unsigned int i;

	for (i = 0; i < t->nr_ignored; i++)
		if (t->ignored[i].why == why && !strcmp(t->ignored[i].elem, elem))
			return;
	if (t->nr_ignored < CPUTUNE_IGNORED_MAX)
		t->ignored[t->nr_ignored++] = (struct cputune_ignored){ elem, why, line };
}

int cputune_check_period(struct diag *d, xmlNode *n, const char *elem, const char *in,
			 const char *what, const char *raw, uint64_t *out)
{
	unsigned long long v;

	if (parse_ull(raw, &v))
		return xerr(d, n, elem, raw, "can't parse %s %s value", in, what);
	/* 0 means "no value" (docs and C code), although the RNG says >= 1000. */
	if (v > 0 && (v < CPUTUNE_PERIOD_MIN || v > CPUTUNE_PERIOD_MAX))
		return xerr(d, n, elem, raw, "Value of %s '%s' must be in range [%llu, %llu]",
			    in, what, CPUTUNE_PERIOD_MIN, CPUTUNE_PERIOD_MAX);
	*out = v;
	return 0;
}

int cputune_check_quota(struct diag *d, xmlNode *n, const char *elem, const char *in,
			const char *what, const char *raw, int64_t *out)
{
	long long v;

	if (parse_ll(raw, &v))
		return xerr(d, n, elem, raw, "can't parse %s %s value", in, what);
	/* Any negative value is "unlimited", 0 is "no value". */
	if (v > 0 && (v < CPUTUNE_QUOTA_MIN || v > CPUTUNE_QUOTA_MAX))
		return xerr(d, n, elem, raw, "Value of %s '%s' must be in range [%llu, %llu]",
			    in, what, (unsigned long long)CPUTUNE_QUOTA_MIN,
			    (unsigned long long)CPUTUNE_QUOTA_MAX);
	*out = v;
	return 0;
}

static int cputune_shares(struct cputune_ctx *c, xmlNode *n, const char *raw)
{
	unsigned long long v;

	/* Range checks happen where the value is applied: it depends on cgroup v1 or v2. */
	if (parse_ull(raw, &v))
		return xerr(c->d, n, "shares", raw, "can't parse cputune shares value");
	c->t->shares = v;
	c->t->shares_set = true;
	c->t->shares_line = xml_line(n);
	return 0;
}

static struct cputune_bw *cputune_bw_of(struct cputune *t, const char *name)
{
	if (!strncmp(name, "global_", 7))
		return &t->global;
	if (!strncmp(name, "emulator_", 9))
		return &t->emulator;
	if (!strncmp(name, "iothread_", 9))
		return &t->iothread;
	return &t->vcpu;
}

static int cputune_period(struct cputune_ctx *c, xmlNode *n, const char *raw)
{
	const char *name = (const char *)n->name;
	struct cputune_bw *bw = cputune_bw_of(c->t, name);

	if (!bw->line)
		bw->line = xml_line(n);
	return cputune_check_period(c->d, n, name, "cputune", name, raw, &bw->period);
}

static int cputune_quota(struct cputune_ctx *c, xmlNode *n, const char *raw)
{
	const char *name = (const char *)n->name;
	struct cputune_bw *bw = cputune_bw_of(c->t, name);

	if (!bw->line)
		bw->line = xml_line(n);
	return cputune_check_quota(c->d, n, name, "cputune", name, raw, &bw->quota);
}

/* cachetune/memorytune: resctrl, which vsched does not drive; check the vcpus list only. */
static int cputune_resctrl(struct cputune_ctx *c, xmlNode *n, const char *raw __unused)
{
	const char *elem = (const char *)n->name;
	struct cputune_rc *rc;
	struct cpuset set;
	char *s = xml_prop_list(n, "vcpus");
	unsigned int i;
	int ret;

	if (!s)
		return xerr(c->d, n, elem, NULL, "Missing attribute 'vcpus' in element '%s'",
			    elem);
	/* A vCPU list as libvirt reads it, to 16383. */
	if (cpulist_parse(s, CPULIST_MAX, &set, NULL)) {
		ret = xerr(c->d, n, elem, s, "Invalid %s attribute 'vcpus' value '%s'", elem, s);
		free(s);
		return ret;
	}
	/* libvirt keeps only the domain's vCPUs of the list (cachetune-extra-tunes.xml), and
	 * drops an element left with none, its contents unread (libvirtd 9.0 defines
	 * vcpus='0,^0' or '7' of 2 vCPUs around any <cache>). */
	for (i = c->max_vcpus; i < CPUSET_MAX; i++)
		cpuset_unset(&set, i);
	if (!cpuset_count(&set)) {
		free(s);
		return 0;
	}
	ret = cputune_resctrl_body(c, n, !strcmp(elem, "memorytune"), &set);
	if (ret) {
		free(s);
		return ret;
	}
	rc = cputune_grow(c->rc, &c->cap_rc, c->nr_rc, sizeof(*rc));
	if (!rc) {
		free(s);
		return -ENOMEM;
	}
	c->rc = rc;
	c->rc[c->nr_rc++] = (struct cputune_rc){ set, !strcmp(elem, "memorytune"), xml_line(n),
						 s };
	return 0;
}

/*
 * libvirt's virDomainResctrlVcpuMatch(), with every <cachetune> read before the first
 * <memorytune>: a list that shares vCPUs with an earlier one must equal it, and only a
 * memorytune may equal one (it joins that allocation).
 */
static int cputune_resctrl_check(struct cputune_ctx *c)
{
	int owner[CPUSET_MAX];		/* index in c->rc of the first list holding each vCPU */
	unsigned int i, pass;
	size_t k;

	for (i = 0; i < CPUSET_MAX; i++)
		owner[i] = -1;
	for (pass = 0; pass < 2; pass++)
		for (k = 0; k < c->nr_rc; k++) {
			const struct cputune_rc *r = &c->rc[k];
			const char *elem = r->mem ? "memorytune" : "cachetune";
			int o = -1;

			if (r->mem != (pass == 1))
				continue;
			for (i = 0; i < CPUSET_MAX && o < 0; i++)
				if (cpuset_test(&r->set, i))
					o = owner[i];
			if (o >= 0 && !memcmp(&c->rc[o].set, &r->set, sizeof(r->set)) && r->mem)
				continue;
			if (o >= 0)
				return diag_at(c->d, -EINVAL, r->line, elem, r->raw, "%s",
					       memcmp(&c->rc[o].set, &r->set, sizeof(r->set)) ?
					       "Overlapping vcpus in resctrls" :
					       "Identical vcpus in cachetunes found");
			for (i = 0; i < CPUSET_MAX; i++)
				if (cpuset_test(&r->set, i))
					owner[i] = (int)k;
		}
	return 0;
}

#define CT_SCALAR	(1U << 0)	/* first one counts, like XPath name[1] */
#define CT_TEXT		(1U << 1)	/* the handler gets the element's text */
#define CT_ONE		(1U << 2)	/* a second one is refused, as libvirt does */

static const struct cputune_elem {
	const char *name;
	unsigned int flags;
	int (*parse)(struct cputune_ctx *c, xmlNode *n, const char *raw);
	const char *ignored;		/* why vsched ignores it (a warning), or NULL */
} cputune_elems[] = {
	{ "shares", CT_SCALAR | CT_TEXT, cputune_shares, NULL },
	{ "period", CT_SCALAR | CT_TEXT, cputune_period, NULL },
	{ "quota", CT_SCALAR | CT_TEXT, cputune_quota, NULL },
	{ "global_period", CT_SCALAR | CT_TEXT, cputune_period, NULL },
	{ "global_quota", CT_SCALAR | CT_TEXT, cputune_quota, NULL },
	{ "emulator_period", CT_SCALAR | CT_TEXT, cputune_period,
	  "vsched has no emulator thread group; ignored" },
	{ "emulator_quota", CT_SCALAR | CT_TEXT, cputune_quota,
	  "vsched has no emulator thread group; ignored" },
	{ "iothread_period", CT_SCALAR | CT_TEXT, cputune_period,
	  "vsched has no iothreads; ignored" },
	{ "iothread_quota", CT_SCALAR | CT_TEXT, cputune_quota,
	  "vsched has no iothreads; ignored" },
	{ "vcpupin", 0, cputune_vcpupin, NULL },
	{ "emulatorpin", 0, cputune_emulatorpin, NULL },
	{ "iothreadpin", 0, cputune_iothreadpin, "vsched has no iothreads; ignored" },
	{ "vcpusched", 0, cputune_vcpusched, NULL },
	{ "iothreadsched", 0, cputune_iothreadsched, "vsched has no iothreads; ignored" },
	{ "emulatorsched", CT_ONE, cputune_emulatorsched,
	  "vsched has no emulator thread to schedule; ignored" },
	{ "cachetune", 0, cputune_resctrl, "vsched does not drive resctrl (CAT); ignored" },
	{ "memorytune", 0, cputune_resctrl, "vsched does not drive resctrl (MBA); ignored" },
};

static int cputune_child(struct cputune_ctx *c, xmlNode *n)
{
	const struct cputune_elem *e = NULL;
	unsigned int i, bit;
	char *raw = NULL;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cputune_elems); i++)
		if (xml_is(n, cputune_elems[i].name))
			e = &cputune_elems[i];
	if (!e)
		return xwarn(c->d, n, (const char *)n->name,
			     "unknown element in <cputune>; ignored");
	bit = 1U << (e - cputune_elems);
	if ((e->flags & CT_SCALAR) && (c->seen & bit))
		return xwarn(c->d, n, e->name, "only the first <%s> counts; this one is ignored",
			     e->name);
	/* libvirt reads these with virXPathNodeSet() and refuses more than one. */
	if ((e->flags & CT_ONE) && (c->seen & bit))
		return xerr(c->d, n, e->name, NULL, "only one %s is supported", e->name);
	if (e->flags & CT_TEXT) {
		raw = xml_text(n);
		if (!raw)
			return -ENOMEM;
	}
	/* libvirt reads an empty scalar (<shares/>) as absent; it still is the first one. */
	ret = raw && !raw[0] ? 0 : e->parse(c, n, raw);
	free(raw);
	if (ret)
		return ret;
	/* Named once per element name, for a vsched VM (plan_warn_vsched()). */
	if (e->ignored && !(c->seen & bit))
		cputune_ignore(c->t, e->name, e->ignored, xml_line(n));
	c->seen |= bit;
	return 0;
}

int cputune_parse(xmlNode *node, unsigned int max_vcpus, const struct iothread_ids *io,
		  struct cputune *t, struct diag *d)
{
	struct cputune_ctx c = { .t = t, .d = d, .max_vcpus = max_vcpus, .io = io };
	xmlNode *n;
	int ret = 0;

	memset(t, 0, sizeof(*t));
	t->vcpus = calloc(max_vcpus ? max_vcpus : 1, sizeof(*t->vcpus));
	if (!t->vcpus)
		return -ENOMEM;
	if (!node)
		return 0;
	for (n = node->children; n && !ret; n = n->next)
		if (n->type == XML_ELEMENT_NODE)
			ret = cputune_child(&c, n);
	if (!ret)
		ret = cputune_pin_dups(&c);
	if (!ret)
		ret = cputune_resctrl_check(&c);
	free(c.pins);
	while (c.nr_rc)
		free(c.rc[--c.nr_rc].raw);
	free(c.rc);
	return ret;
}

void cputune_free(struct cputune *t)
{
	free(t->vcpus);
	t->vcpus = NULL;
}
