// SPDX-License-Identifier: GPL-2.0
/*
 * bench-fair: every fairness scenario as a payload VM under vsched and as host threads under the
 * host kernel's cgroup cpu controller, in the same run, against the fluid ideal; then cpu.max
 * accuracy, guest throughput scheduled vs unscheduled, and wake-to-run delays.
 *
 * Usage: bench-fair [-n] [-s SECONDS] [-P LANES] [-a kvm|thread] [SCENARIO... | tput]
 * -n: only check that every scenario's groups and ideal can be made (integration test).
 * Goals (reported, not enforced): max group error <= 1 % of capacity on hogs, <= 2 % with
 * duty or halt-duty vCPUs, never worse than the kernel (beyond the window noise, noise.c);
 * cpu.max within +-1 %; throughput loss <= 1 % uncontended, <= 3 % contended on KVM (tput.c).
 * The vsched side runs on every vCPU backend there is (KVM, thread), each against the same
 * kernel run.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv.h"
#include "fair.h"
#include "host.h"
#include "ideal.h"
#include "noise.h"
#include "tput.h"
#include "vmside.h"
#include "vsched.h"

#define MIN_SECONDS	5.0

#define MAX_SIDES	3	/* vsched on kvm and on thread, then the kernel */

static struct side sides[MAX_SIDES];
static unsigned int nr_sides;
static struct side *kside;	/* the kernel's, NULL without a cgroup cpu controller */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t host_wake_quantile(struct bench_result *r, double q)
{
	size_t i;

	if (!r->nr_wake)
		return 0;
	qsort(r->wake_ns, r->nr_wake, sizeof(r->wake_ns[0]), cmp_u32);
	i = (size_t)(q * r->nr_wake);
	return r->wake_ns[i < r->nr_wake ? i : r->nr_wake - 1];
}

/* Every side's shares beside the ideal; a summary per vsched side against the kernel. */
static void print_scenario(const struct scenario *s, const double *ideal, unsigned int lanes,
			   struct summary *sums, unsigned int *nsum)
{
	unsigned int g, k, ng = scn_nr_groups(s);
	bool capped = false;

	printf("\n%s: %s\n  CPUs the host gave:", s->name, s->what);
	for (k = 0; k < nr_sides; k++) {
		if (sides[k].ok)
			fair_eval_side(s, ideal, lanes, &sides[k]);
		printf(" %s %.3f%s", sides[k].name, sides[k].ok ? sides[k].used : NAN,
		       k + 1 < nr_sides ? "," : "");
	}
	printf(" (of %u)\n  %-8s %7s", lanes, "group", "ideal%");
	for (k = 0; k < nr_sides; k++)
		printf(" | %7s%% %6s %7s %6s", sides[k].name, "err", "given%", "nerr");
	printf("\n");
	for (g = 0; g < ng; g++) {
		printf("  %-8s %7.2f", s->groups[g].path, ideal[g]);
		for (k = 0; k < nr_sides; k++) {
			const struct side *sd = &sides[k];
			double v = sd->ok ? result_pct(&sd->r, sd->r.group_ns[g]) : NAN;

			printf(" | %8.2f %6.2f %7.2f %6.2f", v, fabs(v - ideal[g]),
			       sd->ok ? sd->given[g] : NAN, sd->ok ? sd->nerr[g] : NAN);
		}
		printf("\n");
		capped |= fair_cap_binds(s, ideal, g, lanes);
	}
	printf("  max nerr (+-: standard error, from %d readings in the window):", RESULT_STEPS + 1);
	for (k = 0; k < nr_sides; k++)
		printf(" %s %.2f %% (+-%.2f)%s", sides[k].name, sides[k].ok ? sides[k].max : NAN,
		       sides[k].ok ? sides[k].noise : NAN, k + 1 < nr_sides ? "," : "");
	printf("; goal <= %.0f %%\n", s->has_sleepers ? 2.0 : 1.0);
	for (k = 0; k < nr_sides; k++) {
		const struct side *sd = &sides[k];

		if (!sd->vsched || !sd->ok)
			continue;
		sums[(*nsum)++] = (struct summary){
			.name = s->name, .side = sd->name, .vmax = sd->max, .vnoise = sd->noise,
			.goal = s->has_sleepers ? 2.0 : 1.0, .capped = capped,
			.hok = kside && kside->ok, .hmax = kside && kside->ok ? kside->max : NAN,
			.hnoise = kside && kside->ok ? kside->noise : NAN,
			.vcap = fair_cap_worst(s, ideal, lanes, sd),
			.hcap = kside && kside->ok ? fair_cap_worst(s, ideal, lanes, kside) : NAN,
			.used = sd->used, .need = fair_ideal_cpus(s, ideal, lanes),
		};
	}
}

