// SPDX-License-Identifier: GPL-2.0
/* `vsched apply --domain FILE [--ctl DIR] [--pid PID] [--dry-run]`: libvirt-hooks/apply.c. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "libvirt/apply.h"
#include "util/registry.h"

struct apply_cfg {
	const char *file;
	const char *ctl;
	pid_t pid;
	bool dry_run;
};

static int apply_set_pid(void *arg, const char *val)
{
	struct apply_cfg *cfg = arg;
	char *end;
	long v;

	v = strtol(val, &end, 10);
	if (*end || v <= 0 || v > INT_MAX)
		return -EINVAL;
	cfg->pid = (pid_t)v;
	return 0;
}

static const struct cmd_opt apply_opts[] = {
	{ .name = "domain", .key = 'd', .arg = "FILE", .off = offsetof(struct apply_cfg, file),
	  .help = "domain XML (\"-\" = stdin)" },
	{ .name = "ctl", .key = 'c', .arg = "DIR", .off = offsetof(struct apply_cfg, ctl),
	  .help = "the root of the VM's control directory, or the cgroup\n"
		  "libvirt made for QEMU domain NAME (default:\n"
		  "/run/vsched/NAME, else the cgroup of the running libvirt\n"
		  "QEMU domain NAME)" },
	{ .name = "pid", .key = 'p', .arg = "PID", .set = apply_set_pid,
	  .hint = "not a process ID",
	  .help = "the process whose vCPU threads to move (default: the only\n"
		  "process in DIR/cgroup.procs, or libvirt's pid file)" },
	{ .name = "dry-run", .key = 'n', .off = offsetof(struct apply_cfg, dry_run),
	  .help = "validate and print what would be written; touch nothing\n"
		  "(no VM running: the plan `vsched run --domain` would apply)" },
};

static const struct cmd_desc apply_desc = {
	.prog = "vsched apply", .usage = "--domain FILE [--ctl DIR] [--pid PID] [--dry-run]",
	.about = "Applies the domain's <cputune> and vsched groups to a running VM.\n",
	.opts = apply_opts, .nr_opts = ARRAY_SIZE(apply_opts),
};

/* No --ctl: the VM of the domain's name; for a dry run, also one that does not run. */
static int apply_target(const struct apply_cfg *cfg, const char *name, char *dir, size_t len,
			unsigned int *flags, pid_t *pid, struct diag *d)
{
	bool is_vsched;
	pid_t found;
	int ret;

	ret = apply_find_target(name, dir, len, &found, &is_vsched);
	if (ret == -ENOENT && cfg->dry_run && !registry_default_dir(name, dir, len)) {
		/* Nothing runs: show the plan a vsched VM of this domain would get. */
		*flags |= APPLY_NOT_RUNNING;
		return 0;
	}
	if (ret)
		return xerr(d, NULL, NULL, NULL,
			    "no running VM named '%s' (no %s/%s, no libvirt QEMU domain): %s",
			    name, registry_run_dir(), name, strerror(-ret));
	if (!is_vsched)
		*flags |= APPLY_QEMU;
	if (!*pid)
		*pid = found;
	return 0;
}

int cmd_apply(int argc, char **argv)
{
	struct apply_cfg cfg = { 0 };
	unsigned int flags = 0;
	struct domain_def def;
	char dir[PATH_MAX];
	bool qemu = false;
	struct diag d;
	pid_t pid;
	int ret;

	ret = cmd_parse(&apply_desc, argc, argv, &cfg, NULL);
	if (ret <= 0)
		return ret ? CMD_EXIT_USAGE : 0;
	if (!cfg.file) {
		cmd_usage_error(&apply_desc, "--domain FILE is needed");
		return CMD_EXIT_USAGE;
	}
	pid = cfg.pid;
	diag_init(&d, strcmp(cfg.file, "-") ? cfg.file : "<stdin>");
	ret = domain_parse_file(cfg.file, &def, &d);
	if (ret)
		goto out;
	if (cfg.ctl) {
		ret = apply_check_ctl(cfg.ctl, &qemu, &d);
		snprintf(dir, sizeof(dir), "%s", cfg.ctl);
		flags |= qemu ? APPLY_QEMU : 0;
	} else {
		ret = apply_target(&cfg, def.name, dir, sizeof(dir), &flags, &pid, &d);
	}
	if (ret)
		goto out_def;
	flags |= cfg.dry_run ? APPLY_DRY_RUN : 0;
	/* What `vsched run --domain` would refuse, a dry run of it refuses (it printed a plan). */
	if (flags & APPLY_NOT_RUNNING)
		ret = run_domain_check(&def, &d);
	if (!ret)
		ret = apply_domain(&def, dir, pid, flags, stdout, &d);
	if (!ret && (flags & APPLY_QEMU) && !cfg.dry_run)
		apply_start_sync(&def, dir, pid);
out_def:
	domain_free(&def);
out:
	apply_report("vsched apply", &d);
	diag_free(&d);
	return ret ? 1 : 0;
}
