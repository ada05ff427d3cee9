// SPDX-License-Identifier: GPL-2.0
/*
 * bench-trace: what recording a trace (--trace) costs the runtime. The same payload VM runs
 * scheduled with and without a recorder attached, in alternating rounds so the shared host's
 * load drifts over both alike: guest throughput (work units/s, all vCPUs) as the median of the
 * paired ratios, and the group error (|share - ideal| of the weighted groups, % of the CPU the
 * vCPUs got) of each side, with the events recorded and dropped.
 *
 * Usage: bench-trace [-s SECONDS] [-a kvm|thread]   (SECONDS per side, all rounds; default 20)
 * Goals (reported, not enforced): throughput >= 99 % of untraced, group error unchanged within
 * the rounds' spread.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "sched/trace.h"
#include "util/diag.h"
#include "vmside.h"

#define ROUNDS		6
#define LANES		2

/* Weights 100:300 over two hogs each: the ideal is 25 % and 75 % of what the vCPUs get. */
static const struct scenario trace_scn = {
	.name = "trace-w",
	.what = "4 hogs, weights 100:300, 2 lanes",
	.groups = { { "a", 100 }, { "b", 300 } },
	.vcpus = { { WORK_HOG, "a" }, { WORK_HOG, "a" }, { WORK_HOG, "b" }, { WORK_HOG, "b" } },
};

static const double trace_ideal[] = { 25.0, 75.0 };

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Work units per second of wall time, or (per_cpu) per second of the vCPU threads' CPU time. */
static double work_rate(const struct bench_result *r, bool per_cpu)
{
	uint64_t w = 0, cpu = 0;
	unsigned int i;

	for (i = 0; i < scn_nr_vcpus(&trace_scn); i++) {
		w += r->work[i];
		cpu += r->vcpu_ns[i];
	}
	return (double)w / (per_cpu ? (double)cpu / 1e9 : r->seconds);
}

/* The larger group's distance from its ideal, in % of the CPU all vCPUs got. */
static double group_error(const struct bench_result *r)
{
	double used = (double)(r->group_ns[0] + r->group_ns[1]), e = 0;
	unsigned int g;

	for (g = 0; g < 2 && used > 0; g++)
		e = fmax(e, fabs(100.0 * (double)r->group_ns[g] / used - trace_ideal[g]));
	return e;
}

static void mean_sd(const double *x, unsigned int n, double *mean, double *sd)
{
	double s = 0, q = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		s += x[i];
	*mean = s / n;
	for (i = 0; i < n; i++)
		q += (x[i] - *mean) * (x[i] - *mean);
	*sd = n > 1 ? sqrt(q / (n - 1)) : 0;
}

/* Events the recorder kept and dropped. */
static void trace_counts(struct trace *tr, uint64_t *kept, uint64_t *dropped)
{
	static struct trace_event ev[1 << 20];

	*kept = trace_collect(tr, ev, 1 << 20, dropped);
}

