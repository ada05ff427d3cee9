// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler core's life (init, exit, a group's core state, parameters) and its entry points:
 * events from the runtime or the simulator. Each entry, as each of the tree's hooks
 * (core_tree.c), ends with core_finish(): lanes_settle() (fill lanes, set slice ends) and
 * lanes_flush() (decisions for what changed).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sched/trace.h"

static void entity_init(struct sched_entity *se, struct group_core *parent, bool is_group,
			uint32_t key)
{
	memset(se, 0, sizeof(*se));
	heap_node_init(&se->node);
	list_init(&se->run_node);
	list_init(&se->delay_node);
	se->is_group = is_group;
	se->key = key;
	se->parent = parent;
}

static struct group_core *group_core_alloc(struct sched_core *c, struct group *g,
					   struct group_core *parent)
{
	struct group_core *gc = calloc(1, sizeof(*gc));

	if (!gc)
		return NULL;
	entity_init(&gc->se, parent, true, c->nr_groups_made++);
	gc->se.idle = g->idle;
	gc->g = g;
	heap_init(&gc->queue, queue_less);
	list_init(&gc->running);
	heap_node_init(&gc->timer_node);
	gc->period = g->period_us * 1000;
	return gc;
}

/* The only writer of c->params: the doubles beside them stay in step. */
static void core_set_params(struct sched_core *c, const struct sched_params *p)
{
	c->params = *p;
	c->slice = (double)p->slice_ns;
	c->min_run = (double)p->min_run_ns;
}

int core_init(struct sched *s)
{
	struct sched_core *c = &s->core;
	struct group_core *root;
	unsigned int i;

	core_set_params(c, &(struct sched_params){
		.slice_ns = SCHED_SLICE_DFL_NS,
		.min_run_ns = SCHED_MIN_RUN_DFL_NS,
		.lag_ns = 2 * SCHED_SLICE_DFL_NS,
	});
	list_init(&c->delayed);
	c->next_release = SCHED_TIME_NONE;
	bw_init(s);
	c->lanes = calloc(s->nr_lanes, sizeof(*c->lanes));
	c->vcpus = calloc(s->nr_vcpus ? s->nr_vcpus : 1, sizeof(*c->vcpus));
	root = group_core_alloc(c, &s->root, NULL);
	s->root.core = root;
	if (!c->lanes || !c->vcpus || !root || heap_reserve(&root->queue, s->nr_vcpus) ||
	    rates_init(s)) {
		core_exit(s);
		return -ENOMEM;
	}
	root->nr_children = s->nr_vcpus;
	for (i = 0; i < s->nr_lanes; i++) {
		c->lanes[i].rot_until = SCHED_TIME_NONE;
		c->lanes[i].deferred_at = SCHED_TIME_NONE;
		c->lanes[i].promised_at = SCHED_TIME_NONE;
		c->lanes[i].bw_until = SCHED_TIME_NONE;
		c->lanes[i].pace_until = SCHED_TIME_NONE;
		c->lanes[i].told_until = SCHED_TIME_NONE;
	}
	for (i = 0; i < s->nr_vcpus; i++) {
		struct vcpu_core *vc = &c->vcpus[i];

		entity_init(&vc->se, root, false, i);
		vc->v = &s->vcpus[i];
		vc->lane = -1;
		vc->told_lane = -1;
		vc->wait_start = SCHED_TIME_NONE;
		s->vcpus[i].core = vc;
	}
	return 0;
}

static void group_core_free(struct group_core *gc)
{
	heap_free(&gc->queue);
	free(gc);
}

void core_exit(struct sched *s)
{
	struct sched_core *c = &s->core;

	if (s->root.core)
		group_core_free(s->root.core);
	s->root.core = NULL;
	rates_exit(s);
	heap_free(&c->timers);
	free(c->lanes);
	free(c->vcpus);
	free(c->dec);
}

int core_group_init(struct sched *s, struct group *g)
{
	struct group_core *parent = gcore(g->parent), *gc;

	if (heap_reserve(&parent->queue, parent->nr_children + 1) ||
	    heap_reserve(&s->core.timers, s->root.nr_descendants + 1))
		return -ENOMEM;
	gc = group_core_alloc(&s->core, g, parent);
	if (!gc)
		return -ENOMEM;
	parent->nr_children++;
	g->core = gc;
	bw_group_init(gc, parent, s->core.now);
	return 0;
}

