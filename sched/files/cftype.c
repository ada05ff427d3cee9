// SPDX-License-Identifier: GPL-2.0
/*
 * The interface-file table of a group, in the order of the kernel's cgroup_base_files[] followed
 * by cpu_files[], then vsched's extensions. Root rules and the "+cpu" rule decide which files a
 * group has; cftype_write()/cftype_show() apply the generic kernfs rules once for every front end.
 */
#include <errno.h>
#include <string.h>

#include "sched/cftype.h"
#include "sched/files.h"

const struct cftype cgroup_files[] = {
	{ "cgroup.type", CFTYPE_NOT_ON_ROOT, cgroup_type_show, cgroup_type_write },
	{ "cgroup.procs", 0, cgroup_procs_show, cgroup_procs_write },
	{ "cgroup.threads", 0, cgroup_threads_show, cgroup_threads_write },
	{ "cgroup.controllers", 0, cgroup_controllers_show, NULL },
	{ "cgroup.subtree_control", 0, cgroup_subtree_control_show, cgroup_subtree_control_write },
	{ "cgroup.events", CFTYPE_NOT_ON_ROOT, cgroup_events_show, NULL },
	{ "cgroup.max.descendants", 0, cgroup_max_descendants_show, cgroup_max_descendants_write },
	{ "cgroup.max.depth", 0, cgroup_max_depth_show, cgroup_max_depth_write },
	{ "cgroup.stat", 0, cgroup_stat_show, NULL },
	{ "cpu.stat", 0, cpu_stat_show, NULL },
	{ "cpu.weight", CFTYPE_NOT_ON_ROOT | CFTYPE_CPU, cpu_weight_show, cpu_weight_write },
	{ "cpu.weight.nice", CFTYPE_NOT_ON_ROOT | CFTYPE_CPU, cpu_weight_nice_show,
	  cpu_weight_nice_write },
	{ "cpu.idle", CFTYPE_NOT_ON_ROOT | CFTYPE_CPU, cpu_idle_show, cpu_idle_write },
	{ "cpu.max", CFTYPE_NOT_ON_ROOT | CFTYPE_CPU, cpu_max_show, cpu_max_write },
	{ "cpu.max.burst", CFTYPE_NOT_ON_ROOT | CFTYPE_CPU, cpu_max_burst_show,
	  cpu_max_burst_write },
	{ "vsched.vcpus", CFTYPE_VSCHED, vsched_vcpus_show, vsched_vcpus_write },
	{ "vsched.vcpu.stat", CFTYPE_VSCHED, vsched_vcpu_stat_show, NULL },
	{ "vsched.lanes", CFTYPE_ONLY_ON_ROOT | CFTYPE_VSCHED, vsched_lanes_show, NULL },
	{ NULL, 0, NULL, NULL },
};

bool cftype_visible(const struct cftype *cft, const struct group *g)
{
	bool root = !g->parent;

	if ((cft->flags & CFTYPE_NOT_ON_ROOT) && root)
		return false;
	if ((cft->flags & CFTYPE_ONLY_ON_ROOT) && !root)
		return false;
	/* controller files are owned by the parent: they exist while it has +cpu */
	if ((cft->flags & CFTYPE_CPU) && (root || !g->parent->subtree_cpu))
		return false;
	return true;
}

const struct cftype *cftype_lookup(const struct group *g, const char *name)
{
	const struct cftype *cft;

	for (cft = cgroup_files; cft->name; cft++)
		if (!strcmp(cft->name, name))
			return cftype_visible(cft, g) ? cft : NULL;
	return NULL;
}

bool cftype_exists(const struct group *g, const char *name)
{
	return cftype_lookup(g, name) != NULL;
}

mode_t cftype_mode(const struct cftype *cft)
{
	mode_t mode = 0;

	if (cft->show)
		mode |= 0444;
	if (cft->write)
		mode |= 0200;
	return mode;
}

ssize_t cftype_write(struct sched *s, struct group *g, const struct cftype *cft, const char *buf,
		     size_t len)
{
	char copy[CFTYPE_WRITE_MAX + 1];
	int ret;

	/* kernfs_fop_write_iter(): the size first; cgroup_file_write(): no handler, EINVAL. */
	if (len > CFTYPE_WRITE_MAX)
		return -E2BIG;
	if (!len)
		return 0;
	if (!cft->write)
		return -EINVAL;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	ret = cft->write(s, g, copy, len);
	return ret ? ret : (ssize_t)len;
}

ssize_t cftype_show(struct sched *s, struct group *g, const struct cftype *cft, uint64_t now_ns,
		    char *buf, size_t size)
{
	char none[1];
	ssize_t ret;

	if (!cft->show)
		return -EACCES;
	/* No room even for the NUL: still ask the file, whose own error comes first. */
	if (!size) {
		ret = cft->show(s, g, now_ns, none, 0);
		return ret >= 0 ? -ENOSPC : ret;
	}
	buf[0] = '\0';
	return cft->show(s, g, now_ns, buf, size);
}
