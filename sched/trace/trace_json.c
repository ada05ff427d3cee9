// SPDX-License-Identifier: GPL-2.0
/*
 * The recorded events as Chrome trace-event JSON: process "lanes" with a thread per lane,
 * process "vCPUs" with a thread per vCPU, a process per group for its instants and counters.
 * Events are merged from every ring by time, so each track reads in time order.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "sched/group.h"
#include "trace_int.h"
#include "util/compiler.h"
#include "util/json.h"

#define TRACE_PID_LANES		1
#define TRACE_PID_VCPUS		2
#define TRACE_PID_GROUP0	2	/* group id g (from 1) is process 2 + g */
#define TRACE_DROPPED		TRACE_KIND_NR	/* the writer's own marker */

static const char *const trace_state_names[TRACE_V_NR] = {
	[TRACE_V_OFF] = "off",
	[TRACE_V_RUNNING] = "running",
	[TRACE_V_WAITING] = "waiting",
	[TRACE_V_THROTTLED] = "throttled",
	[TRACE_V_SLEEPING] = "sleeping",
	[TRACE_V_LENT] = "lent",
};

/* Instants and counters: their name, and the one argument's key (NULL: none). */
static const struct {
	const char *name;
	const char *arg;
} trace_kinds[TRACE_KIND_NR] = {
	[TRACE_KICK] = { "kick", NULL },
	[TRACE_MOVE] = { "move", "to" },
	[TRACE_THROTTLE] = { "throttle", NULL },
	[TRACE_UNTHROTTLE] = { "unthrottle", NULL },
	[TRACE_REFILL] = { "refill", "pool_ns" },
	[TRACE_BURST] = { "burst", "burst_ns" },
	[TRACE_USAGE] = { "usage", "cpus" },
	[TRACE_QUOTA] = { "quota left", "ms" },
};

static const char *const trace_setting_names[] = {
	[TRACE_SET_WEIGHT] = "cpu.weight",
	[TRACE_SET_MAX] = "cpu.max",
	[TRACE_SET_BURST] = "cpu.max.burst",
	[TRACE_SET_IDLE] = "cpu.idle",
};

struct trace_item {
	struct trace_event e;
	unsigned int ring;
	size_t idx;
};

static int trace_item_cmp(const void *pa, const void *pb)
{
	const struct trace_item *a = pa, *b = pb;

	if (a->e.ts != b->e.ts)
		return a->e.ts < b->e.ts ? -1 : 1;
	if (a->ring != b->ring)
		return a->ring < b->ring ? -1 : 1;
	return a->idx < b->idx ? -1 : a->idx > b->idx;
}

/* Every ring's events and drop markers, sorted by time; *n of them. NULL: out of memory. */
static struct trace_item *trace_merge(struct trace *tr, size_t *n)
{
	struct trace_item *items;
	struct trace_ring *r;
	size_t total = 0, k = 0, i;

	for (r = tr->rings; r; r = r->next)
		total += r->head + (r->dropped ? 1 : 0);
	items = calloc(total ? total : 1, sizeof(*items));
	if (!items)
		return NULL;
	for (r = tr->rings; r; r = r->next) {
		for (i = 0; i < r->head; i++)
			items[k++] = (struct trace_item){ .e = r->ev[i], .ring = r->seq, .idx = i };
		if (r->dropped)
			items[k++] = (struct trace_item){
				.e = { .ts = r->drop_ts, .val = r->dropped, .kind = TRACE_DROPPED },
				.ring = r->seq, .idx = r->head };
	}
	qsort(items, k, sizeof(*items), trace_item_cmp);
	*n = k;
	return items;
}

static void trace_meta(struct json *j, const char *what, uint64_t pid, uint64_t tid,
		       const char *name)
{
	json_object_begin(j, JSON_INLINE);
	json_kv_str(j, "ph", "M");
	json_kv_str(j, "name", what);
	json_kv_u64(j, "pid", pid);
	json_kv_u64(j, "tid", tid);
	json_key(j, "args");
	json_object_begin(j, JSON_INLINE);
	json_kv_str(j, "name", name);
	json_object_end(j);
	json_object_end(j);
}

static void trace_write_meta(struct trace *tr, struct json *j)
{
	char name[GROUP_PATH_MAX + 16];
	unsigned int i;

	trace_meta(j, "process_name", TRACE_PID_LANES, 0, "lanes");
	for (i = 0; i < tr->nr_lanes; i++) {
		snprintf(name, sizeof(name), "lane %u", i);
		trace_meta(j, "thread_name", TRACE_PID_LANES, i + 1, name);
	}
	trace_meta(j, "process_name", TRACE_PID_VCPUS, 0, "vCPUs");
	for (i = 0; i < tr->nr_vcpus; i++) {
		snprintf(name, sizeof(name), "vcpu%u", i);
		trace_meta(j, "thread_name", TRACE_PID_VCPUS, i + 1, name);
	}
	for (i = 0; i < tr->nr_groups; i++) {
		snprintf(name, sizeof(name), "group %s", tr->groups[i]);
		trace_meta(j, "process_name", TRACE_PID_GROUP0 + i + 1, 0, name);
	}
}

static const char *trace_group_name(const struct trace *tr, uint64_t id)
{
	return id >= 1 && id <= tr->nr_groups ? tr->groups[id - 1] : "?";
}

