// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: a libvirt domain XML document with vsched's <metadata> groups (libvirt-hooks/:
 * domain_parse_memory(), plan_build(), fsops_render(), fsops_exec() through the C API).
 *
 * Input: the document. Invariants:
 *  - refused: -EINVAL, nothing parsed, and one message "FILE:LINE: <element>..." (or, for a
 *    document that is not XML, "FILE:LINE: malformed XML: ...") with a line of the document;
 *  - accepted: every layout's plan (a vsched VM, a libvirt QEMU domain) validates: each group is
 *    made once, below one that exists, before it is used; values are in the kernel's ranges;
 *    each online vCPU moves once. Rendering for cgroup v2 and v1 succeeds or is refused with an
 *    element and a line;
 *  - what `vsched run --domain` does (up to its VM_MAX_VCPUS) succeeds on a fresh VM: the tree
 *    then holds each group with its weight, cap, burst and idle, and each vCPU where the domain
 *    puts it; applying again (a live re-tune with no edit) succeeds and changes nothing.
 */
#include <errno.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>

#include "fuzz.h"
#include "libvirt/api_backend.h"
#include "libvirt/fsops.h"
#include "libvirt/plan.h"
#include "vmm/vm.h"
#include "vsched.h"

#define DOM_FILE	"f.xml"
#define MAX_BW_US	17592186044415LL	/* the kernel's MAX_BW in µs */
/* Re-applying is compared on a snapshot of the whole tree: only for trees that read fast. */
#define DOM_SNAP_VCPUS	64
#define DOM_SNAP_GROUPS	64

/* "FILE:LINE: <elem>..." or "FILE:LINE: malformed XML: ..." with 1 <= LINE <= lines. */
static void check_message(const char *msg, unsigned long lines, const char *what)
{
	const char *p = msg + strlen(DOM_FILE ":");
	unsigned long line;
	char *end;

	FUZZ_CHECK(!strncmp(msg, DOM_FILE ":", strlen(DOM_FILE ":")), "%s: no file in '%s'", what,
		   msg);
	line = strtoul(p, &end, 10);
	FUZZ_CHECK(end > p && line >= 1 && line <= lines && !strncmp(end, ": ", 2),
		   "%s: no line of the document (1-%lu) in '%s'", what, lines, msg);
	p = end + 2;
	FUZZ_CHECK((*p == '<' && strchr(p, '>')) || !strncmp(p, "malformed XML: ", 15),
		   "%s: no element in '%s'", what, msg);
}

/* The groups a plan made so far: a hash table (plans of 1024 vCPUs have thousands of ops). */
static bool made(struct hsearch_data *h, const char *path)
{
	ENTRY e = { .key = (char *)path }, *found;

	return !path[0] || hsearch_r(e, FIND, &found, h);
}

/* A vCPU's own group "vcpuN" (group names cannot be that) is vCPU N's: a cut path is not. */
static void check_leaf(const struct plan_op *op, size_t k)
{
	const char *base = strrchr(op->path, '/');
	char want[16];

	base = base ? base + 1 : op->path;
	snprintf(want, sizeof(want), "vcpu%u", op->vcpu);
	if (!strncmp(base, "vcpu", 4) && base[4] &&
	    strspn(base + 4, "0123456789") == strlen(base + 4))
		FUZZ_CHECK(!strcmp(base, want), "op %zu: vCPU %u into '%s'", k, op->vcpu, op->path);
}

/* Online at start: libvirt's (<vcpus> may enable 0 and 2) on a QEMU domain, else 0 to vcpus-1. */
static unsigned int online(const struct domain_def *def, unsigned int flags, unsigned int i)
{
	return flags & PLAN_LIBVIRT_VCPUS ? cpuset_test(&def->online, i) : i < def->vcpus;
}

