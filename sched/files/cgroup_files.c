// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup core files (kernel/cgroup/cgroup.c cgroup_base_files[] of Linux 6.12) and the vsched.*
 * extensions. vsched's tree is the cgroup subtree of one process (the VMM) whose threads of
 * interest are the vCPUs: the root plays the kernel's root cgroup (mixable: it can hold vCPUs and
 * still have domain children), groups start as "domain", and a vCPU can be moved alone only
 * within its threaded domain, as on the kernel. Whole-process moves go through cgroup.procs.
 * The type state machine is computed from the tree; the only stored bit is "threaded".
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "sched/core.h"
#include "sched/files.h"
#include "sched/parse.h"

static bool cgroup_is_threaded(const struct group *g)
{
	return group_type_of(g) == GROUP_THREADED;
}

/*
 * cgroup_can_be_thread_root(): always for the root; otherwise not threaded and no populated
 * domain child. (The tree keeps its copy static; the vet below needs it too.)
 */
static bool cgroup_can_be_thread_root(const struct group *g)
{
	const struct group *c;

	if (!g->parent)
		return true;
	if (cgroup_is_threaded(g))
		return false;
	list_for_each_entry(c, &g->children, sibling)
		if (!cgroup_is_threaded(c) && group_is_populated(c))
			return false;
	return true;
}

/* cgroup_migrate_vet_dst(), plus cgroup_attach_permissions()' same-domain rule for threads. */
int cgroup_vet_move(struct sched *s, const struct cpuset *set, struct group *dst, bool threads)
{
	struct group *dom = group_dom(dst);
	unsigned int i, n = sched_nr_vcpus(s);

	if (!group_is_valid_domain(dom))
		return -EOPNOTSUPP;
	if (!cgroup_can_be_thread_root(dst) && !cgroup_is_threaded(dst) && dst->subtree_cpu)
		return -EBUSY;
	if (!threads)
		return 0;
	for (i = 0; i < n; i++) {
		struct sched_vcpu *v = sched_vcpu(s, i);

		if (cpuset_test(set, i) && group_dom(v->group) != dom)
			return -EOPNOTSUPP;
	}
	return 0;
}

int cgroup_move_vcpus(struct sched *s, const struct cpuset *set, struct group *dst, bool threads)
{
	unsigned int i, n = sched_nr_vcpus(s);
	int ret;

	ret = cgroup_vet_move(s, set, dst, threads);
	if (ret)
		return ret;
	for (i = 0; i < n; i++) {
		if (!cpuset_test(set, i) || sched_vcpu(s, i)->group == dst)
			continue;
		ret = sched_vcpu_move(s, i, dst);
		if (ret)
			return ret;
	}
	return 0;
}

ssize_t cgroup_type_show(struct sched *s __unused, struct group *g, uint64_t now __unused,
			 char *buf, size_t size)
{
	static const char *const names[] = {
		[GROUP_DOMAIN] = "domain",
		[GROUP_DOMAIN_THREADED] = "domain threaded",
		[GROUP_DOMAIN_INVALID] = "domain invalid",
		[GROUP_THREADED] = "threaded",
	};
	struct seqbuf sb = { buf, size };

	seqbuf_printf(&sb, "%s\n", names[group_type_of(g)]);
	return seqbuf_end(&sb);
}

/* cgroup_type_write(): only "threaded" (after strstrip()); the switch is one way. */
int cgroup_type_write(struct sched *s, struct group *g, char *buf, size_t len __unused)
{
	if (strcmp(parse_strstrip(buf), "threaded"))
		return -EINVAL;
	return group_enable_threaded(s, g);
}

static int cgroup_parse_id(char *buf, int *id)
{
	/* __cgroup_procs_write(): every parse failure, overflow included, is EINVAL */
	if (parse_int(parse_strstrip(buf), id) || *id < 0)
		return -EINVAL;
	return 0;
}

