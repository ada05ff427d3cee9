/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler core: a pure state machine that hands P lanes (vCPUs allowed inside KVM_RUN at
 * once) to runnable vCPUs, by hierarchical weighted virtual time and per-group bandwidth pools.
 *
 * No threads, no clocks: every input carries its time (ns, any monotonic base, never going
 * back; an older time is taken as the latest one seen). Outputs are decisions, drained with
 * sched_take_decisions(), and the time of the next timer, sched_next_timer().
 *
 * Runtime contract (issue 5): hold one mutex around every call into this file and group.h; any
 * vCPU thread may make the calls. After each call, drain the decisions and act on them:
 *  - SCHED_RUN: vCPU may enter KVM_RUN on the lane until `until` (UINT64_MAX: no timer). Wake
 *    its thread if parked; arm its timer.
 *  - SCHED_PREEMPT: the vCPU lost its lane. If it is inside KVM_RUN and is not the caller, this
 *    is the one place a kick is needed (immediate_exit + signal). Only emitted for a vCPU that
 *    is still runnable; one that blocked by itself already left.
 *  - SCHED_RETIME: same vCPU, new slice end: re-arm its timer (timer_settime needs no kick).
 *  - SCHED_THROTTLE / SCHED_UNTHROTTLE: informational (logs, cgroup.events-like notifications).
 * Report a running vCPU's consumption (its thread CPU clock) with sched_vcpu_ran() at each exit
 * and before any event where it matters (slice end, block); the core charges only what it is
 * told, so in-flight time not yet reported is invisible to decisions.
 * Config changes through group.h act at the latest time the core has seen: feed
 * sched_advance(s, now) first when the clock moved since the last event.
 * sched_set_lock() names that mutex: debug builds (util/debug.h) then check at every entry that
 * changes the core or its tree that the caller holds it. Unnamed (the simulator, tests), no check.
 */
#ifndef VSCHED_SCHED_CORE_H
#define VSCHED_SCHED_CORE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "sched/group.h"

#define SCHED_TIME_NONE		UINT64_MAX

struct sched_params {
	uint64_t slice_ns;	/* lane rotation period while vCPUs wait */
	uint64_t min_run_ns;	/* no weight-driven preemption before this (>= 1 ms) */
	uint64_t lag_ns;	/* bound on credit or debt an entity keeps on wake, in service */
};

#define SCHED_SLICE_DFL_NS	3000000ULL
#define SCHED_MIN_RUN_DFL_NS	1000000ULL
#define SCHED_MIN_RUN_MIN_NS	1000000ULL

enum sched_decision_type {
	SCHED_RUN,
	SCHED_PREEMPT,
	SCHED_RETIME,
	SCHED_THROTTLE,
	SCHED_UNTHROTTLE,
};

struct sched_decision {
	enum sched_decision_type type;
	unsigned int lane;	/* RUN, PREEMPT, RETIME */
	unsigned int vcpu;	/* RUN, PREEMPT, RETIME */
	struct group *group;	/* THROTTLE, UNTHROTTLE */
	uint64_t until;		/* RUN, RETIME: slice end, SCHED_TIME_NONE for none */
};

void sched_set_lock(struct sched *s, const pthread_mutex_t *lock);

/* 0, or -EINVAL if min_run < 1 ms, slice < min_run or lag < slice. */
int sched_set_params(struct sched *s, const struct sched_params *p);
void sched_get_params(const struct sched *s, struct sched_params *p);

/* Events. -ESRCH for an unknown vCPU; a repeated runnable/blocked is a no-op. */
int sched_vcpu_runnable(struct sched *s, unsigned int id, uint64_t now);
int sched_vcpu_blocked(struct sched *s, unsigned int id, uint64_t now);
int sched_vcpu_ran(struct sched *s, unsigned int id, uint64_t user_ns, uint64_t system_ns,
		   uint64_t now);
/*
 * CPU time of g's own threads, not a vCPU's (host mode: a VMM's agent, helper and devices,
 * charged to its VM group): cpu.stat of g and its ancestors, their cpu.max pools and virtual
 * time, as a report of a vCPU in g would but on no lane. -EINVAL if g is not in s's tree.
 */
int sched_group_charge(struct sched *s, struct group *g, uint64_t user_ns, uint64_t system_ns,
		       uint64_t now);
void sched_timer(struct sched *s, uint64_t now);	/* a slice end or a period refill */
void sched_advance(struct sched *s, uint64_t now);	/* move the clock, nothing else */

