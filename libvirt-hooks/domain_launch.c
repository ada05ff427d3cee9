// SPDX-License-Identifier: GPL-2.0
/* Domain XML -> what `vsched run` starts, and the group plan applied through the C API. */
#include <errno.h>
#include <string.h>

#include "libvirt/api_backend.h"
#include "libvirt/domain_launch.h"
#include "libvirt/plan.h"

int domain_launch_load(const char *path, struct domain_launch *l)
{
	struct plan plan;
	int ret;

	memset(l, 0, sizeof(*l));
	diag_init(&l->diag, path);
	ret = domain_parse_file(path, &l->def, &l->diag);
	if (ret)
		return ret;
	/* A vsched VM's root is cgroupfs-like: no cpu.max there, so a global cap nests. */
	ret = plan_build(&l->def, PLAN_NEST_GLOBAL, &plan);
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
