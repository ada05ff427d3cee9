// SPDX-License-Identifier: GPL-2.0
/*
 * The interface-file table of a group, in the order of the kernel's cgroup_base_files[] followed
 * by cpu_files[], then vsched's extensions. Root rules and the "+cpu" rule decide which files a
 * group has; cftype_write()/cftype_show() apply the generic kernfs rules once for every front end.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <string.h>

#include "sched/cftype.h"
#include "sched/files.h"
#include "sched/parse.h"

#define CPU_FILE	(CFTYPE_NOT_ON_ROOT | CFTYPE_CPU)

const struct cftype cgroup_files[] = {
	{ .name = "cgroup.type", .flags = CFTYPE_NOT_ON_ROOT,
	  .show = cgroup_type_show, .write = cgroup_type_write },
	{ .name = "cgroup.procs",
	  .show = cgroup_procs_show, .write = cgroup_procs_write,
	  .parse_moves = cgroup_procs_parse },
	{ .name = "cgroup.threads",
	  .show = cgroup_threads_show, .write = cgroup_threads_write,
	  .parse_moves = cgroup_threads_parse },
	{ .name = "cgroup.controllers", .show = cgroup_controllers_show },
	{ .name = "cgroup.subtree_control",
	  .show = cgroup_subtree_control_show, .write = cgroup_subtree_control_write },
	{ .name = "cgroup.events", .flags = CFTYPE_NOT_ON_ROOT, .show = cgroup_events_show },
	/* cgroup_max_*_write(): kstrtoint() >= 0 or "max", which is INT_MAX */
	{ .name = "cgroup.max.descendants", .flags = CFTYPE_MAX_WORD,
	  .read_s64 = cgroup_max_descendants_read, .write_s64 = cgroup_max_descendants_write,
	  .s64 = { 0, INT_MAX } },
	{ .name = "cgroup.max.depth", .flags = CFTYPE_MAX_WORD,
	  .read_s64 = cgroup_max_depth_read, .write_s64 = cgroup_max_depth_write,
	  .s64 = { 0, INT_MAX } },
	{ .name = "cgroup.stat", .show = cgroup_stat_show },
	{ .name = "cpu.stat", .show = cpu_stat_show },
	{ .name = "cpu.stat.local", .show = cpu_stat_local_show },
	{ .name = "cpu.weight", .flags = CPU_FILE,
	  .read_u64 = cpu_weight_read, .write_u64 = cpu_weight_write,
	  .u64 = { CGROUP_WEIGHT_MIN, CGROUP_WEIGHT_MAX } },
	{ .name = "cpu.weight.nice", .flags = CPU_FILE,
	  .read_s64 = cpu_weight_nice_read, .write_s64 = cpu_weight_nice_write,
	  .s64 = { MIN_NICE, MAX_NICE } },
	/* sched_group_set_idle(): out of range is EINVAL */
	{ .name = "cpu.idle", .flags = CPU_FILE | CFTYPE_RANGE_EINVAL,
	  .read_s64 = cpu_idle_read, .write_s64 = cpu_idle_write, .s64 = { 0, 1 } },
	{ .name = "cpu.max", .flags = CPU_FILE, .show = cpu_max_show, .write = cpu_max_write },
	/* cpu_cfs_burst_write_u64(): the value must survive translation to ns */
	{ .name = "cpu.max.burst", .flags = CPU_FILE | CFTYPE_RANGE_EINVAL,
	  .read_u64 = cpu_max_burst_read, .write_u64 = cpu_max_burst_write,
	  .u64 = { 0, UINT64_MAX / NSEC_PER_USEC } },
	{ .name = "vsched.vcpus", .flags = CFTYPE_VSCHED,
	  .show = vsched_vcpus_show, .write = vsched_vcpus_write,
	  .parse_moves = vsched_vcpus_parse },
	{ .name = "vsched.vcpu.stat", .flags = CFTYPE_VSCHED, .show = vsched_vcpu_stat_show },
	{ .name = "vsched.lanes", .flags = CFTYPE_ONLY_ON_ROOT | CFTYPE_VSCHED,
	  .show = vsched_lanes_show },
	{ .name = NULL },
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

const struct cftype *cftype_find(const char *name)
{
	const struct cftype *cft;

	for (cft = cgroup_files; cft->name; cft++)
		if (!strcmp(cft->name, name))
			return cft;
	return NULL;
}

