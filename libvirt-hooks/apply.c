// SPDX-License-Identifier: GPL-2.0
/* Applying a domain to a running VM: the path `vsched apply` and the hook share. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "libvirt/apply.h"
#include "libvirt/fsops.h"
#include "libvirt/domain_launch.h"
#include "libvirt/libvirt_sync.h"
#include "libvirt/plan.h"
#include "libvirt/qemu.h"
#include "libvirt/target.h"
#include "util/registry.h"

void apply_report(const char *prog, const struct diag *d)
{
	size_t i;

	for (i = 0; i < d->nr_warn; i++)
		fprintf(stderr, "%s: warning: %s\n", prog, d->warn[i]);
	if (d->msg[0])
		fprintf(stderr, "%s: %s\n", prog, d->msg);
}

/* QEMU: libvirt puts its main thread in the domain's emulator group. */
static pid_t apply_emulator_pid(const char *dir)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/emulator", dir);
	return dir_single_proc(p);
}

bool apply_is_vsched(const char *name, char *dir, size_t len)
{
	struct stat st;

	/* A name the control directory cannot have is no vsched VM's. */
	return !registry_default_dir(name, dir, len) && !stat(dir, &st) && S_ISDIR(st.st_mode);
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

/*
 * A running vsched VM keeps the vCPUs it started with: a domain that starts more would fail at
 * the first move of a missing one, half way; refused before anything is written.
 */
static int apply_check_vcpus(const struct domain_def *def, const struct dir_target *t,
			     struct diag *d)
{
	unsigned int nr;
	char v[16];

	if (!t->is_vsched || t->missing || dir_target_nr_vcpus(t, &nr) || !nr ||
	    def->vcpus <= nr)
		return 0;
	snprintf(v, sizeof(v), "%u", def->vcpus);
	return diag_at(d, -EINVAL, def->vcpu_line, "vcpu", v, "VM '%s' runs %u vCPUs and vsched "
		       "has no vCPU hot-plug: apply a domain of current='%u' or fewer",
		       def->name, nr, nr);
}

/* libvirt's live cap of vCPU n (its vcpuN group) as quota (-1: unlimited) and period. */
static int apply_libvirt_cap(const struct fs_backend *be, enum fs_flavor fl, unsigned int n,
			     long long *quota, unsigned long long *period)
{
	char src[32], q[32], p[32], max[64];

	snprintf(src, sizeof(src), "vcpu%u", n);
	if (fl == FS_V1) {
		if (be->read(be->ctx, src, "cpu.cfs_quota_us", q, sizeof(q)) ||
		    be->read(be->ctx, src, "cpu.cfs_period_us", p, sizeof(p)))
			return -ENOENT;
	} else if (be->read(be->ctx, src, "cpu.max", max, sizeof(max)) ||
		   sscanf(max, "%31s %31s", q, p) != 2) {
		return -ENOENT;
	}
	*quota = strcmp(q, "max") ? strtoll(q, NULL, 10) : -1;
	*period = strtoull(p, NULL, 10);
	return 0;
}

/*
 * On a QEMU domain each vCPU's cap is libvirt's (its vcpuN group: <period>/<quota> at start,
 * `virsh schedinfo --live` later) and vsched's leaves copy it, so an edited <period>/<quota>
 * changes nothing: said, with the command that does it, instead of dropped without a word.
 */
static int apply_warn_libvirt_caps(const struct domain_def *def, const struct fs_backend *be,
				   enum fs_flavor fl, struct diag *d)
{
	const struct cputune_bw *bw = &def->tune.vcpu;
	bool unlimited = bw->quota < 0 || (fl == FS_V2 && bw->quota == CPUTUNE_QUOTA_MAX);
	unsigned long long period;
	unsigned int i, nr = 0, first = 0;
	long long quota, fq = 0;
	unsigned long long fp = 0;
	char args[96] = "";

	if (!be->read || (!bw->period && !bw->quota))
		return 0;
	for (i = 0; i < def->max_vcpus; i++) {
		if (!cpuset_test(&def->online, i) || apply_libvirt_cap(be, fl, i, &quota, &period))
			continue;
		if ((!bw->period || period == bw->period) &&
		    (!bw->quota || (unlimited ? quota < 0 : quota == bw->quota)))
			continue;
		if (!nr++) {
			first = i;
			fq = quota;
			fp = period;
		}
	}
	if (!nr)
		return 0;
	/* What `virsh schedinfo` takes: the values the domain sets, quota -1 for unlimited. */
	if (bw->quota)
		snprintf(args, sizeof(args), " vcpu_quota=%lld",
			 unlimited ? -1LL : (long long)bw->quota);
	if (bw->period)
		snprintf(args + strlen(args), sizeof(args) - strlen(args), " vcpu_period=%llu",
			 (unsigned long long)bw->period);
	return diag_warn(d, bw->line, "cputune/quota", "libvirt's live cap of vCPU %u%s is "
			 "quota %lld period %llu, not the domain's: on a QEMU domain the per-vCPU "
			 "cap is libvirt's and vsched's groups follow it; not applied (`virsh "
			 "schedinfo %s --live%s` sets it)", first, nr > 1 ? " and others" : "", fq,
			 fp, def->name, args);
}

int apply_domain(const struct domain_def *def, const char *dir, pid_t pid, unsigned int flags,
		 FILE *out, struct diag *d)
{
	bool dry_run = flags & APPLY_DRY_RUN, qemu = flags & APPLY_QEMU;
	unsigned int pflags = qemu ? PLAN_LIBVIRT_VCPUS : 0;
	struct apply_host host;
	struct dir_target t;
	struct fs_backend be;
	struct fsops ops;
	struct plan plan;
	int ret;

	ret = apply_host_plan(def, flags, &host, d);
	if (!ret && !qemu)
		ret = plan_warn_vsched(def, d);
	if (ret)
		return ret;
	ret = dir_target_open(&t, dir, def->name, pid, dry_run, out);
	if (ret) {
		xerr(d, NULL, NULL, NULL, "%s: %s", dir, strerror(-ret));
		return ret;
	}
	if (qemu && !t.pid)
		t.pid = apply_emulator_pid(dir);
	ret = apply_check_vcpus(def, &t, d);
	if (ret)
		return ret;
	dir_target_backend(&t, &be);
	if (qemu)
		ret = apply_warn_libvirt_caps(def, &be, t.flavor, d);
	if (ret)
		return ret;
	/* Joined, the VM's group in the daemon's tree takes <shares> and the global cap. */
	if (host.join)
		pflags |= PLAN_HOST_VM;
	else if (!dir_target_has_cap(&t))
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
	if (flags & APPLY_NOT_RUNNING)
		fprintf(t.out, "# no VM named '%s' runs: what `vsched run --domain` would set "
			"up in %s (%s); nothing is written\n", def->name, dir,
			fs_flavor_name(t.flavor));
	else if (dry_run)
		fprintf(t.out, "# %s (%s): nothing is written\n", dir, fs_flavor_name(t.flavor));
	ret = fsops_exec(&ops, &be, d);
	if (!ret)
		ret = apply_host_write(&host, dry_run, t.out, d);
	fsops_free(&ops);
out_plan:
	plan_free(&plan);
	return ret;
}

int apply_start_sync(const struct domain_def *def, const char *dir, pid_t pid)
{
	struct dir_target t;
	struct libvirt_sync s = { .domain = def->name, .dir = dir };
	int ret = dir_target_open(&t, dir, def->name, pid, false, NULL);

	if (ret)
		return ret;
	s.pid = t.pid ? t.pid : apply_emulator_pid(dir);
	s.flavor = t.flavor;
	return s.pid ? libvirt_sync_start(&s) : -ESRCH;
}

/*
 * --ctl DIR must be one of the two targets apply knows: the root of a vsched control directory
 * (a FUSE mount with vsched.vcpus and no cgroup.type), or the cgroup libvirt made for a QEMU
 * domain (on cgroupfs, with libvirt's emulator group). Anything else (a scratch directory, the
 * root of the host's cgroup tree) is refused before anything is written.
 */
int apply_check_ctl(const char *dir, bool *qemu, struct diag *d)
{
	char p[PATH_MAX];
	struct statfs sf;
	struct stat st;

	if (statfs(dir, &sf) || stat(dir, &st))
		return xerr(d, NULL, NULL, NULL, "--ctl %s: %s", dir, strerror(errno));
	*qemu = false;
	if (S_ISDIR(st.st_mode) && sf.f_type == FUSE_SUPER_MAGIC &&
	    snprintf(p, sizeof(p), "%s/vsched.vcpus", dir) < (int)sizeof(p) && !access(p, F_OK) &&
	    snprintf(p, sizeof(p), "%s/cgroup.type", dir) < (int)sizeof(p) && access(p, F_OK))
		return 0;
	*qemu = true;
	if (S_ISDIR(st.st_mode) &&
	    (sf.f_type == CGROUP_SUPER_MAGIC || sf.f_type == CGROUP2_SUPER_MAGIC) &&
	    snprintf(p, sizeof(p), "%s/emulator", dir) < (int)sizeof(p) && !stat(p, &st) &&
	    S_ISDIR(st.st_mode))
		return 0;
	return xerr(d, NULL, NULL, NULL,
		    "--ctl %s: neither the root of a vsched control directory (vsched.vcpus) "
		    "nor a libvirt QEMU domain's cgroup (libvirt's emulator group in it); "
		    "nothing changed", dir);
}
