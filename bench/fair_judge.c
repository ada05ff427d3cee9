// SPDX-License-Identifier: GPL-2.0
/*
 * bench-fair's judgement (fair.h): a side's error against the fluid ideal on the CPU the host
 * gave it, binding caps' use against their quota, and each scenario's verdict against the goal
 * and the kernel.
 */
#include <math.h>
#include <stdio.h>

#include "fair.h"
#include "ideal.h"
#include "noise.h"


double fair_noise(const struct summary *s)
{
	return 2.0 * sqrt(s->vnoise * s->vnoise + s->hnoise * s->hnoise);
}

/* CPUs the host gave all vCPUs together over the window. */
static double used_cpus(const struct bench_result *r, unsigned int n)
{
	uint64_t ns = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		ns += r->vcpu_ns[i];
	return (double)ns / (r->seconds * 1e9);
}

/* A group's share of what all vCPUs together got, in percent of lanes. */
static double norm_pct(const struct bench_result *r, unsigned int g, unsigned int n)
{
	uint64_t all = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		all += r->vcpu_ns[i];
	return all ? 100.0 * (double)r->group_ns[g] / (double)all : 0;
}

/*
 * The ideal on the CPU the host actually gave a side, in percent of lanes: with every lane busy
 * (the ideal at full capacity saturates P), each lane delivered used / P CPU. Weights share that;
 * caps stay absolute. Where the ideal does not saturate P, lanes sat idle by design and nothing
 * says what they would have delivered: the full-capacity ideal is used.
 */
static void ideal_given(const struct scenario *s, const double *ideal, double used,
			unsigned int lanes, double *out)
{
	unsigned int g, ng = scn_nr_groups(s);
	double tot = 0, deliver = used / lanes;

	for (g = 0; g < ng; g++) {
		out[g] = ideal[g];
		if (scn_parent_index(s, g) < 0)
			tot += ideal[g];
	}
	if (tot < 99.9 || !(deliver > 0) || deliver >= 1.0)
		return;
	if (ideal_shares_at(s, lanes, deliver, out))
		for (g = 0; g < ng; g++)
			out[g] = ideal[g];
}

/*
 * err is the error at full capacity P, as the brief defines it. This machine is shared, so the
 * host gives each side less than P by an amount neither scheduler controls; "nerr" compares each
 * group's share of the CPU its side actually got with its share of the ideal on that capacity
 * (ideal_given(): weights share what was given, cpu.max caps stay absolute), which takes that
 * out.
 */
void fair_eval_side(const struct scenario *s, const double *ideal, unsigned int lanes,
		    struct side *sd)
{
	unsigned int g, ng = scn_nr_groups(s), nv = scn_nr_vcpus(s);
	double tot = 0;

	sd->used = used_cpus(&sd->r, nv);
	ideal_given(s, ideal, sd->used, lanes, sd->given);
	for (g = 0; g < ng; g++)
		if (scn_parent_index(s, g) < 0)
			tot += sd->given[g];
	sd->max = sd->noise = 0;
	for (g = 0; g < ng; g++) {
		sd->nerr[g] = tot > 0 ? fabs(norm_pct(&sd->r, g, nv) - 100.0 * sd->given[g] / tot) :
					NAN;
		if (sd->nerr[g] > sd->max) {
			sd->max = sd->nerr[g];
			sd->noise = noise_nerr(&sd->r, s, g, sd->given[g] / tot);
		}
	}
}

/* A cap that binds in the ideal: judged by its cpu.max line instead. */
bool fair_cap_binds(const struct scenario *s, const double *ideal, unsigned int g,
		    unsigned int lanes)
{
	const struct scn_group *sg = &s->groups[g];

	return sg->quota_us && fabs(ideal[g] - 100.0 * (double)sg->quota_us /
			(double)(sg->period_us ? sg->period_us : 100000) / lanes) < 0.01;
}

/* A binding cap's quota in % of capacity. */
double fair_cap_pct(const struct scn_group *sg, unsigned int lanes)
{
	return 100.0 * (double)sg->quota_us / (double)(sg->period_us ? sg->period_us : 100000) /
	       lanes;
}

/* The largest deviation (signed) of a binding cap's use from its quota, in % of quota. */
double fair_cap_worst(const struct scenario *s, const double *ideal, unsigned int lanes,
		      const struct side *sd)
{
	double worst = 0;
	unsigned int g;

	for (g = 0; g < scn_nr_groups(s); g++) {
		double cap, dev;

		if (!fair_cap_binds(s, ideal, g, lanes))
			continue;
		cap = fair_cap_pct(&s->groups[g], lanes);
		dev = 100.0 * (result_pct(&sd->r, sd->r.group_ns[g]) - cap) / cap;
		if (fabs(dev) > fabs(worst))
			worst = dev;
	}
	return worst;
}

/* CPUs the ideal gives all groups together. */
double fair_ideal_cpus(const struct scenario *s, const double *ideal, unsigned int lanes)
{
	unsigned int g;
	double tot = 0;

	for (g = 0; g < scn_nr_groups(s); g++)
		if (scn_parent_index(s, g) < 0)
			tot += ideal[g];
	return tot * lanes / 100.0;
}

/*
 * Against the kernel, a difference inside the noise is not a loss: both sides at their noise
 * floor win and lose such runs by turns. It is still printed, so nobody mistakes it for a win.
 */
const char *fair_verdict(const struct summary *s)
{
	static char buf[160];

	if (s->vmax > s->goal || (s->hok && s->vmax > s->hmax + fair_noise(s)))
		return "MISSED";
	if (s->capped && fabs(s->vcap) > CAP_GOAL) {
		/* A cap not reached on a host that gave less than the ideal needs is still
		   not met: say by how much the host fell short, so nobody reads it as a pass. */
		snprintf(buf, sizeof(buf), "MISSED (cpu.max %+.2f %% of quota, kernel %+.2f %%%s)",
			 s->vcap, s->hcap, s->used < 0.99 * s->need ? "; the host gave less than "
			 "the ideal needs" : "");
		return buf;
	}
	if (s->capped) {
		snprintf(buf, sizeof(buf), "%s (cpu.max %+.2f %% of quota, kernel %+.2f %%)",
			 s->hok && s->vmax > s->hmax ? "met, worse than the kernel within noise" :
			 "met", s->vcap, s->hcap);
		return buf;
	}
	return s->hok && s->vmax > s->hmax ? "met (worse than the kernel within noise)" : "met";
}