/* The group is empty: no vCPU below, no child, so it is neither queued nor running. */
void core_group_exit(struct sched *s, struct group *g)
{
	struct group_core *gc = gcore(g);

	bw_group_exit(s, gc);
	if (gc->se.idle)
		s->core.nr_idle_groups--;
	gcore(g->parent)->nr_children--;
	group_core_free(gc);
	g->core = NULL;
}

void core_group_free_all(struct group *g)
{
	if (g->core)
		group_core_free(g->core);
	g->core = NULL;
}

bool core_dec_grow(struct sched_core *c, size_t n)
{
	struct sched_decision *d;
	size_t cap = c->cap_dec ? 2 * c->cap_dec : 64;

	while (cap < c->nr_dec + n)
		cap *= 2;
	d = realloc(c->dec, cap * sizeof(*d));
	if (!d)
		return false;
	c->dec = d;
	c->cap_dec = cap;
	return true;
}

void core_emit(struct sched *s, enum sched_decision_type type, struct group *g)
{
	struct sched_core *c = &s->core;

	if (!core_dec_reserve(c, 1))
		return;
	c->dec[c->nr_dec++] = (struct sched_decision){ .type = type, .group = g };
}

static void clock_update(struct sched *s, uint64_t now)
{
	if (now > s->core.now) {
		rates_lanes_held(s, now - s->core.now);
		bw_clock(s, now - s->core.now);
		s->core.now = now;
	}
}

/*
 * Rates change here too, when a delayed sleeper leaves (fair_release()) or a change elsewhere
 * left them dirty: slices paid up front are paid again at the new rates, as at a wake or a block
 * (lanes_unpay()). Left at the old ones, a hog's slice paid while its group held a delayed duty
 * vCPU's share (rate 1.5 of 2) charged its group a quarter of it too little: /web's hog in
 * 'duty-cycle vCPUs beside hogs' got 9125 ms of 9000 (docs/scheduler.md §10).
 */
void core_finish(struct sched *s)
{
	struct sched_core *c = &s->core;
	bool moving = c->rates_dirty || c->path_dirty ||
		      (c->next_release <= c->now && !list_empty(&c->delayed));

	if (moving)
		lanes_unpay(s);
	fair_release(s);
	rates_update(s);
	if (moving)
		lanes_repay(s);
	lanes_settle(s);
	lanes_flush(s);
}

/* d more (or fewer) runnable vCPUs below gc and each of its ancestors. */
void core_runnable_change(struct sched *s, struct group_core *gc, int d)
{
	for (; gc; gc = gc->se.parent) {
		bw_runnable_changing(s, gc);
		gc->nr_runnable += d;
	}
}

int sched_set_params(struct sched *s, const struct sched_params *p)
{
	core_assert_locked(s);
	if (p->min_run_ns < SCHED_MIN_RUN_MIN_NS || p->slice_ns < p->min_run_ns ||
	    p->lag_ns < p->slice_ns)
		return -EINVAL;
	core_set_params(&s->core, p);
	return 0;
}

void sched_get_params(const struct sched *s, struct sched_params *p)
{
	*p = s->core.params;
}

int sched_vcpu_runnable(struct sched *s, unsigned int id, uint64_t now)
{
	struct vcpu_core *vc;

	core_assert_locked(s);
	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = vcore(&s->vcpus[id]);
	clock_update(s, now);
	if (vc->runnable)
		return 0;
	if (s->core.bw_dry)
		bw_throttle_dry(s);	/* dry in a report at this instant */
	core_runnable_change(s, vc->se.parent, 1);
	vc->runnable = true;
	if (vc->told_lane < 0)
		core_wait_begin(vc, s->core.now);
	lanes_unpay(s);
	fair_wake(s, vc);
	lanes_repay(s);
	fair_enqueue(s, &vc->se);
	lanes_waker_arrived(s, vc);
	core_finish(s);
	return 0;
}

