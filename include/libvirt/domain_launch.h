/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A domain XML file as `vsched run --domain FILE` needs it: the VM's name, vCPUs, memory,
 * direct-kernel boot, pinning, and the group plan, all validated before anything starts. The
 * plan is applied to the VM's struct vsched through the C API once the VM exists.
 */
#ifndef VSCHED_LIBVIRT_DOMAIN_LAUNCH_H
#define VSCHED_LIBVIRT_DOMAIN_LAUNCH_H

#include <stdbool.h>

#include "libvirt/domain.h"
#include "libvirt/fsops.h"

struct vsched;

/*
 * Joining the host scheduler (`vsched host`): the domain does when it has a
 * <resource><partition> or <vsched:groups host='yes'> (not with host='no'), or when asked to
 * (--host). Its VM group then takes <shares> and the global cap, in interface-file syntax.
 */
struct domain_host {
	bool join;
	const char *partition;	/* def.partition; NULL: the host scheduler's default */
	char weight[24];	/* <shares> as cpu.weight (checked 1..10000), "" if none */
	char max[48];		/* <global_quota> <global_period> as cpu.max, "" if none */
};

struct domain_launch {
	struct domain_def def;	/* name, max_vcpus/vcpus, memory, kernel/initrd/cmdline, tune */
	struct domain_host host;
	struct fsops ops;	/* the plan rendered for a vsched tree (cgroup v2 files) */
	struct diag diag;	/* warnings; the error of a failed call */
};

/*
 * Whether the domain says it joins: <vsched:groups host='yes'>, or a <partition> and no host='no'.
 */
bool domain_joins_host(const struct domain_def *def);
/*
 * The VM group's settings on the host scheduler from def: partition, <shares> as cpu.weight
 * (checked 1..10000), the global cap as cpu.max. h->join is left alone. 0 or -EINVAL in d.
 */
int domain_host_settings(const struct domain_def *def, struct domain_host *h, struct diag *d);
/*
 * Parse, validate, plan and render. host: --host was given (refused if the domain says
 * host='no'). 0, or -errno with one message in l->diag.msg.
 */
int domain_launch_load(const char *path, bool host, struct domain_launch *l);
/* What the VMM can start: the caller's (libvirt-hooks uses no vmm module: make layers). */
struct domain_limits {
	unsigned int max_vcpus;
	uint64_t min_mem;	/* bytes of RAM a VM of payload guests needs (no <os><kernel>) */
};
/*
 * What this VMM cannot start, named with the element's line: more vCPUs than lim->max_vcpus,
 * or too little RAM for payload guests. `vsched run` and a dry run of a VM that does not run
 * (what run would do) check it (run_domain_check()). 0 or -EINVAL in d.
 */
int domain_launch_check(const struct domain_def *def, const struct domain_limits *lim,
			struct diag *d);
/* Executes the plan on the VM's groups (nr of vCPUs as the domain's "current"). 0 or -errno. */
int domain_launch_apply(struct domain_launch *l, struct vsched *vs);
void domain_launch_free(struct domain_launch *l);

#endif
