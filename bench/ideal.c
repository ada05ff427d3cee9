// SPDX-License-Identifier: GPL-2.0
/*
 * Fluid ideal of a scenario (brief section 3): capacity P at the root; at each node the capacity
 * is split among the children by weight, no child above its demand, what a satisfied child
 * leaves over goes to the others (water-filling). A vCPU's demand is its duty fraction (1 for a
 * hog), a group's is min(quota/period, the sum of its children's demands). vCPUs compete with
 * sibling groups at the weight of a nice-0 task.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "ideal.h"

#define NODE_MAX	(SCN_MAX_GROUPS + SCN_MAX_VCPUS + 1)

struct node {
	int parent;		/* node index, -1 for the root */
	double weight, demand, alloc;
	int group;		/* scenario group index, or -1 */
};

static double vcpu_demand(const struct scn_vcpu *v)
{
	if (v->kind == WORK_HOG)
		return 1.0;
	return (double)v->busy_us / (double)(v->busy_us + v->sleep_us);
}

/* Demands bottom-up: children always have larger indices than their parents. */
static void demands(struct node *n, int nn, const struct scenario *s)
{
	int i;

	for (i = nn - 1; i > 0; i--) {
		const struct scn_group *g = n[i].group >= 0 ? &s->groups[n[i].group] : NULL;

		if (g && g->quota_us) {
			double cap = (double)g->quota_us / (double)(g->period_us ? g->period_us : 100000);

			if (n[i].demand > cap)
				n[i].demand = cap;
		}
		n[n[i].parent].demand += n[i].demand;
	}
}

/* Water-filling of n[p].alloc among p's children, top-down. */
static void split(struct node *n, int nn, int p)
{
	bool done[NODE_MAX] = { false };
	double left = n[p].alloc;
	bool again = true;
	int i;

	while (again) {
		double w = 0;

		again = false;
		for (i = 0; i < nn; i++)
			if (n[i].parent == p && !done[i])
				w += n[i].weight;
		if (w <= 0)
			break;
		for (i = 0; i < nn; i++) {
			if (n[i].parent != p || done[i] || left * n[i].weight / w < n[i].demand)
				continue;
			n[i].alloc = n[i].demand;
			left -= n[i].demand;
			done[i] = true;
			again = true;
		}
		if (!again)
			for (i = 0; i < nn; i++)
				if (n[i].parent == p && !done[i])
					n[i].alloc = left * n[i].weight / w;
	}
	for (i = 0; i < nn; i++)
		if (n[i].parent == p)
			split(n, nn, i);
}

int ideal_shares(const struct scenario *s, unsigned int lanes, double capacity, double *pct)
{
	unsigned int ng = scn_nr_groups(s), nv = scn_nr_vcpus(s), i;
	struct node n[NODE_MAX];
	int gnode[SCN_MAX_GROUPS], nn = 1;

	n[0] = (struct node){ -1, 1, 0, capacity < lanes ? capacity : lanes, -1 };
	for (i = 0; i < ng; i++) {
		int pi = scn_parent_index(s, i);
		const struct scn_group *g = &s->groups[i];

		if (pi >= (int)i)
			return -EINVAL;	/* parents come first */
		gnode[i] = nn;
		n[nn++] = (struct node){ pi < 0 ? 0 : gnode[pi],
					 g->idle ? 3.0 : 1024.0 * (g->weight ? g->weight : 100) / 100,
					 0, 0, (int)i };
	}
	for (i = 0; i < nv; i++) {
		int gi = scn_group_index(s, s->vcpus[i].group);

		if (gi < 0)
			return -EINVAL;
		n[nn++] = (struct node){ gnode[gi], 1024.0, vcpu_demand(&s->vcpus[i]), 0, -1 };
	}
	demands(n, nn, s);
	if (n[0].alloc > n[0].demand)
		n[0].alloc = n[0].demand;
	split(n, nn, 0);
	for (i = 0; i < ng; i++)
		pct[i] = 100.0 * n[gnode[i]].alloc / lanes;
	return 0;
}
