// SPDX-License-Identifier: GPL-2.0
/*
 * Guest throughput under the scheduler against no scheduler at all, on one vCPU backend: the
 * same payload VM scheduled and unscheduled, in alternating rounds.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "tput.h"
#include "vmside.h"

static const struct scenario tput[] = {
	{
		.name = "tput-free",
		.what = "2 hogs on 2 lanes, no contention",
		.groups = { { "a", 100 } },
		.vcpus = { { WORK_HOG, "a" }, { WORK_HOG, "a" } },
	},
	{
		.name = "tput-busy",
		.what = "4 hogs in 2 groups on 2 lanes",
		.groups = { { "a", 100 }, { "b", 100 } },
		.vcpus = { { WORK_HOG, "a" }, { WORK_HOG, "a" }, { WORK_HOG, "b" },
			   { WORK_HOG, "b" } },
	},
};

static double total_rate(const struct bench_result *r, unsigned int n)
{
	uint64_t w = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		w += r->work[i];
	return (double)w / r->seconds;
}

#define TPUT_ROUNDS	5

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Scheduled and unscheduled runs alternate in short rounds, so that the shared host's load
 * drifts over both alike. Each scheduled round is compared with the unscheduled one right after
 * it, and the median of those ratios is the figure: a burst of host load inside one round (this
 * host's unscheduled rate moved by up to 8 % between rounds) then moves one ratio, not the
 * result. The ratio of the summed rates is printed beside it.
 *
 * Goals: KVM loses guest work at every exit, so contention (lane changes) may cost it 3 %; the
 * thread backend has no exits to pay, so what it loses is the scheduler's own cost: 1 %.
 */
void tput_run(enum vm_accel accel, unsigned int lanes, double secs)
{
	static struct bench_result r;
	unsigned int i, k;

	printf("\nguest throughput on %s (work units/s, all vCPUs), scheduled vs unscheduled, %d "
	       "alternating rounds; median of the %d paired ratios [min-max], and of the sums:\n",
	       accel_name(accel), 2 * TPUT_ROUNDS, TPUT_ROUNDS);
	for (i = 0; i < sizeof(tput) / sizeof(tput[0]); i++) {
		const struct scenario *s = &tput[i];
		unsigned int n = scn_nr_vcpus(s);
		double w[2] = { 0, 0 }, t[2] = { 0, 0 }, rate[2] = { 0, 0 }, ratio[TPUT_ROUNDS];
		int err = 0, goal;

		for (k = 0; k < 2 * TPUT_ROUNDS && !err; k++) {
			bool sched = !(k & 1);

			err = vmside_run(s, accel, lanes, secs / TPUT_ROUNDS, sched, &r, NULL);
			rate[sched] = total_rate(&r, n);
			w[sched] += rate[sched] * r.seconds;
			t[sched] += r.seconds;
			if (!sched)
				ratio[k / 2] = rate[0] > 0 ? 100.0 * rate[1] / rate[0] : NAN;
		}
		if (err) {
			printf("  %-10s error %d\n", s->name, err);
			continue;
		}
		qsort(ratio, TPUT_ROUNDS, sizeof(ratio[0]), cmp_double);
		goal = i && accel == VM_ACCEL_KVM ? 97 : 99;
		printf("  %-10s %-34s %.2f %% [%.2f-%.2f] (goal >= %d %%: %s); sums: sched %.4g "
		       "unsched %.4g, %.2f %%\n", s->name, s->what, ratio[TPUT_ROUNDS / 2], ratio[0],
		       ratio[TPUT_ROUNDS - 1], goal,
		       ratio[TPUT_ROUNDS / 2] >= goal ? "met" : "MISSED", w[1] / t[1], w[0] / t[0],
		       100.0 * (w[1] / t[1]) / (w[0] / t[0]));
	}
}
