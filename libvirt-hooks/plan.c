// SPDX-License-Identifier: GPL-2.0
/*
 * Domain -> plan. The layout mirrors libvirt's so that a domain means the same thing everywhere:
 *
 *   VM                      <shares> (the VM's weight), <global_period>/<global_quota>
 *   +- <group>/<group>...   metadata groups: weight, cap, burst, idle
 *   |   +- vcpuN            only when the vCPU needs a group of its own: <period>/<quota>
 *   +- vcpuN                (a cap per vCPU, as libvirt's vcpuN groups) or <vcpusched idle>
 *
 * On a libvirt QEMU domain (PLAN_LIBVIRT_VCPUS) vcpuN below the VM is libvirt's own group:
 * unassigned vCPUs stay there, assigned ones get G/vcpuN mirroring its cap.
 *
 * Where the VM's group takes no cpu.max (a vsched VM: its root is cgroupfs-like, PLAN_NEST_GLOBAL),
 * a global cap goes on a group "libvirt" below it that holds all the rest, the layout libvirt
 * itself uses under systemd (machine scope, then "libvirt" with the global cap).
 *
 * Every knob of a group is written, defaults included, so that applying an edited domain to a
 * running VM gives the state the domain describes (not the old state plus the change).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/plan.h"

static struct plan_op *plan_add(struct plan *p, enum plan_kind kind, const char *path,
				const char *origin, int line)
{
	struct plan_op *op;

	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 32;
		struct plan_op *n = realloc(p->ops, cap * sizeof(*n));

		if (!n)
			return NULL;
		p->ops = n;
		p->cap = cap;
	}
	op = &p->ops[p->nr++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	snprintf(op->path, sizeof(op->path), "%s", path);
	op->origin = origin;
	op->line = line;
	return op;
}

static int plan_max(struct plan *p, const char *path, int64_t quota, uint64_t period,
		    const char *origin, int line)
{
	struct plan_op *op = plan_add(p, PLAN_MAX, path, origin, line);

	if (!op)
		return -ENOMEM;
	op->quota = quota > 0 ? quota : -1;	/* 0 (unset) and negative: unlimited */
	op->value = period ? period : PLAN_PERIOD_DFL;
	return 0;
}

static int plan_set(struct plan *p, enum plan_kind kind, const char *path, uint64_t v,
		    const char *origin, int line)
{
	struct plan_op *op = plan_add(p, kind, path, origin, line);

	if (!op)
		return -ENOMEM;
	op->value = v;
	return 0;
}

/* prefix/rel, either part may be empty. */
static void plan_path(char *buf, size_t len, const char *prefix, const char *rel)
{
	snprintf(buf, len, "%s%s%s", prefix, prefix[0] && rel[0] ? "/" : "", rel);
}

static int plan_group(struct plan *p, const struct vgroup *g, const char *prefix)
{
	const char *o = "vsched:group";
	char path[PLAN_PATH_MAX];

	plan_path(path, sizeof(path), prefix, g->path);
	if (!plan_add(p, PLAN_MKDIR, path, o, g->line))
		return -ENOMEM;
	/* cpu.idle first: while a group is idle its weight cannot be written. */
	if (plan_set(p, PLAN_IDLE, path, g->idle, o, g->line))
		return -ENOMEM;
	if (!g->idle &&
	    plan_set(p, PLAN_WEIGHT, path, g->weight_set ? g->weight : 100, o, g->line))
		return -ENOMEM;
	/* Burst to 0 first: a lower quota than the running burst would be refused. */
	if (plan_set(p, PLAN_BURST, path, 0, o, g->line) ||
	    plan_max(p, path, g->quota, g->period, o, g->line))
		return -ENOMEM;
	if (g->burst && plan_set(p, PLAN_BURST, path, g->burst, o, g->line))
		return -ENOMEM;
	if (g->burst)
		p->ops[p->nr - 1].quota = g->quota;	/* v1 keeps libvirt's largest quota */
	return 0;
}

static int plan_move(struct plan *p, const char *path, unsigned int i, const char *origin,
		     bool to_libvirt)
{
	struct plan_op *op = plan_add(p, PLAN_MOVE, path, origin, 0);

	if (!op)
		return -ENOMEM;
	op->vcpu = i;
	op->to_libvirt = to_libvirt;
	return 0;
}

