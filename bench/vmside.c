// SPDX-License-Identifier: GPL-2.0
/*
 * A scenario as a payload VM: groups through the same --group/--assign code as `vsched run`,
 * vCPU threads pinned to the same P CPUs as the host side, CPU per vCPU from the vCPU threads'
 * CPU clocks and work from the guests' work pages, both sampled over the same window.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/run.h"
#include "../tests/fixture/runvm.h"
#include "vmm/payload.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"
#include "vmside.h"
#include "window.h"
#include "vsched.h"
#include "work.h"

#define WARMUP_NS	300000000ULL

unsigned int vmside_backends(enum vm_accel *accels, struct diag *why)
{
	unsigned int n = 0;

	if (!accel_kvm_probe(why))
		accels[n++] = VM_ACCEL_KVM;
	accels[n++] = VM_ACCEL_THREAD;
	return n;
}

/* The scenario's groups and membership through the launch specs. */
int vmside_groups(struct vsched *vs, const struct scenario *s)
{
	unsigned int i, n = scn_nr_groups(s);
	char spec[256], msg[256];
	int ret;

	for (i = 0; i < n; i++) {
		const struct scn_group *g = &s->groups[i];
		/* An idle group's weight is fixed: --group refuses one beside idle=1 (fdd1cfb). */
		int len = g->idle ? snprintf(spec, sizeof(spec), "%s:idle=1", g->path) :
				    snprintf(spec, sizeof(spec), "%s:weight=%u", g->path,
					     g->weight ? g->weight : 100);

		if (g->quota_us)
			len += snprintf(spec + len, sizeof(spec) - len, ",max=%llu %llu",
					(unsigned long long)g->quota_us,
					(unsigned long long)(g->period_us ? g->period_us : 100000));
		if (g->burst_us)
			len += snprintf(spec + len, sizeof(spec) - len, ",burst=%llu",
					(unsigned long long)g->burst_us);
		ret = run_group_add(vs, spec, msg, sizeof(msg));
		if (ret) {
			fprintf(stderr, "bench: --group %s: %s\n", spec, msg);
			return ret;
		}
	}
	for (i = 0; i < scn_nr_vcpus(s); i++) {
		snprintf(spec, sizeof(spec), "%u=%s", i, s->vcpus[i].group);
		ret = run_group_assign(vs, spec, msg, sizeof(msg));
		if (ret) {
			fprintf(stderr, "bench: --assign %s: %s\n", spec, msg);
			return ret;
		}
	}
	return 0;
}

static void vmside_payload(const struct scenario *s, struct payload_opts *po)
{
	unsigned int i;

	for (i = 0; i < scn_nr_vcpus(s); i++) {
		const struct scn_vcpu *v = &s->vcpus[i];

		po->spec[i].kind = v->kind == WORK_HOG ? PAYLOAD_HOG :
				   v->kind == WORK_DUTY ? PAYLOAD_DUTY : PAYLOAD_HALT_DUTY;
		po->spec[i].arg[0] = v->busy_us;
		po->spec[i].arg[1] = v->sleep_us;
	}
}

static void vmside_snapshot(void *arg, uint64_t *cpu, uint64_t *work)
{
	struct vm *vm = arg;
	unsigned int i;

	for (i = 0; i < vm->nr_vcpus; i++) {
		cpu[i] = vcpu_cpu_ns(&vm->vcpus[i]);
		work[i] = run_stats_units(&vm->vcpus[i]);
	}
}

static void vmside_throttle_stat(struct vsched *vs, const char *path, uint64_t *periods,
				 uint64_t *throttled)
{
	char buf[512], *p;

	*periods = *throttled = 0;
	if (vsched_read(vs, path, "cpu.stat", buf, sizeof(buf)) < 0)
		return;
	if ((p = strstr(buf, "nr_periods ")))
		*periods = strtoull(p + 11, NULL, 10);
	if ((p = strstr(buf, "nr_throttled ")))
		*throttled = strtoull(p + 13, NULL, 10);
}

int vmside_run(const struct scenario *s, enum vm_accel accel, unsigned int lanes, double seconds,
	       bool scheduled, struct bench_result *r, struct runtime_stats *rst)
{
	return vmside_run_traced(s, accel, lanes, seconds, scheduled, NULL, r, rst);
}

int vmside_run_traced(const struct scenario *s, enum vm_accel accel, unsigned int lanes,
		      double seconds, bool scheduled, struct trace *tr, struct bench_result *r,
		      struct runtime_stats *rst)
{
	unsigned int i, n = scn_nr_vcpus(s), ng = scn_nr_groups(s);
	uint64_t per0[SCN_MAX_GROUPS], thr0[SCN_MAX_GROUPS], t0;
	cpu_set_t set, old;
	struct runvm vm;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = runvm_create(&vm, s->name, n, lanes, scheduled);
	if (ret)
		return ret;
	vm.vm.accel = accel;
	vmside_payload(s, vm.po);
	ret = scheduled ? vmside_groups(vm.vs, s) : 0;
	if (ret)
		goto out;
	/* vCPU threads inherit the affinity: the same P CPUs as the host side. */
	sched_getaffinity(0, sizeof(old), &old);
	CPU_ZERO(&set);
	for (i = 0; i < lanes; i++)
		CPU_SET(i, &set);
	sched_setaffinity(0, sizeof(set), &set);
	t0 = time_mono_ns();
	ret = runvm_start(&vm);
	sched_setaffinity(0, sizeof(old), &old);
	if (ret)
		goto out;

	if (tr && vm.rt)
		runtime_set_trace(vm.rt, tr);
	sleep_ns(WARMUP_NS);
	for (i = 0; i < ng && scheduled; i++)
		vmside_throttle_stat(vm.vs, s->groups[i].path, &per0[i], &thr0[i]);
	window_measure(r, s, seconds, vmside_snapshot, &vm.vm);
	if (tr && vm.rt)
		runtime_set_trace(vm.rt, NULL);
	if (rst && vm.rt)
		runtime_get_stats(vm.rt, rst);
	r->life_s = (double)(time_mono_ns() - t0) / 1e9;
	for (i = 0; i < ng && scheduled; i++) {
		uint64_t per, thr;

		vmside_throttle_stat(vm.vs, s->groups[i].path, &per, &thr);
		r->nr_periods[i] = per - per0[i];
		r->nr_throttled[i] = thr - thr0[i];
	}
	runvm_stop(&vm);
	if (vm.vm.exit_reason != VM_EXIT_STOPPED)
		ret = -EIO;

	r->lanes = lanes;
out:
	runvm_destroy(&vm);
	return ret;
}