static void check_plan(const struct plan *p, const struct domain_def *def, unsigned int flags)
{
	unsigned int moves[CPUSET_MAX] = { 0 }, i;
	struct hsearch_data groups = { 0 };
	ENTRY e, *found;
	size_t k;

	FUZZ_CHECK(hcreate_r(p->nr * 2 + 16, &groups), "out of memory");
	for (k = 0; k < p->nr; k++) {
		const struct plan_op *op = &p->ops[k];
		char parent[PLAN_PATH_MAX], *slash;

		switch (op->kind) {
		case PLAN_MKDIR:
			FUZZ_CHECK(op->path[0] && !made(&groups, op->path),
				   "op %zu: mkdir '%s' twice", k, op->path);
			snprintf(parent, sizeof(parent), "%s", op->path);
			slash = strrchr(parent, '/');
			*(slash ? slash : parent) = '\0';
			FUZZ_CHECK(made(&groups, parent), "op %zu: mkdir '%s' before its parent", k,
				   op->path);
			e = (ENTRY){ .key = (char *)op->path };
			FUZZ_CHECK(hsearch_r(e, ENTER, &found, &groups), "out of memory");
			continue;
		case PLAN_SHARES:
			/* On the host scheduler the VM's group takes <shares>: not in the plan. */
			FUZZ_CHECK(!(flags & PLAN_HOST_VM), "op %zu: shares on a host VM", k);
			FUZZ_CHECK(!strcmp(op->path, flags & PLAN_SHARES_UP ? ".." : ""),
				   "op %zu: shares on '%s'", k, op->path);
			continue;
		case PLAN_WEIGHT:
			FUZZ_CHECK(op->value >= 1 && op->value <= 10000, "op %zu: weight %llu", k,
				   (unsigned long long)op->value);
			break;
		case PLAN_IDLE:
			FUZZ_CHECK(op->value <= 1, "op %zu: idle %llu", k,
				   (unsigned long long)op->value);
			break;
		case PLAN_MAX:
			FUZZ_CHECK(!(flags & PLAN_HOST_VM) || op->path[0],
				   "op %zu: the global cap of a host VM in the plan", k);
			if (op->mirror)
				check_leaf(op, k);
			FUZZ_CHECK(op->value >= 1000 && op->value <= 1000000 &&
					   (op->quota == -1 || (op->quota >= 1000 &&
								op->quota <= MAX_BW_US)),
				   "op %zu: cap %lld %llu", k, (long long)op->quota,
				   (unsigned long long)op->value);
			break;
		case PLAN_BURST:
			FUZZ_CHECK(op->value <= MAX_BW_US, "op %zu: burst %llu", k,
				   (unsigned long long)op->value);
			break;
		case PLAN_MOVE:
			FUZZ_CHECK(online(def, flags, op->vcpu), "op %zu: moves offline vCPU %u", k,
				   op->vcpu);
			check_leaf(op, k);
			moves[op->vcpu]++;
			/* libvirt's own vcpuN groups exist without us. */
			if (op->to_libvirt)
				continue;
			break;
		}
		FUZZ_CHECK(made(&groups, op->path), "op %zu (kind %d): no group '%s' yet", k,
			   op->kind, op->path);
	}
	for (i = 0; i < def->max_vcpus; i++)
		FUZZ_CHECK(moves[i] == online(def, flags, i), "vCPU %u moved %u times", i, moves[i]);
	hdestroy_r(&groups);
}

/* Rendering succeeds, or is refused with an element and a line. */
static void check_render(const struct plan *p, enum fs_flavor fl, unsigned long lines)
{
	struct fsops ops;
	struct diag d;
	int ret;

	diag_init(&d, DOM_FILE);
	ret = fsops_render(p, fl, &ops, &d);
	FUZZ_CHECK(ret == 0 || ret == -EINVAL, "rendering for %s: %d", fs_flavor_name(fl), ret);
	if (ret)
		check_message(d.msg, lines, "a refused rendering");
	fsops_free(&ops);
	diag_free(&d);
}

