/* SPDX-License-Identifier: GPL-2.0 */
/* Message rate limiting in the kernel's style: at most burst messages per interval. */
#ifndef VSCHED_UTIL_RATELIMIT_H
#define VSCHED_UTIL_RATELIMIT_H

#include <stdbool.h>
#include <stdint.h>

struct ratelimit {
	uint64_t interval_ns;
	unsigned int burst;
	uint64_t begin_ns;	/* start of the current window */
	unsigned int printed;	/* messages allowed in this window */
	uint64_t missed;	/* suppressed since the last report */
};

#define RATELIMIT_INIT(interval, nr) { .interval_ns = (interval), .burst = (nr) }

/* True if a message may go out at now_ns; otherwise counts it as missed. Not locked. */
bool ratelimit_allow(struct ratelimit *rl, uint64_t now_ns);
/* Returns and resets the count of suppressed messages (report it with the next one). */
uint64_t ratelimit_take_missed(struct ratelimit *rl);

#endif