/* cgroup.procs: a process ID (a thread ID stands for its process) moves every vCPU. */
int cgroup_procs_parse(struct sched *s, char *buf, struct cpuset *set)
{
	unsigned int i, n = sched_nr_vcpus(s);
	int pid, ret;

	ret = cgroup_parse_id(buf, &pid);
	if (ret)
		return ret;
	/* Nothing but the VMM's threads lives here. */
	if (!pid || (pid != sched_pid(s) && !sched_vcpu_by_tid(s, pid)))
		return -ESRCH;
	cpuset_clear(set);
	for (i = 0; i < n && i < CPUSET_MAX; i++)
		cpuset_set(set, i);
	return 0;
}

/* cgroup.threads: a thread ID moves that vCPU. */
int cgroup_threads_parse(struct sched *s, char *buf, struct cpuset *set)
{
	struct sched_vcpu *v;
	int tid, ret;

	ret = cgroup_parse_id(buf, &tid);
	if (ret)
		return ret;
	v = tid ? sched_vcpu_by_tid(s, tid) : NULL;
	if (!v)
		return -ESRCH;
	cpuset_clear(set);
	cpuset_set(set, v->id);
	return 0;
}

/* vsched.vcpus: vCPU indices in libvirt cpuset syntax. */
int vsched_vcpus_parse(struct sched *s, char *buf, struct cpuset *set)
{
	return cpuset_parse(buf, sched_nr_vcpus(s), set);
}

static struct group *cgroup_common_ancestor(struct group *a, struct group *b)
{
	struct group *x;

	for (; a; a = a->parent)
		for (x = b; x; x = x->parent)
			if (x == a)
				return a;
	return NULL;
}

int cgroup_check_moves(struct sched *s, const struct cpuset *set, struct group *dst,
		       int (*check)(unsigned int depth, void *arg), void *arg)
{
	unsigned int i, n = sched_nr_vcpus(s);
	int ret;

	for (i = 0; i < n; i++) {
		struct sched_vcpu *v = sched_vcpu(s, i);

		if (!cpuset_test(set, i))
			continue;
		/*
		 * Both are in the one tree: the root at least is common. A vCPU already in dst is
		 * checked at dst, as __cgroup_procs_write() checks a task moved where it is.
		 */
		ret = check(cgroup_common_ancestor(v->group, dst)->depth, arg);
		if (ret)
			return ret;
	}
	return 0;
}

ssize_t cgroup_procs_show(struct sched *s, struct group *g, uint64_t now __unused, char *buf,
			  size_t size)
{
	struct seqbuf sb = { buf, size };
	struct sched_vcpu *v0 = sched_vcpu(s, 0);
	struct group *home = v0 ? group_dom(v0->group) : sched_root(s);

	if (cgroup_is_threaded(g))
		return -EOPNOTSUPP;
	/* The VMM process is listed in the domain that holds its threads. */
	if (sched_pid(s) > 0 && g == home)
		seqbuf_printf(&sb, "%d\n", (int)sched_pid(s));
	return seqbuf_end(&sb);
}

int cgroup_procs_write(struct sched *s, struct group *g, char *buf, size_t len __unused)
{
	struct cpuset set;
	int ret = cgroup_procs_parse(s, buf, &set);

	return ret ? ret : cgroup_move_vcpus(s, &set, g, false);
}

ssize_t cgroup_threads_show(struct sched *s, struct group *g, uint64_t now __unused, char *buf,
			    size_t size)
{
	struct seqbuf sb = { buf, size };
	unsigned int i, n = sched_nr_vcpus(s);

	for (i = 0; i < n; i++) {
		struct sched_vcpu *v = sched_vcpu(s, i);

		if (v->group == g && v->tid > 0)
			seqbuf_printf(&sb, "%d\n", (int)v->tid);
	}
	return seqbuf_end(&sb);
}

int cgroup_threads_write(struct sched *s, struct group *g, char *buf, size_t len __unused)
{
	struct cpuset set;
	int ret = cgroup_threads_parse(s, buf, &set);

	return ret ? ret : cgroup_move_vcpus(s, &set, g, true);
}

