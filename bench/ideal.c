// SPDX-License-Identifier: GPL-2.0
/*
 * The fluid ideal of a scenario from the core's own solver (sched/fluid.c): the scenario's groups
 * are built in a scratch group tree through the same launch specs as the VM side, each vCPU's
 * demand is its duty fraction (1 for a hog), and fluid_solve() water-fills P lanes; or P lanes
 * that deliver less than a CPU each (fluid_solve_delivered(): caps stay absolute).
 *
 * With cpu.max caps the ideal is the kernel's semantics, not a rate cap: a capped group runs at
 * its weighted share until its pool is dry, then is throttled until the refill while its
 * siblings share its part. That is the simulator's ideal (sched/sim/sim_ideal.c), integrated over
 * ten seconds of the scenario written as a scenario file (deliver rounded to a whole per cent).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ideal.h"
#include "sched/fluid.h"
#include "sched/group.h"
#include "sched/sim.h"
#include "vmside.h"
#include "vsched.h"

#define SIM_TEXT_LEN	4096

static bool has_caps(const struct scenario *s)
{
	unsigned int g, ng = scn_nr_groups(s);

	for (g = 0; g < ng; g++)
		if (s->groups[g].quota_us)
			return true;
	return false;
}

/* s as a scenario file of the simulator. */
static int scn_to_sim(const struct scenario *s, unsigned int lanes, double deliver, char *buf,
		      size_t len)
{
	unsigned int g, v, ng = scn_nr_groups(s), nv = scn_nr_vcpus(s);
	long pct = lround(deliver * 100);
	size_t n;

	n = (size_t)snprintf(buf, len, "lanes %u\nduration 10s\ndeliver %ld%%\n", lanes,
			     pct < 1 ? 1 : pct > 100 ? 100 : pct);
	for (g = 0; g < ng && n < len; g++) {
		const struct scn_group *sg = &s->groups[g];

		/* An idle group has no weight of its own: `vsched sim` refuses one beside idle. */
		n += sg->idle ? (size_t)snprintf(buf + n, len - n, "group /%s", sg->path) :
				(size_t)snprintf(buf + n, len - n, "group /%s weight %u", sg->path,
						 sg->weight ? sg->weight : 100);
		if (sg->quota_us && n < len)
			n += (size_t)snprintf(buf + n, len - n, " max %lluus %lluus burst %lluus",
					      (unsigned long long)sg->quota_us,
					      (unsigned long long)(sg->period_us ? sg->period_us :
										  100000),
					      (unsigned long long)sg->burst_us);
		if (n < len)
			n += (size_t)snprintf(buf + n, len - n, "%s\n", sg->idle ? " idle 1" : "");
	}
	for (v = 0; v < nv && n < len; v++) {
		const struct scn_vcpu *sv = &s->vcpus[v];

		if (sv->kind == WORK_HOG)
			n += (size_t)snprintf(buf + n, len - n, "vcpu %u /%s hog\n", v, sv->group);
		else
			n += (size_t)snprintf(buf + n, len - n, "vcpu %u /%s duty %uus %uus\n", v,
					      sv->group, sv->busy_us, sv->busy_us + sv->sleep_us);
	}
	return n < len ? 0 : -ENOSPC;
}

static int ideal_capped(const struct scenario *s, unsigned int lanes, double deliver, double *pct)
{
	unsigned int g, ng = scn_nr_groups(s);
	struct sim_scenario *sc;
	struct sim_result *r;
	char text[SIM_TEXT_LEN], path[256];
	double usage, ideal;
	int ret;

	ret = scn_to_sim(s, lanes, deliver, text, sizeof(text));
	if (!ret)
		ret = sim_parse(text, &sc, NULL);
	if (ret)
		return ret;
	ret = sim_ideal_only(sc, &r, NULL);
	sim_scenario_free(sc);
	if (ret)
		return ret;
	for (g = 0; g < ng && !ret; g++) {
		snprintf(path, sizeof(path), "/%s", s->groups[g].path);
		ret = sim_group_usage(r, path, &usage, &ideal);
		pct[g] = 100.0 * ideal / sim_capacity_ns(r);
	}
	sim_result_free(r);
	return ret;
}

static double vcpu_demand(const struct scn_vcpu *v)
{
	if (v->kind == WORK_HOG)
		return 1.0;
	return (double)v->busy_us / (double)(v->busy_us + v->sleep_us);
}

int ideal_shares(const struct scenario *s, unsigned int lanes, double *pct)
{
	return ideal_shares_at(s, lanes, 1.0, pct);
}

int ideal_shares_at(const struct scenario *s, unsigned int lanes, double deliver, double *pct)
{
	unsigned int ng = scn_nr_groups(s), nv = scn_nr_vcpus(s), i;
	double demand[SCN_MAX_VCPUS], rate[SCN_MAX_VCPUS];
	struct vsched *vs;
	int ret;

	if (has_caps(s))
		return ideal_capped(s, lanes, deliver, pct);
	vs = vsched_create(lanes, nv);
	if (!vs)
		return -ENOMEM;
	ret = vmside_groups(vs, s);
	for (i = 0; i < nv; i++)
		demand[i] = vcpu_demand(&s->vcpus[i]);
	if (!ret) {
		vsched_lock(vs);
		ret = fluid_solve_delivered(vsched_sched(vs), demand, rate, deliver);
		for (i = 0; !ret && i < ng; i++) {
			struct group *g = group_lookup(vsched_sched(vs), s->groups[i].path);

			pct[i] = g ? 100.0 * fluid_group_rate(vsched_sched(vs), g, rate) / lanes : 0;
		}
		vsched_unlock(vs);
	}
	vsched_destroy(vs);
	return ret;
}
