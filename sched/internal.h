/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the files of sched/: the scheduler instance and the core's per-entity data.
 * Not a public header: front ends use sched/group.h and sched/core.h.
 */
#ifndef VSCHED_SCHED_INTERNAL_H
#define VSCHED_SCHED_INTERNAL_H

#include "sched/core.h"
#include "sched/group.h"
#include "util/debug.h"
#include "util/heap.h"

struct group_core;
struct fluid_claim;

/*
 * The smallest rate that counts (CPUs): a runnable entity in its parent's sum has at least this,
 * and two rates closer than this are the same.
 */
#define RATE_MIN	1e-12

/* Entities on a vCPU's path below the root: the vCPU and every group but the root. */
#define SE_PATH_MAX	(GROUP_DEPTH_MAX + 1)

/*
 * A schedulable entity at one level of the tree: a vCPU or a group, competing with its siblings
 * inside its parent group. rate is its fluid share (CPUs) while it is runnable; its virtual time
 * vt advances by service / rate, so siblings served exactly at their rates keep equal vt.
 */
struct sched_entity {
	double vt;
	double dl;			/* virtual deadline vt + req / rate: the queue's key */
	double req;			/* its request when the key was set (fair_request()) */
	double breq;			/* the same but a cpu.idle group's min_run: what it passes up */
	double rate;
	double new_rate;		/* scratch of rates_update() */
	double lag;			/* owed (+) or ahead (-) service, kept while not runnable */
	struct vcpu_core *delayer;	/* delayed: the vCPU whose block left it in debt */
	struct list_head delay_node;	/* in core.delayed while delayed */
	struct heap_node node;		/* in parent->queue while it has a waiting vCPU below */
	struct list_head run_node;	/* in parent->running while nr_running > 0 */
	unsigned int nr_running;	/* lanes held by vCPUs at or below this entity */
	bool runnable;			/* a runnable vCPU at or below */
	bool delayed;			/* not runnable but in debt: in its parent's V and rates */
	bool is_group;
	bool idle;			/* a cpu.idle group */
	uint32_t key;			/* ties: vCPU id, or group creation number (se_before()) */
	struct group_core *parent;	/* NULL for the root's entity */
};

struct group_core {
	struct sched_entity se;
	struct group *g;
	struct heap queue;		/* child entities with waiting vCPUs, by vt */
	struct list_head running;	/* child entities holding lanes */
	double sum_rvt, sum_r;		/* over runnable children: V = sum_rvt / sum_r */
	double vbase;			/* V while no child is runnable */
	double owed;			/* lag moved by a leave or join, not yet shared (rates.c) */
	double wclock;			/* its due clock during a refill or a full retag (rates.c) */
	double wlag;			/* its lag at its parent that wclock stands for (rates.c) */
	double demand;			/* min(quota / period, children's demand), cached */
	bool on_path;			/* demand changed below: rates_update() */
	unsigned int nr_children;	/* child entities: queue capacity */
	unsigned int nr_runnable;	/* runnable vCPUs at or below, running or not */

	/* Bandwidth (cpu.max, cpu.max.burst), in ns; see sched/bandwidth.c. */
	bool bw_enabled;
	uint64_t quota, period, burst;
	uint64_t runtime;		/* left in the pool this period */
	uint64_t runtime_snap;		/* pool right after the last refill */
	uint64_t debt;			/* overrun past an empty pool, paid at the next refill */
	uint64_t phase;			/* the period grid: phase + k * period */
	uint64_t next_refill;
	struct heap_node timer_node;	/* in core.timers while the period timer is active */
	bool idle_period;		/* cfs_b->idle: nothing drawn since the last refill */
	bool throttled;
	bool dry;			/* ran dry in a report, not throttled yet (bw_charge()) */
	uint64_t throttle_clock;	/* throttled_ns accounted up to here */
	unsigned int throttle_count;	/* throttled groups at and above it (cfs_rq->throttle_count) */
	uint64_t local_clock;		/* local_throttled_ns accounted up to here */
	double throttle_credit;		/* lag owed (+) or owing (-) at the refill (throttle()) */
	bool throttle_kept;		/* throttled where the reference is not: keeps its rate */
	double ref_out;			/* throttled, not kept: the reference's dry point (ns) */
	double ref_used;		/* the rate integrated since the period began (bandwidth.c) */
	double ref_rate_was;		/* its rate before a waited block (bw_ref_wait_begin()) */