static void trace_set_value(const struct trace_event *e, char *buf, size_t len)
{
	if (e->arg == TRACE_SET_MAX && e->val == UINT64_MAX)
		snprintf(buf, len, "max %" PRIu64, e->dur);
	else if (e->arg == TRACE_SET_MAX)
		snprintf(buf, len, "%" PRIu64 " %" PRIu64, e->val, e->dur);
	else
		snprintf(buf, len, "%" PRIu64, e->val);
}

/* ph, ts, pid, tid and name of one event; the caller adds the rest and closes it. */
static void trace_head(struct trace *tr, struct json *j, const char *ph, uint64_t ts,
		       uint64_t pid, uint64_t tid, const char *name)
{
	json_object_begin(j, JSON_INLINE);
	json_kv_str(j, "ph", ph);
	json_key(j, "ts");
	json_double(j, (double)(ts > tr->t0 ? ts - tr->t0 : 0) / 1e3);
	json_kv_u64(j, "pid", pid);
	json_kv_u64(j, "tid", tid);
	json_kv_str(j, "name", name);
}

static void trace_write_event(struct trace *tr, struct json *j, const struct trace_event *e)
{
	uint64_t gpid = TRACE_PID_GROUP0 + (uint64_t)e->id;
	char name[64], val[64];

	switch (e->kind) {
	case TRACE_VCPU_SLICE:
	case TRACE_LANE_SLICE:
		if (e->kind == TRACE_VCPU_SLICE)
			trace_head(tr, j, "X", e->ts, TRACE_PID_VCPUS, e->id + 1ULL,
				   trace_state_names[e->arg < TRACE_V_NR ? e->arg : 0]);
		else {
			snprintf(name, sizeof(name), "vcpu%" PRIu64, e->val);
			trace_head(tr, j, "X", e->ts, TRACE_PID_LANES, e->id + 1ULL, name);
		}
		json_key(j, "dur");
		json_double(j, (double)e->dur / 1e3);
		json_key(j, "args");
		json_object_begin(j, JSON_INLINE);
		json_kv_u64(j, e->kind == TRACE_VCPU_SLICE ? "cpu_ns" : "vcpu", e->val);
		json_object_end(j);
		break;
	case TRACE_KICK:
	case TRACE_MOVE:
		trace_head(tr, j, "i", e->ts, TRACE_PID_VCPUS, e->id + 1ULL,
			   trace_kinds[e->kind].name);
		json_kv_str(j, "s", "t");
		if (e->kind == TRACE_MOVE) {
			json_key(j, "args");
			json_object_begin(j, JSON_INLINE);
			json_kv_str(j, "to", trace_group_name(tr, e->val));
			json_object_end(j);
		}
		break;
	case TRACE_SET:
		trace_set_value(e, val, sizeof(val));
		trace_head(tr, j, "i", e->ts, gpid, 0,
			   trace_setting_names[e->arg < ARRAY_SIZE(trace_setting_names) ? e->arg : 0]);
		json_kv_str(j, "s", "p");
		json_key(j, "args");
		json_object_begin(j, JSON_INLINE);
		json_kv_str(j, "value", val);
		json_object_end(j);
		break;
	case TRACE_USAGE:
	case TRACE_QUOTA:
		trace_head(tr, j, "C", e->ts, gpid, 0, trace_kinds[e->kind].name);
		json_key(j, "args");
		json_object_begin(j, JSON_INLINE);
		json_key(j, trace_kinds[e->kind].arg);
		json_double(j, (double)e->val / 1e6);
		json_object_end(j);
		break;
	case TRACE_DROPPED:
		snprintf(name, sizeof(name), "dropped %" PRIu64 " events", e->val);
		trace_head(tr, j, "i", e->ts, 0, 0, name);
		json_kv_str(j, "s", "g");
		json_key(j, "args");
		json_object_begin(j, JSON_INLINE);
		json_kv_u64(j, "dropped", e->val);
		json_object_end(j);
		break;
	default:	/* throttle, unthrottle, refill, burst: a group's instant */
		trace_head(tr, j, "i", e->ts, gpid, 0, trace_kinds[e->kind].name);
		json_kv_str(j, "s", "p");
		if (trace_kinds[e->kind].arg) {
			json_key(j, "args");
			json_object_begin(j, JSON_INLINE);
			json_kv_u64(j, trace_kinds[e->kind].arg, e->val);
			json_object_end(j);
		}
		break;
	}
	json_object_end(j);
}

int trace_write_json(struct trace *tr, FILE *f)
{
	struct trace_item *items;
	struct json j;
	size_t n = 0, i;

	items = trace_merge(tr, &n);
	if (!items)
		return -ENOMEM;
	json_init(&j, f);
	json_object_begin(&j, 0);
	json_kv_str(&j, "displayTimeUnit", "ns");
	json_key(&j, "traceEvents");
	json_array_begin(&j, 0);
	trace_write_meta(tr, &j);
	for (i = 0; i < n; i++)
		trace_write_event(tr, &j, &items[i].e);
	json_array_end(&j);
	json_object_end(&j);
	free(items);
	return json_end(&j);
}

size_t trace_collect(struct trace *tr, struct trace_event *out, size_t max, uint64_t *dropped)
{
	struct trace_item *items;
	size_t n = 0, i;

	*dropped = 0;
	items = trace_merge(tr, &n);
	if (!items)
		return 0;
	for (i = 0; i < n && i < max; i++)
		out[i] = items[i].e;
	for (i = 0; i < n; i++)
		if (items[i].e.kind == TRACE_DROPPED)
			*dropped += items[i].e.val;
	free(items);
	return n < max ? n : max;
}