/* cpu.max: usage of every capped group whose cap binds, against quota/period. */
static void print_caps(const struct scenario *s, const double *ideal, unsigned int lanes)
{
	unsigned int g, k;

	for (g = 0; g < scn_nr_groups(s); g++) {
		const struct scn_group *sg = &s->groups[g];
		double cap;

		if (!fair_cap_binds(s, ideal, g, lanes))
			continue;
		cap = fair_cap_pct(sg, lanes);
		printf("  cpu.max %-10s %-6s quota %.2f %%:", s->name, sg->path, cap);
		for (k = 0; k < nr_sides; k++) {
			const struct side *sd = &sides[k];
			double v = result_pct(&sd->r, sd->r.group_ns[g]), dev;

			if (!sd->ok)
				continue;
			dev = 100.0 * (v - cap) / cap;
			printf(" %s %+.2f %% of quota (nr_throttled +%llu) %s%s", sd->name, dev,
			       (unsigned long long)sd->r.nr_throttled[g],
			       fabs(dev) <= CAP_GOAL ? "met" : "MISSED",
			       k + 1 < nr_sides ? "," : "");
		}
		printf("; goal +-%.0f %%\n", CAP_GOAL);
	}
}

/*
 * Wake-to-run, lane handoffs and the runtime's counters of one vsched side. The counters span
 * the VM's whole life (start, warm-up, window), which on a loaded host is longer than the
 * nominal warm-up + window: shares of it are of the life measured (lane handoffs read 110 % of
 * the nominal one at load 26).
 */
static void print_runtime(const struct side *sd, unsigned int lanes)
{
	const struct runtime_stats *st = &sd->rst;
	double secs = sd->r.life_s;

	if (st->nr_wake)
		printf("  %s: wake-to-run of sleeping vCPUs p50 %.0f us p99 %.0f us (%llu wakes)",
		       sd->name, runtime_wake_quantile(st, 0.5) / 1e3,
		       runtime_wake_quantile(st, 0.99) / 1e3, (unsigned long long)st->nr_wake);
	if (st->nr_wake && kside && kside->ok)
		printf("; kernel p50 %.0f us p99 %.0f us (%u wakes)",
		       host_wake_quantile(&kside->r, 0.5) / 1e3,
		       host_wake_quantile(&kside->r, 0.99) / 1e3, kside->r.nr_wake);
	if (st->nr_wake)
		printf("\n");
	if (st->nr_handoff)
		printf("  %s: lane handoff (grant -> guest) p50 %.0f us p99 %.0f us; lane time in "
		       "handoffs %.2f %% (whole run)\n", sd->name,
		       runtime_hist_quantile(st->handoff_hist, st->nr_handoff, 0.5) / 1e3,
		       runtime_hist_quantile(st->handoff_hist, st->nr_handoff, 0.99) / 1e3,
		       100.0 * (double)st->handoff_ns / (secs * 1e9 * lanes));
	if (st->nr_halt_wake)
		printf("  %s: halted vCPUs' wake-up -> lane p50 %.0f us p90 %.0f us p99 %.0f us "
		       "mean %.0f us (%llu wakes)\n", sd->name,
		       runtime_hist_quantile(st->halt_wake_hist, st->nr_halt_wake, 0.5) / 1e3,
		       runtime_hist_quantile(st->halt_wake_hist, st->nr_halt_wake, 0.9) / 1e3,
		       runtime_hist_quantile(st->halt_wake_hist, st->nr_halt_wake, 0.99) / 1e3,
		       (double)st->halt_wake_ns / (double)st->nr_halt_wake / 1e3,
		       (unsigned long long)st->nr_halt_wake);
	printf("  %s: runtime: %llu grants, %llu re-pins, %llu kicks, %llu timer arms, %llu lends, "
	       "%llu reclaims, %llu watch events, %llu helper wakes, helper CPU %.3f %% of one CPU, "
	       "slice %.1f ms%s\n", sd->name, (unsigned long long)st->grants,
	       (unsigned long long)st->migrations, (unsigned long long)st->kicks,
	       (unsigned long long)st->timer_arms, (unsigned long long)st->lends,
	       (unsigned long long)st->reclaims, (unsigned long long)st->watch_events,
	       (unsigned long long)st->helper_wakes,
	       100.0 * (double)st->helper_cpu_ns / (secs * 1e9), st->slice_ns / 1e6,
	       st->fallback ? ", WATCHDOG FALLBACK" : "");
}

