// SPDX-License-Identifier: GPL-2.0
/* The runtime's delay histograms (wake-to-run, lane handoffs) and their quantiles. */
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
