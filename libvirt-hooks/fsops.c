// SPDX-License-Identifier: GPL-2.0
/* Plan -> file operations for cgroup v2 or v1, and their execution through a back end. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/cputune.h"
#include "libvirt/fsops.h"

const char *fs_flavor_name(enum fs_flavor fl)
{
	return fl == FS_V1 ? "cgroup v1 cpu" : "cgroup v2";
}

static struct fsop *fsops_add(struct fsops *f, enum fsop_kind kind, const char *path,
			      const struct plan_op *from)
{
	struct fsop *op;

	if (f->nr == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 64;
		struct fsop *n = realloc(f->ops, cap * sizeof(*n));

		if (!n)
			return NULL;
		f->ops = n;
		f->cap = cap;
	}
	op = &f->ops[f->nr++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	snprintf(op->path, sizeof(op->path), "%s", path);
	op->origin = from->origin;
	op->line = from->line;
	op->optional = !path[0];
	return op;
}

static int fsops_write_str(struct fsops *f, const struct plan_op *from, const char *path,
			   const char *file, const char *value)
{
	struct fsop *op = fsops_add(f, FSOP_WRITE, path, from);

	if (!op)
		return -ENOMEM;
	snprintf(op->file, sizeof(op->file), "%s", file);
	snprintf(op->value, sizeof(op->value), "%s", value);
	return 0;
}

static int fsops_write(struct fsops *f, const struct plan_op *from, const char *path,
		       const char *file, unsigned long long v)
{
	char value[24];

	snprintf(value, sizeof(value), "%llu", v);
	return fsops_write_str(f, from, path, file, value);
}

static const char *parent_of(const char *path, char *out, size_t len)
{
	const char *slash = strrchr(path, '/');

	snprintf(out, len, "%.*s", slash ? (int)(slash - path) : 0, path);
	return out;
}

/* Whether "+cpu" already goes to path's cgroup.subtree_control earlier in the list. */
static bool fsops_enabled(const struct fsops *f, const char *path)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (f->ops[i].kind == FSOP_WRITE && !strcmp(f->ops[i].path, path) &&
		    !strcmp(f->ops[i].file, "cgroup.subtree_control"))
			return true;
	return false;
}

/*
 * v2: a thread group is made "threaded" and then gets "cpu" from its parent, in libvirt's order
 * (virCgroupV2MakeGroup()): a populated parent may enable cpu only once it is a thread root.
 */
static int fsops_mkdir(struct fsops *f, const struct plan_op *op, enum fs_flavor fl)
{
	char parent[PLAN_PATH_MAX];
	struct fsop *o;

	if (!fsops_add(f, FSOP_MKDIR, op->path, op))
		return -ENOMEM;
	if (fl != FS_V2)
		return 0;
	o = fsops_add(f, FSOP_WRITE, op->path, op);
	if (!o)
		return -ENOMEM;
	strcpy(o->file, "cgroup.type");
	strcpy(o->value, "threaded");
	if (fsops_enabled(f, parent_of(op->path, parent, sizeof(parent))))
		return 0;
	o = fsops_add(f, FSOP_WRITE, parent, op);
	if (!o)
		return -ENOMEM;
	o->optional = false;
	strcpy(o->file, "cgroup.subtree_control");
	strcpy(o->value, "+cpu");
	return 0;
}

static int fsops_shares(struct fsops *f, const struct plan_op *op, enum fs_flavor fl,
			struct diag *d)
{
	unsigned long long lo = fl == FS_V2 ? CPUTUNE_SHARES_V2_MIN : CPUTUNE_SHARES_V1_MIN;
	unsigned long long hi = fl == FS_V2 ? CPUTUNE_SHARES_V2_MAX : CPUTUNE_SHARES_V1_MAX;
	char buf[24];

	/* libvirt passes <shares> through unconverted and checks it against the cgroup version. */
	if (op->value < lo || op->value > hi) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)op->value);
		return diag_at(d, -EINVAL, op->line, "shares", buf,
				 "shares '%llu' must be in range [%llu, %llu]",
				 (unsigned long long)op->value, lo, hi);
	}
	return fsops_write(f, op, op->path, fl == FS_V2 ? "cpu.weight" : "cpu.shares", op->value);
}

static int fsops_max(struct fsops *f, const struct plan_op *op, enum fs_flavor fl)
{
	struct fsop *o;

	if (op->mirror) {
		o = fsops_add(f, FSOP_MIRROR, op->path, op);
		if (!o)
			return -ENOMEM;
		o->vcpu = op->vcpu;
		o->flavor = fl;
		o->quota = fl == FS_V2 && op->quota == CPUTUNE_QUOTA_MAX ? -1 : op->quota;
		o->period = op->value;
		o->optional = false;
		return 0;
	}

	if (fl == FS_V1)
		return fsops_write(f, op, op->path, "cpu.cfs_period_us", op->value) ?:
		       (op->quota < 0 ?
				fsops_write_str(f, op, op->path, "cpu.cfs_quota_us", "-1") :
				fsops_write(f, op, op->path, "cpu.cfs_quota_us",
					    (unsigned long long)op->quota));
	o = fsops_add(f, FSOP_WRITE, op->path, op);
	if (!o)
		return -ENOMEM;
	strcpy(o->file, "cpu.max");
	/* libvirt on v2 writes its largest quota as "max" (virCgroupV2SetCpuCfsQuota). */
	if (op->quota < 0 || op->quota == CPUTUNE_QUOTA_MAX)
		snprintf(o->value, sizeof(o->value), "max %llu", (unsigned long long)op->value);
	else
		snprintf(o->value, sizeof(o->value), "%lld %llu", (long long)op->quota,
			 (unsigned long long)op->value);
	return 0;
}

