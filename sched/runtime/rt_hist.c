// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's delay histograms (wake-to-run, lane handoffs, a lent vCPU's wake to its lane) and
 * their quantiles.
 */
#include "rt.h"

/* Delays in log buckets of 2^(b/4) microseconds, b = 4 * log2(delay / 1 us), clamped. */
void rt_hist_add(uint64_t *hist, uint64_t *nr, uint64_t delay)
{
	unsigned int b = 0;

	if (delay >= 1000) {
		double us = (double)delay / 1000.0;

		while (b + 1 < RT_WAKE_BUCKETS && us >= 1.189207115)	/* 2^(1/4) */
			us /= 1.189207115, b++;
	}
	hist[b]++;
	(*nr)++;
}

uint64_t runtime_hist_quantile(const uint64_t *hist, uint64_t nr, double q)
{
	uint64_t need, seen = 0;
	unsigned int b;

	if (!nr)
		return 0;
	need = (uint64_t)(q * (double)nr);
	if (need >= nr)
		need = nr - 1;
	for (b = 0; b < RT_WAKE_BUCKETS; b++) {
		seen += hist[b];
		if (seen > need)
			break;
	}
	/* The upper edge of the bucket, in ns. */
	return b == 0 ? 1000 : (uint64_t)(1000.0 * __builtin_powi(1.189207115, (int)b + 1));
}

uint64_t runtime_wake_quantile(const struct runtime_stats *st, double q)
{
	return runtime_hist_quantile(st->wake_hist, st->nr_wake, q);
}

void rt_hist_halt_wake(struct runtime *rt, struct rt_vcpu *rv, uint64_t now)
{
	uint64_t d;

	if (!rv->halt_woke_at)
		return;
	d = now > rv->halt_woke_at ? now - rv->halt_woke_at : 0;
	rt_hist_add(rt->st.halt_wake_hist, &rt->st.nr_halt_wake, d);
	rt->st.halt_wake_ns += d;
	rv->halt_woke_at = 0;
}

/*
 * The helper learns of a lent vCPU's wake-up only at a look. Its CPU clock stood still while it
 * halted (since probe_cpu, the last look that judged it) and, SCHED_FIFO while lent, it ran
 * from its wake-up on: the CPU it used since is the time since it woke.
 */
uint64_t rt_halt_woke_est(const struct rt_vcpu *rv, uint64_t cpu, uint64_t now)
{
	uint64_t ran = cpu > rv->probe_cpu ? cpu - rv->probe_cpu : 0;

	if (rv->probe_t && ran > now - rv->probe_t)
		ran = now - rv->probe_t;
	return ran < now ? now - ran : now;
}
