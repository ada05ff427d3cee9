// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's liveness of the daemon (rt_remote_live.h): a question after RT_LIVE_QUIET_NS of
 * silence while a vCPU waits, and the daemon taken as gone when RT_LIVE_REPLY_NS more pass
 * without a word. A daemon with nothing to decide (nobody waits) is never asked; a busy one
 * answers the PING at once, so a vCPU that waits long for a lane by its weight is not
 * mistaken for a stuck daemon.
 */
#include "rt_remote_live.h"

void rt_remote_live_heard(struct rt_remote_live *l, uint64_t now)
{
	l->heard_ns = now;
}

enum rt_live_act rt_remote_live_due(struct rt_remote_live *l, bool waiting, uint64_t now)
{
	if (!waiting)
		return RT_LIVE_OK;
	if (l->ping_ns > l->heard_ns)
		return now - l->ping_ns >= RT_LIVE_REPLY_NS ? RT_LIVE_LOST : RT_LIVE_OK;
	if (now - l->heard_ns < RT_LIVE_QUIET_NS)
		return RT_LIVE_OK;
	l->ping_ns = now;
	return RT_LIVE_PING;
}
