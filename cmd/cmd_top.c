// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched top`: options, then the batch or the interactive front end. Everything it shows comes
 * from the registry of running VMs and their control directories (include/cmd/top.h).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/top.h"
#include "util/registry.h"
#include "vmm/opts.h"

static int top_set_iterations(void *cfg, const char *val)
{
	struct top_opts *o = cfg;
	char *end;

	errno = 0;
	o->iterations = strtol(val, &end, 10);
	return errno || *end || end == val || o->iterations < 1 ? -EINVAL : 0;
}

static int top_set_delay(void *cfg, const char *val)
{
	struct top_opts *o = cfg;
	char *end;

	o->interval = opts_strtod(val, &end);
	return *end || end == val || !(o->interval >= TOP_INTERVAL_MIN) ||
	       o->interval > TOP_INTERVAL_MAX ? -EINVAL : 0;
}

static int top_set_vm(void *cfg, const char *val)
{
	struct top_opts *o = cfg;

	o->vm = val;
	return registry_name_valid(val) ? -EINVAL : 0;
}

static int top_set_sort(void *cfg, const char *val)
{
	struct top_opts *o = cfg;
	enum top_sort k;

	for (k = TOP_SORT_CPU; k <= TOP_SORT_WEIGHT; k++)
		if (!strcmp(val, top_sort_name(k))) {
			o->sort = k;
			return 0;
		}
	return -EINVAL;
}

static const struct cmd_opt top_opts[] = {
	{ .name = "batch", .key = 'b', .off = offsetof(struct top_opts, batch),
	  .help = "plain text snapshots on stdout (no terminal needed)" },
	{ .name = "iterations", .key = 'n', .arg = "N", .set = top_set_iterations,
	  .hint = "a count >= 1",
	  .help = "stop after N snapshots (default: until q, or forever with -b)" },
	{ .name = "delay", .key = 'd', .arg = "SECONDS", .set = top_set_delay,
	  .hint = "seconds in 0.1..3600", .help = "interval between snapshots, 0.1..3600 (default 1)" },
	{ .name = "vm", .arg = "NAME", .set = top_set_vm, .hint = "a VM name as vsched list shows",
	  .help = "only this VM" },
	{ .name = "vcpus", .key = 'v', .off = offsetof(struct top_opts, vcpus),
	  .help = "show vCPU rows (state, lane, CPU %, wait p99, steal)" },
	{ .name = "sort", .key = 's', .arg = "KEY", .set = top_set_sort,
	  .hint = "cpu, name or weight",
	  .help = "order of sibling groups: cpu (default), name, weight" },
};

static const struct cmd_desc top_desc = {
	.prog = "vsched top", .usage = "[-b] [-n N] [-d SECONDS] [--vm NAME] [-v] [-s KEY]",
	.about = "A live view of every running VM's vCPU groups (like systemd-cgtop), the host\n"
		 "scheduler's tree first when one runs (host:/: partitions, VM groups).\n",
	.opts = top_opts, .nr_opts = ARRAY_SIZE(top_opts),
	.footer = "Keys: arrows/j/k move, Enter/space expand or collapse, v vCPU rows, c/n/w sort,\n"
		  "+/- interval, ? help, q quit. Columns and formulas: docs/top.md.\n",
};

static int vm_is_running(const struct registry_entry *e, void *arg)
{
	return e->alive && !strcmp(e->name, arg);
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o = { .interval = 1.0, .sort = TOP_SORT_CPU };
	int ret = cmd_parse(&top_desc, argc, argv, &o, NULL);

	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	/* A VM asked for by name must be running at the start; one that ends later just goes. */
	if (o.vm) {
		ret = registry_list(vm_is_running, (void *)o.vm);
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
