/* SPDX-License-Identifier: GPL-2.0 */
/* The recorder's state, shared by trace.c (recording) and trace_json.c (writing). */
#ifndef VSCHED_SCHED_TRACE_INT_H
#define VSCHED_SCHED_TRACE_INT_H

#include <pthread.h>

#include "sched/trace.h"

struct trace_ring {
	struct trace_ring *next;
	pthread_t owner;
	unsigned int seq;		/* creation order: ties in time keep it */
	size_t head;			/* events kept */
	uint64_t dropped;		/* events that found the ring full */
	uint64_t drop_ts;		/* the first of them */
	struct trace_event ev[];
};

struct trace_vcpu {
	enum trace_vstate state;
	int lane;
	uint64_t since;
	uint64_t cpu;			/* charged since the slice began */
};

struct trace {
	pthread_mutex_t lock;		/* the ring list, taken once per recording thread */
	struct trace_ring *rings;
	unsigned int nr_rings;
	size_t ring_events;
	uint64_t gen;
	uint64_t t0;
	unsigned int nr_vcpus, nr_lanes;
	struct trace_vcpu *v;
	char **groups;			/* group id - 1 -> path */
	unsigned int nr_groups, cap_groups;
	uint64_t next_sample;
};

#endif
