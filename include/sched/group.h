/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The group tree: nested cpu groups (cgroup v2 semantics) holding vCPUs.
 *
 * The tree lives inside one struct sched (the scheduler core instance of a VM). Everything here
 * is single-threaded and clock-free: callers serialise (the public API in vsched.h holds a lock)
 * and pass time explicitly where it matters. Functions return 0 or -errno; they never print.
 *
 * Setters validate as the kernel does (tg_set_cfs_bandwidth(), sched_group_set_shares(), ...)
 * and on error change nothing. Syntax (parsing of file contents) is not handled here: see
 * sched/cftype.h, which parses and then calls these.
 */
#ifndef VSCHED_SCHED_GROUP_H
#define VSCHED_SCHED_GROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/list.h"

/* cgroupfs takes any name a path can hold (PATH_MAX - 1 bytes); so does the tree. */
#define GROUP_PATH_MAX		4096
#define GROUP_NAME_MAX		(GROUP_PATH_MAX - 1)
/*
 * The deepest a group may be (the root is 0). The kernel has no such limit, cgroup.max.depth
 * being "max" by default; here a mkdir deeper fails with EAGAIN, the errno of cgroup.max.depth,
 * whatever the limits say. The core walks a vCPU's path in arrays of this size.
 */
#define GROUP_DEPTH_MAX		256

#define CGROUP_WEIGHT_MIN	1
#define CGROUP_WEIGHT_DFL	100
#define CGROUP_WEIGHT_MAX	10000

/* Group weights are kept in the kernel's load units: cpu.weight 100 == NICE_0_LOAD. */
#define NICE_0_LOAD		1024UL
#define WEIGHT_IDLEPRIO		3UL	/* the weight of a cpu.idle=1 group */

/* Kernel load units (NICE_0_LOAD == cpu.weight 100) <-> cpu.weight, with the kernel's rounding. */
static inline unsigned long sched_weight_from_cgroup(unsigned long w)
{
	return (w * NICE_0_LOAD + CGROUP_WEIGHT_DFL / 2) / CGROUP_WEIGHT_DFL;
}

static inline unsigned long sched_weight_to_cgroup(unsigned long shares)
{
	unsigned long w = (shares * CGROUP_WEIGHT_DFL + NICE_0_LOAD / 2) / NICE_0_LOAD;

	if (w < CGROUP_WEIGHT_MIN)
		return CGROUP_WEIGHT_MIN;
	return w > CGROUP_WEIGHT_MAX ? CGROUP_WEIGHT_MAX : w;
}

#define MIN_NICE		(-20)
#define MAX_NICE		19
extern const unsigned long sched_prio_to_weight[40];	/* indexed by nice + 20 */

#define CPU_PERIOD_DFL_US	100000ULL
#define CPU_PERIOD_MIN_US	1000ULL
#define CPU_PERIOD_MAX_US	1000000ULL
#define CPU_QUOTA_MIN_US	1000ULL
#define RUNTIME_INF		UINT64_MAX	/* "max" quota */
#define MAX_BW_US		((1ULL << 44) - 1)	/* max_cfs_runtime: quota (+ burst) limit */
#define LIMIT_MAX		UINT64_MAX	/* "max" for cgroup.max.depth/descendants */

enum group_type {
	GROUP_DOMAIN,
	GROUP_DOMAIN_THREADED,
	GROUP_DOMAIN_INVALID,
	GROUP_THREADED,
};

/* Nanosecond accumulators; cpu.stat truncates to microseconds on output. */
struct cpu_stat {
	uint64_t usage_ns, user_ns, system_ns;
	uint64_t nr_periods, nr_throttled, throttled_ns;
	uint64_t local_throttled_ns;	/* cpu.stat.local: held by its own pool or an ancestor's */
	uint64_t nr_bursts, burst_ns;
};

struct sched;
struct sched_vcpu;

struct group {
	char *name;			/* "" for the root */
	struct group *parent;		/* NULL for the root */
	struct list_head children;	/* of struct group, by ->sibling */
	struct list_head sibling;
	struct list_head vcpus;		/* of struct sched_vcpu, by ->group_node */
	unsigned int depth;		/* root = 0 */
	unsigned int nr_vcpus;		/* directly in this group */
	unsigned int nr_populated;	/* vCPUs in this group and below */
	unsigned int nr_descendants;

	/* cgroup core */
	enum group_type type;		/* GROUP_THREADED once made so, else GROUP_DOMAIN;
					   group_type_of() gives what cgroup.type shows */
	bool subtree_cpu;		/* "cpu" in cgroup.subtree_control */
	uint64_t max_depth;		/* LIMIT_MAX = "max" */
	uint64_t max_descendants;
	uid_t uid;			/* owner, for delegation (chown of the directory) */
	gid_t gid;

	/* cpu controller */
	unsigned long shares;		/* kernel load units; see NICE_0_LOAD */
	bool idle;
	uint64_t quota_us;		/* RUNTIME_INF = max */
	uint64_t period_us;
	uint64_t burst_us;

	struct cpu_stat stat;		/* hierarchical, including removed children */

	/*
	 * Identities, never reused in a tree (kernfs nodes): the directory and its core files',
	 * and its cpu.* files', new at every +cpu of the parent. An open file whose node is gone
	 * answers ENODEV even if a node of the same name exists again.
	 */
	uint64_t serial, cpu_serial;
	/* cgroup_file_notify() of cgroup.events: populated changed this many times */
	uint64_t events_gen;

	void *core;			/* scheduler core state, owned by sched/core */
};

