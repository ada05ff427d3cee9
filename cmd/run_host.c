// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched run --host`, before anything starts: the VM group's settings checked as the daemon's
 * interface files will check them, and the host scheduler's socket (docs/host.md). Joining is
 * run_sched.c's.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/run.h"
#include "host/proto.h"
#include "libvirt/partition.h"
#include "sched/cftype.h"
#include "sched/group.h"
#include "sched/parse.h"
#include "sched/runtime.h"
#include "util/registry.h"

/* cpu.weight as its interface file takes it: kstrtou64, 1..10000. */
static int run_host_weight(const char *val, unsigned int *out)
{
	uint64_t w;

	if (parse_u64(val, &w) || w < CGROUP_WEIGHT_MIN || w > CGROUP_WEIGHT_MAX)
		return -EINVAL;
	*out = (unsigned int)w;
	return 0;
}

/* cpu.max as its interface file takes it: the syntax, then tg_set_cfs_bandwidth()'s ranges. */
static int run_host_max(const char *val, uint64_t *quota_us, uint64_t *period_us)
{
	uint64_t q, p = CPU_PERIOD_DFL_US;

	if (parse_cpu_max(val, &q, &p))
		return -EINVAL;
	if (group_bandwidth_rule(q, p, 0) != BW_OK)
		return -EINVAL;
	*quota_us = q;
	*period_us = p;
	return 0;
}

int run_host_parse(struct run_cfg *cfg, char *msg, size_t msglen)
{
	char why[256];

	cfg->host_weight = 0;
	cfg->host_quota_us = RUNTIME_INF;
	cfg->host_period_us = 0;
	if (cfg->partition && partition_check(cfg->partition, why, sizeof(why))) {
		snprintf(msg, msglen, "partition '%s': %s", cfg->partition, why);
		return -EINVAL;
	}
	/*
	 * The VM's group is PARTITION/NAME: a name that is an interface file's the daemon's tree
	 * refuses as mkdir does (EEXIST), which read "cannot join the host scheduler: File exists".
	 */
	if (cfg->name && cftype_find(cfg->name)) {
		snprintf(msg, msglen, "name '%s': the VM's group in the host scheduler's tree is "
			 "%s/%s, and %s is an interface file's name there", cfg->name,
			 cfg->partition ? cfg->partition : "/machine", cfg->name, cfg->name);
		return -EINVAL;
	}
	if (cfg->weight && run_host_weight(cfg->weight, &cfg->host_weight)) {
		snprintf(msg, msglen, "weight '%s' (1-10000, as cpu.weight)", cfg->weight);
		return -EINVAL;
	}
	if (cfg->max && run_host_max(cfg->max, &cfg->host_quota_us, &cfg->host_period_us)) {
		snprintf(msg, msglen, "max '%s' (\"QUOTA PERIOD\" or \"max PERIOD\" in us, as "
			 "cpu.max: quota >= 1000, period 1000-1000000)", cfg->max);
		return -EINVAL;
	}
	return 0;
}

int run_host_check(const struct run_cfg *cfg __unused)
{
	struct runtime_host_info info;
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/" HOST_SOCK_NAME, registry_run_dir());
	ret = runtime_host_probe(path, RUNTIME_HOST_REPLY_MS, &info);
	/* A daemon is there, its socket is not ours: "no host scheduler" misled. */
	if (ret == -EPROTONOSUPPORT)
		fprintf(stderr, "vsched run: the host scheduler at %s is of another vsched build "
			"(protocol %u here): restart it with this one (systemctl restart "
			"vsched-host)\n", path, HOST_PROTO_VERSION);
	else if (ret == -EACCES || ret == -EPERM)
		fprintf(stderr, "vsched run: the host scheduler at %s: %s (only its socket's "
			"owner joins; docs/host.md, Limits)\n", path, strerror(-ret));
	else if (ret)
		fprintf(stderr, "vsched run: no host scheduler at %s: %s\n", path, strerror(-ret));
	return ret;
}

struct run_host_owner {
	const char *partition;
	char vm[256], group[HOST_PATH_LEN];
};

/* Is e's group the partition or one of its ancestors (whole parts)? */
static int run_host_owner_of(const struct registry_entry *e, void *arg)
{
	struct run_host_owner *o = arg;
	size_t n = strlen(e->host);

	if (!e->alive || !n || strncmp(o->partition, e->host, n) ||
	    (o->partition[n] && o->partition[n] != '/'))
		return 0;
	snprintf(o->vm, sizeof(o->vm), "%s", e->name);
	snprintf(o->group, sizeof(o->group), "%s", e->host);
	return 1;
}

void run_host_join_failed(const struct run_cfg *cfg, const char *sock, int err)
{
	struct run_host_owner o = { .partition = cfg->partition ? cfg->partition : "/machine" };

	/* A group of the VM's name is there already (host_tree_join()): name it. */
	if (err == -EEXIST) {
		fprintf(stderr, "vsched run: cannot join the host scheduler at %s: %s/%s exists in "
			"its tree and is no running VM's (remove it, or choose another --name or "
			"--partition)\n", sock, o.partition, cfg->name);
		return;
	}
	/* host_tree_join(): more vCPUs than free slots ("No space left on device" said nothing). */
	if (err == -ENOSPC) {
		fprintf(stderr, "vsched run: cannot join the host scheduler at %s: too few free "
			"vCPU slots for this VM's vCPUs (its --max-vcpus bounds every joined VM's "
			"vCPUs together)\n", sock);
		return;
	}
	/* host_partition(): a user other than root joins only below a group it owns. */
	if (err == -EACCES) {
		fprintf(stderr, "vsched run: cannot join the host scheduler at %s: uid %u may not "
			"make %s/%s (a user other than root joins below a group it owns, \"cpu\" "
			"on above it: chown, cgroup.subtree_control in its directory)\n", sock,
			(unsigned int)geteuid(), o.partition, cfg->name);
		return;
	}
	if (err != -ENOTDIR) {
		fprintf(stderr, "vsched run: cannot join the host scheduler at %s: %s\n", sock,
			strerror(-err));
		return;
	}
	/* The daemon refuses a partition inside a joined VM's group (host_partition()). */
	if (registry_list(run_host_owner_of, &o) == 1)
		fprintf(stderr, "vsched run: cannot join the host scheduler at %s: partition '%s' "
			"is inside VM '%s''s group %s (a partition holds VMs; a VM's own groups "
			"are its VMM's)\n", sock, o.partition, o.vm, o.group);
	else
		fprintf(stderr, "vsched run: cannot join the host scheduler at %s: partition '%s' "
			"is inside a VM's group (`vsched list` shows their groups)\n", sock,
			o.partition);
}