ssize_t cgroup_controllers_show(struct sched *s __unused, struct group *g,
				uint64_t now __unused, char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };

	/* cgroup_control(): the root offers every controller, others what the parent enabled */
	if (!g->parent || g->parent->subtree_cpu)
		seqbuf_printf(&sb, "cpu\n");
	return seqbuf_end(&sb);
}

ssize_t cgroup_subtree_control_show(struct sched *s __unused, struct group *g,
				    uint64_t now __unused, char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };

	if (g->subtree_cpu)
		seqbuf_printf(&sb, "cpu\n");
	return seqbuf_end(&sb);
}

/* A group that gets a new cpu css starts from the defaults (kernel: a fresh task_group). */
static void cgroup_cpu_reset_children(struct sched *s, struct group *g)
{
	struct group *c;

	/* These are the defaults of a new group; the setters accept them for any non-root group. */
	list_for_each_entry(c, &g->children, sibling) {
		(void)group_set_idle(s, c, false);
		(void)group_set_shares(s, c, NICE_0_LOAD);
		(void)group_set_bandwidth(s, c, RUNTIME_INF, CPU_PERIOD_DFL_US, 0);
	}
}

/* cgroup_subtree_control_write() + cgroup_vet_subtree_control_enable(), for "cpu" only. */
int cgroup_subtree_control_write(struct sched *s, struct group *g, char *buf,
				 size_t len __unused)
{
	bool enable = false, disable = false;
	char *tok;
	int ret;

	buf = parse_strstrip(buf);
	while ((tok = strsep(&buf, " "))) {
		if (!tok[0])
			continue;
		if (strcmp(tok + 1, "cpu"))
			return -EINVAL;
		if (tok[0] == '+') {
			enable = true;
			disable = false;
		} else if (tok[0] == '-') {
			disable = true;
			enable = false;
		} else {
			return -EINVAL;
		}
	}

	/* already in the requested state: dropped, as the kernel drops such operations */
	if ((enable && g->subtree_cpu) || (disable && !g->subtree_cpu) || (!enable && !disable))
		return 0;
	/* the tree applies the top-down rule (ENOENT), the children rule (EBUSY) and the vet */
	ret = group_set_subtree_cpu(s, g, enable);
	if (!ret)
		cgroup_cpu_reset_children(s, g);
	return ret;
}

ssize_t cgroup_events_show(struct sched *s __unused, struct group *g, uint64_t now __unused,
			   char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };

	/* vsched has no cgroup.freeze, so nothing is ever frozen */
	seqbuf_printf(&sb, "populated %d\nfrozen 0\n", group_is_populated(g) ? 1 : 0);
	return seqbuf_end(&sb);
}

/* Live cpu csses at and below g: g itself (if it has one) and every child of a +cpu group. */
static unsigned int cgroup_nr_cpu_css_below(const struct group *g)
{
	const struct group *c;
	unsigned int n = 0;

	list_for_each_entry(c, &g->children, sibling)
		n += (g->subtree_cpu ? 1 : 0) + cgroup_nr_cpu_css_below(c);
	return n;
}

ssize_t cgroup_stat_show(struct sched *s __unused, struct group *g, uint64_t now __unused,
			 char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };
	unsigned int nr_cpu = group_has_cpu(g) ? 1 + cgroup_nr_cpu_css_below(g) : 0;

	/* Removal is immediate in vsched: there are never dying descendants. */
	seqbuf_printf(&sb, "nr_descendants %u\n", g->nr_descendants);
	seqbuf_printf(&sb, "nr_subsys_cpu %u\n", nr_cpu);
	seqbuf_printf(&sb, "nr_dying_descendants 0\n");
	seqbuf_printf(&sb, "nr_dying_subsys_cpu 0\n");
	return seqbuf_end(&sb);
}

/* cgroup.max.depth and cgroup.max.descendants, typed rows: INT_MAX is the kernel's "max". */
static int64_t cgroup_limit_read(uint64_t v)
{
	return v >= INT_MAX ? INT_MAX : (int64_t)v;
}

static uint64_t cgroup_limit_value(int64_t v)
{
	return v == INT_MAX ? LIMIT_MAX : (uint64_t)v;
}