struct sched_vcpu {
	unsigned int id;		/* vCPU index */
	pid_t tid;			/* thread ID once the vCPU thread runs, else 0 */
	struct group *group;
	struct list_head group_node;
	struct cpu_stat stat;		/* usage_ns, user_ns, system_ns of this vCPU */
	void *core;			/* scheduler core state, owned by sched/core */
};

/* Lifetime of the tree (and of the scheduler core that owns it). */
struct sched *sched_create(unsigned int nr_lanes, unsigned int nr_vcpus);
void sched_destroy(struct sched *s);
struct group *sched_root(struct sched *s);
unsigned int sched_nr_vcpus(const struct sched *s);
unsigned int sched_nr_lanes(const struct sched *s);
struct sched_vcpu *sched_vcpu(struct sched *s, unsigned int id);	/* NULL if out of range */
struct sched_vcpu *sched_vcpu_by_tid(struct sched *s, pid_t tid);
void sched_vcpu_set_tid(struct sched *s, unsigned int id, pid_t tid);
pid_t sched_pid(const struct sched *s);		/* the VMM process, for cgroup.procs */
void sched_set_pid(struct sched *s, pid_t pid);

/* Tree operations, as mkdir/rmdir on cgroupfs. */
int group_create(struct sched *s, struct group *parent, const char *name, struct group **out);
					/* -EINVAL name, -EEXIST, -EAGAIN limits, -ENAMETOOLONG */
int group_remove(struct sched *s, struct group *g);	/* -EBUSY populated or has children */
struct group *group_lookup(struct sched *s, const char *path);	/* "a/b"; "" or "/" = root */
struct group *group_child(struct group *parent, const char *name);
/* mkdir's name checks; a name may not shadow an interface file of parent (kernfs: EEXIST). */
int group_check_name(const struct group *parent, const char *name);
bool group_is_populated(const struct group *g);	/* vCPUs here or below */
int group_path(const struct group *g, char *buf, size_t len);	/* "/a/b", "/" for root */
bool group_is_root(const struct group *g);

/* cgroup.max.depth / cgroup.max.descendants (LIMIT_MAX = "max"); enforced at group_create(). */
int group_set_max_depth(struct sched *s, struct group *g, uint64_t depth);
int group_set_max_descendants(struct sched *s, struct group *g, uint64_t nr);

/*
 * Threaded mode (cgroup.type) and "cpu" in cgroup.subtree_control, with cgroupfs errnos:
 * group_enable_threaded() -EOPNOTSUPP; group_set_subtree_cpu() -ENOENT (parent lacks +cpu),
 * -EBUSY (a child still has +cpu), -EOPNOTSUPP (invalid domain), -EEXIST (a grandchild is named
 * as a cpu.* file the children would get). The root starts with +cpu.
 * Disabling resets the children's cpu settings and bandwidth counters (fresh css later); the
 * core reschedules the vCPUs below at once.
 */
enum group_type group_type_of(const struct group *g);
/*
 * Whether g has the cpu controller (its parent enabled "cpu", or it is the root). A group
 * without it has no settings of its own that count: its vCPUs are scheduled in
 * group_cpu_group(g), the nearest ancestor that has it, as the kernel runs tasks of such a
 * cgroup in the nearest ancestor's task group. (group_has_cpu() is defined with the cpu files,
 * sched/files/cpu_files.c, which also declares it in sched/files.h.)
 */
bool group_has_cpu(const struct group *g);
struct group *group_cpu_group(struct group *g);
int group_enable_threaded(struct sched *s, struct group *g);
int group_set_subtree_cpu(struct sched *s, struct group *g, bool enable);
struct group *group_dom(struct group *g);	/* the threaded domain a group belongs to */
bool group_is_valid_domain(const struct group *g);
bool group_is_thread_root(const struct group *g);

/*
 * Membership: a vCPU is in exactly one group; counters stay consistent on a move. -ESRCH for an
 * unknown vCPU, -EOPNOTSUPP into an invalid domain. Any other group is allowed (the cpu
 * controller is threaded); cgroup.threads' same-domain rule is the front end's to apply with
 * group_dom().
 */
int sched_vcpu_move(struct sched *s, unsigned int id, struct group *to);
/* How many times any group's populated state changed (each bumps that group's events_gen). */
uint64_t sched_nr_events(const struct sched *s);

/*
 * cpu controller settings, validated as the kernel does; take effect at once in the core.
 * -ENOENT on a group without the controller (group_has_cpu() false).
 */
int group_set_shares(struct sched *s, struct group *g, unsigned long shares);
int group_set_idle(struct sched *s, struct group *g, bool idle);
int group_set_bandwidth(struct sched *s, struct group *g, uint64_t quota_us, uint64_t period_us,
			uint64_t burst_us);
/* The checks of group_set_bandwidth() alone: 0 or -EINVAL. */
int group_bandwidth_valid(const struct group *g, uint64_t quota_us, uint64_t period_us,
			  uint64_t burst_us);

/* Which cpu.max range a (quota, period, burst) breaks, in the kernel's order; BW_OK if none. */
enum bw_rule { BW_OK, BW_QUOTA, BW_PERIOD, BW_BURST };
enum bw_rule group_bandwidth_rule(uint64_t quota_us, uint64_t period_us, uint64_t burst_us);
/* The rule in words, for an edge that names it ("the cpu.max period is 1ms to 1s"). */
const char *group_bandwidth_rule_str(enum bw_rule r);

/* cpu.stat of a group or vCPU at time now_ns (in-progress throttling is included). */
void group_stat(struct sched *s, struct group *g, uint64_t now_ns, struct cpu_stat *out);

#endif
