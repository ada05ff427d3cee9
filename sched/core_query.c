// SPDX-License-Identifier: GPL-2.0
/* The scheduler core's outputs and state queries: decisions, timers, lanes, rates, cpu.stat. */
#include <string.h>

#include "internal.h"

size_t sched_take_decisions(struct sched *s, struct sched_decision *out, size_t max)
{
	struct sched_core *c = &s->core;
	size_t n = c->nr_dec < max ? c->nr_dec : max;

	core_assert_locked(s);
	if (!n)
		return 0;
	memcpy(out, c->dec, n * sizeof(*out));
	memmove(c->dec, c->dec + n, (c->nr_dec - n) * sizeof(*out));
	c->nr_dec -= n;
	return n;
}

size_t sched_pending_decisions(const struct sched *s)
{
	return s->core.nr_dec;
}

uint64_t sched_next_timer(const struct sched *s)
{
	uint64_t t = bw_next_timer(s);
	unsigned int l;

	/* A delayed sleeper expected to be repaid: it leaves the rates (fair_release()). */
	if (s->core.next_release < t)
		t = s->core.next_release;
	for (l = 0; l < s->nr_lanes; l++) {
		const struct lane *ln = &s->core.lanes[l];

		if (ln->promised_at < t)
			t = ln->promised_at;
		if (!ln->cur)
			continue;
		if (ln->rot_until < t)
			t = ln->rot_until;
		if (ln->bw_until < t)
			t = ln->bw_until;
		if (ln->pace_until < t)
			t = ln->pace_until;
	}
	return t;
}

uint64_t sched_next_group_timer(const struct sched *s)
{
	return bw_next_timer(s);
}

uint64_t sched_now(const struct sched *s)
{
	return s->core.now;
}

int sched_vcpu_lane(const struct sched *s, unsigned int id)
{
	return id < s->nr_vcpus ? s->core.vcpus[id].lane : -1;
}

bool sched_vcpu_is_runnable(const struct sched *s, unsigned int id)
{
	return id < s->nr_vcpus && s->core.vcpus[id].runnable;
}

bool sched_vcpu_throttled(const struct sched *s, unsigned int id)
{
	const struct group *g;

	if (id >= s->nr_vcpus)
		return false;
	for (g = s->core.vcpus[id].v->group; g; g = g->parent)
		if (group_throttled(g))
			return true;
	return false;
}

int sched_lane_vcpu(const struct sched *s, unsigned int lane)
{
	const struct vcpu_core *vc;

	if (lane >= s->nr_lanes)
		return -1;
	vc = s->core.lanes[lane].cur;
	return vc ? (int)vc->v->id : -1;
}

uint64_t sched_lane_until(const struct sched *s, unsigned int lane)
{
	if (lane >= s->nr_lanes)
		return SCHED_TIME_NONE;
	return lanes_until(&s->core.lanes[lane]);
}

int sched_next_waiter(struct sched *s)
{
	struct vcpu_core *vc;

	core_assert_locked(s);
	vc = fair_pick(s);
	return vc ? (int)vc->v->id : -1;
}

bool group_throttled(const struct group *g)
{
	return g->core && gcore(g)->throttled;
}

double sched_vcpu_rate(const struct sched *s, unsigned int id)
{
	return id < s->nr_vcpus ? s->core.vcpus[id].se.rate : 0;
}

double sched_vcpu_demand(const struct sched *s, unsigned int id)
{
	return id < s->nr_vcpus ? rates_vcpu_demand(&s->core.vcpus[id]) : 0;
}

unsigned long sched_nr_switches(const struct sched *s)
{
	return s->core.nr_switches;
}

void group_stat(struct sched *s, struct group *g, uint64_t now_ns, struct cpu_stat *out)
{
	struct sched_core *c = &s->core;
	uint64_t saved = c->now;

	*out = g->stat;
	if (now_ns > c->now)
		c->now = now_ns;
	bw_throttle_pending(s, gcore(g), out);
	c->now = saved;
}