	/* Tracing (core_trace.c): the group's track, its usage at the last counter sample. */
	uint32_t trace_id;		/* 0: none yet */
	uint64_t trace_usage, trace_at;
};

struct vcpu_core {
	struct sched_entity se;
	struct sched_vcpu *v;
	bool runnable;
	int lane;			/* -1 when not on a lane */
	int told_lane;			/* the lane the runtime was told, -1 if none */
	unsigned int delaying;		/* entities its block left delayed: it still demands */
	double delay_ref_end;		/* when GPS ends the burst it ran ahead (fair_block()) */
	double burst;			/* average service from waking to blocking, 0: unknown */
	double nap;			/* average time from blocking to waking, 0: unknown */
	uint64_t slept_at;		/* blocked at this time + 1, 0: not asleep (fair.c) */
	uint64_t woke_at;		/* last became runnable (fair.c) */
	uint64_t ran;			/* service since it last woke */
	uint64_t resv;			/* slice charged up front, not yet used (fair.c) */
	uint64_t early;			/* run charged before its report came (fair.c) */
	uint64_t held;			/* lane time since its last report (rates.c) */
	uint64_t since;			/* holding a lane without a break since (lanes.c) */
	uint64_t waited;		/* waiting for a lane since it last woke (core_wait.c) */
	/* Waits for a lane, as the runtime was told them (core_wait.c): vsched.vcpu.stat. */
	uint64_t wait_start;		/* runnable without a lane since, SCHED_TIME_NONE if not */
	struct sched_wait wait;
};

struct lane {
	struct vcpu_core *cur;
	uint64_t start;			/* since when cur holds a lane without a break */
	uint64_t rot_until;		/* rotation end while others wait, else NONE */
	uint64_t bw_until;		/* when a capped ancestor's pool runs dry */
	uint64_t pace_until;		/* a paced ancestor gives the lane back (bandwidth.c) */
	bool pace_spent;		/* handed out again at a pace end: no other until put back */
	unsigned int lent;		/* 1 + the vCPU a pace end took it from, 0: none (bw_timer()) */
	uint64_t repay;			/* prepaid slice to pay again (lanes_unpay()) */
	uint64_t deferred_at;		/* when a waiter last deferred its turn's end (lanes_defer()) */
	struct group_core *promised;	/* claims a lane at promised_at (lanes_window_claim()) */
	uint64_t promised_at;
	/* What the runtime was last told, to emit only changes. */
	struct vcpu_core *told_cur;
	uint64_t told_until;
};

struct sched_core {
	struct sched_params params;
	/* params' slice and min_run as every pick and charge compares them (core_set_params()) */
	double slice, min_run;
	uint64_t now;
	struct lane *lanes;
	struct vcpu_core *vcpus;
	struct heap timers;		/* groups with an active period timer, by next_refill */
	unsigned int nr_bw_groups;	/* groups with a finite quota */
	struct vcpu_core *left;		/* blocked on lane left_lane in this event (fair_pick_kept()) */
	unsigned int left_lane;
	unsigned int nr_held;		/* lanes held (lanes_give(), lanes_put_back()) */
	bool lanes_moved;		/* a lane given since lanes_flush() last placed holders */
	bool bw_dry;			/* a pool ran dry in a report: a throttle to make (bandwidth.c) */
	bool lending;			/* a pace end hands a lane out (lanes_expire()) */
	unsigned int nr_idle_groups;
	struct sched_decision *dec;
	size_t nr_dec, cap_dec;
	unsigned long nr_switches;
	uint32_t nr_groups_made;	/* groups created so far: the next one's key */
	bool rates_dirty;		/* everything: configuration changed */
	struct vcpu_core *path_dirty;	/* only this vCPU's runnability changed */
	double *demand, *rate;		/* scratch for fluid_solve_scratch() */
	double *ref_demand;		/* the reference's demand (bandwidth_ref.c, ref_rates()) */
	struct fluid_claim *claims;
	size_t nr_claims;
	/* Delivered capacity (rates.c): CPU reported per ns of lane held, measured. */
	double deliver;			/* smoothed measurement, (0, 1] */
	double dl_cpu, dl_held;		/* the current measurement window */
	double dl_cpu_total, dl_held_total;	/* since the start, for stats */
	struct list_head delayed;	/* delayed entities (fair.c) */
	uint64_t next_release;		/* when the first of them is expected to be repaid */
	double path_wait;		/* a blocking vCPU's wait GPS would not make (rates.c) */
};

