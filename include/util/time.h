/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Clocks in nanoseconds, as every part of vsched counts time: CLOCK_MONOTONIC for "now" (the
 * scheduler's clock, timers and condition variables all use it), thread CPU clocks for charging,
 * and the timespec/timeval conversions around them. Inline: several are on the runtime's hot
 * path.
 */
#ifndef VSCHED_UTIL_TIME_H
#define VSCHED_UTIL_TIME_H

#include <errno.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

/* uint64_t, not ULL: quotients print with PRIu64. */
#define NSEC_PER_USEC	((uint64_t)1000)
#define NSEC_PER_MSEC	((uint64_t)1000000)
#define NSEC_PER_SEC	((uint64_t)1000000000)

static inline uint64_t time_ts_to_ns(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * NSEC_PER_SEC + (uint64_t)ts->tv_nsec;
}

static inline struct timespec time_ns_to_ts(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NSEC_PER_SEC),
				  .tv_nsec = (long)(ns % NSEC_PER_SEC) };
}

static inline uint64_t time_tv_to_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NSEC_PER_SEC + (uint64_t)tv->tv_usec * NSEC_PER_USEC;
}

/* Clock c in ns: 0, or -errno and *ns = 0 (the CPU clock of a thread that ended: -EINVAL). */
static inline int time_clock_ns(clockid_t c, uint64_t *ns)
{
	struct timespec ts;

	if (clock_gettime(c, &ts)) {
		*ns = 0;
		return -errno;
	}
	*ns = time_ts_to_ns(&ts);
	return 0;
}

/* Now on c, for clocks that cannot fail (CLOCK_MONOTONIC, the calling thread's CPU clock). */
static inline uint64_t time_now_on(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return time_ts_to_ns(&ts);
}

/* CLOCK_MONOTONIC in ns. */
static inline uint64_t time_mono_ns(void)
{
	return time_now_on(CLOCK_MONOTONIC);
}

/* The calling thread's CPU time in ns. */
static inline uint64_t time_thread_ns(void)
{
	return time_now_on(CLOCK_THREAD_CPUTIME_ID);
}

#endif
