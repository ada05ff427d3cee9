// SPDX-License-Identifier: GPL-2.0
/* The --stats JSON file and the exit summary. */
#include <inttypes.h>
#include <stdio.h>

#include "util/json.h"
#include "vmm/payload.h"
#include "cmd/run.h"
#include "vmm/vcpu.h"

uint64_t run_stats_units(const struct vcpu *vcpu)
{
	return vcpu->work_units ? *vcpu->work_units : 0;
}

void run_stats_label(const struct vcpu *vcpu, char *buf, size_t len)
{
	const struct payload_opts *opts = vcpu->vm->boot_data;

	if (vcpu->vm->boot == &payload_boot_ops &&
	    payload_format(&opts->spec[vcpu->id], buf, len) >= 0)
		return;
	snprintf(buf, len, "%s", vcpu->vm->boot->name);
}

uint64_t run_stats_first_insn(const struct vm *vm, uint64_t *realtime_ns)
{
	const struct payload_vcpu *pv;

	*realtime_ns = 0;
	if (vm->boot != &payload_boot_ops || !vm->vcpus)
		return 0;
	pv = vm->vcpus[0].boot;
	*realtime_ns = pv->hello_realtime_ns;
	return pv->hello_ns;
}

static void run_stats_json_vcpu(struct json *j, struct vcpu *v)
{
	const struct vcpu_stats *s = &v->stats;
	const struct payload_vcpu *pv = v->vm->boot == &payload_boot_ops ? v->boot : NULL;
	char label[64];

	run_stats_label(v, label, sizeof(label));
	json_object_begin(j, JSON_INLINE);
	json_kv_u64(j, "id", v->id);
	json_kv_i64(j, "tid", v->tid);
	json_kv_str(j, "payload", label);
	json_kv_u64(j, "units", run_stats_units(v));
	json_kv_u64(j, "cpu_ns", vcpu_cpu_ns(v));
	json_kv_u64(j, "exits", v->nr_exits);
	json_kv_u64(j, "exits_io", s->exits_io);
	json_kv_u64(j, "exits_mmio", s->exits_mmio);
	json_kv_u64(j, "exits_intr", s->exits_intr);
	json_kv_u64(j, "exits_other", s->exits_other);
	json_kv_u64(j, "unhandled", s->unhandled);
	json_kv_u64(j, "sleeps", s->sleeps);
	json_kv_u64(j, "sleep_ns", s->sleep_ns);
	json_kv_u64(j, "steal_ns", s->steal_ns);
	if (pv) {
		json_kv_u64(j, "io_port_exits", pv->io_exits);
		json_kv_u64(j, "errors", pv->page->errors);
		json_kv_u64(j, "guest_steal_ns", pv->page->steal_seen);
		json_kv_u64(j, "peer_preempted", pv->page->peer_preempted);
	}
	json_object_end(j);
}

int run_stats_json(FILE *f, struct vm *vm, const struct run_stats *run)
{
	uint64_t first, first_rt;
	struct json j;
	unsigned int i;

	first = run_stats_first_insn(vm, &first_rt);
	json_init(&j, f);
	json_object_begin(&j, 0);
	json_kv_str(&j, "name", vm->name);
	json_kv_str(&j, "boot", vm->boot->name);
	json_kv_str(&j, "accel", accel_name(vm->accel));
	json_kv_str(&j, "exit", vm_exit_reason_name(vm->exit_reason));
	json_kv_i64(&j, "exit_status", run->exit_status);
	json_kv_i64(&j, "signal", vm->exit_signal);
	json_kv_u64(&j, "nr_vcpus", vm->nr_vcpus);
	json_kv_u64(&j, "nr_lanes", vm->nr_lanes);
	json_kv_u64(&j, "memory", vm->mem_size);
	json_kv_u64(&j, "wall_ns", run->end_ns > run->cmd_start_ns ?
					   run->end_ns - run->cmd_start_ns : 0);
	/* From `vsched run` starting to vCPU 0's first guest instruction (its hello port). */
	json_kv_u64(&j, "startup_ns", first > run->cmd_start_ns ? first - run->cmd_start_ns : 0);
	json_kv_u64(&j, "first_insn_realtime_ns", first_rt);
	if (vm->boot == &payload_boot_ops)
		json_kv_u64(&j, "guest_status",
			    ((const struct payload_opts *)vm->boot_data)->exit_status);
	if (run->write_groups)
		run->write_groups(&j, run->groups_arg);
	json_key(&j, "vcpus");
	json_array_begin(&j, 0);
	for (i = 0; i < vm->nr_vcpus; i++)
		run_stats_json_vcpu(&j, &vm->vcpus[i]);
	json_array_end(&j);
	json_object_end(&j);
	return json_end(&j);
}

void run_stats_summary(FILE *f, struct vm *vm, const struct run_stats *run)
{
	uint64_t first, first_rt, units, cpu;
	char label[64];
	unsigned int i;

	fprintf(f, "vm %s: %s after %.2f s (exit status %d)\n", vm->name,
		vm_exit_reason_name(vm->exit_reason),
		(run->end_ns - run->cmd_start_ns) / 1e9, run->exit_status);
	first = run_stats_first_insn(vm, &first_rt);
	if (first > run->cmd_start_ns)
		fprintf(f, "first guest instruction %.2f ms after start\n",
			(first - run->cmd_start_ns) / 1e6);
	fprintf(f, "%-6s %-8s %-22s %12s %9s %14s %9s %8s\n", "vcpu", "tid", "payload", "units",
		"cpu s", "units/cpu-s", "exits", "sleeps");
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		units = run_stats_units(v);
		cpu = vcpu_cpu_ns(v);
		run_stats_label(v, label, sizeof(label));
		fprintf(f, "vcpu%-2u %-8d %-22s %12" PRIu64 " %9.3f %14.0f %9" PRIu64 " %8" PRIu64
			"\n", v->id, (int)v->tid, label, units, cpu / 1e9,
			cpu ? units / (cpu / 1e9) : 0.0, v->nr_exits, v->stats.sleeps);
	}
}
