// SPDX-License-Identifier: GPL-2.0
/*
 * Threaded mode and the cpu entry of cgroup.subtree_control, as cgroup_type_show(),
 * cgroup_enable_threaded() and cgroup_subtree_control_write() decide them. cpu is the only
 * controller, and a threaded one, so no domain-controller rule ever applies.
 */
#include <errno.h>

#include "internal.h"
#include "sched/cftype.h"

static bool group_threaded(const struct group *g)
{
	return g->type == GROUP_THREADED;
}

/* The domain a group's threads belong to: itself unless threaded (cgrp->dom_cgrp). */
struct group *group_dom(struct group *g)
{
	while (group_threaded(g) && g->parent)
		g = g->parent;
	return g;
}

static bool group_has_threaded_children(const struct group *g)
{
	const struct group *c;

	list_for_each_entry(c, &g->children, sibling)
		if (group_threaded(c))
			return true;
	return false;
}

/* cgroup_is_thread_root(): not threaded, with threaded children or tasks plus +cpu. */
bool group_is_thread_root(const struct group *g)
{
	if (group_threaded(g))
		return false;
	if (group_has_threaded_children(g))
		return true;
	return g->nr_vcpus && g->subtree_cpu;
}

/* cgroup_is_valid_domain(): only the (mixable) root may be a thread root above a domain. */
bool group_is_valid_domain(const struct group *g)
{
	const struct group *a;

	if (group_threaded(g))
		return false;
	for (a = g->parent; a; a = a->parent) {
		if (a->parent && group_is_thread_root(a))
			return false;
		if (group_threaded(a))
			return false;
	}
	return true;
}

struct group *group_cpu_group(struct group *g)
{
	while (!group_has_cpu(g))
		g = g->parent;
	return g;
}

enum group_type group_type_of(const struct group *g)
{
	if (group_threaded(g))
		return GROUP_THREADED;
	if (!group_is_valid_domain(g))
		return GROUP_DOMAIN_INVALID;
	if (group_is_thread_root(g))
		return GROUP_DOMAIN_THREADED;
	return GROUP_DOMAIN;
}

/* cgroup_can_be_thread_root(): always for root; else no populated domain child. */
static bool group_can_be_thread_root(const struct group *g)
{
	const struct group *c;

	if (!g->parent)
		return true;
	if (group_threaded(g))
		return false;
	list_for_each_entry(c, &g->children, sibling)
		if (!group_threaded(c) && group_is_populated(c))
			return false;
	return true;
}

int group_enable_threaded(struct sched *s, struct group *g)
{
	struct group *dom;

	(void)s;
	if (group_threaded(g))
		return 0;
	if (!g->parent || group_is_populated(g))
		return -EOPNOTSUPP;
	dom = group_dom(g->parent);
	if (!group_is_valid_domain(dom) || !group_can_be_thread_root(dom))
		return -EOPNOTSUPP;
	g->type = GROUP_THREADED;
	return 0;
}

/*
 * A child losing the controller loses its cpu settings and bandwidth counters (its css dies):
 * enabling again gives fresh defaults. Usage counters are cgroup core data and stay.
 */
static void group_reset_cpu(struct sched *s, struct group *c)
{
	if (c->idle) {
		c->idle = false;
		core_group_idle(s, c);
	}
	c->shares = NICE_0_LOAD;
	c->quota_us = RUNTIME_INF;
	c->period_us = CPU_PERIOD_DFL_US;
	c->burst_us = 0;
	core_group_bandwidth(s, c);
	c->stat.nr_periods = c->stat.nr_throttled = c->stat.throttled_ns = 0;
	c->stat.nr_bursts = c->stat.burst_ns = 0;
	c->stat.local_throttled_ns = 0;
	gcore(c)->local_clock = s->core.now;
}

/*
 * kernfs holds a name once per directory: +cpu cannot add a cpu.* file to a child that has a
 * subdirectory of that name (cgroup_add_file() fails in css_populate_dir(): EEXIST).
 */
static bool group_cpu_files_shadowed(const struct group *g)
{
	const struct group *c, *cc;
	const struct cftype *cft;

	list_for_each_entry(c, &g->children, sibling)
		list_for_each_entry(cc, &c->children, sibling) {
			cft = cftype_find(cc->name);
			if (cft && (cft->flags & CFTYPE_CPU))
				return true;
		}
	return false;
}

int group_set_subtree_cpu(struct sched *s, struct group *g, bool enable)
{
	struct group *c;

	if (enable == g->subtree_cpu)
		return 0;
	if (enable) {
		/* Top-down: cpu must be in this group's cgroup.controllers. */
		if (g->parent && !g->parent->subtree_cpu)
			return -ENOENT;
		if (!group_is_valid_domain(g) && !group_threaded(g))
			return -EOPNOTSUPP;
		if (g->parent && !group_threaded(g) && !group_can_be_thread_root(g) && g->nr_vcpus)
			return -EBUSY;
		if (group_cpu_files_shadowed(g))
			return -EEXIST;
	} else {
		list_for_each_entry(c, &g->children, sibling)
			if (c->subtree_cpu)
				return -EBUSY;
	}
	g->subtree_cpu = enable;
	list_for_each_entry(c, &g->children, sibling) {
		if (enable)
			c->cpu_serial = ++s->last_serial;	/* the cpu.* files are new */
		else
			group_reset_cpu(s, c);
	}
	return core_group_subtree(s, g);
}
