// SPDX-License-Identifier: GPL-2.0
/*
 * `make fuzz-sim`: thousands of random scenarios of every kind (sched/sim/sim_gen.c) against the
 * simulator's ideal, the kinds `make check` leaves out included; reports, per kind, how many
 * exceed the bound, the worst error and its scenario (run it again with `vsched sim FILE`), and
 * the error summed over every seed (it moves where no seed crosses the bound); on a second line
 * the same by vCPU (sim_max_vcpu_error(): each vCPU against its own ideal, which the group
 * figure cannot see for a vCPU in the root or one shorted beside its siblings).
 * Report only: the exit status is 0 unless a scenario fails to run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fuzz_kinds.h"
#include "sched/sim.h"
#include "util/time.h"

#define TEXT_LEN	(64 * 1024)

struct kind {
	const char *name;
	struct sim_gen_opts o;
	double bound;
};

static const struct kind kinds[] = {
	{ "hog-only uncapped trees, 1-16 lanes",
	  { .kind = SIM_GEN_HOGS, .max_lanes = 16, FUZZ_TREES }, 0.1 },
	{ "duty and bursty beside hogs, 1 lane",
	  { .kind = SIM_GEN_DUTY, .max_lanes = 1, FUZZ_TREES }, 0.5 },
	{ "duty and bursty beside hogs, 1-16 lanes",
	  { .kind = SIM_GEN_DUTY, .max_lanes = 16, FUZZ_TREES }, 0.5 },
	{ "the same, work every 10 ms and more",
	  { .kind = SIM_GEN_DUTY, .max_lanes = 16, .coarse_duty = true, FUZZ_TREES }, 0.5 },
	{ "caps of 100 ms periods and more, 1-16 lanes",
	  { .kind = SIM_GEN_CAPS, .max_lanes = 16, .coarse_caps = true, FUZZ_TREES }, 0.5 },
	{ "caps of 10 ms periods and more, 1-16 lanes",
	  { .kind = SIM_GEN_CAPS, .max_lanes = 16, FUZZ_TREES }, 0.5 },
	{ "small capped trees, 1-4 lanes", FUZZ_SMALL_CAPS, 0.5 },
};

static double now_s(void)
{
	return (double)time_mono_ns() / 1e9;
}

static int fuzz_kind(const struct kind *k, uint64_t first, unsigned int n, bool list,
		     char *text, char *worst_text)
{
	double worst = 0, sum = 0, vworst = 0, vsum = 0, t0 = now_s();
	uint64_t worst_seed = first, vworst_seed = first, seed;
	unsigned int over = 0, vover = 0, violated = 0;
	struct diag d;

	for (seed = first; seed < first + n; seed++) {
		struct sim_gen_result res = { 0 };
		double e, v;

		diag_init(&d, NULL);
		if (sim_gen_run(seed, &k->o, &res, text, TEXT_LEN, &d)) {
			/* The scenario too, to run again with `vsched sim`. */
			fprintf(stderr, "fuzz-sim: %s: seed %llu: %s\n%s", k->name,
				(unsigned long long)seed, d.msg, text);
			return 1;
		}
		e = res.group_error;
		v = res.vcpu_error;
		over += e > k->bound;
		vover += v > k->bound;
		sum += e;
		vsum += v;
		if (list && (e > k->bound || v > k->bound || res.violations))
			printf("  seed %llu: %.4f %%, vCPU %.4f %%, %lu min-run violations\n",
			       (unsigned long long)seed, e, v, res.violations);
		violated += res.violations > 0;
		if (v > vworst || seed == first) {
			vworst = v;
			vworst_seed = seed;
		}
		if (e > worst || seed == first) {
			worst = e;
			worst_seed = seed;
			snprintf(worst_text, TEXT_LEN, "%s", text);
		}
	}
	printf("%-45s %5u seeds: %4u over %.1f %%, %u with min-run violations, worst %.4f %% "
	       "(seed %llu), sum %.2f %%, %.1f s\n", k->name, n, over, k->bound, violated, worst,
	       (unsigned long long)worst_seed, sum, now_s() - t0);
	printf("%-45s %5u seeds: %4u over %.1f %% by vCPU, worst %.4f %% (seed %llu), sum %.2f %%\n",
	       "  each vCPU vs its ideal", n, vover, k->bound, vworst,
	       (unsigned long long)vworst_seed, vsum);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seeds", required_argument, NULL, 'n' },
		{ "first", required_argument, NULL, 'f' },
		{ "worst", no_argument, NULL, 'w' },
		{ "kind", required_argument, NULL, 'k' },
		{ "list", no_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *text = malloc(TEXT_LEN), *worst_text = malloc(TEXT_LEN);
	unsigned long n = 2000, first = 0;
	bool show = false, list = false;
	unsigned long only = ~0UL;
	size_t i;
	int c, ret = 0;

	while ((c = getopt_long(argc, argv, "n:f:wk:lh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		case 'f':
			first = strtoul(optarg, NULL, 10);
			break;
		case 'w':
			show = true;
			break;
		case 'k':
			only = strtoul(optarg, NULL, 10);
			break;
		case 'l':
			list = true;
			break;
		default:
			fprintf(c == 'h' ? stdout : stderr,
				"usage: fuzz-sim [--seeds N] [--first SEED] [--kind K] [--list] [--worst]\n"
				"  --kind   only the K-th kind (0 = hog-only, ... 5 = 10 ms caps, 6 = small caps)\n"
				"  --list   print every seed over its bound\n"
				"  --worst  print the worst scenario of each kind\n");
			return c == 'h' ? 0 : 2;
		}
	}
	if (!text || !worst_text)
		return 1;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]) && !ret; i++) {
		if (only != ~0UL && i != only)
			continue;
		ret = fuzz_kind(&kinds[i], first, (unsigned int)n, list, text, worst_text);
		if (!ret && show)
			printf("%s\n", worst_text);
	}
	free(text);
	free(worst_text);
	return ret;
}
