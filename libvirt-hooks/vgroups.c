// SPDX-License-Identifier: GPL-2.0
/*
 * The vsched groups element of <metadata>. Strict on purpose: an unknown attribute or element
 * in our namespace is an error, so a typo never silently drops a setting.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/cputune.h"
#include "util/compiler.h"
#include "util/cpuset.h"
#include "vgroups_int.h"

#define VG_BW_MAX	17592186044415ULL	/* kernel MAX_BW in µs: quota + burst */
#define VG_STR_(x)	#x
#define VG_STR(x)	VG_STR_(x)

static bool vg_is(xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && n->ns && n->ns->href &&
	       !strcmp((const char *)n->ns->href, VGROUPS_NS) &&
	       !strcmp((const char *)n->name, name);
}

/* Refuses attributes other than the allowed ones (NULL-terminated). */
static int vg_check_attrs(struct vg_ctx *c, xmlNode *n, const char *const *allowed)
{
	const char *const *a;
	xmlAttr *p;

	for (p = n->properties; p; p = p->next) {
		char q[160];

		for (a = allowed; *a; a++)
			if (!p->ns && !strcmp((const char *)p->name, *a))
				break;
		if (!*a && !p->ns)
			return xerr(c->d, n, (const char *)n->name, (const char *)p->name,
				    "unknown attribute");
		if (*a)
			continue;
		/* vs:name='a' was "'name': unknown attribute", naming one it knows. */
		snprintf(q, sizeof(q), "%s:%s", p->ns->prefix ? (const char *)p->ns->prefix : "",
			 (const char *)p->name);
		return xerr(c->d, n, (const char *)n->name, q,
			    "attribute in namespace %s: vsched's attributes have no prefix",
			    p->ns->href ? (const char *)p->ns->href : "");
	}
	return 0;
}

/*
 * Names a group directory cannot take on a host's cgroup tree or a control directory, because a
 * control file has them: v1's own files, and "<controller>.<file>" of every controller of either
 * version (cpu.weight, memory.max, io.pressure, ...), plus vsched's extension files.
 */
static const char *const vg_file_names[] = { "tasks", "notify_on_release", "release_agent" };
static const char *const vg_file_prefixes[] = {
	"cgroup", "cpu", "cpuacct", "cpuset", "memory", "io", "blkio", "pids", "devices",
	"freezer", "net_cls", "net_prio", "perf_event", "hugetlb", "rdma", "misc", "debug",
	"irq", "vsched",
};

static bool vg_is_file_name(const char *name)
{
	const char *dot = strchr(name, '.');
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vg_file_names); i++)
		if (!strcmp(name, vg_file_names[i]))
			return true;
	for (i = 0; dot && i < ARRAY_SIZE(vg_file_prefixes); i++)
		if (strlen(vg_file_prefixes[i]) == (size_t)(dot - name) &&
		    !strncmp(name, vg_file_prefixes[i], (size_t)(dot - name)))
			return true;
	return false;
}

static bool vg_is_numbered(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(name, prefix, n) && name[n] && strspn(name + n, "0123456789") ==
	       strlen(name + n);
}

const char *vgroup_name_problem(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > VGROUP_NAME_MAX)
		return "a group name has 1 to " VG_STR(VGROUP_NAME_MAX) " characters";
	for (p = name; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-' && *p != '.')
			return "a group name uses only letters, digits, '_', '-' and '.'";
	if (name[0] == '.')
		return "a group name may not start with '.'";
	if (vg_is_file_name(name))
		return "the name of a cgroup control file (tasks, notify_on_release, "
		       "release_agent, or CONTROLLER.FILE such as cpu.max, memory.max, io.weight)";
	return NULL;
}

/* A name that is a valid directory and collides with no control file or libvirt group. */
static int vg_check_name(struct vg_ctx *c, xmlNode *n, const char *name)
{
	const char *why = vgroup_name_problem(name);

	if (why)
		return xerr(c->d, n, "group", name, "%s", why);
	if (!strcmp(name, "emulator") || vg_is_numbered(name, "vcpu") ||
	    vg_is_numbered(name, "iothread"))
		return xerr(c->d, n, "group", name,
			    "the names vcpuN, iothreadN and emulator are libvirt's thread groups");
	return 0;
}