static void expect(struct vsched *vs, const char *path, const char *file, const char *want)
{
	char buf[256];
	ssize_t n = vsched_read(vs, path, file, buf, sizeof(buf));

	FUZZ_CHECK(n >= 0 && !strcmp(buf, want), "%s/%s reads '%s' (%zd), the domain says '%s'",
		   path, file, n >= 0 ? buf : "", n, want);
}

static void expect_cap(struct vsched *vs, const char *path, int64_t quota, uint64_t period)
{
	char want[64];

	period = period ? period : 100000;
	/* libvirt's largest quota is "max" on cgroup v2, as virCgroupV2SetCpuCfsQuota() writes it. */
	if (quota > 0 && quota != CPUTUNE_QUOTA_MAX)
		snprintf(want, sizeof(want), "%lld %llu\n", (long long)quota,
			 (unsigned long long)period);
	else
		snprintf(want, sizeof(want), "max %llu\n", (unsigned long long)period);
	expect(vs, path, "cpu.max", want);
}

static void expect_vcpu(struct vsched *vs, const char *path, unsigned int vcpu)
{
	char buf[4096];
	struct cpuset in;

	FUZZ_CHECK(vsched_read(vs, path, "vsched.vcpus", buf, sizeof(buf)) > 0 &&
			   !cpuset_parse(buf, CPUSET_MAX, &in) && cpuset_test(&in, vcpu),
		   "vCPU %u is not in '%s'", vcpu, path);
}

/* The tree after `vsched run --domain`, as docs/libvirt.md lays it out. */
static void check_tree(struct vsched *vs, const struct domain_def *def)
{
	const struct cputune *t = &def->tune;
	const char *prefix = t->global.period || t->global.quota ? "libvirt" : "";
	char path[PLAN_PATH_MAX + 32], want[32];
	unsigned int i;

	if (prefix[0])
		expect_cap(vs, prefix, t->global.quota, t->global.period);
	for (i = 0; i < def->groups.nr; i++) {
		const struct vgroup *g = &def->groups.g[i];

		snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] ? "/" : "", g->path);
		expect(vs, path, "cpu.idle", g->idle ? "1\n" : "0\n");
		snprintf(want, sizeof(want), "%u\n", g->weight_set ? g->weight : 100);
		if (!g->idle)
			expect(vs, path, "cpu.weight", want);
		expect_cap(vs, path, g->quota, g->period);
		snprintf(want, sizeof(want), "%llu\n", (unsigned long long)g->burst);
		expect(vs, path, "cpu.max.burst", want);
	}
	for (i = 0; i < def->vcpus; i++) {
		int gi = def->groups.vcpu_group[i];
		size_t n;

		snprintf(path, sizeof(path), "%s", prefix);
		if (gi >= 0)
			snprintf(path, sizeof(path), "%s%s%s", prefix, prefix[0] ? "/" : "",
				 def->groups.g[gi].path);
		n = strlen(path);
		if (t->vcpu.period || t->vcpu.quota || t->vcpus[i].policy == VCPU_SCHED_IDLE) {
			snprintf(path + n, sizeof(path) - n, "%svcpu%u", n ? "/" : "", i);
			expect_cap(vs, path, t->vcpu.quota, t->vcpu.period);
			expect(vs, path, "cpu.idle",
			       t->vcpus[i].policy == VCPU_SCHED_IDLE ? "1\n" : "0\n");
		}
		expect_vcpu(vs, path, i);
	}
}

