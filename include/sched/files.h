/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Handlers of the interface files (values and setters of the typed files, a parser and a
 * formatter for files of several fields) and the migration vet used by every way of moving a
 * vCPU (cgroup.threads, cgroup.procs, vsched.vcpus, vsched_assign()). The type state machine
 * itself is the group tree's (sched/group.h). The table that names these handlers is in
 * sched/files/cftype.c.
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
#include "util/time.h"

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

/* cpu.* (sched/files/cpu_files.c); the typed files' values and setters, then the handlers. */
uint64_t cpu_weight_read(const struct group *g);
int cpu_weight_write(struct sched *s, struct group *g, uint64_t weight);
int64_t cpu_weight_nice_read(const struct group *g);
int cpu_weight_nice_write(struct sched *s, struct group *g, int64_t nice);
int64_t cpu_idle_read(const struct group *g);
int cpu_idle_write(struct sched *s, struct group *g, int64_t idle);
uint64_t cpu_max_burst_read(const struct group *g);
int cpu_max_burst_write(struct sched *s, struct group *g, uint64_t burst);
ssize_t cpu_max_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int cpu_max_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t cpu_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
ssize_t cpu_stat_local_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			    size_t size);

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
int64_t cgroup_max_depth_read(const struct group *g);
int cgroup_max_depth_write(struct sched *s, struct group *g, int64_t depth);
int64_t cgroup_max_descendants_read(const struct group *g);
int cgroup_max_descendants_write(struct sched *s, struct group *g, int64_t nr);
ssize_t vsched_vcpus_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);
int vsched_vcpus_write(struct sched *s, struct group *g, char *buf, size_t len);
ssize_t vsched_vcpu_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			      size_t size);
ssize_t vsched_lanes_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size);

/*
 * The one parser of each membership write (struct cftype.parse_moves): the vCPUs a write of
 * buf to cgroup.procs, cgroup.threads or vsched.vcpus names, or the write's -errno (EINVAL
 * syntax, ESRCH no such process or thread, cpuset_parse()'s for vsched.vcpus).
 */
int cgroup_procs_parse(struct sched *s, char *buf, struct cpuset *set);
int cgroup_threads_parse(struct sched *s, char *buf, struct cpuset *set);
int vsched_vcpus_parse(struct sched *s, char *buf, struct cpuset *set);
/*
 * Calls check for each vCPU in set, with the depth of the nearest group holding both its group
 * and dst (dst's own for a vCPU already there); stops at the first non-zero return, returns it.
 */
int cgroup_check_moves(struct sched *s, const struct cpuset *set, struct group *dst,
		       int (*check)(unsigned int depth, void *arg), void *arg);

#endif
