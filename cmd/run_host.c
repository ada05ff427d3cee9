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
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "cmd/run.h"
#include "libvirt/partition.h"
#include "sched/runtime.h"
#include "util/registry.h"
#include "vsched.h"

#define RUN_HOST_SOCK	"host.sock"

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
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[PATH_MAX];
	int fd, ret = 0;

	snprintf(path, sizeof(path), "%s/" RUN_HOST_SOCK, registry_run_dir());
	if (strlen(path) >= sizeof(sa.sun_path)) {
		ret = -ENAMETOOLONG;
	} else {
		strcpy(sa.sun_path, path);
		fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
			ret = -errno;
		if (fd >= 0)
			close(fd);
	}
	if (ret) {
		fprintf(stderr, "vsched run: no host scheduler at %s: %s\n", path, strerror(-ret));
		return ret;
	}
#ifndef RUNTIME_HOST_RETRY_NS
	/* A build without the remote runtime (sched/runtime.h's host mode) cannot join it. */
	fprintf(stderr, "vsched run: --host: this vsched cannot join the host scheduler at %s "
		"yet\n", path);
	return -ENOSYS;
#else
	return 0;
#endif
}