/* Outputs. */
size_t sched_take_decisions(struct sched *s, struct sched_decision *out, size_t max);
size_t sched_pending_decisions(const struct sched *s);
uint64_t sched_next_timer(const struct sched *s);	/* SCHED_TIME_NONE if nothing */
/* The same without the lanes' slice ends: period refills, unthrottling, kept rates' dry points. */
uint64_t sched_next_group_timer(const struct sched *s);

/*
 * Waits for a lane (runnable, not told a lane: the runtime holds it parked), per vCPU, as the
 * kernel's schedstat run_delay: total time, number of waits that ended, and a histogram of the
 * waits' lengths. Bucket 0 holds waits under 1 us, bucket b >= 1 those in [2^((b-1)/4),
 * 2^(b/4)) us; the last bucket also everything longer.
 */
#define SCHED_WAIT_BUCKETS	96		/* up to 2^(95/4) us = 13.9 s */
struct sched_wait {
	uint64_t wait_ns;		/* including a wait still going on */
	uint64_t nr_waits;		/* waits that ended (by a lane or by blocking) */
	uint64_t hist[SCHED_WAIT_BUCKETS];
};
/* Copies vCPU id's waits, the current one counted up to now_ns in wait_ns. -ESRCH if none. */
int sched_vcpu_wait(const struct sched *s, unsigned int id, uint64_t now_ns,
		    struct sched_wait *out);
unsigned int sched_wait_bucket(uint64_t ns);
uint64_t sched_wait_bucket_ceil_ns(unsigned int b);	/* upper edge of bucket b */
/* "running" (told a lane), "throttled" or "waiting" (runnable, no lane), or "idle". */
const char *sched_vcpu_state(const struct sched *s, unsigned int id);

/* State, for the runtime, tests and stats. */
uint64_t sched_now(const struct sched *s);
int sched_vcpu_lane(const struct sched *s, unsigned int id);	/* -1 if not on a lane */
bool sched_vcpu_is_runnable(const struct sched *s, unsigned int id);
/* Whether a group on id's path to the root is throttled (it may not run, runnable or not). */
bool sched_vcpu_throttled(const struct sched *s, unsigned int id);
int sched_lane_vcpu(const struct sched *s, unsigned int lane);	/* -1 if the lane is free */
uint64_t sched_lane_until(const struct sched *s, unsigned int lane);
/*
 * The waiting vCPU the core would hand a lane freed now (its pick, fair_pick()), or -1. The pick
 * after the holder's own event (its block) may differ: host handoffs publish
 * this ahead and the daemon checks each one taken against the core (host/host_hand.c).
 */
int sched_next_waiter(struct sched *s);
/*
 * The lane vCPU id (blocked) would take from its holder at once were it runnable at any moment
 * from *from until the core's next event, or -1 (lanes_wake.c; host offers): by the cpu.idle
 * rule (a tree fact; sched_wake_idle_lane()), else by virtual time on one lane
 * (sched_wake_vt_lane(): the wake's new rates and vt in closed form).
 */
int sched_wake_idle_lane(const struct sched *s, unsigned int id, uint64_t *from);
int sched_wake_vt_lane(const struct sched *s, unsigned int id, uint64_t *from);
int sched_wake_takes_lane(const struct sched *s, unsigned int id, uint64_t *from);
/* Whether vCPU id or a group above it is cpu.idle (only such a holder is taken so). */
bool sched_vcpu_idle_path(const struct sched *s, unsigned int id);
bool group_throttled(const struct group *g);
double sched_vcpu_rate(const struct sched *s, unsigned int id);	/* CPUs owed now, 0 if blocked */
double sched_vcpu_demand(const struct sched *s, unsigned int id);	/* what the rates assume */
unsigned long sched_nr_switches(const struct sched *s);	/* lane changes of vCPU, for stats */
/* CPU a lane delivers per second held, as measured from sched_vcpu_ran() reports, (0, 1]. */
double sched_delivered(const struct sched *s);
/* Totals behind it since the start: CPU reported (ns) and lane time held (ns) it covered. */
void sched_delivery_totals(const struct sched *s, double *cpu_ns, double *held_ns);

/*
 * Recording (sched/trace.h; NULL stops it): every charge goes to the vCPU's current slice, and
 * throttles, refills, bursts, moves and setting changes become events at the core's time.
 * sched_trace_sample() adds the groups' counters when TRACE_SAMPLE_NS passed since the last.
 */
struct trace;
void sched_set_trace(struct sched *s, struct trace *tr);
void sched_trace_sample(struct sched *s, uint64_t now);

#endif
