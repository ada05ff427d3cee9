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

#include "libvirt/domain.h"

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
/* Prints d's warnings and error (if any) to stderr, each prefixed by prog. */
void apply_report(const char *prog, const struct diag *d);
/*
 * A directory given to apply (--ctl DIR) must be one of the two targets apply knows: the root
 * of a vsched control directory, or the cgroup libvirt made for a QEMU domain (*qemu set).
 * 0, or -errno with the message in d; nothing is written either way.
 */
int apply_check_ctl(const char *dir, bool *qemu, struct diag *d);

#endif
