// SPDX-License-Identifier: GPL-2.0
/* Fixed-window rate limiter: the window restarts at the first message after it expired. */
#include "util/ratelimit.h"

bool ratelimit_allow(struct ratelimit *rl, uint64_t now_ns)
{
	if (!rl->printed || now_ns - rl->begin_ns >= rl->interval_ns) {
		rl->begin_ns = now_ns;
		rl->printed = 0;
	}
	if (rl->printed < rl->burst) {
		rl->printed++;
		return true;
	}
	rl->missed++;
	return false;
}

uint64_t ratelimit_take_missed(struct ratelimit *rl)
{
	uint64_t n = rl->missed;

	rl->missed = 0;
	return n;
}
