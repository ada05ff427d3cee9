// SPDX-License-Identifier: GPL-2.0
/*
 * Executing a rendered plan through a back end, all or nothing. Every change is logged with
 * what undoes it (a group made: rmdir; a value written: the old value; a vCPU moved: where it
 * was), and the first failure undoes the log in reverse order, so a refused plan leaves the
 * tree as it found it: reverse order passes through the same states the plan came through.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/fsops.h"

enum undo_kind {
	UNDO_RMDIR,
	UNDO_WRITE,
	UNDO_MOVE,
	UNDO_NOTE,		/* cannot be undone: value is the warning */
};

struct undo {
	enum undo_kind kind;
	char path[PATH_MAX];
	char file[32];
	char value[128];
	unsigned int vcpu;
};

struct fsexec {
	const struct fs_backend *be;
	struct diag *d;
	struct undo *log;
	size_t nr, cap;
};

static struct undo *undo_push(struct fsexec *x, enum undo_kind kind, const char *path)
{
	struct undo *u;

	if (x->nr == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 32;
		struct undo *n = realloc(x->log, cap * sizeof(*n));

		if (!n)
			return NULL;
		x->log = n;
		x->cap = cap;
	}
	u = &x->log[x->nr++];
	memset(u, 0, sizeof(*u));
	u->kind = kind;
	snprintf(u->path, sizeof(u->path), "%s", path);
	return u;
}

/* Whether path lies in a group this run made: its rmdir undoes everything inside. */
static bool exec_made_here(const struct fsexec *x, const char *path)
{
	size_t i, n;

	for (i = 0; i < x->nr; i++) {
		if (x->log[i].kind != UNDO_RMDIR)
			continue;
		n = strlen(x->log[i].path);
		if (!strncmp(path, x->log[i].path, n) && (!path[n] || path[n] == '/'))
			return true;
	}
	return false;
}

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(list, word); p; p = strstr(p + 1, word))
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

/*
 * How to undo writing value to file whose content was old: 0 (out is the value to write
 * back), 1 (nothing to undo) or -1 (cgroup v2 cannot turn a threaded group back).
 */
static int undo_value(const char *file, const char *old, const char *value, char *out,
		      size_t len)
{
	if (!strcmp(file, "cgroup.subtree_control")) {
		if (has_word(old, "cpu"))
			return 1;
		snprintf(out, len, "-cpu");
		return 0;
	}
	if (!strcmp(file, "cgroup.type"))
		return strcmp(old, value) ? -1 : 1;
	if (!strcmp(old, value))
		return 1;
	snprintf(out, len, "%s", old);
	return 0;
}

static int exec_write(struct fsexec *x, const char *path, const char *file, const char *value)
{
	const struct fs_backend *be = x->be;
	char old[128], back[128];
	struct undo *u;
	int undo = 1, ret;

	if (!be->dry_run && be->read && !exec_made_here(x, path) &&
	    !be->read(be->ctx, path, file, old, sizeof(old)))
		undo = undo_value(file, old, value, back, sizeof(back));
	ret = be->write(be->ctx, path, file, value);
	if (ret || undo == 1)
		return ret;
	u = undo_push(x, undo ? UNDO_NOTE : UNDO_WRITE, path);
	if (!u)
		return 0;	/* done; only its undo is lost */
	snprintf(u->file, sizeof(u->file), "%s", file);
	if (undo)
		snprintf(u->value, sizeof(u->value), "%s%s%s stays '%s' (cgroup v2 cannot undo it)",
			 path, path[0] ? "/" : "", file, value);
	else
		snprintf(u->value, sizeof(u->value), "%s", back);
	return 0;
}

static int exec_mkdir(struct fsexec *x, const struct fsop *op)
{
	int ret = x->be->mkdir(x->be->ctx, op->path);

	if (ret == 1 && !x->be->dry_run && x->be->rmdir)
		undo_push(x, UNDO_RMDIR, op->path);
	return ret < 0 ? ret : 0;
}

static int exec_move(struct fsexec *x, const struct fsop *op)
{
	const struct fs_backend *be = x->be;
	char where[PATH_MAX];
	bool undo = !be->dry_run && be->locate &&
		    !be->locate(be->ctx, op->vcpu, where, sizeof(where));
	const char *to = op->path;
	struct undo *u;
	int ret;

	ret = be->move(be->ctx, to, op->vcpu);
	if (ret == -ENOENT && op->to_root_if_missing) {
		to = "";	/* libvirt made no vcpuN group: its vCPUs sit in the domain's */
		ret = be->move(be->ctx, to, op->vcpu);
	}
	if (ret || !undo || !strcmp(where, to))
		return ret;
	u = undo_push(x, UNDO_MOVE, where);
	if (u)
		u->vcpu = op->vcpu;
	return 0;
}

/*
 * libvirt's cap of vCPU n (its vcpuN group: <period>/<quota> or `virsh schedinfo --live`)
 * into op->path; the domain's own values where libvirt has no such group.
 */
