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

#include "libvirt/plan.h"

enum fs_flavor {
	FS_V2,
	FS_V1,
};

enum fsop_kind {
	FSOP_MKDIR,
	FSOP_WRITE,
	FSOP_MOVE,		/* vCPU vcpu into path: the back end knows how (TID or index) */
};

struct fsop {
	enum fsop_kind kind;
	char path[PLAN_PATH_MAX];	/* "" = the VM's group */
	char file[32];
	char value[48];
	unsigned int vcpu;
	bool optional;			/* on the VM's group: a missing file is a warning */
	const char *origin;
	int line;
};

struct fsops {
	struct fsop *ops;
	size_t nr, cap;
};

/* Where a rendered plan goes: a directory, stdout (dry run) or the in-process C API. */
struct fs_backend {
	/* Each returns 0 or -errno. mkdir of an existing group is success. */
	int (*mkdir)(void *ctx, const char *path);
	int (*write)(void *ctx, const char *path, const char *file, const char *value);
	int (*move)(void *ctx, const char *path, unsigned int vcpu);
	void *ctx;
};

const char *fs_flavor_name(enum fs_flavor fl);
/* 0, -EINVAL (a value the flavour refuses; message in d) or -ENOMEM. */
int fsops_render(const struct plan *p, enum fs_flavor fl, struct fsops *out, struct xdiag *d);
void fsops_free(struct fsops *f);
/*
 * Runs the operations in order; stops at the first failure, naming the file, value, errno and
 * the XML element in d. A missing file on the VM's own group (optional) becomes a warning.
 */
int fsops_exec(const struct fsops *f, const struct fs_backend *be, struct xdiag *d);

#endif
