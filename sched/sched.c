// SPDX-License-Identifier: GPL-2.0
/* A scheduler instance: the root group, the vCPUs and their membership. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* kernel/sched/core.c: nice -20..19 -> load weight, each step ~10 % of CPU time. */
const unsigned long sched_prio_to_weight[40] = {
	/* -20 */ 88761, 71755, 56483, 46273, 36291,
	/* -15 */ 29154, 23254, 18705, 14949, 11916,
	/* -10 */ 9548,  7620,  6100,  4904,  3906,
	/*  -5 */ 3121,  2501,  1991,  1586,  1277,
	/*   0 */ 1024,  820,   655,   526,   423,
	/*   5 */ 335,   272,   215,   172,   137,
	/*  10 */ 110,   87,    70,    56,    45,
	/*  15 */ 36,    29,    23,    18,    15,
};

struct sched *sched_create(unsigned int nr_lanes, unsigned int nr_vcpus)
{
	struct sched *s;
	unsigned int i;

	if (!nr_lanes)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->vcpus = calloc(nr_vcpus ? nr_vcpus : 1, sizeof(*s->vcpus));
	if (!s->vcpus) {
		free(s);
		return NULL;
	}
	s->nr_lanes = nr_lanes;
	s->nr_vcpus = nr_vcpus;
	s->root.name = (char *)"";
	list_init(&s->root.children);
	list_init(&s->root.sibling);
	list_init(&s->root.vcpus);
	s->root.max_depth = LIMIT_MAX;
	s->root.max_descendants = LIMIT_MAX;
	s->root.shares = NICE_0_LOAD;
	s->root.quota_us = RUNTIME_INF;
	s->root.period_us = CPU_PERIOD_DFL_US;
	s->root.subtree_cpu = true;
	for (i = 0; i < nr_vcpus; i++) {
		struct sched_vcpu *v = &s->vcpus[i];

		v->id = i;
		v->group = &s->root;
		list_add_tail(&v->group_node, &s->root.vcpus);
	}
	s->root.nr_vcpus = nr_vcpus;
	s->root.nr_populated = nr_vcpus;
	if (core_init(s)) {
		free(s->vcpus);
		free(s);
		return NULL;
	}
	return s;
}

static void group_free_subtree(struct group *g)
{
	struct group *c, *n;

	list_for_each_entry_safe(c, n, &g->children, sibling) {
		group_free_subtree(c);
		core_group_free_all(c);
		free(c->name);
		free(c);
	}
}

void sched_destroy(struct sched *s)
{
	if (!s)
		return;
	group_free_subtree(&s->root);
	core_exit(s);
	free(s->vcpus);
	free(s);
}

struct group *sched_root(struct sched *s)
{
	return &s->root;
}

unsigned int sched_nr_vcpus(const struct sched *s)
{
	return s->nr_vcpus;
}

unsigned int sched_nr_lanes(const struct sched *s)
{
	return s->nr_lanes;
}

struct sched_vcpu *sched_vcpu(struct sched *s, unsigned int id)
{
	return id < s->nr_vcpus ? &s->vcpus[id] : NULL;
}

struct sched_vcpu *sched_vcpu_by_tid(struct sched *s, pid_t tid)
{
	unsigned int i;

	if (tid <= 0)
		return NULL;
	for (i = 0; i < s->nr_vcpus; i++)
		if (s->vcpus[i].tid == tid)
			return &s->vcpus[i];
	return NULL;
}

void sched_vcpu_set_tid(struct sched *s, unsigned int id, pid_t tid)
{
	if (id < s->nr_vcpus)
		s->vcpus[id].tid = tid;
}

pid_t sched_pid(const struct sched *s)
{
	return s->pid;
}

void sched_set_pid(struct sched *s, pid_t pid)
{
	s->pid = pid;
}

void sched_set_lock(struct sched *s, const pthread_mutex_t *lock)
{
	s->lock = lock;
}

/*
 * The cpu controller is threaded, so vCPU threads may sit in any group of the VM's tree,
 * inner ones included; only an invalid domain refuses members (cgroup_migrate_vet_dst()).
 */
uint64_t sched_nr_events(const struct sched *s)
{
	return s->nr_events;
}

int sched_vcpu_move(struct sched *s, unsigned int id, struct group *to)
{
	struct sched_vcpu *v = sched_vcpu(s, id);
	struct group *from, *a;

	core_assert_locked(s);
	if (!v)
		return -ESRCH;
	if (group_type_of(to) == GROUP_DOMAIN_INVALID)
		return -EOPNOTSUPP;
	from = v->group;
	if (from == to)
		return 0;
	if (core_vcpu_prepare_move(s, v, to))
		return -ENOMEM;
	list_del(&v->group_node);
	from->nr_vcpus--;
	/* populated flips: cgroup.events changes (cgroup_update_populated()) */
	for (a = from; a; a = a->parent)
		if (!--a->nr_populated) {
			a->events_gen++;
			s->nr_events++;
		}
	v->group = to;
	list_add_tail(&v->group_node, &to->vcpus);
	to->nr_vcpus++;
	for (a = to; a; a = a->parent)
		if (!a->nr_populated++) {
			a->events_gen++;
			s->nr_events++;
		}
	core_vcpu_move(s, v, from);
	return 0;
}