static int exec_mirror(struct fsexec *x, const struct fsop *op)
{
	const struct fs_backend *be = x->be;
	char src[32], quota[32], period[32], max[64];
	bool v1 = op->flavor == FS_V1;

	snprintf(src, sizeof(src), "vcpu%u", op->vcpu);
	if (v1 && be->read && !be->read(be->ctx, src, "cpu.cfs_quota_us", quota, sizeof(quota)) &&
	    !be->read(be->ctx, src, "cpu.cfs_period_us", period, sizeof(period)))
		goto write;
	if (!v1 && be->read && !be->read(be->ctx, src, "cpu.max", max, sizeof(max)))
		return exec_write(x, op->path, "cpu.max", max);
	snprintf(period, sizeof(period), "%llu", (unsigned long long)op->period);
	if (op->quota < 0)
		snprintf(quota, sizeof(quota), v1 ? "-1" : "max");
	else
		snprintf(quota, sizeof(quota), "%lld", (long long)op->quota);
	if (!v1) {
		snprintf(max, sizeof(max), "%s %s", quota, period);
		return exec_write(x, op->path, "cpu.max", max);
	}
write:
	/* Unlimited first: v1 checks each write against the parent's ratio. */
	return exec_write(x, op->path, "cpu.cfs_quota_us", "-1") ?:
	       exec_write(x, op->path, "cpu.cfs_period_us", period) ?:
	       exec_write(x, op->path, "cpu.cfs_quota_us", quota);
}

static void exec_rollback(struct fsexec *x)
{
	static const char *const what[] = {
		[UNDO_RMDIR] = "mkdir", [UNDO_WRITE] = "the write to",
		[UNDO_MOVE] = "the move of a vCPU from",
	};
	const struct fs_backend *be = x->be;
	size_t i;

	for (i = x->nr; i-- > 0;) {
		const struct undo *u = &x->log[i];
		int ret = 0;

		switch (u->kind) {
		case UNDO_RMDIR:
			ret = be->rmdir(be->ctx, u->path);
			break;
		case UNDO_WRITE:
			ret = be->write(be->ctx, u->path, u->file, u->value);
			break;
		case UNDO_MOVE:
			ret = be->move(be->ctx, u->path, u->vcpu);
			break;
		case UNDO_NOTE:
			xwarn(x->d, NULL, "rollback", "%s", u->value);
			break;
		}
		if (ret)
			xwarn(x->d, NULL, "rollback", "could not undo %s %s%s%s: %s", what[u->kind],
			      u->path[0] ? u->path : "/", u->file[0] ? "/" : "", u->file,
			      strerror(-ret));
	}
}

static void exec_fail(struct fsexec *x, const struct fsop *op, int err)
{
	const char *why = x->be->why ? x->be->why(x->be->ctx) : NULL;
	char what[96], where[PLAN_PATH_MAX + 40];

	switch (op->kind) {
	case FSOP_MKDIR:
		snprintf(what, sizeof(what), "mkdir");
		break;
	case FSOP_WRITE:
		snprintf(what, sizeof(what), "writing '%s' to", op->value);
		break;
	case FSOP_MIRROR:
		snprintf(what, sizeof(what), "copying libvirt's vcpu%u cap to", op->vcpu);
		break;
	case FSOP_MOVE:
		snprintf(what, sizeof(what), "moving vCPU %u to", op->vcpu);
		break;
	}
	snprintf(where, sizeof(where), "%s%s%s", op->path,
		 op->path[0] && op->kind == FSOP_WRITE ? "/" : "",
		 op->kind == FSOP_WRITE ? op->file : "");
	diag_at(x->d, -EINVAL, op->line, op->origin, NULL, "%s %s: %s%s%s%s", what,
		  where[0] ? where : "/", strerror(-err), why ? " (" : "", why ? why : "",
		  why ? ")" : "");
}

int fsops_exec(const struct fsops *f, const struct fs_backend *be, struct diag *d)
{
	struct fsexec x = { .be = be, .d = d };
	size_t i;
	int ret = 0;

	for (i = 0; i < f->nr && !ret; i++) {
		const struct fsop *op = &f->ops[i];

		switch (op->kind) {
		case FSOP_MKDIR:
			ret = exec_mkdir(&x, op);
			break;
		case FSOP_WRITE:
			ret = exec_write(&x, op->path, op->file, op->value);
			if (ret == -ENOENT && op->optional) {
				diag_warn(d, op->line, op->origin,
					  "the VM's group has no %s here; '%s' not applied",
					  op->file, op->value);
				ret = 0;
			}
			break;
		case FSOP_MIRROR:
			ret = exec_mirror(&x, op);
			break;
		case FSOP_MOVE:
			ret = exec_move(&x, op);
			break;
		}
		if (ret) {
			exec_fail(&x, op, ret);
			exec_rollback(&x);
		}
	}
	free(x.log);
	return ret;
}
