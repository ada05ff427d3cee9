// SPDX-License-Identifier: GPL-2.0
/*
 * Recording: per-thread rings of fixed-size events, the vCPU tracks' state machine and the
 * group names. The writer is trace_json.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "trace_int.h"

/* Every recorder gets a number of its own: a thread's cached ring is for one recorder only. */
static uint64_t trace_next_gen = 1;

static __thread struct trace_ring *tls_ring;
static __thread uint64_t tls_gen;

int trace_ring_events_env(size_t *n)
{
	const char *s = getenv(TRACE_RING_EVENTS_ENV);
	char *end;
	unsigned long long v;

	*n = 0;
	if (!s || !*s)
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || s[0] == '-' || v < TRACE_RING_EVENTS_MIN || v > TRACE_RING_EVENTS_MAX)
		return -EINVAL;
	*n = (size_t)v;
	return 0;
}

int trace_create(unsigned int nr_vcpus, unsigned int nr_lanes, size_t ring_events, uint64_t t0,
		 struct trace **out)
{
	struct trace *tr = calloc(1, sizeof(*tr));

	if (!tr)
		return -ENOMEM;
	tr->v = calloc(nr_vcpus ? nr_vcpus : 1, sizeof(*tr->v));
	if (!tr->v) {
		free(tr);
		return -ENOMEM;
	}
	pthread_mutex_init(&tr->lock, NULL);
	tr->nr_vcpus = nr_vcpus;
	tr->nr_lanes = nr_lanes;
	if (!ring_events && (trace_ring_events_env(&ring_events) || !ring_events))
		ring_events = TRACE_RING_EVENTS_DFL;
	tr->ring_events = ring_events;
	tr->t0 = t0;
	tr->gen = __atomic_fetch_add(&trace_next_gen, 1, __ATOMIC_RELAXED);
	*out = tr;
	return 0;
}

void trace_destroy(struct trace *tr)
{
	struct trace_ring *r, *next;
	unsigned int i;

	if (!tr)
		return;
	for (r = tr->rings; r; r = next) {
		next = r->next;
		free(r);
	}
	for (i = 0; i < tr->nr_groups; i++)
		free(tr->groups[i]);
	free(tr->groups);
	free(tr->v);
	pthread_mutex_destroy(&tr->lock);
	free(tr);
}

size_t trace_ring_events(const struct trace *tr)
{
	return tr->ring_events;
}

/* The calling thread's ring: found or made once per thread, under the recorder's lock. */
static struct trace_ring *trace_ring_slow(struct trace *tr)
{
	pthread_t self = pthread_self();
	struct trace_ring *r;

	pthread_mutex_lock(&tr->lock);
	for (r = tr->rings; r; r = r->next)
		if (pthread_equal(r->owner, self))
			break;
	if (!r) {
		r = calloc(1, sizeof(*r) + tr->ring_events * sizeof(r->ev[0]));
		if (r) {
			r->owner = self;
			r->seq = tr->nr_rings++;
			r->next = tr->rings;
			tr->rings = r;
		}
	}
	pthread_mutex_unlock(&tr->lock);
	if (r) {
		tls_ring = r;
		tls_gen = tr->gen;
	}
	return r;
}

void trace_emit(struct trace *tr, enum trace_kind kind, uint32_t id, uint16_t arg, uint64_t ts,
		uint64_t dur, uint64_t val)
{
	struct trace_ring *r = tls_gen == tr->gen ? tls_ring : trace_ring_slow(tr);
	struct trace_event *e;

	if (!r)
		return;
	if (r->head == tr->ring_events) {
		if (!r->dropped++)
			r->drop_ts = ts;
		return;
	}
	e = &r->ev[r->head++];
	e->ts = ts;
	e->dur = dur;
	e->val = val;
	e->id = id;
	e->kind = (uint16_t)kind;
	e->arg = arg;
}

/* The vCPU's slice (and its lane's, while it ran) from since to now. */
static void trace_vcpu_close(struct trace *tr, unsigned int id, uint64_t now)
{
	struct trace_vcpu *v = &tr->v[id];
	uint64_t dur = now > v->since ? now - v->since : 0;

	if (v->state == TRACE_V_OFF)
		return;
	trace_emit(tr, TRACE_VCPU_SLICE, id, (uint16_t)v->state, v->since, dur, v->cpu);
	if (v->state == TRACE_V_RUNNING && v->lane >= 0)
		trace_emit(tr, TRACE_LANE_SLICE, (uint32_t)v->lane, 0, v->since, dur, id);
	v->cpu = 0;
}

void trace_vcpu_state(struct trace *tr, unsigned int vcpu, enum trace_vstate st, int lane,
		      uint64_t now)
{
	struct trace_vcpu *v;

	if (vcpu >= tr->nr_vcpus)
		return;
	v = &tr->v[vcpu];
	if (st != TRACE_V_RUNNING)
		lane = -1;
	if (v->state == st && v->lane == lane)
		return;
	trace_vcpu_close(tr, vcpu, now);
	v->state = st;
	v->lane = lane;
	/* Callers' clocks are read before their lock: never let a slice start go back. */
	if (now > v->since)
		v->since = now;
}

void trace_vcpu_cpu(struct trace *tr, unsigned int vcpu, uint64_t ns)
{
	if (vcpu < tr->nr_vcpus)
		tr->v[vcpu].cpu += ns;
}

void trace_finish(struct trace *tr, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < tr->nr_vcpus; i++)
		trace_vcpu_state(tr, i, TRACE_V_OFF, -1, now);
}

uint32_t trace_group_add(struct trace *tr, const char *path)
{
	char *name = strdup(path);

	if (!name)
		return 0;
	if (tr->nr_groups == tr->cap_groups) {
		unsigned int cap = tr->cap_groups ? 2 * tr->cap_groups : 16;
		char **g = realloc(tr->groups, cap * sizeof(*g));

		if (!g) {
			free(name);
			return 0;
		}
		tr->groups = g;
		tr->cap_groups = cap;
	}
	tr->groups[tr->nr_groups++] = name;
	return tr->nr_groups;
}

bool trace_sample_due(struct trace *tr, uint64_t now)
{
	if (now < tr->next_sample)
		return false;
	tr->next_sample = now + TRACE_SAMPLE_NS;
	return true;
}
