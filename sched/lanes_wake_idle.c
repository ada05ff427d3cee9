// SPDX-License-Identifier: GPL-2.0
/*
 * The cpu.idle rule of a wake, read only: the lane a waking vCPU would take from a cpu.idle
 * holder at once, for host mode's offers of a held lane (sched_wake_takes_lane()); the claim
 * itself is lanes_wake.c's, virtual time's lanes_wake_vt.c's. docs/scheduler.md §3 "Wakes".
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"
#include "sched/fluid.h"

/*
 * Whether er, cpu.idle, holds lanes more than half a lane over the rate a wake of vCPU id gives
 * it (idle_over() after the wake; RATE_MARGIN short of the edge is no). The rates are the
 * fluid ideal solved with id's demand added, the water-filling rates_update() does.
 */
static bool idle_over_after(const struct sched *cs, unsigned int id, struct sched_entity *er)
{
	struct sched *s = (struct sched *)cs;	/* the solver's scratch only */
	double *rate = malloc(2 * s->nr_vcpus * sizeof(double)), *demand, r;
	void *cl = malloc(fluid_scratch_size(s) * fluid_claim_size());
	unsigned int i;
	bool over = false;

	if (rate && cl) {
		demand = rate + s->nr_vcpus;
		for (i = 0; i < s->nr_vcpus; i++)
			demand[i] = rates_vcpu_demand(&s->core.vcpus[i]);
		demand[id] = 1.0;
		fluid_solve_scratch(s, demand, rate, cl, FLUID_NO_CAPS);
		r = er->is_group ? fluid_group_rate(s, se_group(er)->g, rate) :
				   rate[se_vcpu(er)->v->id];
		over = (double)er->nr_running > r + 0.5 + 1e-6;
	}
	free(rate);
	free(cl);
	return over;
}

/* Whether id or a group above it is cpu.idle: only such a holder is taken by that rule. */
bool sched_vcpu_idle_path(const struct sched *s, unsigned int id)
{
	const struct sched_entity *se;

	if (id >= s->nr_vcpus)
		return false;
	for (se = &s->core.vcpus[id].se; se; se = se->parent ? &se->parent->se : NULL)
		if (se->idle)
			return true;
	return false;
}

/*
 * The lane vCPU id would take at once if it became runnable at any moment from *from until the
 * core's next event, by the cpu.idle rule of lanes_waiter_arrived() (a holder idle at the level
 * where the two meet, against a waker that is not, over its rate: idle_over()). Read only, for
 * host mode's offers of a held lane, which must be conservative: every lane held, none by id
 * itself, the first such lane, and every lane before it one that cannot defer the preemption.
 * Such a lane can only defer it while kept (lane_kept()), and whether its holder owns its lane
 * is known only after the wake's new rates (a holder at rate 1 may drop below it as the waker
 * takes its share, then, kept inside its min_run and far enough ahead, it deferred the
 * preemption: tests/unit/test_core_wake_lane.c). So the rule holds from the moment every lane
 * before it is past its holder's min_run: kept by time no lane becomes again without an event,
 * and owned or not, the core then skips it or only weighs it, and the cpu.idle lane comes
 * first. -1: none.
 */
int sched_wake_idle_lane(const struct sched *s, unsigned int id, uint64_t *from)
{
	const struct vcpu_core *vc;
	uint64_t t = s->core.now;
	unsigned int l;

	if (id >= s->nr_vcpus)
		return -1;
	vc = &s->core.vcpus[id];
	if (vc->runnable || lanes_path_throttled(&vc->se))
		return -1;
	for (l = 0; l < s->nr_lanes; l++) {
		const struct lane *ln = &s->core.lanes[l];
		struct sched_entity *ew = (struct sched_entity *)&vc->se, *er;

		if (!ln->cur || ln->cur == vc || ln->cur->told_lane < 0)
			return -1;
		er = &ln->cur->se;
		common_level(&ew, &er);
		/*
		 * idle_over() at the rates the wake makes: a wake adds demand only outside er, so
		 * er's rate can only fall, and over now is over then; otherwise er's rate after
		 * the wake, solved as lanes_wake_vt.c solves it, tells, unless it is too near
		 * the edge to be sure.
		 */
		if (er->idle && !ew->idle) {
			if ((double)er->nr_running <= er->rate + 0.5 &&
			    !idle_over_after(s, id, er))
				return -1;
			*from = t;
			return (int)l;
		}
		if (ln->start + s->core.params.min_run_ns > t)
			t = ln->start + s->core.params.min_run_ns;
	}
	return -1;
}

/* The cpu.idle rule first (any number of lanes), then virtual time (one lane, lanes_wake_vt.c). */
int sched_wake_takes_lane(const struct sched *s, unsigned int id, uint64_t *from)
{
	int l = sched_wake_idle_lane(s, id, from);

	return l >= 0 ? l : sched_wake_vt_lane(s, id, from);
}
