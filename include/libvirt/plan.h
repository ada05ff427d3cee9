/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The apply plan: what a parsed domain asks of a group tree, as an ordered list of operations
 * (make a group, set one knob, move a vCPU), independent of where it is applied. Paths are
 * relative to the VM's own group ("" = the VM: a vsched control directory's root, or the
 * domain cgroup libvirt made for QEMU). fsops.h turns a plan into file writes for a target.
 */
#ifndef VSCHED_LIBVIRT_PLAN_H
#define VSCHED_LIBVIRT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libvirt/domain.h"

/* Where PLAN_NEST_GLOBAL puts everything. */
#define PLAN_GLOBAL_GROUP	"libvirt"
/* The longest plan path, "libvirt/" + the deepest group + "/vcpu1023", and its NUL. */
#define PLAN_PATH_MAX								\
	(sizeof(PLAN_GLOBAL_GROUP "/") - 1 + VGROUP_PATH_MAX + sizeof("/vcpu1023") - 1)
#define PLAN_PERIOD_DFL	100000ULL

enum plan_kind {
	PLAN_MKDIR,		/* path */
	PLAN_SHARES,		/* <shares>, passed through: cpu.weight on v2, cpu.shares on v1 */
	PLAN_WEIGHT,		/* cgroup v2 weight (1..10000) */
	PLAN_IDLE,		/* value 0/1 */
	PLAN_MAX,		/* quota (< 0 = max), period */
	PLAN_BURST,		/* value µs */
	PLAN_MOVE,		/* vcpu into path */
};

struct plan_op {
	enum plan_kind kind;
	char path[PLAN_PATH_MAX];
	uint64_t value;		/* shares, weight, idle, burst, or the period of PLAN_MAX */
	int64_t quota;		/* PLAN_MAX; PLAN_BURST: its group's quota */
	unsigned int vcpu;	/* PLAN_MOVE; PLAN_MAX with mirror */
	bool mirror;		/* PLAN_MAX: libvirt's vcpuN cap wins; quota, value fall back */
	bool to_libvirt;	/* PLAN_MOVE: path is libvirt's own vcpuN group */
	const char *origin;	/* the XML element it comes from, for messages */
	int line;
};

struct plan {
	struct plan_op *ops;
	size_t nr, cap;
	unsigned int nr_vcpus;	/* vCPUs online at start: moves exist for these */
};

/* The VM's own group cannot take cpu.max: nest everything below PLAN_GLOBAL_GROUP if capped. */
#define PLAN_NEST_GLOBAL	(1U << 0)
/* <shares> belongs to the parent of the VM's group (libvirt's systemd layout on cgroup v2). */
#define PLAN_SHARES_UP		(1U << 1)
/*
 * The VM's group is a libvirt QEMU domain's: libvirt owns its vcpuN groups and their
 * <period>/<quota> (`virsh schedinfo --live` writes them). Unassigned vCPUs go back to them;
 * an assigned vCPU gets a leaf G/vcpuN that mirrors libvirt's vcpuN values.
 */
#define PLAN_LIBVIRT_VCPUS	(1U << 2)

/*
 * <shares> and the global cap are the VM group's on the host scheduler (`vsched run --host`),
 * which sets them there: the plan leaves them out, and groups go straight below the VM.
 */
#define PLAN_HOST_VM		(1U << 3)

/*
 * What a vsched VM (not a libvirt QEMU domain, where libvirt applies it) cannot honour of a
 * validated domain, as warnings in d: <vcpupin> and <emulatorpin>. 0 or -ENOMEM.
 */
int plan_warn_vsched(const struct domain_def *def, struct diag *d);

/* Builds the plan of a validated domain. 0 or -ENOMEM; free with plan_free(). */
int plan_build(const struct domain_def *def, unsigned int flags, struct plan *p);
void plan_free(struct plan *p);
/* One line per operation, in order (the abstract plan, before any target is chosen). */
void plan_print(const struct plan *p, FILE *out);

#endif
