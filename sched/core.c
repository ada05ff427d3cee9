// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core's entry points: events from the runtime or the simulator, and the hooks the
 * group tree calls so that config changes take effect at once. Each entry ends with
 * lanes_settle() (fill lanes, set slice ends) and lanes_flush() (decisions for what changed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static struct group_core *group_core_alloc(struct group *g)
{
	struct group_core *gc = calloc(1, sizeof(*gc));

	if (!gc)
		return NULL;
	gc->g = g;
	heap_node_init(&gc->timer_node);
	gc->period = g->period_us * 1000;
	return gc;
}

int core_init(struct sched *s)
{
	struct sched_core *c = &s->core;
	unsigned int i;

	c->params.slice_ns = SCHED_SLICE_DFL_NS;
	c->params.min_run_ns = SCHED_MIN_RUN_DFL_NS;
	c->params.lag_ns = 2 * SCHED_SLICE_DFL_NS;
	bw_init(s);
	c->lanes = calloc(s->nr_lanes, sizeof(*c->lanes));
	c->vcpus = calloc(s->nr_vcpus ? s->nr_vcpus : 1, sizeof(*c->vcpus));
	s->root.core = group_core_alloc(&s->root);
	if (!c->lanes || !c->vcpus || !s->root.core || fair_init(s)) {
		core_exit(s);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_lanes; i++) {
		c->lanes[i].rot_until = SCHED_TIME_NONE;
		c->lanes[i].bw_until = SCHED_TIME_NONE;
		c->lanes[i].told_until = SCHED_TIME_NONE;
	}
	for (i = 0; i < s->nr_vcpus; i++) {
		struct vcpu_core *vc = &c->vcpus[i];

		heap_node_init(&vc->node);
		vc->v = &s->vcpus[i];
		vc->lane = -1;
		vc->told_lane = -1;
		s->vcpus[i].core = vc;
	}
	return 0;
}

void core_exit(struct sched *s)
{
	struct sched_core *c = &s->core;

	free(s->root.core);
	s->root.core = NULL;
	fair_exit(s);
	heap_free(&c->timers);
	free(c->lanes);
	free(c->vcpus);
	free(c->dec);
}

int core_group_init(struct sched *s, struct group *g)
{
	struct group_core *gc;

	if (heap_reserve(&s->core.timers, s->root.nr_descendants + 1))
		return -ENOMEM;
	gc = group_core_alloc(g);
	if (!gc)
		return -ENOMEM;
	g->core = gc;
	return 0;
}

/* Called once the group is in the tree: the rate scratch must cover it. */
int core_group_added(struct sched *s, struct group *g)
{
	(void)g;
	return fair_reserve(s);
}

/* The group is empty: no vCPU below, no child, so nothing of it waits or runs. */
void core_group_exit(struct sched *s, struct group *g)
{
	struct group_core *gc = gcore(g);

	bw_group_exit(s, gc);
	if (g->idle)
		s->core.nr_idle_groups--;
	free(gc);
	g->core = NULL;
}

void core_group_free_all(struct group *g)
{
	free(g->core);
	g->core = NULL;
}

void core_emit(struct sched *s, enum sched_decision_type type, struct group *g)
{
	struct sched_core *c = &s->core;

	if (c->nr_dec == c->cap_dec) {
		size_t cap = c->cap_dec ? 2 * c->cap_dec : 64;
		struct sched_decision *n = realloc(c->dec, cap * sizeof(*n));

		if (!n)
			return;
		c->dec = n;
		c->cap_dec = cap;
	}
	c->dec[c->nr_dec++] = (struct sched_decision){ .type = type, .group = g };
}

static void clock_update(struct sched *s, uint64_t now)
{
	if (now > s->core.now)
		s->core.now = now;
}

static void finish(struct sched *s)
{
	fair_update_rates(s);
	lanes_preempt_check(s);
	lanes_settle(s);
	lanes_flush(s);
}

static void runnable_change(struct sched *s, struct group *g, int d)
{
	for (; g; g = g->parent) {
		bw_runnable_changing(s, gcore(g));
		gcore(g)->nr_runnable += d;
	}
}

/*
 * v->group is already the new group: counters follow, the rates change, and a vCPU now under a
 * throttled group leaves its lane or stops waiting.
 */
void core_vcpu_move(struct sched *s, struct sched_vcpu *v, struct group *from)
{
	struct vcpu_core *vc = vcore(v);
	struct group *to = v->group;
	struct group *g;

	if (vc->runnable) {
		runnable_change(s, from, -1);
		runnable_change(s, to, 1);
	}
	if (vc->lane >= 0) {
		for (g = from; g; g = g->parent)
			gcore(g)->nr_running--;
		for (g = to; g; g = g->parent)
			gcore(g)->nr_running++;
		if (fair_path_throttled(v))
			lanes_put_back(s, vc);
	} else if (vc->runnable) {
		bool throttled = fair_path_throttled(v);

		if (throttled && fair_waiting(vc))
			fair_dequeue(s, vc);
		else if (!throttled && !fair_waiting(vc))
			fair_enqueue(s, vc);
	}
	fair_rates_changed(s);
	finish(s);
}

void core_group_reweight(struct sched *s, struct group *g)
{
	(void)g;
	fair_rates_changed(s);
	finish(s);
}

void core_group_idle(struct sched *s, struct group *g)
{
	if (g->idle)
		s->core.nr_idle_groups++;
	else
		s->core.nr_idle_groups--;
	fair_rates_changed(s);
	finish(s);
}

void core_group_bandwidth(struct sched *s, struct group *g)
{
	bw_configure(s, gcore(g));
	fair_rates_changed(s);
	finish(s);
}

int sched_set_params(struct sched *s, const struct sched_params *p)
{
	if (p->min_run_ns < SCHED_MIN_RUN_MIN_NS || p->slice_ns < p->min_run_ns ||
	    p->lag_ns < p->slice_ns)
		return -EINVAL;
	s->core.params = *p;
	return 0;
}

void sched_get_params(const struct sched *s, struct sched_params *p)
{
	*p = s->core.params;
}

int sched_vcpu_runnable(struct sched *s, unsigned int id, uint64_t now)
{
	struct vcpu_core *vc;

	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = vcore(&s->vcpus[id]);
	clock_update(s, now);
	if (vc->runnable)
		return 0;
	runnable_change(s, vc->v->group, 1);
	fair_wake(s, vc);
	if (!fair_path_throttled(vc->v))
		fair_enqueue(s, vc);
	finish(s);
	return 0;
}

int sched_vcpu_blocked(struct sched *s, unsigned int id, uint64_t now)
{
	struct vcpu_core *vc;

	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = vcore(&s->vcpus[id]);
	clock_update(s, now);
	if (!vc->runnable)
		return 0;
	runnable_change(s, vc->v->group, -1);
	if (fair_waiting(vc))
		fair_dequeue(s, vc);
	fair_block(s, vc);
	if (vc->lane >= 0)
		lanes_put_back(s, vc);
	finish(s);
	return 0;
}

int sched_vcpu_ran(struct sched *s, unsigned int id, uint64_t user_ns, uint64_t system_ns,
		   uint64_t now)
{
	uint64_t delta = user_ns + system_ns;
	struct vcpu_core *vc;
	struct group *g;

	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = vcore(&s->vcpus[id]);
	clock_update(s, now);
	if (!delta)
		return 0;
	vc->v->stat.usage_ns += delta;
	vc->v->stat.user_ns += user_ns;
	vc->v->stat.system_ns += system_ns;
	for (g = vc->v->group; g; g = g->parent) {
		g->stat.usage_ns += delta;
		g->stat.user_ns += user_ns;
		g->stat.system_ns += system_ns;
	}
	fair_charge(s, vc, delta);
	for (g = vc->v->group; g; g = g->parent)
		if (gcore(g)->bw_enabled)
			bw_charge(s, gcore(g), delta);
	finish(s);
	return 0;
}

void sched_timer(struct sched *s, uint64_t now)
{
	clock_update(s, now);
	bw_timer(s);
	lanes_expire(s);
	finish(s);
}

void sched_advance(struct sched *s, uint64_t now)
{
	clock_update(s, now);
}

size_t sched_take_decisions(struct sched *s, struct sched_decision *out, size_t max)
{
	struct sched_core *c = &s->core;
	size_t n = c->nr_dec < max ? c->nr_dec : max;

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

	for (l = 0; l < s->nr_lanes; l++) {
		const struct lane *ln = &s->core.lanes[l];

		if (!ln->cur)
			continue;
		if (ln->rot_until < t)
			t = ln->rot_until;
		if (ln->bw_until < t)
			t = ln->bw_until;
	}
	return t;
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
	const struct lane *ln;

	if (lane >= s->nr_lanes)
		return SCHED_TIME_NONE;
	ln = &s->core.lanes[lane];
	return ln->rot_until < ln->bw_until ? ln->rot_until : ln->bw_until;
}

bool group_throttled(const struct group *g)
{
	return g->core && gcore(g)->throttled;
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