/* $BENCH_CSV_DIR: each side's shares over the window and the summary, for bench/plot.sh. */
static void csv_scenario(const struct scenario *s, struct csv_summary *sum)
{
	const char *dir = getenv("BENCH_CSV_DIR");
	unsigned int k, row = sum->nr_rows;
	int err;

	if (!dir || !*dir || row >= sizeof(sum->scenario) / sizeof(sum->scenario[0]))
		return;
	sum->nr_sides = nr_sides;
	sum->scenario[row] = s->name;
	for (k = 0; k < nr_sides; k++) {
		const struct side *sd = &sides[k];

		sum->sides[k] = sd->name;
		sum->err[row][k] = sd->ok ? sd->max : NAN;
		err = sd->ok ? csv_write_shares(dir, s, sd->name, &sd->r, sd->given) : 0;
		if (err)
			printf("  csv: %s/%s.%s.csv: %s\n", dir, s->name, sd->name, strerror(-err));
	}
	sum->nr_rows++;
	err = csv_write_summary(dir, sum);
	if (err)
		printf("  csv: %s/summary.csv: %s\n", dir, strerror(-err));
}

/* What did not run, repeated under the summary: a row missing there is never silent. */
static char not_run[1024];

static void fail_row(const char *name, const char *what, int err)
{
	size_t n = strlen(not_run);

	printf("%s: %s failed: %s\n", name, what, strerror(-err));
	snprintf(not_run + n, sizeof(not_run) - n, "  %-12s %s failed: %s\n", name, what,
		 strerror(-err));
}

/* Runs scenario s on every side. */
static void run_scenario(const struct scenario *s, unsigned int lanes, double secs)
{
	unsigned int k;
	int err;

	for (k = 0; k < nr_sides; k++) {
		struct side *sd = &sides[k];
		char what[32];

		err = sd->vsched ? vmside_run(s, sd->accel, lanes, secs, true, &sd->r, &sd->rst) :
				   host_run(s, lanes, secs, &sd->r);
		sd->ok = !err;
		snprintf(what, sizeof(what), "%s side", sd->name);
		if (err)
			fail_row(s->name, what, err);
	}
}

/*
 * -n: every scenario's ideal and its groups as the vsched side makes them (the launch specs),
 * nothing run: what `make check` can afford to show every row can be produced.
 */
static int check_scenarios(unsigned int lanes)
{
	double ideal[SCN_MAX_GROUPS];
	unsigned int i;
	int err, bad = 0;

	for (i = 0; i < nr_scenarios; i++) {
		const struct scenario *s = &scenarios[i];
		struct vsched *vs = vsched_create(lanes, scn_nr_vcpus(s));

		err = vs ? vmside_groups(vs, s) : -ENOMEM;
		if (vs)
			vsched_destroy(vs);
		if (err) {
			fail_row(s->name, "vsched side's groups", err);
			bad = 1;
			continue;
		}
		err = ideal_shares(s, lanes, ideal);
		if (err) {
			fail_row(s->name, "fluid ideal", err);
			bad = 1;
			continue;
		}
		printf("%s: groups and ideal ok\n", s->name);
	}
	return bad;
}

/* The sides: vsched on each backend there is (or the one asked for), then the kernel. */
static int setup_sides(const char *only)
{
	enum vm_accel accels[2];
	const char *why_h = NULL;
	struct diag why_v;
	unsigned int i, n;

	diag_init(&why_v, NULL);
	n = vmside_backends(accels, &why_v);
	for (i = 0; i < n; i++) {
		if (only && strcmp(only, accel_name(accels[i])))
			continue;
		sides[nr_sides++] = (struct side){ .name = accel_name(accels[i]), .vsched = true,
						   .accel = accels[i] };
	}
	if (!nr_sides) {
		fprintf(stderr, "bench-fair: no %s backend here%s%s\n", only,
			diag_failed(&why_v) ? ": " : "", why_v.msg);
		return -1;
	}
	printf("vsched sides: %s%s%s", sides[0].name, nr_sides > 1 ? ", " : "",
	       nr_sides > 1 ? sides[1].name : "");
	if (diag_failed(&why_v))
		printf(" (no kvm: %s)", why_v.msg);
	if (host_probe(&why_h)) {
		printf("; kernel side skipped: %s\n", why_h);
		return 0;
	}
	printf("; kernel side: the host's cgroup cpu controller\n");
	kside = &sides[nr_sides++];
	*kside = (struct side){ .name = "kernel" };
	return 0;
}

