/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A domain XML file as `vsched run --domain FILE` needs it: the VM's name, vCPUs, memory,
 * direct-kernel boot, pinning, and the group plan, all validated before anything starts. The
 * plan is applied to the VM's struct vsched through the C API once the VM exists.
 */
#ifndef VSCHED_LIBVIRT_DOMAIN_LAUNCH_H
#define VSCHED_LIBVIRT_DOMAIN_LAUNCH_H

#include "libvirt/domain.h"
#include "libvirt/fsops.h"

struct vsched;

struct domain_launch {
	struct domain_def def;	/* name, max_vcpus/vcpus, memory, kernel/initrd/cmdline, tune */
	struct fsops ops;	/* the plan rendered for a vsched tree (cgroup v2 files) */
	struct diag diag;	/* warnings; the error of a failed call */
};

/* Parse, validate, plan and render. 0, or -errno with one message in l->diag.msg. */
int domain_launch_load(const char *path, struct domain_launch *l);
/* Executes the plan on the VM's groups (nr of vCPUs as the domain's "current"). 0 or -errno. */
int domain_launch_apply(struct domain_launch *l, struct vsched *vs);
void domain_launch_free(struct domain_launch *l);

#endif
