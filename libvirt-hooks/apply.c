// SPDX-License-Identifier: GPL-2.0
/* `vsched apply --domain FILE [--ctl DIR] [--pid PID] [--dry-run]` and the shared apply path. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ctl/ctl.h"
#include "libvirt/apply.h"
#include "libvirt/fsops.h"
#include "libvirt/plan.h"
#include "libvirt/qemu.h"
#include "libvirt/target.h"

void apply_report(const char *prog, const struct xdiag *d)
{
	size_t i;

	for (i = 0; i < d->nr_warn; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, d->warn[i]);
	if (d->msg[0])
		fprintf(stderr, "%s: %s\n", prog, d->msg);
}

bool apply_is_vsched(const char *name, char *dir, size_t len)
{
	struct stat st;

	/* A name the control directory cannot have is no vsched VM's. */
	return !ctl_default_dir(name, dir, len) && !stat(dir, &st) && S_ISDIR(st.st_mode);
}

int apply_find_target(const char *name, char *dir, size_t len, pid_t *pid, bool *is_vsched)
{
	int ret;

	*pid = 0;
	*is_vsched = apply_is_vsched(name, dir, len);
	if (*is_vsched)
		return 0;
	ret = qemu_domain_pid(name, pid);
	if (ret)
		return ret;
	return qemu_domain_cgroup(*pid, dir, len);
}

/*
 * libvirt under systemd on cgroup v2 nests the thread groups in "scope/libvirt" (the parent of
 * emulator, our domain group) and puts <shares> on the scope above it.
 */
static bool apply_shares_up(const struct dir_target *t, unsigned int flags)
{
	const char *base = strrchr(t->root, '/');

	return (flags & APPLY_QEMU) && t->flavor == FS_V2 && base &&
	       !strcmp(base + 1, PLAN_GLOBAL_GROUP);
}

int apply_domain(const struct domain_def *def, const char *dir, pid_t pid, unsigned int flags,
		 FILE *out, struct xdiag *d)
{
	bool dry_run = flags & APPLY_DRY_RUN;
	unsigned int pflags = 0;
	struct dir_target t;
	struct fs_backend be;
	struct fsops ops;
	struct plan plan;
	int ret;

	ret = dir_target_open(&t, dir, pid, dry_run, out);
	if (ret) {
		xerr(d, NULL, NULL, NULL, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	if (!dir_target_has_cap(&t))
		pflags |= PLAN_NEST_GLOBAL;
	if (apply_shares_up(&t, flags))
		pflags |= PLAN_SHARES_UP;
	ret = plan_build(def, pflags, &plan);
	if (ret) {
		xerr(d, NULL, NULL, NULL, "%s", strerror(-ret));
		return ret;
	}
	ret = fsops_render(&plan, t.flavor, &ops, d);
	if (ret)
		goto out_plan;
	if (dry_run)
		fprintf(t.out, "# %s (%s): nothing is written\n", dir, fs_flavor_name(t.flavor));
	dir_target_backend(&t, &be);
	ret = fsops_exec(&ops, &be, d);
	fsops_free(&ops);
out_plan:
	plan_free(&plan);
	return ret;
}

static void apply_usage(FILE *f)
{
	fprintf(f, "usage: vsched apply --domain FILE [--ctl DIR] [--pid PID] [--dry-run]\n"
		   "  Applies the domain's <cputune> and vsched groups to a running VM.\n"
		   "  --domain FILE  domain XML (\"-\" = stdin)\n"
		   "  --ctl DIR      the VM's control directory or cgroup (default: /run/vsched/NAME,\n"
		   "                 else the cgroup of the libvirt QEMU domain NAME)\n"
		   "  --pid PID      the process whose vCPU threads to move (default: the only\n"
		   "                 process in DIR/cgroup.procs, or libvirt's pid file)\n"
		   "  --dry-run      validate and print what would be written; touch nothing\n");
}

int cmd_apply(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "domain", required_argument, NULL, 'd' },
		{ "ctl", required_argument, NULL, 'c' },
		{ "pid", required_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *file = NULL, *ctl = NULL;
	char dir[PATH_MAX];
	struct domain_def def;
	struct xdiag d;
	bool dry_run = false, is_vsched = false;
	pid_t pid = 0;
	long v;
	char *end;
	int c, ret;

	optind = 1;
	while ((c = getopt_long(argc, argv, "d:c:p:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			file = optarg;
			break;
		case 'c':
			ctl = optarg;
			break;
		case 'p':
			v = strtol(optarg, &end, 10);
			if (*end || v <= 0 || v > INT_MAX) {
				fprintf(stderr, "vsched apply: --pid '%s': not a process ID\n", optarg);
				return 2;
			}
			pid = (pid_t)v;
			break;
		case 'n':
			dry_run = true;
			break;
		case 'h':
			apply_usage(stdout);
			return 0;
		default:
			apply_usage(stderr);
			return 2;
		}
	}
	if (!file || optind != argc) {
		apply_usage(stderr);
		return 2;
	}
	xdiag_init(&d, strcmp(file, "-") ? file : "<stdin>");
	ret = domain_parse_file(file, &def, &d);
	if (ret)
		goto out;
	if (ctl) {
		snprintf(dir, sizeof(dir), "%s", ctl);
	} else {
		pid_t found;

		ret = apply_find_target(def.name, dir, sizeof(dir), &found, &is_vsched);
		if (ret) {
			xerr(&d, NULL, NULL, NULL,
			     "no running VM named '%s' (no %s/%s, no libvirt QEMU domain): %s",
			     def.name, ctl_run_dir(), def.name, strerror(-ret));
			goto out_def;
		}
		if (!pid)
			pid = found;
	}
	ret = apply_domain(&def, dir, pid, (dry_run ? APPLY_DRY_RUN : 0) |
				   (!ctl && !is_vsched ? APPLY_QEMU : 0), stdout, &d);
out_def:
	domain_free(&def);
out:
	apply_report("vsched apply", &d);
	xdiag_free(&d);
	return ret ? 1 : 0;
}
