// SPDX-License-Identifier: GPL-2.0
/*
 * Hierarchical weighted virtual time. Every group keeps a queue of its child entities (vCPUs and
 * groups) that have a waiting vCPU below them, ordered by vtime; an entity's vtime grows by
 * service * NICE_0_LOAD / weight, charged at every level. A lane goes to the vCPU reached by
 * taking the smallest vtime at each level from the root down (fair_pick()).
 *
 * With P lanes several children of one group run at once, and a child whose vCPUs all run
 * (its demand is met) stops competing: it is not queued, so its siblings share the rest by
 * weight. That is the water-filling of the fluid ideal. Its vtime then says nothing about
 * fairness, so lag is bounded whenever an entity (re)joins a queue, relative to the level's
 * clock V (vclock): never more than lag below V (credit that was not usable is dropped), and on
 * wake never more than lag above it. When a level's queue turns non-empty after nobody waited,
 * the running children are pulled into the same window: their lead or lag was earned while
 * nobody competed and must not decide who goes first now (contention_start()).
 */
#include "internal.h"

uint64_t fair_lag(const struct sched *s, const struct sched_entity *se)
{
	return s->core.params.lag_ns * NICE_0_LOAD / se->weight;
}

static void clamp_vtime(struct sched_entity *se, uint64_t ref, uint64_t lag, bool upper)
{
	if (vtime_before(se->vtime, ref - lag))
		se->vtime = ref - lag;
	if (upper && vtime_before(ref + lag, se->vtime))
		se->vtime = ref + lag;
}

static void update_vclock(struct group_core *gc)
{
	struct heap_node *n = heap_min(&gc->queue);
	struct sched_entity *first;

	if (!n)
		return;
	first = container_of(n, struct sched_entity, node);
	if (vtime_before(gc->vclock, first->vtime))
		gc->vclock = first->vtime;
}

static void contention_start(struct sched *s, struct group_core *gc)
{
	struct sched_entity *e;
	uint64_t ref = gc->vclock, lo = 0;
	bool any = false;

	list_for_each_entry(e, &gc->running, run_node) {
		if (!any || vtime_before(e->vtime, lo))
			lo = e->vtime;
		any = true;
	}
	if (any && vtime_before(ref, lo))
		ref = lo;
	gc->vclock = ref;
	list_for_each_entry(e, &gc->running, run_node)
		clamp_vtime(e, ref, fair_lag(s, e), true);
}

void fair_place_new(struct sched_entity *se, struct group_core *parent)
{
	se->vtime = parent->vclock;
}

/*
 * Queue se in its parent and, where the parent had nobody waiting, the parent in its own parent,
 * up to the root or a throttled group. wake: se becomes runnable (not a lane given back).
 */
void fair_enqueue(struct sched *s, struct sched_entity *se, bool wake)
{
	struct group_core *gc;

	while ((gc = se->parent)) {
		bool was_empty = !gc->queue.nr;

		if (was_empty)
			contention_start(s, gc);
		clamp_vtime(se, gc->vclock, fair_lag(s, se), wake && !se->nr_running);
		heap_insert(&gc->queue, &se->node);
		update_vclock(gc);
		if (!was_empty || gc->throttled || !gc->se.parent)
			break;
		se = &gc->se;
	}
}

void fair_dequeue(struct sched *s, struct sched_entity *se)
{
	struct group_core *gc;

	(void)s;
	while ((gc = se->parent)) {
		heap_remove(&gc->queue, &se->node);
		if (gc->queue.nr)
			break;
		se = &gc->se;
		if (!heap_queued(&se->node))
			break;
	}
}

bool fair_waiting(const struct vcpu_core *vc)
{
	return heap_queued(&vc->se.node);
}

void fair_charge(struct sched *s, struct vcpu_core *vc, uint64_t delta)
{
	struct sched_entity *se;

	(void)s;
	for (se = &vc->se; se->parent; se = &se->parent->se) {
		se->vtime += delta * NICE_0_LOAD / se->weight;
		if (heap_queued(&se->node)) {
			heap_fix(&se->parent->queue, &se->node);
			update_vclock(se->parent);
		}
	}
}

struct vcpu_core *fair_pick(struct sched *s)
{
	struct group_core *gc = gcore(&s->root);

	for (;;) {
		struct heap_node *n = heap_min(&gc->queue);
		struct sched_entity *se;

		if (!n)
			return NULL;
		se = container_of(n, struct sched_entity, node);
		if (!se->is_group)
			return se_vcpu(se);
		gc = se_group(se);
	}
}

static void running_inc(struct sched_entity *se)
{
	for (; se; se = se->parent ? &se->parent->se : NULL)
		if (!se->nr_running++ && se->parent)
			list_add_tail(&se->run_node, &se->parent->running);
}

static void running_dec(struct sched_entity *se)
{
	for (; se; se = se->parent ? &se->parent->se : NULL)
		if (!--se->nr_running && se->parent)
			list_del(&se->run_node);
}

void fair_set_running(struct sched *s, struct vcpu_core *vc)
{
	if (heap_queued(&vc->se.node))
		fair_dequeue(s, &vc->se);
	running_inc(&vc->se);
}

void fair_clear_running(struct sched *s, struct vcpu_core *vc)
{
	(void)s;
	running_dec(&vc->se);
}

/* reweight_entity(): keep the entity's lag relative to V, scaled by old/new weight. */
void fair_reweight(struct sched *s, struct sched_entity *se, unsigned long weight)
{
	struct group_core *gc = se->parent;
	__int128 lag;

	if (gc) {
		lag = (int64_t)(se->vtime - gc->vclock);
		lag = lag * (__int128)se->weight / (__int128)weight;
		se->weight = weight;
		se->vtime = gc->vclock + (int64_t)lag;
		clamp_vtime(se, gc->vclock, fair_lag(s, se), true);
		if (heap_queued(&se->node)) {
			heap_fix(&gc->queue, &se->node);
			update_vclock(gc);
		}
	}
	se->weight = weight;
}