/*
 * A libvirt QEMU domain: an unassigned vCPU goes back to libvirt's own vcpuN group, untouched;
 * an assigned one gets a leaf G/vcpuN whose cap follows libvirt's vcpuN (mirror), so that
 * `virsh schedinfo --live vcpu_quota=...` keeps reaching it (re-synced by libvirt_sync.c).
 */
static int plan_vcpu_libvirt(struct plan *p, const struct domain_def *def, unsigned int i,
			     const char *prefix)
{
	const struct cputune_bw *bw = &def->tune.vcpu;
	int gi = def->groups.vcpu_group[i];
	char path[PLAN_PATH_MAX];
	struct plan_op *op;

	if (gi < 0) {
		snprintf(path, sizeof(path), "vcpu%u", i);
		return cpuset_test(&def->online, i) ? plan_move(p, path, i, "vcpu", true) : 0;
	}
	plan_path(path, sizeof(path), prefix, def->groups.g[gi].path);
	snprintf(path + strlen(path), sizeof(path) - strlen(path), "/vcpu%u", i);
	if (!plan_add(p, PLAN_MKDIR, path, "vsched:assign", 0) ||
	    plan_set(p, PLAN_IDLE, path, def->tune.vcpus[i].policy == VCPU_SCHED_IDLE,
		     "vcpusched", 0) ||
	    plan_max(p, path, bw->quota, bw->period, "cputune/quota", bw->line))
		return -ENOMEM;
	op = &p->ops[p->nr - 1];
	op->mirror = true;
	op->vcpu = i;
	/* A QEMU domain's online vCPUs are libvirt's (<vcpus> may enable 0 and 2). */
	return cpuset_test(&def->online, i) ? plan_move(p, path, i, "vsched:assign", false) : 0;
}

static int plan_vcpu(struct plan *p, const struct domain_def *def, unsigned int i,
		     const char *prefix)
{
	const struct cputune *t = &def->tune;
	const struct cputune_bw *bw = &t->vcpu;
	bool capped = bw->period || bw->quota;
	bool idle = t->vcpus[i].policy == VCPU_SCHED_IDLE;
	int gi = def->groups.vcpu_group[i];
	char path[PLAN_PATH_MAX];

	plan_path(path, sizeof(path), prefix, gi >= 0 ? def->groups.g[gi].path : "");
	if (capped || idle) {
		size_t n = strlen(path);

		snprintf(path + n, sizeof(path) - n, "%svcpu%u", n ? "/" : "", i);
		if (!plan_add(p, PLAN_MKDIR, path, capped ? "cputune/period" : "vcpusched",
			      capped ? bw->line : 0))
			return -ENOMEM;
		if (plan_set(p, PLAN_IDLE, path, idle, "vcpusched", 0))
			return -ENOMEM;
		if (plan_max(p, path, bw->quota, bw->period, "cputune/quota", bw->line))
			return -ENOMEM;
	}
	if (i >= def->vcpus)		/* offline at start: no thread to move */
		return 0;
	return plan_move(p, path, i, gi >= 0 ? "vsched:assign" : "vcpu", false);
}

int plan_warn_vsched(const struct domain_def *def, struct diag *d)
{
	const struct cputune *t = &def->tune;
	unsigned int i;
	int ret = 0;

	/* The runtime pins lanes, and a vCPU runs on whichever lane it is granted. */
	if (t->vcpupin_line)
		ret = diag_warn(d, t->vcpupin_line, "vcpupin", "a vsched VM's vCPUs run on the "
				"lanes of its scheduler, which it places on host CPUs itself; "
				"pinning a vCPU is not applied");
	if (!ret && def->vcpu_cpuset)
		ret = diag_warn(d, def->vcpu_line, "vcpu", "cpuset='%s': a vsched VM's vCPUs run on "
				"the lanes of its scheduler, which it places on host CPUs itself; "
				"the vCPUs' default pinning is not applied", def->vcpu_cpuset);
	if (!ret && def->vcpu_placement_auto)
		ret = diag_warn(d, def->vcpu_line, "vcpu", "placement='auto': vsched does not ask "
				"numad where to place a VM; the vCPUs run on the lanes of its "
				"scheduler (not applied)");
	if (!ret && t->emulatorpin_set)
		ret = diag_warn(d, t->emulatorpin_line, "emulatorpin", "vsched does not pin the "
				"VMM's threads other than vCPUs; not applied");
	for (i = 0; i < t->nr_ignored && !ret; i++)
		ret = diag_warn(d, t->ignored[i].line, t->ignored[i].elem, "%s", t->ignored[i].why);
	for (i = 0; i < def->nr_knobs && !ret; i++)
		ret = diag_warn(d, def->knobs[i].line, def->knobs[i].elem, "%s", def->knobs[i].why);
	return ret;
}