struct sched {
	struct group root;
	unsigned int nr_lanes;
	unsigned int nr_vcpus;
	struct sched_vcpu *vcpus;
	pid_t pid;
	const void *lock;	/* sched_set_lock(): held at every entry that changes the core */
	uint64_t last_serial;	/* the last group->serial or cpu_serial handed out */
	uint64_t nr_events;	/* sum of every group's events_gen, removed ones included */
	struct sched_core core;
	struct trace *trace;		/* NULL: not recording (sched/trace.h) */
};

/* The entry points that change the core check their caller holds its lock (debug builds). */
static inline void core_assert_locked(const struct sched *s)
{
	if (s->lock)
		assert_held(s->lock);
}

static inline struct group_core *gcore(const struct group *g)
{
	return g->core;
}

static inline struct vcpu_core *vcore(const struct sched_vcpu *v)
{
	return v->core;
}

static inline struct group_core *se_group(struct sched_entity *se)
{
	return container_of(se, struct group_core, se);
}

static inline struct vcpu_core *se_vcpu(struct sched_entity *se)
{
	return container_of(se, struct vcpu_core, se);
}

/*
 * The tie-break between siblings whose keys are equal: vCPUs before groups, vCPUs by id, groups by
 * creation order. Never by address, which would make a result depend on allocation history.
 */
static inline bool se_before(const struct sched_entity *a, const struct sched_entity *b)
{
	if (a->is_group != b->is_group)
		return !a->is_group;
	return a->key < b->key;
}

/* a's deadline comes first: the order of a group's queue and of pick.c's scan. */
static inline bool dl_before(const struct sched_entity *a, const struct sched_entity *b)
{
	return a->dl < b->dl || (a->dl == b->dl && se_before(a, b));
}

/*
 * A group's queue, by deadline. Ties go by the heap's history (deterministic: the same events
 * give the same order). Breaking them by se_before() instead costs switches: `nested.sim`
 * 2562 -> 3147 lane switches. The queue's operations have the order inlined (heap_*_by()).
 */
static inline bool queue_less(const struct heap_node *a, const struct heap_node *b)
{
	const struct sched_entity *x = container_of(a, struct sched_entity, node);
	const struct sched_entity *y = container_of(b, struct sched_entity, node);

	return x->dl < y->dl;
}

static inline void queue_insert(struct group_core *gc, struct sched_entity *se)
{
	heap_insert_by(&gc->queue, &se->node, queue_less);
}

static inline void queue_remove(struct group_core *gc, struct sched_entity *se)
{
	heap_remove_by(&gc->queue, &se->node, queue_less);
}

/* se's deadline changed. */
static inline void queue_fix(struct group_core *gc, struct sched_entity *se)
{
	heap_fix_by(&gc->queue, &se->node, queue_less);
}

/* core.c: hooks from the tree. */
int core_init(struct sched *s);
void core_exit(struct sched *s);
int core_group_init(struct sched *s, struct group *g);
void core_group_exit(struct sched *s, struct group *g);
void core_group_free_all(struct group *g);
/* Every event and hook ends here: rates, lanes settled, decisions for what changed. */
void core_finish(struct sched *s);
void core_runnable_change(struct sched *s, struct group_core *gc, int d);
/* core_tree.c: the tree's hooks. */
int core_vcpu_prepare_move(struct sched *s, struct sched_vcpu *v, struct group *to);
void core_vcpu_move(struct sched *s, struct sched_vcpu *v, struct group *from);
void core_group_reweight(struct sched *s, struct group *g);
void core_group_idle(struct sched *s, struct group *g);
int core_group_added(struct sched *s, struct group *g);
int core_group_subtree(struct sched *s, struct group *g);
void core_group_bandwidth(struct sched *s, struct group *g);
void core_emit(struct sched *s, enum sched_decision_type type, struct group *g);
/* Grows the decision queue to hold n more; false if memory ran out (the change is told later). */
bool core_dec_grow(struct sched_core *c, size_t n);

