/* SPDX-License-Identifier: GPL-2.0 */
/* Small time helpers and the unit of work the host threads do. */
#ifndef VSCHED_BENCH_WORK_H
#define VSCHED_BENCH_WORK_H

#include <stdint.h>
#include <time.h>

#define WORK_SPIN_ITERS	4096	/* one work unit: about a microsecond of spinning */

static inline uint64_t ts_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ULL + (uint64_t)ts->tv_nsec;
}

static inline struct timespec ts_add_ns(struct timespec ts, uint64_t ns)
{
	uint64_t t = ts_ns(&ts) + ns;

	return (struct timespec){ .tv_sec = t / 1000000000ULL, .tv_nsec = t % 1000000000ULL };
}

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts_ns(&ts);
}

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts = ts_add_ns(ts, ns);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

static inline void work_spin(void)
{
	unsigned int i;

	for (i = 0; i < WORK_SPIN_ITERS; i++)
		__asm__ __volatile__("" ::: "memory");
}

#endif
