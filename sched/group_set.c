// SPDX-License-Identifier: GPL-2.0
/*
 * cpu controller settings of a group, validated as sched_group_set_shares(),
 * sched_group_set_idle() and tg_set_cfs_bandwidth() do. On error nothing changes. A group whose
 * parent has no "cpu" in subtree_control has no such settings: -ENOENT, as its files are absent.
 */
#include <errno.h>

#include "internal.h"
#include "sched/trace.h"

#define MIN_SHARES	2UL
#define MAX_SHARES	(1UL << 18)

int group_set_shares(struct sched *s, struct group *g, unsigned long shares)
{
	core_assert_locked(s);
	if (!group_has_cpu(g))
		return -ENOENT;
	if (group_is_root(g) || g->idle)
		return -EINVAL;
	if (shares < MIN_SHARES)
		shares = MIN_SHARES;
	if (shares > MAX_SHARES)
		shares = MAX_SHARES;
	if (shares == g->shares)
		return 0;
	g->shares = shares;
	core_group_reweight(s, g);
	core_trace_set(s, g, TRACE_SET_WEIGHT);
	return 0;
}

int group_set_idle(struct sched *s, struct group *g, bool idle)
{
	core_assert_locked(s);
	if (!group_has_cpu(g))
		return -ENOENT;
	if (group_is_root(g))
		return -EINVAL;
	if (g->idle == idle)
		return 0;
	g->idle = idle;
	/* Leaving idle resets the weight to the default; the old weight is not restored. */
	g->shares = idle ? WEIGHT_IDLEPRIO : NICE_0_LOAD;
	core_group_idle(s, g);
	core_trace_set(s, g, TRACE_SET_IDLE);
	return 0;
}

/* tg_set_cfs_bandwidth()'s checks in its order (6.12), in microseconds. */
enum bw_rule group_bandwidth_rule(uint64_t quota_us, uint64_t period_us, uint64_t burst_us)
{
	bool capped = quota_us != RUNTIME_INF;

	if (capped && quota_us < CPU_QUOTA_MIN_US)
		return BW_QUOTA;
	if (period_us < CPU_PERIOD_MIN_US || period_us > CPU_PERIOD_MAX_US)
		return BW_PERIOD;
	if (capped && quota_us > MAX_BW_US)
		return BW_QUOTA;
	if (capped && (burst_us > quota_us || burst_us + quota_us > MAX_BW_US))
		return BW_BURST;
	/* Mainline's explicit overflow rule for the ns conversion. */
	if (burst_us > UINT64_MAX / 1000)
		return BW_BURST;
	return BW_OK;
}

const char *group_bandwidth_rule_str(enum bw_rule r)
{
	static const char *const str[] = {
		[BW_OK] = "in range",
		[BW_QUOTA] = "the cpu.max quota is max or 1ms to 17592186s",
		[BW_PERIOD] = "the cpu.max period is 1ms to 1s",
		[BW_BURST] = "the burst may not exceed the cpu.max quota",
	};

	return str[r];
}

int group_bandwidth_valid(const struct group *g, uint64_t quota_us, uint64_t period_us,
			  uint64_t burst_us)
{
	if (group_is_root(g) || group_bandwidth_rule(quota_us, period_us, burst_us) != BW_OK)
		return -EINVAL;
	return 0;
}

int group_set_bandwidth(struct sched *s, struct group *g, uint64_t quota_us, uint64_t period_us,
			uint64_t burst_us)
{
	int ret;

	core_assert_locked(s);
	if (!group_has_cpu(g))
		return -ENOENT;
	ret = group_bandwidth_valid(g, quota_us, period_us, burst_us);
	if (ret)
		return ret;
	g->quota_us = quota_us;
	g->period_us = period_us;
	g->burst_us = burst_us;
	core_group_bandwidth(s, g);
	core_trace_set(s, g, TRACE_SET_MAX);
	return 0;
}
