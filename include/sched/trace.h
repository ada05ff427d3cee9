/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The schedule as a timeline: events recorded by the simulator and the runtime in one
 * vocabulary, written as Chrome trace-event JSON (ui.perfetto.dev and chrome://tracing open it
 * as it is; docs/trace.md).
 *
 * Recording: each thread that records gets its own ring of fixed-size events on its first event
 * (the one time a lock is taken); after that an event is a thread-local lookup and a store, no
 * lock and no system call, with the time the caller already has. A full ring keeps what it has,
 * counts what it could not keep and the writer puts a "dropped N events" marker at the first
 * loss. Rings are read only by trace_write_json(), once every recording thread has stopped.
 *
 * The per-vCPU state (trace_vcpu_state(), trace_vcpu_cpu()) is kept here and must be
 * serialised by the caller: the runtime's lock, the simulator's single thread.
 */
#ifndef VSCHED_SCHED_TRACE_H
#define VSCHED_SCHED_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_RING_EVENTS_DFL	(64U * 1024)	/* per recording thread: 2 MiB */
#define TRACE_RING_EVENTS_ENV	"VSCHED_TRACE_EVENTS"	/* overrides the size */
#define TRACE_RING_EVENTS_MIN	16
#define TRACE_RING_EVENTS_MAX	(1U << 26)
#define TRACE_SAMPLE_NS		10000000ULL	/* group counters at most this often */

/* What a vCPU track shows. */
enum trace_vstate {
	TRACE_V_OFF,		/* no slice: thread not started or ended */
	TRACE_V_RUNNING,	/* holds a lane */
	TRACE_V_WAITING,	/* runnable, waits for a lane */
	TRACE_V_THROTTLED,	/* runnable, its group (or an ancestor) is throttled */
	TRACE_V_SLEEPING,	/* not runnable: a paravirtual sleep, idle, not yet woken */
	TRACE_V_LENT,		/* halted in the guest; its lane is lent to others */
	TRACE_V_NR,
};

enum trace_kind {
	TRACE_VCPU_SLICE,	/* id vCPU, arg state, val CPU ns charged during the slice */
	TRACE_LANE_SLICE,	/* id lane, val vCPU */
	TRACE_KICK,		/* id vCPU: preempted inside the guest */
	TRACE_MOVE,		/* id vCPU, val group */
	TRACE_THROTTLE,		/* id group */
	TRACE_UNTHROTTLE,	/* id group */
	TRACE_REFILL,		/* id group, val pool after the refill (ns) */
	TRACE_BURST,		/* id group, val burst used in the period that ended (ns) */
	TRACE_SET,		/* id group, arg enum trace_setting, val (and dur) the new value */
	TRACE_USAGE,		/* counter: id group, val CPU use in millionths of a CPU */
	TRACE_QUOTA,		/* counter: id group, val pool left (ns) */
	TRACE_KIND_NR,
};

enum trace_setting {
	TRACE_SET_WEIGHT,	/* val cpu.weight */
	TRACE_SET_MAX,		/* val quota us (UINT64_MAX: max), dur period us */
	TRACE_SET_BURST,	/* val us */
	TRACE_SET_IDLE,		/* val 0 or 1 */
};

struct trace_event {
	uint64_t ts, dur, val;
	uint32_t id;
	uint16_t kind;
	uint16_t arg;
};

struct trace;

/*
 * A recorder for nr_vcpus vCPUs on nr_lanes lanes, ring_events per recording thread (0: the
 * TRACE_RING_EVENTS_ENV variable, else TRACE_RING_EVENTS_DFL); times before t0 show as t0.
 * 0 or -errno.
 */
int trace_create(unsigned int nr_vcpus, unsigned int nr_lanes, size_t ring_events, uint64_t t0,
		 struct trace **out);
/*
 * TRACE_RING_EVENTS_ENV's count into *n (0: unset or empty). -EINVAL if it is no count in
 * TRACE_RING_EVENTS_MIN..MAX: the commands refuse it (trace_create() took the default silently).
 */
int trace_ring_events_env(size_t *n);
void trace_destroy(struct trace *tr);
size_t trace_ring_events(const struct trace *tr);

/* One event into the calling thread's ring. */
void trace_emit(struct trace *tr, enum trace_kind kind, uint32_t id, uint16_t arg, uint64_t ts,
		uint64_t dur, uint64_t val);

/* The vCPU's state from now: ends its current slice (and its lane's) if state or lane changed. */
void trace_vcpu_state(struct trace *tr, unsigned int vcpu, enum trace_vstate st, int lane,
		      uint64_t now);
/* CPU charged to the vCPU: added to its current slice. */
void trace_vcpu_cpu(struct trace *tr, unsigned int vcpu, uint64_t ns);
/* Ends every open slice at now (before writing). */
void trace_finish(struct trace *tr, uint64_t now);

/* A group's track: its id (from 1) for path, which the trace keeps. 0: out of memory. */
uint32_t trace_group_add(struct trace *tr, const char *path);
/* Whether group counters are due at now; if so the next sample is TRACE_SAMPLE_NS later. */
bool trace_sample_due(struct trace *tr, uint64_t now);

/* Every ring, merged by time, as trace-event JSON. 0 or -EIO. */
int trace_write_json(struct trace *tr, FILE *f);

/* The rings' contents, for tests: events in order into out (up to max), the dropped count. */
size_t trace_collect(struct trace *tr, struct trace_event *out, size_t max, uint64_t *dropped);
/* (A ring's drop marker is among them as kind TRACE_KIND_NR, val the count.) */

#endif
