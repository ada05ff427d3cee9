// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched top`: options, then the batch or the interactive front end. Everything it shows comes
 * from the registry of running VMs and their control directories (include/cmd/top.h).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/top.h"
#include "ctl/ctl.h"

static void top_usage(FILE *f)
{
	fprintf(f,
		"usage: vsched top [-b] [-n N] [-d SECONDS] [--vm NAME] [-v] [-s cpu|name|weight]\n"
		"A live view of every running VM's vCPU groups (like systemd-cgtop).\n"
		"  -b, --batch          plain text snapshots on stdout (no terminal needed)\n"
		"  -n, --iterations N   stop after N snapshots (default: until q, or forever with -b)\n"
		"  -d, --delay SECONDS  interval between snapshots, %.1f..%.0f (default 1)\n"
		"      --vm NAME        only this VM\n"
		"  -v, --vcpus          show vCPU rows (state, lane, CPU %%, wait p99, steal)\n"
		"  -s, --sort KEY       order of sibling groups: cpu (default), name, weight\n"
		"Keys: arrows/j/k move, Enter/space expand or collapse, v vCPU rows, c/n/w sort,\n"
		"+/- interval, ? help, q quit. Columns and formulas: docs/top.md.\n",
		TOP_INTERVAL_MIN, TOP_INTERVAL_MAX);
}

static int parse_sort(const char *s, enum top_sort *out)
{
	enum top_sort k;

	for (k = TOP_SORT_CPU; k <= TOP_SORT_WEIGHT; k++)
		if (!strcmp(s, top_sort_name(k))) {
			*out = k;
			return 0;
		}
	return -EINVAL;
}

static int vm_is_running(const char *name, pid_t pid, const char *ctl, void *arg)
{
	(void)pid;
	(void)ctl;
	return !strcmp(name, arg);
}

static int top_parse(int argc, char **argv, struct top_opts *o)
{
	static const struct option longopts[] = {
		{ "batch", no_argument, NULL, 'b' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "delay", required_argument, NULL, 'd' },
		{ "vm", required_argument, NULL, 'V' },
		{ "vcpus", no_argument, NULL, 'v' },
		{ "sort", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char *end;
	int c;

	*o = (struct top_opts){ .interval = 1.0, .sort = TOP_SORT_CPU };
	optind = 1;
	while ((c = getopt_long(argc, argv, "bn:d:vs:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			o->batch = true;
			break;
		case 'n':
			errno = 0;
			o->iterations = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || o->iterations < 1) {
				fprintf(stderr, "vsched top: -n '%s': want a count >= 1\n", optarg);
				return 2;
			}
			break;
		case 'd':
			o->interval = strtod(optarg, &end);
			if (*end || end == optarg || !(o->interval >= TOP_INTERVAL_MIN) ||
			    o->interval > TOP_INTERVAL_MAX) {
				fprintf(stderr, "vsched top: -d '%s': want seconds in %.1f..%.0f\n",
					optarg, TOP_INTERVAL_MIN, TOP_INTERVAL_MAX);
				return 2;
			}
			break;
		case 'V':
			if (ctl_name_valid(optarg)) {
				fprintf(stderr, "vsched top: --vm '%s': not a valid VM name\n", optarg);
				return 2;
			}
			o->vm = optarg;
			break;
		case 'v':
			o->vcpus = true;
			break;
		case 's':
			if (parse_sort(optarg, &o->sort)) {
				fprintf(stderr, "vsched top: --sort '%s': want cpu, name or weight\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			top_usage(stdout);
			return 0;
		default:
			top_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vsched top: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o;
	int ret = top_parse(argc, argv, &o);

	if (ret >= 0)
		return ret;
	/* A VM asked for by name must be running at the start; one that ends later just goes. */
	if (o.vm) {
		ret = ctl_registry_each(vm_is_running, (void *)o.vm);
		if (ret <= 0) {
			fprintf(stderr, "vsched top: no running VM named '%s' (see 'vsched list')\n",
				o.vm);
			return 1;
		}
	}
	if (o.batch)
		return top_batch(&o, stdout);
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		fprintf(stderr, "vsched top: the interactive view needs a terminal; use -b for "
			"plain text\n");
		return 2;
	}
	return top_tui(&o);
}
