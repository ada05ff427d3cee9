/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host mode's liveness of the daemon (rt_remote_live.c): a daemon that is alive but stuck
 * (SIGSTOP) keeps its socket open, so no hang-up tells the VMM. When the daemon has said
 * nothing for RT_LIVE_QUIET_NS, the VMM asks (PING), whether or not a vCPU waits: a VMM whose
 * vCPUs all hold lanes must notice too (it would run on unscheduled, its lanes' CPUs shared
 * with whatever the stopped daemon grants no more). A daemon that does not answer (PONG, or
 * anything) within RT_LIVE_REPLY_NS more is taken as gone: the runtime falls back as on a
 * hang-up and dials again, unless a thread of the daemon waits for a CPU (a loaded host): then
 * it is late, not stuck, and gets RT_LIVE_REPLY_NS more at a time, up to RT_LIVE_LATE_NS after
 * the PING. Pure: time is given; the agent sleeps until rt_remote_live_next().
 */
#ifndef VSCHED_RT_REMOTE_LIVE_H
#define VSCHED_RT_REMOTE_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#define RT_LIVE_QUIET_NS	200000000ULL	/* silence: ask */
#define RT_LIVE_REPLY_NS	300000000ULL	/* no answer to the question: gone */
#define RT_LIVE_LATE_NS		2000000000ULL	/* ... unless waiting for a CPU, up to this */

struct rt_remote_live {
	uint64_t heard_ns;	/* the daemon's last datagram (or the join) */
	uint64_t ping_ns;	/* the last PING; outstanding while > heard_ns */
	uint64_t more_ns;	/* the wait granted past RT_LIVE_REPLY_NS for that PING */
};

enum rt_live_act {
	RT_LIVE_OK,
	RT_LIVE_PING,		/* send a PING now (ping_ns was set) */
	RT_LIVE_LOST,		/* no answer within the bound: fall back */
};

/* The daemon spoke (or the VMM joined) at now. */
void rt_remote_live_heard(struct rt_remote_live *l, uint64_t now);
/* What to do at now. */
enum rt_live_act rt_remote_live_due(struct rt_remote_live *l, uint64_t now);
/*
 * RT_LIVE_LOST came while the daemon waits for a CPU: true and RT_LIVE_REPLY_NS more, as long
 * as that stays within RT_LIVE_LATE_NS of the PING; false: gone after all.
 */
bool rt_remote_live_wait_more(struct rt_remote_live *l);
/* When rt_remote_live_due() next has something to do, if nothing is heard before. */
uint64_t rt_remote_live_next(const struct rt_remote_live *l);

#endif
