// SPDX-License-Identifier: GPL-2.0
/*
 * The hooks the group tree calls so that a change takes effect at once: a vCPU moved to another
 * group (rehome()), "cpu" enabled or disabled below a group, cpu.idle, cpu.weight and cpu.max
 * changed. Each ends as an event does, with core_finish().
 */
#include "internal.h"
#include "sched/trace.h"

int core_vcpu_prepare_move(struct sched *s, struct sched_vcpu *v, struct group *to)
{
	struct group_core *tc = gcore(group_cpu_group(to));

	(void)s;
	(void)v;
	return heap_reserve(&tc->queue, tc->nr_children + 1);
}

/*
 * v->group is already the new group. The vCPU leaves the old path as if it blocked and joins
 * the new one as if it woke, keeping its lag (bounded); a lane it holds stays unless a group on
 * the new path is throttled. Slices paid up front are paid again at the new rates, its own on
 * its new path (lanes_unpay()).
 */
static void rehome(struct sched *s, struct vcpu_core *vc, struct group_core *fc,
		   struct group_core *tc)
{
	bool running = vc->lane >= 0;

	lanes_unpay(s);
	if (fair_waiting(vc))
		fair_dequeue(s, &vc->se);
	if (running)
		fair_clear_running(s, vc);
	/* The tree changed under vc: redo all rates, not just along a path. */
	rates_changed(s);
	if (vc->runnable) {
		core_runnable_change(s, fc, -1);
		fair_block(s, vc, false);
	} else {
		fair_undelay_all(s, vc);
	}
	fc->nr_children--;
	tc->nr_children++;
	vc->se.parent = tc;
	if (vc->runnable) {
		core_runnable_change(s, tc, 1);
		fair_wake(s, vc);
	}
	if (running)
		fair_set_running(s, vc);
	rates_update(s);	/* a sleeper's move solved none */
	lanes_repay(s);
	if (running) {
		if (bw_path_throttled(vc))
			lanes_put_back(s, vc);
	} else if (vc->runnable) {
		fair_enqueue(s, &vc->se);
		lanes_waiter_arrived(s, &vc->se);
	}
}

void core_vcpu_move(struct sched *s, struct sched_vcpu *v, struct group *from)
{
	struct group_core *fc = gcore(group_cpu_group(from));
	struct group_core *tc = gcore(group_cpu_group(v->group));

	rehome(s, vcore(v), fc, tc);
	core_trace_move(s, v);
	core_finish(s);
}

static int rehome_subtree(struct sched *s, struct group *g)
{
	struct sched_vcpu *v;
	struct group *c;
	int ret = 0;

	list_for_each_entry(v, &g->vcpus, group_node) {
		struct group_core *tc = gcore(group_cpu_group(g));

		if (vcore(v)->se.parent == tc)
			continue;
		ret = heap_reserve(&tc->queue, tc->nr_children + 1);
		if (ret)
			return ret;
		rehome(s, vcore(v), vcore(v)->se.parent, tc);
	}
	list_for_each_entry(c, &g->children, sibling) {
		ret = rehome_subtree(s, c);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * "cpu" was added to or removed from g's subtree_control: g's children gained or lost their task
 * group, so every vCPU below g is scheduled in its (new) nearest group with the controller.
 */
int core_group_subtree(struct sched *s, struct group *g)
{
	int ret = rehome_subtree(s, g);

	rates_changed(s);
	core_finish(s);
	return ret;
}

int core_group_added(struct sched *s, struct group *g)
{
	(void)g;
	return rates_reserve(s);
}

void core_group_idle(struct sched *s, struct group *g)
{
	struct group_core *gc = gcore(g);

	if (gc->se.idle != g->idle) {
		if (g->idle)
			s->core.nr_idle_groups++;
		else
			s->core.nr_idle_groups--;
		gc->se.idle = g->idle;
	}
	rates_changed(s);
	core_finish(s);
}

/* A weight is only an input of the rates: new rates, every lag kept. */
void core_group_reweight(struct sched *s, struct group *g)
{
	(void)g;
	rates_changed(s);
	core_finish(s);
}

void core_group_bandwidth(struct sched *s, struct group *g)
{
	bw_configure(s, gcore(g));
	rates_changed(s);
	core_finish(s);
}
