// SPDX-License-Identifier: GPL-2.0
/*
 * The libvirt QEMU hook. Which operations act (docs/hooks.rst order):
 *   prepare/start/migrate/restore begin  validate the domain; a bad one is not started
 *   started begin                        apply (vCPU threads and libvirt's cgroups exist now)
 *   reconnect/attach begin               apply again, but never fail: libvirt would kill QEMU
 *   stopped/release end, anything else   nothing
 * A domain without our <metadata> element is left to libvirt unless a vsched VM of that name
 * runs: libvirt already applied its <cputune> to QEMU, and we must not refuse what it accepts.
 * Nothing goes to stdout: for migrate/restore it would replace the domain XML.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/apply.h"
#include "libvirt/fsops.h"
#include "libvirt/hook.h"
#include "libvirt/plan.h"
#include "libvirt/qemu.h"

static const struct hook_op {
	const char *op;
	const char *sub;
	enum hook_action action;
} hook_ops[] = {
	{ "prepare", "begin", HOOK_VALIDATE },
	{ "start", "begin", HOOK_VALIDATE },
	{ "migrate", "begin", HOOK_VALIDATE },
	{ "restore", "begin", HOOK_VALIDATE },
	{ "started", "begin", HOOK_APPLY },
	{ "reconnect", "begin", HOOK_REAPPLY },
	{ "attach", "begin", HOOK_REAPPLY },
};

enum hook_action hook_action(const char *op, const char *sub)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(hook_ops); i++)
		if (!strcmp(hook_ops[i].op, op) && !strcmp(hook_ops[i].sub, sub))
			return hook_ops[i].action;
	return HOOK_NONE;
}

/* Full validation, including the flavour-dependent ranges, without touching anything. */
static int hook_validate(const struct domain_def *def, bool is_vsched, struct diag *d)
{
	struct apply_host host;
	struct fsops ops;
	struct plan plan;
	int ret;

	/* A vsched VM joined to the host scheduler: planned as apply_domain() will. */
	ret = apply_host_plan(def, is_vsched ? 0 : APPLY_QEMU, &host, d);
	if (ret)
		return ret;
	ret = plan_build(def, !is_vsched ? PLAN_LIBVIRT_VCPUS :
			 host.join ? PLAN_HOST_VM : PLAN_NEST_GLOBAL, &plan);
	if (ret)
		return ret;
	ret = fsops_render(&plan, is_vsched ? FS_V2 : qemu_host_flavor(), &ops, d);
	if (!ret)
		fsops_free(&ops);
	plan_free(&plan);
	return ret;
}

int hook_run(const char *name, enum hook_action action, const char *xml, size_t len,
	     struct diag *d)
{
	struct domain_def def;
	char dir[PATH_MAX];
	bool is_vsched, opted_in;
	pid_t pid = 0;
	int ret;

	/* Opted in: our namespace appears in the XML, or a vsched VM of this name runs. */
	is_vsched = apply_is_vsched(name, dir, sizeof(dir));
	opted_in = is_vsched || memmem(xml, len, VGROUPS_NS_PREFIX, strlen(VGROUPS_NS_PREFIX));
	if (!opted_in)
		return 0;
	ret = domain_parse_memory(xml, len, &def, d);
	if (ret)
		return ret;
	if (strcmp(def.name, name)) {
		ret = xerr(d, NULL, "name", def.name, "the hook was called for domain '%s'", name);
		goto out;
	}
	if (action == HOOK_VALIDATE) {
		ret = hook_validate(&def, is_vsched, d);
		goto out;
	}
	ret = apply_find_target(name, dir, sizeof(dir), &pid, &is_vsched);
	if (ret) {
		xerr(d, NULL, NULL, NULL, "domain '%s': no vsched control directory and no QEMU "
		     "process/cgroup found: %s", name, strerror(-ret));
		goto out;
	}
	ret = apply_domain(&def, dir, pid, is_vsched ? 0 : APPLY_QEMU, NULL, d);
	/* From now on libvirt's live per-vCPU tuning follows the vCPUs into our leaves. */
	if (!ret && !is_vsched)
		apply_start_sync(&def, dir, pid);
out:
	domain_free(&def);
	return ret;
}