/* Room for n more decisions: the common case inline, the growth in core.c. */
static inline bool core_dec_reserve(struct sched_core *c, size_t n)
{
	return c->nr_dec + n <= c->cap_dec || core_dec_grow(c, n);
}

/* core_trace.c: events of the groups, when recording. */
void core_trace_group(struct sched *s, struct group_core *gc, unsigned int kind, uint64_t val);
void core_trace_set(struct sched *s, struct group *g, unsigned int setting);
void core_trace_move(struct sched *s, struct sched_vcpu *v);

/* rates.c: fluid rates of every entity, and the capacity a lane delivers. */
int rates_init(struct sched *s);
void rates_exit(struct sched *s);
int rates_reserve(struct sched *s);
void rates_changed(struct sched *s);
void rates_path_changed(struct sched *s, struct vcpu_core *vc);
void rates_update(struct sched *s);
double rates_clamp_lag(double bound, double lag, double r);
double rates_vcpu_demand(const struct vcpu_core *vc);
void rates_lanes_held(struct sched *s, uint64_t dt);
void rates_delivered(struct sched *s, struct vcpu_core *vc, uint64_t cpu);
void rates_delivery_missed(struct sched *s);

/* bandwidth.c: pools, throttling, period timers, cpu.stat counters; bandwidth_lanes.c: a lane's
 * bandwidth and pace ends. */
void bw_init(struct sched *s);
void bw_charge(struct sched *s, struct group_core *gc, uint64_t delta);
void bw_timer(struct sched *s);
void bw_throttle_dry(struct sched *s);
uint64_t bw_next_timer(const struct sched *s);
void bw_configure(struct sched *s, struct group_core *gc);
bool bw_path_throttled(const struct vcpu_core *vc);
uint64_t bw_lane_until(const struct sched *s, const struct vcpu_core *vc);
bool bw_pool_paced(const struct sched *s, const struct group_core *gc, unsigned int nr_running);
uint64_t bw_lane_pace(const struct sched *s, const struct vcpu_core *vc);
double bw_ancestors_dry(const struct sched *s, const struct group_core *gc);
bool bw_ref_window(struct sched *s, const struct group_core *gc, double *need, double *win);
double bw_waiters_end(struct sched *s, const struct group_core *gc, double win);
double bw_ref_dry_in(const struct sched *s, const struct group_core *gc, double r, double left);
uint64_t bw_lane_owed_end(const struct sched *s, const struct vcpu_core *vc, uint64_t end);
void bw_runnable_changing(struct sched *s, struct group_core *gc);
/* A new group starts held by the throttled groups above it (sync_throttle()). */
void bw_group_init(struct group_core *gc, const struct group_core *parent, uint64_t now);
void bw_throttle_pending(const struct sched *s, const struct group_core *gc, struct cpu_stat *st);
void bw_group_exit(struct sched *s, struct group_core *gc);
void bw_clock(struct sched *s, uint64_t dt);
double bw_ref_rate(struct sched *s, const struct group_core *gc);
unsigned int bw_ref_bound_beside(const struct sched *s, const struct group_core *p,
				 const struct sched_entity *c, double w);
void bw_ref_dry(struct sched *s);
/* At gc's throttle: what the reference still owes it (throttle_credit), its dry point (ref_out). */
void bw_ref_throttle_credit(struct sched *s, struct group_core *gc);
void bw_ref_wait_begin(struct sched *s);
void bw_ref_wait_end(struct sched *s, double wait);

/* core_wait.c: a runnable vCPU left without a lane starts waiting; a grant or a block ends it. */
void core_wait_begin(struct vcpu_core *vc, uint64_t now);
void core_wait_end(struct vcpu_core *vc, uint64_t now);

/* The fair queues (internal_fair.h) and the lanes (internal_lanes.h): every file of sched/
 * includes this header alone and has both. */
#include "internal_fair.h"
#include "internal_lanes.h"

#endif