int sched_vcpu_blocked(struct sched *s, unsigned int id, uint64_t now)
{
	struct vcpu_core *vc;

	core_assert_locked(s);
	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = vcore(&s->vcpus[id]);
	clock_update(s, now);
	if (!vc->runnable)
		return 0;
	if (s->core.bw_dry)
		bw_throttle_dry(s);	/* dry in a report at this instant */
	core_runnable_change(s, vc->se.parent, -1);
	vc->runnable = false;		/* before lanes_put_back(): it must not queue vc again */
	core_wait_end(vc, s->core.now);
	if (vc->lane >= 0) {
		s->core.left = vc;
		s->core.left_lane = (unsigned int)vc->lane;
		lanes_put_back(s, vc);
	} else if (fair_waiting(vc)) {
		fair_dequeue(s, &vc->se);
	}
	lanes_unpay(s);
	fair_block(s, vc, true);
	lanes_repay(s);
	core_finish(s);
	return 0;
}

int sched_vcpu_ran(struct sched *s, unsigned int id, uint64_t user_ns, uint64_t system_ns,
		   uint64_t now)
{
	uint64_t delta = user_ns + system_ns;
	struct vcpu_core *vc;
	struct group *g;

	core_assert_locked(s);
	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = vcore(&s->vcpus[id]);
	clock_update(s, now);
	if (!delta)
		return 0;
	if (s->trace)
		trace_vcpu_cpu(s->trace, id, delta);
	vc->v->stat.usage_ns += delta;
	vc->v->stat.user_ns += user_ns;
	vc->v->stat.system_ns += system_ns;
	for (g = vc->v->group; g; g = g->parent) {
		g->stat.usage_ns += delta;
		g->stat.user_ns += user_ns;
		g->stat.system_ns += system_ns;
	}
	fair_charge(s, vc, delta);
	rates_delivered(s, vc, delta);
	/* No group capped (nr_bw_groups counts every bw_enabled one): no pool to walk up to. */
	if (s->core.nr_bw_groups)
		for (g = vc->v->group; g; g = g->parent)
			if (gcore(g)->bw_enabled)
				bw_charge(s, gcore(g), delta);
	core_finish(s);
	return 0;
}

/*
 * CPU that g's own threads used, no vCPU's: a VMM's other threads (agent, helper, devices) in
 * host mode, charged to its VM group as the kernel charges every thread of a cgroup. It counts
 * as a vCPU's report counts above its vCPU: cpu.stat usage of g and its ancestors, the pools of
 * their cpu.max (dry here: thrown out at this instant's timer, as a report's), and the virtual
 * time of g and every entity above it, so a group that burns CPU outside its vCPUs gets that
 * much less on the lanes. Not lane delivery (rates_delivered()): it ran on no lane.
 */
int sched_group_charge(struct sched *s, struct group *g, uint64_t user_ns, uint64_t system_ns,
		       uint64_t now)
{
	uint64_t delta = user_ns + system_ns;
	struct group *a;

	core_assert_locked(s);
	if (!g || delta < user_ns)
		return -EINVAL;
	for (a = g; a->parent; a = a->parent)
		;
	if (a != &s->root)
		return -EINVAL;
	clock_update(s, now);
	if (!delta)
		return 0;
	for (a = g; a; a = a->parent) {
		a->stat.usage_ns += delta;
		a->stat.user_ns += user_ns;
		a->stat.system_ns += system_ns;
	}
	fair_charge_group(s, gcore(g), delta);
	for (a = g; a; a = a->parent)
		if (gcore(a)->bw_enabled)
			bw_charge(s, gcore(a), delta);
	core_finish(s);
	return 0;
}

void sched_timer(struct sched *s, uint64_t now)
{
	core_assert_locked(s);
	clock_update(s, now);
	bw_timer(s);	/* refills, then the pools dry in reports (bw_throttle_dry()) */
	bw_ref_dry(s);	/* at bw_next_timer()'s dry points */
	lanes_expire(s);
	core_finish(s);
}

void sched_advance(struct sched *s, uint64_t now)
{
	core_assert_locked(s);
	clock_update(s, now);
}