const struct cftype *cftype_lookup(const struct group *g, const char *name)
{
	const struct cftype *cft = cftype_find(name);

	return cft && cftype_visible(cft, g) ? cft : NULL;
}

bool cftype_exists(const struct group *g, const char *name)
{
	return cftype_lookup(g, name) != NULL;
}


bool cftype_readable(const struct cftype *cft)
{
	return cft->show || cft->read_u64 || cft->read_s64;
}

bool cftype_writable(const struct cftype *cft)
{
	return cft->write || cft->write_u64 || cft->write_s64;
}

mode_t cftype_mode(const struct cftype *cft)
{
	mode_t mode = 0;

	if (cftype_readable(cft))
		mode |= 0444;
	if (cftype_writable(cft))
		mode |= 0200;
	return mode;
}

int cftype_moves(struct sched *s, const struct cftype *cft, const char *buf, size_t len,
		 struct cpuset *set)
{
	char copy[CFTYPE_WRITE_MAX + 1];

	if (!cft || !cft->parse_moves || !len || len > CFTYPE_WRITE_MAX)
		return 1;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	return cft->parse_moves(s, copy, set);
}

/* cgroup_file_write() of a typed file, with the row's range and "max". */
static int cftype_write_typed(struct sched *s, struct group *g, const struct cftype *cft,
			      char *buf)
{
	int err = cft->flags & CFTYPE_RANGE_EINVAL ? -EINVAL : -ERANGE;
	bool max = false;
	int ret;

	if (cft->flags & CFTYPE_MAX_WORD) {
		buf = parse_strstrip(buf);
		max = !strcmp(buf, "max");
	}
	if (cft->write_u64) {
		uint64_t u = cft->u64.max;

		ret = max ? 0 : parse_u64(buf, &u);
		if (!ret)
			ret = u < cft->u64.min || u > cft->u64.max ? err : cft->write_u64(s, g, u);
	} else {
		int64_t v = cft->s64.max;

		ret = max ? 0 : parse_s64(buf, &v);
		if (!ret)
			ret = v < cft->s64.min || v > cft->s64.max ? err : cft->write_s64(s, g, v);
	}
	return ret;
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
	if (!cftype_writable(cft))
		return -EINVAL;
	memcpy(copy, buf, len);
	copy[len] = '\0';
	ret = cft->write ? cft->write(s, g, copy, len) : cftype_write_typed(s, g, cft, copy);
	return ret ? ret : (ssize_t)len;
}

/* The kernel's cgroup_seqfile_show() of a typed file: "%llu\n" or "%lld\n"; "max\n" at max. */
static ssize_t cftype_show_typed(const struct group *g, const struct cftype *cft, char *buf,
				 size_t size)
{
	struct seqbuf sb = { buf, size };
	bool word = cft->flags & CFTYPE_MAX_WORD;

	if (cft->read_u64) {
		uint64_t v = cft->read_u64(g);

		if (word && v >= cft->u64.max)
			seqbuf_printf(&sb, "max\n");
		else
			seqbuf_printf(&sb, "%" PRIu64 "\n", v);
	} else {
		int64_t v = cft->read_s64(g);

		if (word && v >= cft->s64.max)
			seqbuf_printf(&sb, "max\n");
		else
			seqbuf_printf(&sb, "%" PRId64 "\n", v);
	}
	return seqbuf_end(&sb);
}

/* Every file shows through here: typed or by its handler. */
static ssize_t cftype_show_any(struct sched *s, struct group *g, const struct cftype *cft,
			       uint64_t now_ns, char *buf, size_t size)
{
	if (cft->show)
		return cft->show(s, g, now_ns, buf, size);
	return cftype_show_typed(g, cft, buf, size);
}

ssize_t cftype_show(struct sched *s, struct group *g, const struct cftype *cft, uint64_t now_ns,
		    char *buf, size_t size)
{
	char none[1];
	ssize_t ret;

	if (!cftype_readable(cft))
		return -EACCES;
	/* No room even for the NUL: still ask the file, whose own error comes first. */
	if (!size) {
		ret = cftype_show_any(s, g, cft, now_ns, none, 0);
		return ret >= 0 ? -ENOSPC : ret;
	}
	buf[0] = '\0';
	return cftype_show_any(s, g, cft, now_ns, buf, size);
}