static int fsops_op(struct fsops *f, const struct plan_op *op, enum fs_flavor fl,
		    struct diag *d)
{
	struct fsop *o;

	switch (op->kind) {
	case PLAN_MKDIR:
		return fsops_mkdir(f, op, fl);
	case PLAN_SHARES:
		return fsops_shares(f, op, fl, d);
	case PLAN_WEIGHT:
		/* v1: the kernel's own conversion, S = (W * 1024 + 50) / 100. */
		if (fl == FS_V1)
			return fsops_write(f, op, op->path, "cpu.shares",
					   (op->value * 1024 + 50) / 100);
		return fsops_write(f, op, op->path, "cpu.weight", op->value);
	case PLAN_IDLE:
		return fsops_write(f, op, op->path, "cpu.idle", op->value);
	case PLAN_MAX:
		return fsops_max(f, op, fl);
	case PLAN_BURST:
		/* v1 writes 17592186044415 as a number (libvirt): no room for a burst above it. */
		if (fl == FS_V1 && op->value && op->quota == CPUTUNE_QUOTA_MAX)
			return diag_at(d, -EINVAL, op->line, "group", op->path,
				       "quota + burst exceed %lld (cgroup v1 writes quota "
				       "%lld as a number)", CPUTUNE_QUOTA_MAX, CPUTUNE_QUOTA_MAX);
		return fsops_write(f, op, op->path,
				   fl == FS_V1 ? "cpu.cfs_burst_us" : "cpu.max.burst", op->value);
	case PLAN_MOVE:
		o = fsops_add(f, FSOP_MOVE, op->path, op);
		if (!o)
			return -ENOMEM;
		o->vcpu = op->vcpu;
		o->optional = false;
		o->to_root_if_missing = op->to_libvirt;
		return 0;
	}
	return -EINVAL;
}

#define BW_SHIFT	20
#define RATIO_INF	UINT64_MAX

/* The kernel's to_ratio(): quota/period in 2^-20 units. */
static uint64_t cap_ratio(const struct plan_op *op)
{
	if (op->quota < 0)
		return RATIO_INF;
	return ((uint64_t)op->quota << BW_SHIFT) / op->value;
}

/*
 * cgroup v1 refuses a child whose quota/period exceeds its parent's effective ratio
 * (tg_cfs_schedulable_down()); v2 has no such rule. Checked on the whole plan before anything
 * is written: the kernel would refuse it half-way.
 */
static int fsops_v1_caps(const struct plan *p, struct diag *d)
{
	const struct plan_op **caps, **src;	/* src: whose cap is the effective one */
	uint64_t *eff;
	size_t i, j, nr = 0;
	int ret = 0;

	caps = calloc(p->nr + 1, sizeof(*caps));
	src = calloc(p->nr + 1, sizeof(*src));
	eff = calloc(p->nr + 1, sizeof(*eff));
	if (!caps || !src || !eff) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < p->nr && !ret; i++) {
		const struct plan_op *op = &p->ops[i], *parent = NULL;
		uint64_t peff = RATIO_INF, r;
		size_t best = 0;

		if (op->kind != PLAN_MAX)
			continue;
		/* Nearest capped ancestor seen so far (the plan writes parents first). */
		for (j = 0; j < nr; j++) {
			size_t l = strlen(caps[j]->path);

			if (l >= strlen(op->path) || (l && (strncmp(caps[j]->path, op->path, l) ||
							     op->path[l] != '/')))
				continue;
			if (!parent || l >= best) {
				parent = src[j];
				peff = eff[j];
				best = l;
			}
		}
		r = cap_ratio(op);
		if (r != RATIO_INF && r > peff) {
			char v[64];

			snprintf(v, sizeof(v), "%lld %llu", (long long)op->quota,
				 (unsigned long long)op->value);
			ret = diag_at(d, -EINVAL, op->line, op->origin, v,
					"cgroup v1 refuses a cap above the parent's: %s exceeds %s "
					"(%lld %llu)", op->path[0] ? op->path : "the VM",
					parent->path[0] ? parent->path : "the VM",
					(long long)parent->quota, (unsigned long long)parent->value);
			break;
		}
		caps[nr] = op;
		src[nr] = r == RATIO_INF ? parent : op;
		eff[nr++] = r == RATIO_INF ? peff : r;
	}
out:
	free(caps);
	free(src);
	free(eff);
	return ret;
}

int fsops_render(const struct plan *p, enum fs_flavor fl, struct fsops *out, struct diag *d)
{
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if (fl == FS_V1) {
		ret = fsops_v1_caps(p, d);
		if (ret)
			return ret;
	}
	for (i = 0; i < p->nr; i++) {
		ret = fsops_op(out, &p->ops[i], fl, d);
		if (ret) {
			fsops_free(out);
			return ret;
		}
	}
	return 0;
}

void fsops_free(struct fsops *f)
{
	free(f->ops);
	memset(f, 0, sizeof(*f));
}