int64_t cgroup_max_depth_read(const struct group *g)
{
	return cgroup_limit_read(g->max_depth);
}

int cgroup_max_depth_write(struct sched *s, struct group *g, int64_t depth)
{
	return group_set_max_depth(s, g, cgroup_limit_value(depth));
}

int64_t cgroup_max_descendants_read(const struct group *g)
{
	return cgroup_limit_read(g->max_descendants);
}

int cgroup_max_descendants_write(struct sched *s, struct group *g, int64_t nr)
{
	return group_set_max_descendants(s, g, cgroup_limit_value(nr));
}

/* vsched.vcpus: the vCPU indices in g, libvirt cpuset syntax; "\n" when none (as cpuset.cpus). */
ssize_t vsched_vcpus_show(struct sched *s, struct group *g, uint64_t now __unused, char *buf,
			  size_t size)
{
	unsigned int i, n = sched_nr_vcpus(s);
	struct cpuset set;
	int len;

	cpuset_clear(&set);
	for (i = 0; i < n; i++)
		if (sched_vcpu(s, i)->group == g)
			cpuset_set(&set, i);
	len = cpuset_format(&set, buf, size);
	if (len < 0 || (size_t)len + 2 > size)
		return -ENOSPC;
	buf[len++] = '\n';
	buf[len] = '\0';
	return len;
}

/* Moves the listed vCPUs here, each as a cgroup.threads write would (same rules, all or none). */
int vsched_vcpus_write(struct sched *s, struct group *g, char *buf, size_t len __unused)
{
	struct cpuset set;
	int ret = vsched_vcpus_parse(s, buf, &set);

	return ret ? ret : cgroup_move_vcpus(s, &set, g, true);
}

/*
 * vsched.vcpu.stat: one line per vCPU of the group, in the kernel's nested-keyed format
 * (as io.stat): "<index> tid=<tid> usage_usec=<n> user_usec=<n> system_usec=<n> state=<s>
 * lane=<l> wait_usec=<n> nr_waits=<n> wait_hist=<b>:<n>,...\n". state and lane are the
 * scheduler's view (lane -1: none); the waits are sched_vcpu_wait()'s (core.h), wait_hist lists
 * the non-empty buckets ("-" when none), so a reader takes quantiles of any interval's waits.
 */
ssize_t vsched_vcpu_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			      size_t size)
{
	struct seqbuf sb = { buf, size };
	unsigned int i, b, n = sched_nr_vcpus(s);

	for (i = 0; i < n; i++) {
		struct sched_vcpu *v = sched_vcpu(s, i);
		struct sched_wait w;
		const char *sep = "";

		if (v->group != g || sched_vcpu_wait(s, i, now, &w))
			continue;
		seqbuf_printf(&sb,
			      "%u tid=%d usage_usec=%" PRIu64 " user_usec=%" PRIu64
			      " system_usec=%" PRIu64 " state=%s lane=%d wait_usec=%" PRIu64
			      " nr_waits=%" PRIu64 " wait_hist=",
			      v->id, (int)v->tid, v->stat.usage_ns / 1000, v->stat.user_ns / 1000,
			      v->stat.system_ns / 1000, sched_vcpu_state(s, i), sched_vcpu_lane(s, i),
			      w.wait_ns / 1000, w.nr_waits);
		for (b = 0; b < SCHED_WAIT_BUCKETS; b++) {
			if (!w.hist[b])
				continue;
			seqbuf_printf(&sb, "%s%u:%" PRIu64, sep, b, w.hist[b]);
			sep = ",";
		}
		seqbuf_printf(&sb, "%s\n", *sep ? "" : "-");
	}
	return seqbuf_end(&sb);
}

/* vsched.lanes (root only): the VM's capacity P, vCPUs allowed to run at once. */
ssize_t vsched_lanes_show(struct sched *s, struct group *g __unused, uint64_t now __unused,
			  char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };

	seqbuf_printf(&sb, "%u\n", sched_nr_lanes(s));
	return seqbuf_end(&sb);
}
