// SPDX-License-Identifier: GPL-2.0
/* `vsched list [--all]`: running VMs from the registry (util/registry.c). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "util/registry.h"

struct list_cfg {
	bool all;
	bool header;	/* printed */
};

static void list_header(struct list_cfg *cfg)
{
	if (!cfg->header)
		printf("%-20s %-8s %s\n", "NAME", "PID", "CONTROL-DIR");
	cfg->header = true;
}

static const struct cmd_opt list_opts[] = {
	{ .name = "all", .key = 'a', .off = offsetof(struct list_cfg, all),
	  .help = "also list records left by VMMs that died (stale)" },
};

static const struct cmd_desc list_desc = {
	.prog = "vsched list", .usage = "[--all]",
	.about = "Lists running VMs with their pid and control directory.\n",
	.opts = list_opts, .nr_opts = ARRAY_SIZE(list_opts),
};

static int list_one(const struct registry_entry *e, void *arg)
{
	struct list_cfg *cfg = arg;

	list_header(cfg);
	if (e->alive || cfg->all)
		printf("%-20s %-8d %s%s\n", e->name, (int)e->pid, e->ctl[0] ? e->ctl : "-",
		       e->alive ? "" : " (stale)");
	return 0;
}

int cmd_list(int argc, char **argv)
{
	struct list_cfg cfg = { 0 };
	int ret = cmd_parse(&list_desc, argc, argv, &cfg, NULL);

	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	ret = registry_list(list_one, &cfg);
	if (ret) {
		fprintf(stderr, "vsched list: %s/.vms: %s\n", registry_run_dir(), strerror(-ret));
		return 1;
	}
	list_header(&cfg);
	return 0;
}
