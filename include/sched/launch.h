/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Groups at launch: the `vsched run --group` and `--assign` specs, applied through the public C
 * API (vsched.h), so the CLI parses nothing the control directory does not parse the same way.
 *
 *   --group PATH[:KEY=VALUE[,KEY=VALUE...]]
 *	creates PATH and any missing parent as threaded groups (so single vCPUs may go anywhere),
 *	enables "cpu" in each parent's cgroup.subtree_control, then writes each setting.
 *	KEY is weight, nice, max, burst or idle (cpu.weight, cpu.weight.nice, cpu.max,
 *	cpu.max.burst, cpu.idle) or any interface file name; VALUE may be double-quoted.
 *	Example: web:weight=300,max="50000 100000"
 *   --assign CPUSET=PATH
 *	moves the vCPUs in CPUSET (libvirt syntax, "0-3,^2") into PATH.
 */
#ifndef VSCHED_SCHED_LAUNCH_H
#define VSCHED_SCHED_LAUNCH_H

#include <stddef.h>

struct vsched;

/* 0 or -errno; on error msg (msglen bytes) says which part of spec failed. */
int launch_group(struct vsched *vs, const char *spec, char *msg, size_t msglen);
int launch_assign(struct vsched *vs, const char *spec, char *msg, size_t msglen);

#endif
