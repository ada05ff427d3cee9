/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Handlers of the interface files (one parser and one formatter per file) and the migration
 * vet used by every way of moving a vCPU (cgroup.threads, cgroup.procs, vsched.vcpus,
 * vsched_assign()). The type state machine itself is the group tree's (sched/group.h). The table
 * that names these handlers is in sched/files/cftype.c.
 */
#ifndef VSCHED_SCHED_FILES_H
#define VSCHED_SCHED_FILES_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sched/group.h"
#include "util/compiler.h"
#include "util/cpuset.h"

/* Output buffer of a show handler; a show that does not fit returns -ENOSPC (caller grows). */
struct seqbuf {
	char *buf;
	size_t size, len;
	bool overflow;
};

void seqbuf_printf(struct seqbuf *sb, const char *fmt, ...) __printf(2, 3);
ssize_t seqbuf_end(struct seqbuf *sb);	/* length, or -ENOSPC if anything was cut */

/* Whether g has a cpu "css": the root, or a group whose parent has +cpu in subtree_control. */
bool group_has_cpu(const struct group *g);

/*
 * Checks a move of the vCPUs in set (threads == true: as cgroup.threads, false: as a whole
 * process via cgroup.procs) into dst, as __cgroup_procs_write() does: -EOPNOTSUPP for an invalid
 * domain or (threads) another threaded domain, -EBUSY for the no-internal-process rule.
 */
int cgroup_vet_move(struct sched *s, const struct cpuset *set, struct group *dst, bool threads);
/* Vets, then moves every vCPU in set into dst; all or nothing. */
int cgroup_move_vcpus(struct sched *s, const struct cpuset *set, struct group *dst, bool threads);

/* cpu.* (sched/files/cpu_files.c) */
ssize_t cpu_weight_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int cpu_weight_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cpu_weight_nice_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			     size_t size);
int cpu_weight_nice_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cpu_idle_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int cpu_idle_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cpu_max_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int cpu_max_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cpu_max_burst_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			   size_t size);
int cpu_max_burst_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cpu_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);

/* cpu.weight.nice read: the nice whose sched_prio_to_weight[] entry is closest to shares. */
int cpu_shares_to_nice(unsigned long shares);

/* cgroup.* and vsched.* (sched/files/cgroup_files.c) */
ssize_t cgroup_type_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int cgroup_type_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cgroup_procs_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int cgroup_procs_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cgroup_threads_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			    size_t size);
int cgroup_threads_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cgroup_controllers_show(struct sched *s, struct group *g, uint64_t now, char *buf,
				size_t size);
ssize_t cgroup_subtree_control_show(struct sched *s, struct group *g, uint64_t now, char *buf,
				    size_t size);
int cgroup_subtree_control_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cgroup_events_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			   size_t size);
ssize_t cgroup_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
ssize_t cgroup_max_depth_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			      size_t size);
int cgroup_max_depth_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cgroup_max_descendants_show(struct sched *s, struct group *g, uint64_t now, char *buf,
				    size_t size);
int cgroup_max_descendants_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t vsched_vcpus_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int vsched_vcpus_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t vsched_vcpu_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			      size_t size);
ssize_t vsched_lanes_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);

#endif
