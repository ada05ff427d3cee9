/* SPDX-License-Identifier: GPL-2.0 */
/* Small time helpers and the unit of work the host threads do. */
#ifndef VSCHED_BENCH_WORK_H
#define VSCHED_BENCH_WORK_H

#include <stdint.h>
#include <time.h>

#include "util/time.h"

#define WORK_SPIN_ITERS	4096	/* one work unit: about a microsecond of spinning */

static inline void sleep_ns(uint64_t ns)
{
	struct timespec ts = time_ns_to_ts(time_mono_ns() + ns);

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
