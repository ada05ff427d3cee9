// SPDX-License-Identifier: GPL-2.0
/*
 * A domain applied to a running VM (`vsched apply`, the hook) and the host scheduler
 * (docs/libvirt.md). Where the vsched VM runs joined (its registry record names its group in
 * the daemon's tree), <shares> and the global cap are that group's, written in the daemon's
 * directory, and the VM's own groups go straight below its root, where `vsched run --domain`
 * put them. What cannot be honoured is warned about, naming the element: a domain that says it
 * joins whose VM runs embedded, a <partition> other than the running VM's, host='yes' on a
 * libvirt QEMU domain.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "libvirt/apply.h"
#include "libvirt/plan.h"
#include "util/file.h"
#include "util/registry.h"

#define APPLY_HOST_PARTITION_DFL	"/machine"	/* the daemon's default (host/host.h) */

struct apply_host_find {
	const char *name;
	char group[REGISTRY_HOST_LEN];
};

static int apply_host_match(const struct registry_entry *e, void *arg)
{
	struct apply_host_find *f = arg;

	if (!e->alive || strcmp(e->name, f->name))
		return 0;
	snprintf(f->group, sizeof(f->group), "%s", e->host);
	return 1;
}

/* A warning on the element that makes the domain join or not: host='..' or <partition>. */
static int apply_host_warn(const struct domain_def *def, struct diag *d, const char *msg)
{
	const struct vgroups *vg = &def->groups;

	if (vg->host != VGROUPS_HOST_UNSET)
		return diag_warn(d, vg->host_line, "groups", "host='%s': %s",
				 vg->host == VGROUPS_HOST_YES ? "yes" : "no", msg);
	return diag_warn(d, def->partition_line, "partition", "'%s': %s", def->partition, msg);
}

/* A running vsched VM: its group in the daemon's tree, or "" when it runs embedded. */
static int apply_host_running(const struct domain_def *def, char *group, size_t len,
			      struct diag *d)
{
	struct apply_host_find f = { .name = def->name };
	char msg[DIAG_MAX];
	size_t n;

	registry_list(apply_host_match, &f);
	snprintf(group, len, "%s", f.group);
	if (!group[0]) {
		if (!domain_joins_host(def))
			return 0;
		snprintf(msg, sizeof(msg), "VM '%s' runs embedded, not on the host scheduler: "
			 "<shares> and the global cap stay in its own tree (restart it with "
			 "`vsched run --domain` to join)", def->name);
		return apply_host_warn(def, d, msg);
	}
	n = strrchr(group, '/') - group;
	if (def->groups.host == VGROUPS_HOST_NO)
		snprintf(msg, sizeof(msg), "VM '%s' runs on the host scheduler as %s: its <shares> "
			 "and global cap are applied there", def->name, group);
	else if (def->partition &&
		 (strlen(def->partition) != n || strncmp(def->partition, group, n)))
		snprintf(msg, sizeof(msg), "VM '%s' runs as %s: a running VM is not moved (restart "
			 "it to change its partition)", def->name, group);
	else
		return 0;
	return apply_host_warn(def, d, msg);
}

int apply_host_plan(const struct domain_def *def, unsigned int flags, struct apply_host *ah,
		    struct diag *d)
{
	char group[REGISTRY_HOST_LEN];
	int ret;

	memset(ah, 0, sizeof(*ah));
	if (flags & APPLY_QEMU)
		return def->groups.host == VGROUPS_HOST_YES ?
		       diag_warn(d, def->groups.host_line, "groups", "host='yes': a libvirt QEMU "
				 "domain cannot join vsched's host scheduler (only `vsched run` "
				 "VMs can); applied to its cgroups as libvirt's") : 0;
	if (flags & APPLY_NOT_RUNNING) {
		if (!domain_joins_host(def))
			return 0;
		snprintf(group, sizeof(group), "%s/%s",
			 def->partition ? def->partition : APPLY_HOST_PARTITION_DFL, def->name);
	} else {
		ret = apply_host_running(def, group, sizeof(group), d);
		if (ret || !group[0])
			return ret;
	}
	ah->join = true;
	snprintf(ah->dir, sizeof(ah->dir), "%s/" REGISTRY_HOST_DIR "%s", registry_run_dir(), group);
	return domain_host_settings(def, &ah->set, d);
}

int apply_host_write(const struct apply_host *ah, bool dry_run, FILE *out, struct diag *d)
{
	/*
	 * A knob the domain leaves unset is written as its default, as plan.c writes every
	 * group's: applying an edited domain gives the state it describes, not the old one.
	 */
	char dflt_max[32];
	const char *const files[][2] = {
		{ "cpu.weight", ah->set.weight[0] ? ah->set.weight : "100" },
		{ "cpu.max", ah->set.max[0] ? ah->set.max : dflt_max },
	};
	char path[PATH_MAX + 16];
	unsigned int i;
	int ret;

	if (!ah->join)
		return 0;
	snprintf(dflt_max, sizeof(dflt_max), "max %llu", PLAN_PERIOD_DFL);
	if (dry_run)
		fprintf(out, "# the VM's group on the host scheduler (its directory)\n");
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s/%s", ah->dir, files[i][0]);
		if (dry_run) {
			fprintf(out, "write %s %s\n", path, files[i][1]);
			continue;
		}
		ret = file_write(path, files[i][1], strlen(files[i][1]));
		if (ret)
			return diag_set(d, ret, "the host scheduler's %s: %s", path,
					strerror(-ret));
	}
	return 0;
}