int main(int argc, char **argv)
{
	static struct summary sums[64];
	static struct csv_summary csv;
	unsigned int lanes = 2, i, k, nsum = 0;
	double secs = MIN_SECONDS;
	const char *only = NULL;
	bool check = false;
	int opt;

	while ((opt = getopt(argc, argv, "s:P:a:nh")) != -1) {
		switch (opt) {
		case 'n':
			check = true;
			break;
		case 's':
			secs = atof(optarg);
			break;
		case 'P':
			lanes = (unsigned int)atoi(optarg);
			break;
		case 'a':
			only = optarg;
			break;
		default:
			fprintf(stderr, "usage: bench-fair [-n] [-s SECONDS] [-P LANES] "
				"[-a kvm|thread] [SCENARIO... | tput]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (lanes < 1 || lanes > (unsigned int)sysconf(_SC_NPROCESSORS_ONLN)) {
		fprintf(stderr, "bench-fair: -P must be 1..%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
		return 2;
	}
	if (check)
		return check_scenarios(lanes);
	printf("bench-fair: %u lanes, %.1f s per side per scenario; errors in %% of capacity; "
	       "ideal = the core's fluid_solve() (GPS for duty vCPUs; cpu.max as the kernel: "
	       "burst at the weighted share, then throttle)\n"
	       "err: |measured - ideal| at full capacity; given%%: the ideal on the CPU the host "
	       "actually gave that side (caps absolute);\nnerr: |share of what the side got - "
	       "share of given%%| (exact for hog-only scenarios)\n", lanes, secs);
	if (setup_sides(only))
		return 2;

	for (i = 0; i < nr_scenarios; i++) {
		const struct scenario *s = &scenarios[i];
		double ideal[SCN_MAX_GROUPS];
		int a, err;

		if (optind < argc) {
			for (a = optind; a < argc && strcmp(argv[a], s->name); a++)
				;
			if (a == argc)
				continue;
		}
		err = ideal_shares(s, lanes, ideal);
		if (err) {
			fail_row(s->name, "fluid ideal", err);
			continue;
		}
		run_scenario(s, lanes, secs);
		print_scenario(s, ideal, lanes, sums, &nsum);
		print_caps(s, ideal, lanes);
		csv_scenario(s, &csv);
		for (k = 0; k < nr_sides; k++)
			if (sides[k].vsched && sides[k].ok)
				print_runtime(&sides[k], lanes);
		fflush(stdout);
	}
	for (opt = optind; opt < argc && strcmp(argv[opt], "tput"); opt++)
		;
	for (k = 0; k < nr_sides && (optind == argc || opt < argc); k++)
		if (sides[k].vsched)
			tput_run(sides[k].accel, lanes, secs);

	printf("\nsummary (max group nerr, %% of capacity, each backend against the kernel in the "
	       "same run; noise: 2 standard errors of the difference):\n");
	printf("  %-12s %-7s %8s %8s %7s %6s %6s\n", "scenario", "backend", "vsched", "kernel",
	       "ratio", "noise", "goal");
	for (i = 0; i < nsum; i++)
		printf("  %-12s %-7s %8.2f %8.2f %7.2f %6.2f %5.0f%%  %s\n", sums[i].name,
		       sums[i].side, sums[i].vmax, sums[i].hok ? sums[i].hmax : NAN,
		       sums[i].hok && sums[i].hmax > 0.005 ? sums[i].vmax / sums[i].hmax : NAN,
		       sums[i].hok ? fair_noise(&sums[i]) : NAN, sums[i].goal,
		       fair_verdict(&sums[i]));
	if (not_run[0])
		printf("not run (make bench fails):\n%s", not_run);
	return not_run[0] ? 1 : 0;
}
