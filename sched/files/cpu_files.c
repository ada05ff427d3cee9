// SPDX-License-Identifier: GPL-2.0
/*
 * The cpu controller's interface files (kernel/sched/core.c cpu_files[] of Linux 6.12). The
 * single-number files are typed rows of the table (sched/files/cftype.c), which parses, checks
 * the range and formats; here are their values and setters. cpu.max and cpu.stat have handlers
 * of their own. State rules (idle groups, burst <= quota, ...) are checked by the group_set_*()
 * setters, as the kernel's tg_set_*() do, so a write through any front end is validated once.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "sched/files.h"
#include "sched/parse.h"

bool group_has_cpu(const struct group *g)
{
	return !g->parent || g->parent->subtree_cpu;
}

/* cpu_weight_nice_read_s64(): the closest table entry; a tie goes to the lower nice. */
int cpu_shares_to_nice(unsigned long shares)
{
	long last_delta = LONG_MAX, delta;
	int prio;

	for (prio = 0; prio < 40; prio++) {
		delta = labs((long)sched_prio_to_weight[prio] - (long)shares);
		if (delta >= last_delta)
			break;
		last_delta = delta;
	}
	return prio - 1 + MIN_NICE;
}

/* Typed files (the table in cftype.c parses, checks the range and formats). */
uint64_t cpu_weight_read(const struct group *g)
{
	return sched_weight_to_cgroup(g->shares);
}

int cpu_weight_write(struct sched *s, struct group *g, uint64_t weight)
{
	return group_set_shares(s, g, sched_weight_from_cgroup((unsigned long)weight));
}

int64_t cpu_weight_nice_read(const struct group *g)
{
	return cpu_shares_to_nice(g->shares);
}

int cpu_weight_nice_write(struct sched *s, struct group *g, int64_t nice)
{
	return group_set_shares(s, g, sched_prio_to_weight[nice - MIN_NICE]);
}

int64_t cpu_idle_read(const struct group *g)
{
	return g->idle ? 1 : 0;
}

int cpu_idle_write(struct sched *s, struct group *g, int64_t idle)
{
	return group_set_idle(s, g, idle == 1);
}

uint64_t cpu_max_burst_read(const struct group *g)
{
	return g->burst_us;
}

int cpu_max_burst_write(struct sched *s, struct group *g, uint64_t burst)
{
	return group_set_bandwidth(s, g, g->quota_us, g->period_us, burst);
}

ssize_t cpu_max_show(struct sched *s __unused, struct group *g, uint64_t now __unused,
		     char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };

	if (g->quota_us == RUNTIME_INF)
		seqbuf_printf(&sb, "max");
	else
		seqbuf_printf(&sb, "%" PRIu64, g->quota_us);
	seqbuf_printf(&sb, " %" PRIu64 "\n", g->period_us);
	return seqbuf_end(&sb);
}

int cpu_max_write(struct sched *s, struct group *g, char *buf, size_t len __unused)
{
	uint64_t quota, period = g->period_us;	/* one number keeps the period */
	int ret;

	ret = parse_cpu_max(buf, &quota, &period);
	if (ret)
		return ret;
	return group_set_bandwidth(s, g, quota, period, g->burst_us);
}

/*
 * cpu_stat_show(): the cgroup-core part (every group, root included), then the bandwidth part
 * when the group has a cpu css. nice_usec is printed as in 6.12; vCPU threads are never niced,
 * so it is 0. core_sched.force_idle_usec is left out, as on a kernel without SCHED_CORE.
 */
ssize_t cpu_stat_show(struct sched *s, struct group *g, uint64_t now, char *buf, size_t size)
{
	struct seqbuf sb = { buf, size };
	struct cpu_stat st;

	group_stat(s, g, now, &st);
	seqbuf_printf(&sb, "usage_usec %" PRIu64 "\n", st.usage_ns / NSEC_PER_USEC);
	seqbuf_printf(&sb, "user_usec %" PRIu64 "\n", st.user_ns / NSEC_PER_USEC);
	seqbuf_printf(&sb, "system_usec %" PRIu64 "\n", st.system_ns / NSEC_PER_USEC);
	seqbuf_printf(&sb, "nice_usec 0\n");
	if (group_has_cpu(g)) {
		/* The kernel keeps these as int and prints them with %d. */
		seqbuf_printf(&sb, "nr_periods %d\n", (int)st.nr_periods);
		seqbuf_printf(&sb, "nr_throttled %d\n", (int)st.nr_throttled);
		seqbuf_printf(&sb, "throttled_usec %" PRIu64 "\n", st.throttled_ns / NSEC_PER_USEC);
		seqbuf_printf(&sb, "nr_bursts %d\n", (int)st.nr_bursts);
		seqbuf_printf(&sb, "burst_usec %" PRIu64 "\n", st.burst_ns / NSEC_PER_USEC);
	}
	return seqbuf_end(&sb);
}

/*
 * cpu_local_stat_show() (6.6+), a core file every group has: with a cpu css, the time the
 * group's runnable vCPUs were held by its own cpu.max or an ancestor's (throttled_time_self());
 * without one, nothing (0 bytes).
 */
ssize_t cpu_stat_local_show(struct sched *s, struct group *g, uint64_t now, char *buf,
			    size_t size)
{
	struct seqbuf sb = { buf, size };
	struct cpu_stat st;

	if (group_has_cpu(g)) {
		group_stat(s, g, now, &st);
		seqbuf_printf(&sb, "throttled_usec %" PRIu64 "\n",
			      st.local_throttled_ns / NSEC_PER_USEC);
	}
	return seqbuf_end(&sb);
}
