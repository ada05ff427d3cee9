/* SPDX-License-Identifier: GPL-2.0 */
/* Run statistics: the --stats JSON file and the summary `vsched run` prints at exit. */
#ifndef VSCHED_VMM_STATS_H
#define VSCHED_VMM_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "util/json.h"
#include "vmm/vm.h"

/* What only the caller knows about the run. */
struct stats_run {
	uint64_t cmd_start_ns;	/* CLOCK_MONOTONIC when `vsched run` began */
	uint64_t end_ns;	/* CLOCK_MONOTONIC when the vCPUs had stopped */
	int exit_status;	/* the process exit status */
	/*
	 * Per-group cpu.stat: the scheduler runtime sets this to write members of the top-level
	 * object (its "groups" key, a JSON array of {"path", "cpu.stat": {...}} objects).
	 * NULL: the keys are left out (unscheduled run).
	 */
	void (*write_groups)(struct json *j, void *arg);
	void *groups_arg;
};

/* Units done by a vCPU so far (0 when its boot method counts none). */
uint64_t stats_vcpu_units(const struct vcpu *vcpu);
/* The payload label of a vCPU ("hog", "duty:3000/7000") or the boot method's name. */
void stats_vcpu_label(const struct vcpu *vcpu, char *buf, size_t len);
/* CLOCK_MONOTONIC of vCPU 0's first guest instruction, or 0 if unknown. */
uint64_t stats_first_insn_ns(const struct vm *vm, uint64_t *realtime_ns);

int stats_write_json(FILE *f, struct vm *vm, const struct stats_run *run);
void stats_print_summary(FILE *f, struct vm *vm, const struct stats_run *run);

#endif
