// SPDX-License-Identifier: GPL-2.0
/* `vsched run`'s scheduler: groups at launch, the runtime on the VM, stats and live table. */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/run.h"
#include "host/proto.h"
#include "sched/group.h"
#include "sched/runtime.h"
#include "sched/trace.h"
#include "util/registry.h"
#include "util/time.h"
#include "vmm/vm.h"
#include "vsched.h"

#define RUN_MONITOR_NS	1000000000ULL

unsigned int run_sched_lanes(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (unsigned int)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned int)n : 1;
}

/* Each spec of one flag in turn; on error msg names the flag and the spec. */
typedef int (*run_spec_fn)(struct vsched *vs, const char *spec, char *msg, size_t msglen);

static int run_sched_specs(struct vsched *vs, const char *flag, const char *const *specs,
			   unsigned int nr, run_spec_fn apply, char *msg, size_t msglen)
{
	unsigned int i;
	char why[256];
	int ret;

	for (i = 0; i < nr; i++) {
		ret = apply(vs, specs[i], why, sizeof(why));
		if (ret) {
			snprintf(msg, msglen, "%s '%s': %s", flag, specs[i], why);
			return ret;
		}
	}
	return 0;
}

int run_sched_trace(struct run_sched *rs, const char *path, char *msg, size_t msglen)
{
	rs->trace_file = run_out_open(path, &rs->trace_created);
	if (!rs->trace_file) {
		int err = errno;

		snprintf(msg, msglen, "--trace %s: %s", path, strerror(err));
		return -err;
	}
	rs->trace_path = path;
	return 0;
}

int run_sched_setup(struct run_sched *rs, unsigned int nr_vcpus, unsigned int lanes,
		    bool scheduled, const char *const *groups, unsigned int nr_groups,
		    const char *const *assigns, unsigned int nr_assigns, char *msg, size_t msglen)
{
	memset(rs, 0, sizeof(*rs));
	rs->lanes = lanes;
	rs->scheduled = scheduled;
	rs->vs = vsched_create(lanes, nr_vcpus);
	if (!rs->vs) {
		int err = errno;

		snprintf(msg, msglen, "cannot create the group tree: %s", strerror(err));
		return -err;
	}
	vsched_set_pid(rs->vs, getpid());
	runtime_clock_init(rs->vs);
	return run_sched_specs(rs->vs, "--group", groups, nr_groups, run_group_add, msg,
			       msglen) ?:
	       run_sched_specs(rs->vs, "--assign", assigns, nr_assigns, run_group_assign, msg,
			       msglen);
}

int run_sched_host(struct run_sched *rs, const struct run_cfg *cfg, char *msg, size_t msglen)
{
	struct runtime_host *h = &rs->host;

	/* run_parse() refused --no-sched, --cpus and bad values and parsed them (run_host_parse). */
	if (snprintf(rs->host_sock, sizeof(rs->host_sock), "%s/%s", registry_run_dir(),
		     HOST_SOCK_NAME) >= (int)sizeof(rs->host_sock)) {
		snprintf(msg, msglen, "run directory %s: path too long", registry_run_dir());
		return -EINVAL;
	}
	*h = (struct runtime_host){ .sock = rs->host_sock, .name = cfg->name,
				    .partition = cfg->partition, .quota_us = cfg->host_quota_us,
				    .period_us = cfg->host_period_us, .vs = rs->vs };
	if (cfg->host_weight)
		h->shares = sched_weight_from_cgroup(cfg->host_weight);
	return 0;
}

int run_sched_attach(struct run_sched *rs, struct vm *vm, bool monitor)
{
	unsigned int flags = (rs->scheduled ? 0 : RUNTIME_UNSCHEDULED) |
			     (rs->no_pin ? RUNTIME_NO_PIN : 0);
	int ret;

	if (rs->host.sock)
		ret = runtime_create_host(vm, vsched_sched(rs->vs), vsched_mutex(rs->vs), flags,
					  &rs->host, &rs->rt);
	else
		ret = runtime_create(vm, vsched_sched(rs->vs), vsched_mutex(rs->vs), rs->lanes,
				     flags, &rs->rt);
	if (ret)
		return ret;
	if (rs->trace_file) {
		ret = trace_create(vm->nr_vcpus, rs->lanes, 0, time_mono_ns(), &rs->trace);
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
		ret = run_monitor_start(stdout, rs->vs, rs->lanes, RUN_MONITOR_NS, rs->demand,
					     &rs->mon);
	return ret;
}

int run_sched_set_demand(struct run_sched *rs, const double *demand, unsigned int nr_vcpus)
{
	double *d = malloc(nr_vcpus * sizeof(*d));

	if (!d)
		return -ENOMEM;
	memcpy(d, demand, nr_vcpus * sizeof(*d));
	free(rs->demand);
	rs->demand = d;
	return 0;
}

void run_sched_stats(struct run_sched *rs, struct run_stats *sr)
{
	rs->ctx.vs = rs->vs;
	rs->ctx.rt = rs->rt;
	sr->write_groups = run_monitor_json;
	sr->groups_arg = &rs->ctx;
}

/* Recording stops under the lock; every open slice ends now, then the file is written. */
static int run_sched_trace_write(struct run_sched *rs)
{
	int ret;

	runtime_set_trace(rs->rt, NULL);
	trace_finish(rs->trace, time_mono_ns());
	ret = run_out_begin(rs->trace_file);
	if (!ret)
		ret = trace_write_json(rs->trace, rs->trace_file);
	if (fclose(rs->trace_file) && !ret)
		ret = errno ? -errno : -EIO;
	rs->trace_file = NULL;
	trace_destroy(rs->trace);
	rs->trace = NULL;
	if (ret)
		fprintf(stderr, "vsched run: --trace %s: write failed: %s\n", rs->trace_path,
			strerror(-ret));
	return ret;
}

int run_sched_finish(struct run_sched *rs)
{
	run_monitor_stop(rs->mon);
	rs->mon = NULL;
	return rs->trace && rs->rt ? run_sched_trace_write(rs) : 0;
}

void run_sched_destroy(struct run_sched *rs)
{
	run_sched_finish(rs);
	if (rs->trace_file) {
		/* No VM ran: leave no empty trace behind, and a file that was there as it was. */
		fclose(rs->trace_file);
		if (rs->trace_created)
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