/*
 * <group> and <assign> are empty: a child element (a group nested by hand, a knob written as an
 * element) would otherwise be dropped unread.
 */
static int vg_check_empty(struct vg_ctx *c, xmlNode *n, const char *what)
{
	xmlNode *k;

	for (k = n->children; k; k = k->next)
		if (k->type == XML_ELEMENT_NODE)
			return xerr(c->d, k, (const char *)k->name, NULL,
				    "no element may appear inside <%s>%s (a group nests with "
				    "parent='NAME', knobs are attributes)", (const char *)n->name,
				    what);
	return 0;
}

static int vg_weight(struct vg_ctx *c, xmlNode *n, const char *raw, struct vgroup *g)
{
	unsigned long long v;

	if (parse_ull(raw, &v) || v < 1 || v > 10000)
		return xerr(c->d, n, "group", raw, "weight must be in range [1, 10000]");
	g->weight = (unsigned int)v;
	g->weight_set = true;
	return 0;
}

static int vg_idle(struct vg_ctx *c, xmlNode *n, const char *raw, struct vgroup *g)
{
	if (!strcmp(raw, "yes") || !strcmp(raw, "1"))
		g->idle = true;
	else if (!strcmp(raw, "no") || !strcmp(raw, "0"))
		g->idle = false;
	else
		return xerr(c->d, n, "group", raw, "idle must be 'yes' or 'no'");
	return 0;
}

static int vg_burst(struct vg_ctx *c, xmlNode *n, const char *raw, struct vgroup *g)
{
	unsigned long long v;

	if (parse_ull(raw, &v) || v > VG_BW_MAX)
		return xerr(c->d, n, "group", raw, "burst must be in range [0, %llu] (µs)",
			    VG_BW_MAX);
	g->burst = v;
	return 0;
}

static int vg_group(struct vg_ctx *c, xmlNode *n)
{
	static const char *const attrs[] = { "name", "parent", "weight", "idle", "period",
					     "quota", "burst", NULL };
	struct vgroups *vg = c->vg;
	struct vgroup *g;
	char *v, what[VGROUP_NAME_MAX + 8];
	unsigned int i;
	int ret;

	ret = vg_check_attrs(c, n, attrs);
	if (ret)
		return ret;
	v = xml_prop(n, "name");
	snprintf(what, sizeof(what), " '%s'", v ? v : "");
	free(v);
	ret = vg_check_empty(c, n, what);
	if (ret)
		return ret;
	if (vg->nr == VGROUPS_MAX)
		return xerr(c->d, n, "group", NULL, "more than %d groups", VGROUPS_MAX);
	g = &vg->g[vg->nr];
	memset(g, 0, sizeof(*g));
	g->parent = -1;
	g->line = xml_line(n);
	v = xml_prop(n, "name");
	if (!v)
		return xerr(c->d, n, "group", NULL, "missing attribute 'name'");
	ret = vg_check_name(c, n, v);
	if (!ret) {
		strcpy(g->name, v);
		for (i = 0; i < vg->nr; i++)
			if (!strcmp(vg->g[i].name, v))
				ret = xerr(c->d, n, "group", v,
					   "duplicate group (first defined on line %d)",
					   vg->g[i].line);
	}
	free(v);
	if (ret)
		return ret;

	c->parent_name[vg->nr] = xml_prop(n, "parent");
	c->parent_line[vg->nr] = g->line;
	if ((v = xml_prop(n, "weight"))) {
		ret = vg_weight(c, n, v, g);
		free(v);
	}
	if (!ret && (v = xml_prop(n, "idle"))) {
		ret = vg_idle(c, n, v, g);
		free(v);
	}
	if (!ret && (v = xml_prop(n, "period"))) {
		ret = cputune_check_period(c->d, n, "group", "group", "period", v,
					   &g->period);
		free(v);
	}
	if (!ret && (v = xml_prop(n, "quota"))) {
		ret = cputune_check_quota(c->d, n, "group", "group", "quota", v, &g->quota);
		free(v);
	}
	if (!ret && (v = xml_prop(n, "burst"))) {
		ret = vg_burst(c, n, v, g);
		free(v);
	}
	vg->nr++;		/* counted even on error so parent_name is freed */
	if (ret)
		return ret;
	/* An idle group's weight is fixed by the kernel (cpu.weight writes give EINVAL). */
	if (g->idle && g->weight_set)
		return xerr(c->d, n, "group", g->name, "weight and idle='yes' are exclusive");
	/* libvirt's largest quota is "max" on v2 (as <cputune>'s): any burst fits; v1: fsops. */
	if (g->quota == CPUTUNE_QUOTA_MAX)
		return 0;
	/* The kernel takes it and it changes nothing: said, not applied without a word. */
	if (g->quota <= 0 && g->burst)
		return xwarn(c->d, n, "group", "'%s': burst %llu has no effect without a quota "
			     "(the group is not capped)", g->name, (unsigned long long)g->burst);
	if (g->quota > 0 && g->burst > (uint64_t)g->quota)
		return xerr(c->d, n, "group", g->name,
			    "burst %llu is larger than quota %lld (the kernel refuses that)",
			    (unsigned long long)g->burst, (long long)g->quota);
	if (g->quota > 0 && g->burst + (uint64_t)g->quota > VG_BW_MAX)
		return xerr(c->d, n, "group", g->name, "quota + burst exceed %llu", VG_BW_MAX);
	return 0;
}

