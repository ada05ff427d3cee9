/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A plan rendered for one kind of cgroupfs-like tree, and executed through a back end.
 *
 * Rendering picks the file names and value syntax: cgroup v2 (a vsched control directory, the C
 * API, a host's threaded cgroups) or the cgroup v1 "cpu" hierarchy (cpu.shares = weight * 1024 /
 * 100 as the kernel converts, cfs_quota_us/cfs_period_us, tasks). All range checks that depend
 * on the flavour (libvirt's <shares> range) happen here, before anything is written, so a bad
 * domain changes nothing.
 */
#ifndef VSCHED_LIBVIRT_FSOPS_H
#define VSCHED_LIBVIRT_FSOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libvirt/plan.h"

enum fs_flavor {
	FS_V2,
	FS_V1,
};

enum fsop_kind {
	FSOP_MKDIR,
	FSOP_WRITE,
	FSOP_MOVE,		/* vCPU vcpu into path: the back end knows how (TID or index) */
	FSOP_MIRROR,		/* libvirt's per-vCPU cap: copy vcpuN's values into path */
};

struct fsop {
	enum fsop_kind kind;
	char path[PLAN_PATH_MAX];	/* "" = the VM's group */
	char file[32];
	char value[48];
	unsigned int vcpu;
	bool optional;			/* on the VM's group: a missing file is a warning */
	bool to_root_if_missing;	/* MOVE into libvirt's vcpuN: the VM's group without it */
	enum fs_flavor flavor;		/* MIRROR: file names */
	int64_t quota;			/* MIRROR: the domain's <quota>/<period>, used when */
	uint64_t period;		/*   libvirt has no vcpuN group to copy from */
	const char *origin;
	int line;
};

struct fsops {
	struct fsop *ops;
	size_t nr, cap;
};

/*
 * Where a rendered plan goes: a directory, stdout (dry run) or the in-process C API. Paths are
 * relative to the VM's group; one starting with '/' (from locate()) is a directory outside it.
 */
struct fs_backend {
	int (*mkdir)(void *ctx, const char *path);	/* 1 made, 0 existed, or -errno */
	int (*rmdir)(void *ctx, const char *path);
	/* One file's content without its newline (for the undo log and MIRROR). */
	int (*read)(void *ctx, const char *path, const char *file, char *buf, size_t len);
	int (*write)(void *ctx, const char *path, const char *file, const char *value);
	int (*move)(void *ctx, const char *path, unsigned int vcpu);
	/* Where vCPU vcpu is now, as a path move() takes back; -errno if unknown. */
	int (*locate)(void *ctx, unsigned int vcpu, char *path, size_t len);
	/* What the last failed call looked for, for the message (may be NULL or return NULL). */
	const char *(*why)(void *ctx);
	bool dry_run;			/* nothing is changed, so nothing is undone */
	void *ctx;
};

const char *fs_flavor_name(enum fs_flavor fl);
/* 0, -EINVAL (a value the flavour refuses; message in d) or -ENOMEM. */
int fsops_render(const struct plan *p, enum fs_flavor fl, struct fsops *out, struct diag *d);
void fsops_free(struct fsops *f);
/*
 * Runs the operations in order, all or nothing: at the first failure (named in d with the file,
 * value, errno and XML element) every change made so far is undone in reverse order (groups
 * made are removed, values written get their old ones back, moved vCPUs go back); what cannot
 * be undone is a warning. A missing file on the VM's own group (optional) is a warning.
 */
int fsops_exec(const struct fsops *f, const struct fs_backend *be, struct diag *d);

#endif
