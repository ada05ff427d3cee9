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

#include "cmd/run.h"
#include "host/proto.h"
#include "libvirt/partition.h"
#include "sched/runtime.h"
#include "util/registry.h"
#include "vsched.h"

/* Writes value into a scratch group's file: the interface file's own parser and setter. */
static int run_host_try(const char *file, const char *value)
{
	struct vsched *vs = vsched_create(1, 1);
	int ret;

	if (!vs)
		return -errno;
	ret = vsched_write_str(vs, "", "cgroup.subtree_control", "+cpu");
	if (!ret)
		ret = vsched_mkdir(vs, "vm");
	if (!ret)
		ret = vsched_write_str(vs, "vm", file, value);
	vsched_destroy(vs);
	return ret;
}

int run_host_valid(const char *partition, const char *weight, const char *max, char *msg,
		   size_t msglen)
{
	char why[256];
	int ret;

	if (partition && partition_check(partition, why, sizeof(why))) {
		snprintf(msg, msglen, "partition '%s': %s", partition, why);
		return -EINVAL;
	}
	if (weight && (ret = run_host_try("cpu.weight", weight))) {
		snprintf(msg, msglen, "cpu.weight '%s': %s (1-10000)", weight, strerror(-ret));
		return -EINVAL;
	}
	if (max && (ret = run_host_try("cpu.max", max))) {
		snprintf(msg, msglen, "cpu.max '%s': %s (\"QUOTA PERIOD\" or \"max PERIOD\" in us: "
			 "quota >= 1000, period 1000-1000000)", max, strerror(-ret));
		return -EINVAL;
	}
	return 0;
}

int run_host_check(const struct run_cfg *cfg __unused)
{
	unsigned int lanes;
	char path[PATH_MAX];
	int ret;

	snprintf(path, sizeof(path), "%s/" HOST_SOCK_NAME, registry_run_dir());
	ret = runtime_host_probe(path, &lanes);
	if (ret)
		fprintf(stderr, "vsched run: no host scheduler at %s: %s\n", path, strerror(-ret));
	return ret;
}
