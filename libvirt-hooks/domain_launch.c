// SPDX-License-Identifier: GPL-2.0
/* Domain XML -> what `vsched run` starts, and the group plan applied through the C API. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvirt/api_backend.h"
#include "libvirt/domain_launch.h"
#include "libvirt/plan.h"
#include "util/registry.h"

int domain_launch_check(const struct domain_def *def, const struct domain_limits *lim,
			struct diag *d)
{
	char v[24];

	if (def->vcpus > lim->max_vcpus) {
		snprintf(v, sizeof(v), "%u", def->vcpus);
		return diag_at(d, -EINVAL, def->vcpu_line, "vcpu", v, "%u vCPUs to start, this "
			       "VMM runs at most %u (current='M' starts fewer)", def->vcpus,
			       lim->max_vcpus);
	}
	if (!def->kernel && def->memory < lim->min_mem)
		return diag_at(d, -EINVAL, def->memory_line, "memory", NULL, "%lluK of RAM; a VM "
			       "of payload guests (no <os><kernel>) needs at least %lluK",
			       (unsigned long long)def->memory >> 10,
			       (unsigned long long)lim->min_mem >> 10);
	return 0;
}

bool domain_joins_host(const struct domain_def *def)
{
	const struct vgroups *vg = &def->groups;

	return vg->host == VGROUPS_HOST_YES || (vg->host == VGROUPS_HOST_UNSET && def->partition);
}

int domain_host_settings(const struct domain_def *def, struct domain_host *h, struct diag *d)
{
	const struct cputune *t = &def->tune;

	h->partition = def->partition;
	/* libvirt writes <shares> as cpu.weight on cgroup v2, range-checked there. */
	if (t->shares_set && (t->shares < CPUTUNE_SHARES_V2_MIN ||
			      t->shares > CPUTUNE_SHARES_V2_MAX)) {
		char buf[24];

		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)t->shares);
		return diag_at(d, -EINVAL, t->shares_line, "shares", buf,
			       "shares '%llu' must be in range [%llu, %llu]",
			       (unsigned long long)t->shares, CPUTUNE_SHARES_V2_MIN,
			       CPUTUNE_SHARES_V2_MAX);
	}
	if (t->shares_set)
		snprintf(h->weight, sizeof(h->weight), "%llu", (unsigned long long)t->shares);
	/*
	 * As plan_max() rendered for v2: quota 0 (unset), negative or libvirt's largest is "max",
	 * period 0 the default.
	 */
	if (t->global.quota > 0 && t->global.quota != CPUTUNE_QUOTA_MAX)
		snprintf(h->max, sizeof(h->max), "%lld %llu", (long long)t->global.quota,
			 (unsigned long long)(t->global.period ? t->global.period :
								 PLAN_PERIOD_DFL));
	else if (t->global.period || t->global.quota)
		snprintf(h->max, sizeof(h->max), "max %llu",
			 (unsigned long long)(t->global.period ? t->global.period :
								 PLAN_PERIOD_DFL));
	return 0;
}

/* Whether the domain joins the host scheduler, and its VM group's settings if it does. */
static int domain_launch_host(struct domain_launch *l, bool host)
{
	const struct vgroups *vg = &l->def.groups;
	struct domain_host *h = &l->host;

	if (host && vg->host == VGROUPS_HOST_NO)
		return diag_at(&l->diag, -EINVAL, vg->host_line, "groups", "no",
			       "host='no' keeps this domain off the host scheduler; --host "
			       "contradicts it");
	h->join = host || domain_joins_host(&l->def);
	return h->join ? domain_host_settings(&l->def, h, &l->diag) : 0;
}

int domain_launch_load(const char *path, bool host, struct domain_launch *l)
{
	struct plan plan;
	int ret;

	memset(l, 0, sizeof(*l));
	diag_init(&l->diag, path);
	ret = domain_parse_file(path, &l->def, &l->diag);
	if (ret)
		return ret;
	/* The name becomes the VM's record and directory: stricter than libvirt's rules. */
	if (registry_name_valid(l->def.name))
		ret = diag_at(&l->diag, -EINVAL, l->def.name_line, "name", l->def.name,
			      "a vsched VM's name has 1 to 128 printable characters and does not "
			      "start with '.' (it names %s/NAME)", registry_run_dir());
	if (!ret)
		ret = domain_launch_host(l, host);
	if (ret) {
		domain_free(&l->def);
		return ret;
	}
	/*
	 * Embedded, a vsched VM's root is cgroupfs-like: no cpu.max there, so a global cap nests.
	 * On the host scheduler the VM's group takes it, and <shares>.
	 */
	ret = plan_warn_vsched(&l->def, &l->diag);
	if (!ret)
		ret = plan_build(&l->def, l->host.join ? PLAN_HOST_VM : PLAN_NEST_GLOBAL, &plan);
	if (!ret) {
		ret = fsops_render(&plan, FS_V2, &l->ops, &l->diag);
		plan_free(&plan);
	}
	if (ret)
		domain_free(&l->def);
	return ret;
}

int domain_launch_apply(struct domain_launch *l, struct vsched *vs)
{
	struct fs_backend be;

	api_backend(vs, &be);
	return fsops_exec(&l->ops, &be, &l->diag);
}

void domain_launch_free(struct domain_launch *l)
{
	fsops_free(&l->ops);
	domain_free(&l->def);
	diag_free(&l->diag);
}
