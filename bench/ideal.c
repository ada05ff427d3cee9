// SPDX-License-Identifier: GPL-2.0
/*
 * The fluid ideal of a scenario from the core's own solver (sched/fluid.c): the scenario's groups
 * are built in a scratch group tree through the same launch specs as the VM side, each vCPU's
 * demand is its duty fraction (1 for a hog), and fluid_solve() water-fills P lanes.
 */
#include <errno.h>
#include <stdlib.h>

#include "ideal.h"
#include "sched/fluid.h"
#include "sched/group.h"
#include "vmside.h"
#include "vsched.h"

static double vcpu_demand(const struct scn_vcpu *v)
{
	if (v->kind == WORK_HOG)
		return 1.0;
	return (double)v->busy_us / (double)(v->busy_us + v->sleep_us);
}

int ideal_shares(const struct scenario *s, unsigned int lanes, double *pct)
{
	unsigned int ng = scn_nr_groups(s), nv = scn_nr_vcpus(s), i;
	double demand[SCN_MAX_VCPUS], rate[SCN_MAX_VCPUS];
	struct vsched *vs = vsched_create(lanes, nv);
	int ret;

	if (!vs)
		return -ENOMEM;
	ret = vmside_groups(vs, s);
	for (i = 0; i < nv; i++)
		demand[i] = vcpu_demand(&s->vcpus[i]);
	if (!ret) {
		vsched_lock(vs);
		ret = fluid_solve(vsched_sched(vs), demand, rate);
		for (i = 0; !ret && i < ng; i++) {
			struct group *g = group_lookup(vsched_sched(vs), s->groups[i].path);

			pct[i] = g ? 100.0 * fluid_group_rate(vsched_sched(vs), g, rate) / lanes : 0;
		}
		vsched_unlock(vs);
	}
	vsched_destroy(vs);
	return ret;
}