static int trace_cost(enum vm_accel accel, double secs)
{
	static struct bench_result r;
	double rate[2], eff[2], ratio[ROUNDS], eratio[ROUNDS], err[2][ROUNDS], m[2], sd[2], med;
	uint64_t kept = 0, dropped = 0, k1, d1;
	unsigned int k;
	int ret;

	printf("recording cost on %s: %s, %d alternating rounds of %.1f s\n", accel_name(accel),
	       trace_scn.what, 2 * ROUNDS, secs / ROUNDS);
	for (k = 0; k < 2 * ROUNDS; k++) {
		bool traced = k & 1;
		struct trace *tr = NULL;

		if (traced && (ret = trace_create(scn_nr_vcpus(&trace_scn), LANES, 0, 0, &tr)))
			return ret;
		ret = vmside_run_traced(&trace_scn, accel, LANES, secs / ROUNDS, true, tr, &r, NULL);
		if (tr) {
			trace_counts(tr, &k1, &d1);
			kept += k1;
			dropped += d1;
			trace_destroy(tr);
		}
		if (ret)
			return ret;
		rate[traced] = work_rate(&r, false);
		eff[traced] = work_rate(&r, true);
		err[traced][k / 2] = group_error(&r);
		if (traced) {
			ratio[k / 2] = 100.0 * rate[1] / rate[0];
			eratio[k / 2] = 100.0 * eff[1] / eff[0];
		}
	}
	qsort(ratio, ROUNDS, sizeof(ratio[0]), cmp_double);
	qsort(eratio, ROUNDS, sizeof(eratio[0]), cmp_double);
	mean_sd(err[0], ROUNDS, &m[0], &sd[0]);
	mean_sd(err[1], ROUNDS, &m[1], &sd[1]);
	med = (ratio[ROUNDS / 2 - 1] + ratio[ROUNDS / 2]) / 2;
	printf("  throughput traced/untraced: median %.2f %% [%.2f-%.2f] (goal >= 99 %%: %s)\n",
	       med, ratio[0], ratio[ROUNDS - 1], med >= 99 ? "met" : "MISSED");
	/* Work per CPU-second of the vCPU threads, which run the recording: the host's other load
	 * moves it far less than it moves work per wall second. */
	printf("  work per vCPU CPU-second traced/untraced: median %.2f %% [%.2f-%.2f]\n",
	       (eratio[ROUNDS / 2 - 1] + eratio[ROUNDS / 2]) / 2, eratio[0], eratio[ROUNDS - 1]);
	printf("  group error (%% of used CPU): untraced %.3f +- %.3f, traced %.3f +- %.3f "
	       "(mean +- sd of %d rounds)\n", m[0], sd[0], m[1], sd[1], ROUNDS);
	printf("  events recorded %llu (%.0f per s), dropped %llu\n", (unsigned long long)kept,
	       (double)kept / secs, (unsigned long long)dropped);
	return 0;
}

/* One recording call on the hot path: a vCPU state change (a slice, every other one a lane's). */
static void trace_event_ns(void)
{
	const unsigned int n = 1U << 20;
	struct timespec a, b;
	struct trace *tr;
	unsigned int i;
	uint64_t kept, dropped;

	if (trace_create(1, 1, 2 * n, 0, &tr))
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < n; i++)
		trace_vcpu_state(tr, 0, i & 1 ? TRACE_V_WAITING : TRACE_V_RUNNING, 0, i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	trace_counts(tr, &kept, &dropped);
	printf("one vCPU state change recorded: %.1f ns (%u changes, %llu events)\n",
	       ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / n, n,
	       (unsigned long long)kept);
	trace_destroy(tr);
}

int main(int argc, char **argv)
{
	enum vm_accel accels[2], only = VM_ACCEL_AUTO;
	bool pick = false;
	unsigned int n, i;
	double secs = 20;
	struct diag why;
	int opt, ret = 0;

	while ((opt = getopt(argc, argv, "s:a:h")) != -1) {
		switch (opt) {
		case 's':
			secs = atof(optarg);
			break;
		case 'a':
			pick = true;
			if (accel_parse(optarg, &only) || only == VM_ACCEL_AUTO) {
				fprintf(stderr, "bench-trace: -a kvm|thread, not '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "usage: bench-trace [-s SECONDS] [-a kvm|thread]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (!(secs >= 2)) {
		fprintf(stderr, "bench-trace: -s SECONDS must be at least 2\n");
		return 2;
	}
	trace_event_ns();
	diag_init(&why, NULL);
	n = vmside_backends(accels, &why);
	if (n < 2)
		printf("(kvm: %s)\n", why.msg);
	for (i = 0; i < n; i++)
		if (!pick || accels[i] == only)
			ret |= trace_cost(accels[i], secs);
	diag_free(&why);
	return ret ? 1 : 0;
}
