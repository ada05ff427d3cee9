// SPDX-License-Identifier: GPL-2.0
/* The scenario's group tree, built with the group.h calls a front end would make. */
#include <errno.h>
#include <string.h>

#include "sim_types.h"

int sim_apply_settings(struct sched *s, struct group *g, const struct sim_settings *set,
		       const char **why)
{
	int ret;

	*why = "cpu.idle";
	if (set->has_idle && !set->idle && (ret = group_set_idle(s, g, false)))
		return ret;
	*why = g->idle ? "cpu.weight while cpu.idle is 1" : "cpu.weight";
	if (set->has_weight &&
	    (ret = group_set_shares(s, g, sched_weight_from_cgroup(set->weight))))
		return ret;
	if (set->has_nice &&
	    (ret = group_set_shares(s, g, sched_prio_to_weight[set->nice - MIN_NICE])))
		return ret;
	*why = "cpu.idle";
	if (set->has_idle && set->idle && (ret = group_set_idle(s, g, true)))
		return ret;
	if (set->has_max || set->has_burst) {
		uint64_t quota = set->has_max ? set->quota_us : g->quota_us;
		uint64_t period = set->has_max && set->has_period ? set->period_us : g->period_us;
		uint64_t burst = set->has_burst ? set->burst_us : g->burst_us;

		*why = quota != RUNTIME_INF && burst > quota ? "cpu.max.burst above the quota" :
			"cpu.max";
		ret = group_set_bandwidth(s, g, quota, period, burst);
		if (ret)
			return ret;
	}
	return 0;
}

int sim_fail(struct diag *d, int ret, unsigned int line, const char *what, const char *path)
{
	return diag_at(d, ret, (int)line, NULL, NULL, "%s %s: %s", what, SIM_WORD(path),
		       strerror(-ret));
}

/*
 * groups[0] is the root, groups[i + 1] the scenario's group i. Nested groups have the cpu
 * controller, as if "+cpu" was written down the tree, and are threaded, as the vCPU groups of
 * one VM process are, so vCPUs may sit at any level.
 */
int sim_build_tree(const struct sim_scenario *sc, struct sched *s, struct group **groups,
		   struct diag *d)
{
	unsigned int i;
	int ret;

	groups[0] = sched_root(s);
	for (i = 0; i < sc->nr_groups; i++) {
		const struct sim_group_cfg *gc = &sc->groups[i];
		char parent[GROUP_PATH_MAX], *slash;
		struct group *pg, *g;
		const char *why;

		strcpy(parent, gc->path);
		slash = strrchr(parent, '/');
		*slash = '\0';
		pg = group_lookup(s, parent);
		if (!pg)
			return sim_fail(d, -ENOENT, gc->line, "parent of", gc->path);
		ret = group_set_subtree_cpu(s, pg, true);
		if (ret)
			return sim_fail(d, ret, gc->line, "+cpu in", parent[0] ? parent : "/");
		ret = group_create(s, pg, slash + 1, &g);
		if (ret)
			return sim_fail(d, ret, gc->line, "group", gc->path);
		ret = group_enable_threaded(s, g);
		if (ret)
			return sim_fail(d, ret, gc->line, "threaded", gc->path);
		ret = sim_apply_settings(s, g, &gc->set, &why);
		if (ret)
			return diag_at(d, ret, (int)gc->line, NULL, NULL, "settings of %s: %s: %s",
				       SIM_WORD(gc->path), why, strerror(-ret));
		groups[i + 1] = g;
	}
	for (i = 0; i < sc->nr_vcpus; i++) {
		struct group *g = group_lookup(s, sc->vcpus[i].path);

		if (!g)
			return sim_fail(d, -ENOENT, sc->vcpus[i].line, "group of a vcpu,",
					sc->vcpus[i].path);
		ret = sched_vcpu_move(s, i, g);
		if (ret)
			return sim_fail(d, ret, sc->vcpus[i].line, "vcpu into", sc->vcpus[i].path);
	}
	return 0;
}

