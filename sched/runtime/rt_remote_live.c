// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's liveness of the daemon (rt_remote_live.h): a question after RT_LIVE_QUIET_NS of
 * silence, and the daemon taken as gone when RT_LIVE_REPLY_NS more pass without a word (more,
 * up to RT_LIVE_LATE_NS, while it waits for a CPU: rt_remote_live_wait_more()). A busy
 * daemon answers the PING at once, so a vCPU that waits long for a lane by its weight is not
 * mistaken for a stuck daemon; an idle one costs the VMM a PING and a PONG per
 * RT_LIVE_QUIET_NS.
 */
#include <stdbool.h>

#include "rt_remote_live.h"

void rt_remote_live_heard(struct rt_remote_live *l, uint64_t now)
{
	l->heard_ns = now;
	l->more_ns = 0;
}

static bool rt_remote_live_asked(const struct rt_remote_live *l)
{
	return l->ping_ns > l->heard_ns;
}

enum rt_live_act rt_remote_live_due(struct rt_remote_live *l, uint64_t now)
{
	if (rt_remote_live_asked(l))
		return now - l->ping_ns >= RT_LIVE_REPLY_NS + l->more_ns ? RT_LIVE_LOST :
									     RT_LIVE_OK;
	if (now - l->heard_ns < RT_LIVE_QUIET_NS)
		return RT_LIVE_OK;
	l->ping_ns = now;
	l->more_ns = 0;
	return RT_LIVE_PING;
}

bool rt_remote_live_wait_more(struct rt_remote_live *l)
{
	if (2 * RT_LIVE_REPLY_NS + l->more_ns > RT_LIVE_LATE_NS)
		return false;
	l->more_ns += RT_LIVE_REPLY_NS;
	return true;
}

uint64_t rt_remote_live_next(const struct rt_remote_live *l)
{
	return rt_remote_live_asked(l) ? l->ping_ns + RT_LIVE_REPLY_NS + l->more_ns :
					 l->heard_ns + RT_LIVE_QUIET_NS;
}
