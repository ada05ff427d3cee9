// SPDX-License-Identifier: GPL-2.0
/* The --stats JSON file and the exit summary. */
#include <inttypes.h>
#include <stdio.h>

#include "vmm/payload.h"
#include "vmm/stats.h"
#include "vmm/vcpu.h"

uint64_t stats_vcpu_units(const struct vcpu *vcpu)
{
	return vcpu->work_units ? *vcpu->work_units : 0;
}

void stats_vcpu_label(const struct vcpu *vcpu, char *buf, size_t len)
{
	const struct payload_opts *opts = vcpu->vm->boot_data;

	if (vcpu->vm->boot == &payload_boot_ops &&
	    payload_format(&opts->spec[vcpu->id], buf, len) >= 0)
		return;
	snprintf(buf, len, "%s", vcpu->vm->boot->name);
}

uint64_t stats_first_insn_ns(const struct vm *vm, uint64_t *realtime_ns)
{
	const struct payload_vcpu *pv;

	*realtime_ns = 0;
	if (vm->boot != &payload_boot_ops || !vm->vcpus)
		return 0;
	pv = vm->vcpus[0].boot;
	*realtime_ns = pv->hello_realtime_ns;
	return pv->hello_ns;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s && *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			fputc(*s, f);
	}
	fputc('"', f);
}

static void json_vcpu(FILE *f, struct vcpu *v)
{
	const struct vcpu_stats *s = &v->stats;
	const struct payload_vcpu *pv = v->vm->boot == &payload_boot_ops ? v->boot : NULL;
	char label[64];

	stats_vcpu_label(v, label, sizeof(label));
	fprintf(f, "    {\"id\": %u, \"tid\": %d, \"payload\": ", v->id, (int)v->tid);
	json_string(f, label);
	fprintf(f, ", \"units\": %" PRIu64 ", \"cpu_ns\": %" PRIu64 ", \"exits\": %" PRIu64,
		stats_vcpu_units(v), vcpu_cpu_ns(v), v->nr_exits);
	fprintf(f, ", \"exits_io\": %" PRIu64 ", \"exits_mmio\": %" PRIu64
		", \"exits_intr\": %" PRIu64 ", \"exits_other\": %" PRIu64,
		s->exits_io, s->exits_mmio, s->exits_intr, s->exits_other);
	fprintf(f, ", \"unhandled\": %" PRIu64 ", \"sleeps\": %" PRIu64 ", \"sleep_ns\": %" PRIu64
		", \"steal_ns\": %" PRIu64, s->unhandled, s->sleeps, s->sleep_ns, s->steal_ns);
	if (pv)
		fprintf(f, ", \"io_port_exits\": %" PRIu64 ", \"errors\": %" PRIu64
			", \"guest_steal_ns\": %" PRIu64 ", \"peer_preempted\": %" PRIu64,
			pv->io_exits, (uint64_t)pv->page->errors, (uint64_t)pv->page->steal_seen,
			(uint64_t)pv->page->peer_preempted);
	fprintf(f, "}");
}

int stats_write_json(FILE *f, struct vm *vm, const struct stats_run *run)
{
	uint64_t first, first_rt;
	unsigned int i;

	first = stats_first_insn_ns(vm, &first_rt);
	fprintf(f, "{\n  \"name\": ");
	json_string(f, vm->name);
	fprintf(f, ",\n  \"boot\": ");
	json_string(f, vm->boot->name);
	fprintf(f, ",\n  \"accel\": \"%s\"", accel_name(vm->accel));
	fprintf(f, ",\n  \"exit\": \"%s\",\n  \"exit_status\": %d,\n  \"signal\": %d,\n",
		vm_exit_reason_name(vm->exit_reason), run->exit_status, vm->exit_signal);
	fprintf(f, "  \"nr_vcpus\": %u,\n  \"nr_lanes\": %u,\n  \"memory\": %" PRIu64 ",\n",
		vm->nr_vcpus, vm->nr_lanes, vm->mem_size);
	fprintf(f, "  \"wall_ns\": %" PRIu64 ",\n",
		run->end_ns > run->cmd_start_ns ? run->end_ns - run->cmd_start_ns : 0);
	/* From `vsched run` starting to vCPU 0's first guest instruction (its hello port). */
	fprintf(f, "  \"startup_ns\": %" PRIu64 ",\n  \"first_insn_realtime_ns\": %" PRIu64 ",\n",
		first > run->cmd_start_ns ? first - run->cmd_start_ns : 0, first_rt);
	if (vm->boot == &payload_boot_ops)
		fprintf(f, "  \"guest_status\": %u,\n",
			((const struct payload_opts *)vm->boot_data)->exit_status);
	if (run->write_groups) {
		fprintf(f, "  \"groups\": ");
		run->write_groups(f, run->groups_arg);
		fprintf(f, ",\n");
	}
	fprintf(f, "  \"vcpus\": [\n");
	for (i = 0; i < vm->nr_vcpus; i++) {
		json_vcpu(f, &vm->vcpus[i]);
		fprintf(f, "%s\n", i + 1 < vm->nr_vcpus ? "," : "");
	}
	fprintf(f, "  ]\n}\n");
	return ferror(f) ? -1 : 0;
}

void stats_print_summary(FILE *f, struct vm *vm, const struct stats_run *run)
{
	uint64_t first, first_rt, units, cpu;
	char label[64];
	unsigned int i;

	fprintf(f, "vm %s: %s after %.2f s (exit status %d)\n", vm->name,
		vm_exit_reason_name(vm->exit_reason),
		(run->end_ns - run->cmd_start_ns) / 1e9, run->exit_status);
	first = stats_first_insn_ns(vm, &first_rt);
	if (first > run->cmd_start_ns)
		fprintf(f, "first guest instruction %.2f ms after start\n",
			(first - run->cmd_start_ns) / 1e6);
	fprintf(f, "%-6s %-8s %-22s %12s %9s %14s %9s %8s\n", "vcpu", "tid", "payload", "units",
		"cpu s", "units/cpu-s", "exits", "sleeps");
	for (i = 0; i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		units = stats_vcpu_units(v);
		cpu = vcpu_cpu_ns(v);
		stats_vcpu_label(v, label, sizeof(label));
		fprintf(f, "vcpu%-2u %-8d %-22s %12" PRIu64 " %9.3f %14.0f %9" PRIu64 " %8" PRIu64 "\n",
			v->id, (int)v->tid, label, units, cpu / 1e9,
			cpu ? units / (cpu / 1e9) : 0.0, v->nr_exits, v->stats.sleeps);
	}
}