/* `vsched run --domain`: render for a vsched VM, apply on a fresh one, check, apply again. */
static void check_launch(const struct domain_def *def, unsigned long lines)
{
	struct fuzz_snap once = { 0 }, twice = { 0 };
	struct fs_backend be;
	struct vsched *vs;
	struct fsops ops;
	struct plan plan;
	struct diag d;
	const char *diff;
	bool snap = def->vcpus <= DOM_SNAP_VCPUS && def->groups.nr <= DOM_SNAP_GROUPS;
	int ret;

	FUZZ_CHECK(!plan_build(def, PLAN_NEST_GLOBAL, &plan), "plan_build");
	diag_init(&d, DOM_FILE);
	ret = fsops_render(&plan, FS_V2, &ops, &d);
	plan_free(&plan);
	if (ret) {
		check_message(d.msg, lines, "a refused rendering");
		diag_free(&d);
		return;
	}
	vs = vsched_create(1, def->vcpus);
	FUZZ_CHECK(vs, "vsched_create(1, %u)", def->vcpus);
	vsched_set_clock(vs, fuzz_clock, NULL);
	api_backend(vs, &be);
	ret = fsops_exec(&ops, &be, &d);
	FUZZ_CHECK(!ret, "an accepted domain does not apply to a fresh VM: %s", d.msg);
	check_tree(vs, def);
	if (snap)
		fuzz_snapshot(vs, &once);
	ret = fsops_exec(&ops, &be, &d);
	FUZZ_CHECK(!ret, "applying the same domain again: %s", d.msg);
	if (snap) {
		fuzz_snapshot(vs, &twice);
		diff = fuzz_snap_diff(&once, &twice);
		FUZZ_CHECK(!diff, "applying the same domain again changed the tree: %s", diff);
	}
	fuzz_snap_free(&once);
	fuzz_snap_free(&twice);
	vsched_destroy(vs);
	fsops_free(&ops);
	diag_free(&d);
}

static void check_accepted(const struct domain_def *def, unsigned long lines)
{
	static const unsigned int layouts[] = {
		0, PLAN_NEST_GLOBAL, PLAN_SHARES_UP | PLAN_LIBVIRT_VCPUS,
		PLAN_NEST_GLOBAL | PLAN_SHARES_UP | PLAN_LIBVIRT_VCPUS, PLAN_HOST_VM,
	};
	struct plan plan;
	size_t i;
	FILE *null;

	FUZZ_CHECK(def->name && def->name[0] && !strchr(def->name, '/'), "domain name");
	FUZZ_CHECK(def->vcpus >= 1 && def->vcpus <= def->max_vcpus &&
			   def->max_vcpus <= DOMAIN_VCPUS_MAX && def->memory,
		   "%u of %u vCPUs, %llu bytes", def->vcpus, def->max_vcpus,
		   (unsigned long long)def->memory);
	for (i = 0; i < ARRAY_SIZE(layouts); i++) {
		FUZZ_CHECK(!plan_build(def, layouts[i], &plan), "plan_build(%#x)", layouts[i]);
		check_plan(&plan, def, layouts[i]);
		check_render(&plan, FS_V2, lines);
		check_render(&plan, FS_V1, lines);
		null = fopen("/dev/null", "w");
		if (null) {
			plan_print(&plan, null);
			fclose(null);
		}
		plan_free(&plan);
	}
	if (def->vcpus <= VM_MAX_VCPUS)
		check_launch(def, lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long lines = 1;
	struct domain_def def;
	struct diag d;
	size_t i;
	int ret;

	for (i = 0; i < size; i++)
		lines += data[i] == '\n';
	diag_init(&d, DOM_FILE);
	/* As the hook reads it: each message quotes its line. */
	d.src = (const char *)data;
	d.src_len = size;
	ret = domain_parse_memory((const char *)data, size, &def, &d);
	if (ret) {
		FUZZ_CHECK(ret == -EINVAL, "refused with %d", ret);
		FUZZ_CHECK(!def.name && !def.groups.g && !def.tune.vcpus, "refused, not freed");
		check_message(d.msg, lines, "a refused domain");
	} else {
		FUZZ_CHECK(!d.msg[0], "accepted with an error: %s", d.msg);
		check_accepted(&def, lines);
		domain_free(&def);
	}
	diag_free(&d);
	return 0;
}
