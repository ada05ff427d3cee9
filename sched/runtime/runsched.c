// SPDX-License-Identifier: GPL-2.0
/* `vsched run`'s scheduler: groups at launch, the runtime on the VM, stats and live table. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sched/launch.h"
#include "sched/runsched.h"
#include "sched/runtime.h"
#include "sched/trace.h"
#include "vmm/stats.h"
#include "vmm/vm.h"
#include "vsched.h"

#define RUNSCHED_MONITOR_NS	1000000000ULL

unsigned int runsched_default_lanes(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

int runsched_setup(struct runsched *rs, unsigned int nr_vcpus, unsigned int lanes, bool scheduled,
		   const char *const *groups, unsigned int nr_groups, const char *const *assigns,
		   unsigned int nr_assigns, char *msg, size_t msglen)
{
	unsigned int i;
	int ret;

	memset(rs, 0, sizeof(*rs));
	rs->lanes = lanes;
	rs->scheduled = scheduled;
	rs->vs = vsched_create(lanes, nr_vcpus);
	if (!rs->vs) {
		snprintf(msg, msglen, "cannot create the group tree: %s", strerror(errno));
		return -errno;
	}
	vsched_set_pid(rs->vs, getpid());
	runtime_clock_init(rs->vs);
	for (i = 0; i < nr_groups; i++) {
		char why[256];

		ret = launch_group(rs->vs, groups[i], why, sizeof(why));
		if (ret) {
			snprintf(msg, msglen, "--group '%s': %s", groups[i], why);
			return ret;
		}
	}
	for (i = 0; i < nr_assigns; i++) {
		char why[256];

		ret = launch_assign(rs->vs, assigns[i], why, sizeof(why));
		if (ret) {
			snprintf(msg, msglen, "--assign '%s': %s", assigns[i], why);
			return ret;
		}
	}
	return 0;
}

int runsched_trace(struct runsched *rs, const char *path, char *msg, size_t msglen)
{
	rs->trace_file = fopen(path, "w");
	if (!rs->trace_file) {
		snprintf(msg, msglen, "--trace %s: %s", path, strerror(errno));
		return -errno;
	}
	rs->trace_path = path;
	return 0;
}

static uint64_t runsched_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int runsched_attach(struct runsched *rs, struct vm *vm, bool monitor)
{
	int ret;

	ret = runtime_create(vm, vsched_sched(rs->vs), vsched_mutex(rs->vs), rs->lanes,
			     (rs->scheduled ? 0 : RUNTIME_UNSCHEDULED) | (rs->no_pin ? RUNTIME_NO_PIN : 0),
			     &rs->rt);
	if (ret)
		return ret;
	if (rs->trace_file) {
		ret = trace_create(vm->nr_vcpus, rs->lanes, 0, runsched_now(), &rs->trace);
		if (ret)
			return ret;
		runtime_set_trace(rs->rt, rs->trace);
	}
	vm->sched = &runtime_vcpu_ops;
	runtime_bind(rs->rt, rs->vs);
	ret = runtime_start(rs->rt);
	if (ret)
		return ret;
	if (monitor)
		ret = runstats_monitor_start(stdout, rs->vs, rs->lanes, RUNSCHED_MONITOR_NS, rs->demand,
					     &rs->mon);
	return ret;
}

int runsched_set_demand(struct runsched *rs, const double *demand, unsigned int nr_vcpus)
{
	double *d = malloc(nr_vcpus * sizeof(*d));

	if (!d)
		return -ENOMEM;
	memcpy(d, demand, nr_vcpus * sizeof(*d));
	free(rs->demand);
	rs->demand = d;
	return 0;
}

void runsched_stats(struct runsched *rs, struct stats_run *sr)
{
	rs->ctx.vs = rs->vs;
	rs->ctx.rt = rs->rt;
	sr->write_groups = runstats_write_groups;
	sr->groups_arg = &rs->ctx;
}

/* Recording stops under the lock; every open slice ends now, then the file is written. */
static int runsched_trace_write(struct runsched *rs)
{
	int ret;

	runtime_set_trace(rs->rt, NULL);
	trace_finish(rs->trace, runsched_now());
	ret = trace_write_json(rs->trace, rs->trace_file);
	if (fclose(rs->trace_file))
		ret = -EIO;
	rs->trace_file = NULL;
	trace_destroy(rs->trace);
	rs->trace = NULL;
	if (ret)
		fprintf(stderr, "vsched run: --trace %s: write failed\n", rs->trace_path);
	return ret;
}

int runsched_finish(struct runsched *rs)
{
	runstats_monitor_stop(rs->mon);
	rs->mon = NULL;
	return rs->trace && rs->rt ? runsched_trace_write(rs) : 0;
}

void runsched_destroy(struct runsched *rs)
{
	runsched_finish(rs);
	if (rs->trace_file) {
		/* No VM ran: leave no empty trace behind. */
		fclose(rs->trace_file);
		unlink(rs->trace_path);
		rs->trace_file = NULL;
	}
	trace_destroy(rs->trace);
	rs->trace = NULL;
	if (rs->vs)
		runtime_unbind(rs->vs);
	runtime_destroy(rs->rt);
	rs->rt = NULL;
	if (rs->vs)
		vsched_destroy(rs->vs);
	rs->vs = NULL;
	free(rs->demand);
	rs->demand = NULL;
}