static int vg_assign(struct vg_ctx *c, xmlNode *n)
{
	static const char *const attrs[] = { "vcpus", "group", NULL };
	struct vgroups *vg = c->vg;
	char *vcpus = NULL, *group = NULL;
	struct cpuset set;
	unsigned int i;
	int gi, ret;

	ret = vg_check_attrs(c, n, attrs);
	if (!ret)
		ret = vg_check_empty(c, n, "");
	if (ret)
		return ret;
	vcpus = xml_prop_list(n, "vcpus");
	group = xml_prop(n, "group");
	if (!vcpus || !group) {
		ret = xerr(c->d, n, "assign", NULL, "missing attribute '%s'",
			   !vcpus ? "vcpus" : "group");
		goto out;
	}
	gi = vgroups_find(vg, group);
	if (gi < 0) {
		ret = xerr(c->d, n, "assign", group, "unknown group");
		goto out;
	}
	ret = cpuset_parse(vcpus, CPUSET_MAX, &set);
	if (ret || !cpuset_count(&set)) {
		ret = xerr(c->d, n, "assign", vcpus,
			   "not a vCPU list in libvirt's cpuset syntax (\"0-3,^2\")");
		goto out;
	}
	for (i = 0; i < CPUSET_MAX; i++) {
		if (!cpuset_test(&set, i))
			continue;
		if (i >= c->max_vcpus) {
			ret = xerr(c->d, n, "assign", vcpus, "vCPU %u is beyond the domain's %u vCPUs",
				   i, c->max_vcpus);
			goto out;
		}
		if (vg->vcpu_group[i] >= 0) {
			ret = xerr(c->d, n, "assign", vcpus,
				   "vCPU %u is already assigned to group '%s'", i,
				   vg->g[vg->vcpu_group[i]].name);
			goto out;
		}
		vg->vcpu_group[i] = gi;
	}
out:
	free(vcpus);
	free(group);
	return ret;
}

/* <groups host='yes|no'>: whether `vsched run --domain` joins the host scheduler. */
static int vg_host(struct vg_ctx *c, xmlNode *root)
{
	static const char *const attrs[] = { "host", NULL };
	char *v;
	int ret = vg_check_attrs(c, root, attrs);

	if (ret)
		return ret;
	v = xml_prop(root, "host");
	if (!v)
		return 0;
	if (!strcmp(v, "yes"))
		c->vg->host = VGROUPS_HOST_YES;
	else if (!strcmp(v, "no"))
		c->vg->host = VGROUPS_HOST_NO;
	else
		ret = xerr(c->d, root, "groups", v, "host must be 'yes' or 'no'");
	c->vg->host_line = xml_line(root);
	free(v);
	return ret;
}