int plan_build(const struct domain_def *def, unsigned int flags, struct plan *p)
{
	const struct cputune *t = &def->tune;
	/* On the host scheduler the VM's own group takes <shares> and the global cap. */
	bool vm_group = flags & PLAN_HOST_VM;
	bool global = !vm_group && (t->global.period || t->global.quota);
	const char *prefix = "", *o = "cputune/global_quota";
	unsigned int i;

	memset(p, 0, sizeof(*p));
	p->nr_vcpus = def->vcpus;
	if (t->shares_set && !vm_group &&
	    plan_set(p, PLAN_SHARES, flags & PLAN_SHARES_UP ? ".." : "", t->shares,
		     "cputune/shares", t->shares_line))
		goto nomem;
	if (global && (flags & PLAN_NEST_GLOBAL)) {
		/* The VM's group takes no cpu.max: one group below it holds everything. */
		prefix = PLAN_GLOBAL_GROUP;
		if (!plan_add(p, PLAN_MKDIR, prefix, o, t->global.line) ||
		    plan_set(p, PLAN_IDLE, prefix, 0, o, t->global.line) ||
		    plan_set(p, PLAN_WEIGHT, prefix, 100, o, t->global.line) ||
		    plan_set(p, PLAN_BURST, prefix, 0, o, t->global.line))
			goto nomem;
	}
	if (global && plan_max(p, prefix, t->global.quota, t->global.period, o, t->global.line))
		goto nomem;
	for (i = 0; i < def->groups.nr; i++)
		if (plan_group(p, &def->groups.g[i], prefix))
			goto nomem;
	for (i = 0; i < def->max_vcpus; i++)
		if (flags & PLAN_LIBVIRT_VCPUS ? plan_vcpu_libvirt(p, def, i, prefix) :
						 plan_vcpu(p, def, i, prefix))
			goto nomem;
	return 0;
nomem:
	plan_free(p);
	return -ENOMEM;
}

void plan_free(struct plan *p)
{
	free(p->ops);
	memset(p, 0, sizeof(*p));
}

void plan_print(const struct plan *p, FILE *out)
{
	static const char *const names[] = {
		[PLAN_MKDIR] = "mkdir", [PLAN_SHARES] = "shares", [PLAN_WEIGHT] = "weight",
		[PLAN_IDLE] = "idle", [PLAN_MAX] = "max", [PLAN_BURST] = "burst",
		[PLAN_MOVE] = "move",
	};
	size_t i;

	for (i = 0; i < p->nr; i++) {
		const struct plan_op *op = &p->ops[i];
		const char *path = op->path[0] ? op->path : "/";

		switch (op->kind) {
		case PLAN_MKDIR:
			fprintf(out, "mkdir %s\n", path);
			break;
		case PLAN_MAX:
			if (op->mirror)
				fprintf(out, "mirror %s vcpu%u\n", path, op->vcpu);
			else if (op->quota < 0)
				fprintf(out, "max %s max %llu\n", path,
					(unsigned long long)op->value);
			else
				fprintf(out, "max %s %lld %llu\n", path, (long long)op->quota,
					(unsigned long long)op->value);
			break;
		case PLAN_MOVE:
			fprintf(out, "move %s vcpu%u%s\n", path, op->vcpu,
				op->to_libvirt ? " (libvirt's)" : "");
			break;
		default:
			fprintf(out, "%s %s %llu\n", names[op->kind], path,
				(unsigned long long)op->value);
			break;
		}
	}
}
