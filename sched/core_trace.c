// SPDX-License-Identifier: GPL-2.0
/*
 * The core's side of a trace (sched/trace.h): group tracks named on first use, bandwidth and
 * setting events at the core's time, and the groups' counters (usage rate, pool left) sampled
 * at most every TRACE_SAMPLE_NS. Nothing here runs unless a recorder is attached.
 */
#include "internal.h"
#include "sched/trace.h"

void sched_set_trace(struct sched *s, struct trace *tr)
{
	s->trace = tr;
}

static uint32_t core_trace_gid(struct sched *s, struct group_core *gc)
{
	char path[GROUP_PATH_MAX];

	if (!gc->trace_id) {
		group_path(gc->g, path, sizeof(path));
		gc->trace_id = trace_group_add(s->trace, path);
	}
	return gc->trace_id;
}

void core_trace_group(struct sched *s, struct group_core *gc, unsigned int kind, uint64_t val)
{
	if (s->trace)
		trace_emit(s->trace, kind, core_trace_gid(s, gc), 0, s->core.now, 0, val);
}

void core_trace_set(struct sched *s, struct group *g, unsigned int setting)
{
	uint32_t id;

	if (!s->trace)
		return;
	id = core_trace_gid(s, gcore(g));
	switch (setting) {
	case TRACE_SET_WEIGHT:
		trace_emit(s->trace, TRACE_SET, id, setting, s->core.now, 0,
			   sched_weight_to_cgroup(g->shares));
		break;
	case TRACE_SET_MAX:
		trace_emit(s->trace, TRACE_SET, id, setting, s->core.now, g->period_us,
			   g->quota_us == RUNTIME_INF ? UINT64_MAX : g->quota_us);
		trace_emit(s->trace, TRACE_SET, id, TRACE_SET_BURST, s->core.now, 0, g->burst_us);
		break;
	default:
		trace_emit(s->trace, TRACE_SET, id, setting, s->core.now, 0, g->idle);
		break;
	}
}

void core_trace_move(struct sched *s, struct sched_vcpu *v)
{
	if (s->trace)
		trace_emit(s->trace, TRACE_MOVE, v->id, 0, s->core.now, 0,
			   core_trace_gid(s, gcore(v->group)));
}

static void core_trace_counters(struct sched *s, struct group *g, uint64_t now)
{
	struct group_core *gc = gcore(g);
	struct group *c;

	/* The rate over the interval since the last sample, from its start: a counter's value
	 * holds from its time on. (A caller's clock read before the lock may lag: skip it.) */
	if (now > gc->trace_at) {
		if (gc->trace_at)
			trace_emit(s->trace, TRACE_USAGE, core_trace_gid(s, gc), 0, gc->trace_at, 0,
				   (g->stat.usage_ns - gc->trace_usage) * 1000000 /
				   (now - gc->trace_at));
		gc->trace_usage = g->stat.usage_ns;
		gc->trace_at = now;
		if (gc->bw_enabled)
			trace_emit(s->trace, TRACE_QUOTA, core_trace_gid(s, gc), 0, now, 0,
				   gc->runtime);
	}
	list_for_each_entry(c, &g->children, sibling)
		core_trace_counters(s, c, now);
}

void sched_trace_sample(struct sched *s, uint64_t now)
{
	if (s->trace && trace_sample_due(s->trace, now))
		core_trace_counters(s, &s->root, now);
}
