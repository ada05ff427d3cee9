/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The directory back end: a cgroupfs-like tree where a plan is applied. It is either a vsched
 * VM's control directory (cgroup v2 files; vCPU threads named "vcpuN"), or the cgroup libvirt
 * made for a QEMU domain (v2 threaded groups, or the v1 "cpu" hierarchy; vCPU threads found
 * as libvirt/vcputhread.h says). In dry-run mode it prints each operation instead and touches
 * nothing.
 */
#ifndef VSCHED_LIBVIRT_TARGET_H
#define VSCHED_LIBVIRT_TARGET_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "libvirt/fsops.h"
#include "util/diag.h"

struct dir_target {
	char root[PATH_MAX];
	enum fs_flavor flavor;
	bool is_vsched;		/* a vsched control directory: vsched.vcpus at the root */
	bool missing;		/* dry run for a vsched VM that does not run: no root yet */
	const char *domain;	/* libvirt's name of the VM (its status file), or NULL */
	pid_t pid;		/* the process owning the vCPU threads, 0 if unknown */
	bool dry_run;
	FILE *out;		/* dry-run listing */
	struct diag why;	/* what the last failed move looked for */
};

/*
 * Opens root (which must exist, unless dry_run) and detects its flavour: v1 if it has
 * cpu.shares or tasks. pid 0: taken from root's cgroup.procs when it lists exactly one process
 * (a vsched VM).
 */
int dir_target_open(struct dir_target *t, const char *root, const char *domain, pid_t pid,
		    bool dry_run, FILE *out);
void dir_target_backend(struct dir_target *t, struct fs_backend *be);
/* The only process in dir/cgroup.procs, 0 if none or several. */
pid_t dir_single_proc(const char *dir);
/*
 * A vsched VM's vCPUs: one past the highest index in the vsched.vcpus of any group (every vCPU
 * is in one). 0 or -errno.
 */
int dir_target_nr_vcpus(const struct dir_target *t, unsigned int *nr);
/* Whether the VM's own group takes a cap (a kernel-like root does not). */
bool dir_target_has_cap(const struct dir_target *t);

#endif