/* Finds our element (the first of the namespace); any other version of it is an error. */
static int vg_find_root(struct diag *d, xmlNode *metadata, xmlNode **out)
{
	xmlNode *n;

	*out = NULL;
	for (n = metadata ? metadata->children : NULL; n; n = n->next) {
		const char *href;

		if (n->type != XML_ELEMENT_NODE || !n->ns || !n->ns->href)
			continue;
		href = (const char *)n->ns->href;
		if (strncmp(href, VGROUPS_NS_PREFIX, strlen(VGROUPS_NS_PREFIX)))
			continue;
		if (strcmp(href, VGROUPS_NS))
			return xerr(d, n, (const char *)n->name, href,
				    "unsupported vsched groups namespace (this vsched reads %s)",
				    VGROUPS_NS);
		/* libvirt keeps the first element of a namespace in <metadata> and drops the others
		 * at define (virDomainDefMetadataSanitize(), seen with `virsh define`): so does
		 * vsched, aloud. Refusing made `vsched run` fail a file libvirt starts. */
		if (*out) {
			xwarn(d, n, (const char *)n->name,
			      "a second element of namespace %s in <metadata>: only the first "
			      "(line %d) is read, as libvirt keeps only it; this one is ignored",
			      VGROUPS_NS, xml_line(*out));
			continue;
		}
		if (strcmp((const char *)n->name, "groups"))
			return xerr(d, n, (const char *)n->name, NULL,
				    "unknown element; the top-level element is <groups>");
		*out = n;
	}
	return 0;
}

int vgroups_parse(xmlNode *metadata, unsigned int max_vcpus, struct vgroups *vg,
		  struct diag *d)
{
	struct vg_ctx c = { .vg = vg, .d = d, .max_vcpus = max_vcpus };
	xmlNode *root, *n;
	unsigned int i;
	int ret;

	memset(vg, 0, sizeof(*vg));
	vg->vcpu_group = malloc((max_vcpus ? max_vcpus : 1) * sizeof(int));
	vg->g = calloc(VGROUPS_MAX, sizeof(*vg->g));
	c.parent_name = calloc(VGROUPS_MAX, sizeof(char *));
	c.parent_line = calloc(VGROUPS_MAX, sizeof(int));
	if (!vg->vcpu_group || !vg->g || !c.parent_name || !c.parent_line) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < max_vcpus; i++)
		vg->vcpu_group[i] = -1;
	ret = vg_find_root(d, metadata, &root);
	if (ret || !root)
		goto out;
	vg->present = true;
	ret = vg_host(&c, root);
	if (ret)
		goto out;
	/* Groups first (assignments may come before the group they name). */
	for (n = root->children; n && !ret; n = n->next) {
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (vg_is(n, "group"))
			ret = vg_group(&c, n);
		else if (!vg_is(n, "assign") && n->ns && n->ns->href &&
			 strcmp((const char *)n->ns->href, VGROUPS_NS))
			/* A prefix redeclared to another URI: <vs:group xmlns:vs='urn:x'>. */
			ret = xerr(d, n, (const char *)n->name, (const char *)n->ns->href,
				   "element in another namespace inside <groups> (expected <group> "
				   "or <assign> in the namespace " VGROUPS_NS ")");
		else if (!vg_is(n, "assign"))
			ret = xerr(d, n, (const char *)n->name, NULL,
				   "unknown element in <groups> (expected <group> or <assign>%s)",
				   n->ns ? "" : " in the namespace " VGROUPS_NS ", e.g. "
				   "<vs:group> where <groups> is <vs:groups>");
	}
	if (!ret)
		ret = vgroups_link(&c);
	for (n = root->children; n && !ret; n = n->next)
		if (vg_is(n, "assign"))
			ret = vg_assign(&c, n);
	if (!ret)
		ret = vgroups_sort(vg, max_vcpus);
out:
	if (c.parent_name)
		for (i = 0; i < vg->nr; i++)
			free(c.parent_name[i]);
	free(c.parent_name);
	free(c.parent_line);
	return ret;
}

void vgroups_free(struct vgroups *vg)
{
	free(vg->g);
	free(vg->vcpu_group);
	vg->g = NULL;
	vg->vcpu_group = NULL;
}
