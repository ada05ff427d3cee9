/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `vsched apply`: apply a domain's groups and <cputune> to a running VM (live re-tuning after an
 * edit), and the shared target lookup that `vsched hook` uses too.
 */
#ifndef VSCHED_LIBVIRT_APPLY_H
#define VSCHED_LIBVIRT_APPLY_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include <limits.h>

#include "libvirt/domain.h"
#include "libvirt/domain_launch.h"

/* Whether a vsched VM called name runs: its control directory (registry_default_dir()) exists. */
bool apply_is_vsched(const char *name, char *dir, size_t len);
/*
 * The directory to apply domain name to, when none is given: the vsched VM's control directory
 * if one runs under that name, else the cgroup of the QEMU domain libvirt runs (*pid set).
 * 0, -ENOENT (neither runs) or -errno.
 */
int apply_find_target(const char *name, char *dir, size_t len, pid_t *pid, bool *is_vsched);
#define APPLY_DRY_RUN	(1U << 0)	/* print, write nothing */
#define APPLY_QEMU	(1U << 1)	/* dir is the cgroup libvirt made for a QEMU domain */
/* A dry run for a VM that does not run: dir may not exist. */
#define APPLY_NOT_RUNNING (1U << 2)

/*
 * Plan, render for the target's flavour, then execute (or print: APPLY_DRY_RUN, to out). Nothing
 * is written unless the whole plan renders, and a failure part way undoes what was done
 * (fsops_exec()). 0 or -errno, message in d.
 */
int apply_domain(const struct domain_def *def, const char *dir, pid_t pid, unsigned int flags,
		 FILE *out, struct diag *d);
/*
 * After an apply to a QEMU domain: keep libvirt's per-vCPU caps reaching the vCPUs in our leaves
 * (libvirt/libvirt_sync.h). pid 0: QEMU from dir's emulator group. 0 or -errno.
 */
int apply_start_sync(const struct domain_def *def, const char *dir, pid_t pid);
/*
 * The host scheduler's part of applying def (libvirt-hooks/apply_host.c): join set when the
 * VM runs joined (its registry record), or for a dry run of no running VM when the domain
 * joins; its <shares> and global cap then go to the VM's group in the daemon's directory
 * (apply_host_write()) and the plan goes straight below the VM (PLAN_HOST_VM). A domain that
 * cannot be honoured (joins but the VM runs embedded, another partition, host='yes' on a QEMU
 * domain) is warned about in d, naming the element. 0 or -errno in d.
 */
struct apply_host {
	bool join;
	char dir[PATH_MAX];		/* <run dir>/host<group> */
	struct domain_host set;		/* cpu.weight and cpu.max, "" for none */
};
int apply_host_plan(const struct domain_def *def, unsigned int flags, struct apply_host *ah,
		    struct diag *d);
/* Writes (or prints, dry_run) the VM group's settings. 0 or -errno in d. */
int apply_host_write(const struct apply_host *ah, bool dry_run, FILE *out, struct diag *d);
/* Prints d's warnings and error (if any) to stderr, each prefixed by prog. */
void apply_report(const char *prog, const struct diag *d);
/*
 * A directory given to apply (--ctl DIR) must be one of the two targets apply knows: the root
 * of a vsched control directory, or the cgroup libvirt made for a QEMU domain (*qemu set).
 * 0, or -errno with the message in d; nothing is written either way.
 */
int apply_check_ctl(const char *dir, bool *qemu, struct diag *d);

#endif
