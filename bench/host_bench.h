/* SPDX-License-Identifier: GPL-2.0 */
/*
 * bench-host: whole VMs sharing the host (issue 17), the host scheduler beside the kernel. A
 * scenario is partitions (groups above VMs) and VMs (processes of hog vCPUs), the same for both
 * sides; each side runs it and reports each VM's CPU over one window.
 */
#ifndef VSCHED_BENCH_HOST_BENCH_H
#define VSCHED_BENCH_HOST_BENCH_H

#include <stdint.h>
#include <sys/types.h>

#define HB_MAX_PARTS	2
#define HB_MAX_VMS	4

struct hb_part {
	const char *name;	/* below the root: "machine" */
	unsigned int weight;	/* cpu.weight */
	uint64_t quota_us;	/* cpu.max quota, 0 = max */
	uint64_t period_us;
};

#define HB_MAX_GROUPS	2	/* per VM */

/* A group inside a VM holding vCPUs first..first+n-1 (--group/--assign). */
struct hb_grp {
	const char *name;
	unsigned int weight;
	unsigned int first, n;
	double ideal;		/* its share of the capacity, 0..1 */
};

struct hb_vm {
	const char *name;
	unsigned int part;	/* index into parts */
	unsigned int weight;	/* the VM group's cpu.weight */
	unsigned int vcpus;	/* hog vCPUs (threads named vcpuN on both sides) */
	double ideal;		/* its share of the capacity, 0..1 */
	struct hb_grp grps[HB_MAX_GROUPS];
	unsigned int nr_grps;
};

struct hb_scn {
	const char *name;
	const char *what;
	struct hb_part parts[HB_MAX_PARTS];
	unsigned int nr_parts;
	struct hb_vm vms[HB_MAX_VMS];
	unsigned int nr_vms;
	int capped;		/* the partition whose quota use is reported, or -1 */
};

/* The measured side: one VM process each (pid), CPU read from their process clocks. */
struct hb_result {
	double seconds;
	double cpu_s[HB_MAX_VMS];
	double vcpu_s[HB_MAX_VMS];	/* its vCPU threads' CPU (the rest: agent, helper, main) */
	double grp_s[HB_MAX_VMS][HB_MAX_GROUPS];	/* its vCPU threads' CPU */
	double daemon_s;		/* vsched host's CPU (the vsched side) */
	/* the capped partition's cpu.stat in the daemon's directory (vsched side; "": none) and
	   its usage over the window: what the daemon charged it */
	char capped_stat[320];
	double capped_s;
};

struct hb_opts {
	unsigned int lanes;
	double warmup_s, window_s;
};

/*
 * CPU of every VM's process (pids, in the order of s->vms), of its vCPU threads and of its
 * groups' (found by their names, vcpuN), and of the daemon (0: none) over one window after
 * the warm-up; 0 or -errno.
 */
int hb_measure(const struct hb_scn *s, const struct hb_opts *o, const pid_t *pids, pid_t daemon,
	       struct hb_result *r);

/* Kernel side (bench/host_kernel.c): 0 or -errno, why in *reason when it cannot run here. */
int hb_kernel_probe(const char **reason);
int hb_kernel_run(const struct hb_scn *s, const struct hb_opts *o, struct hb_result *r);

/*
 * vsched side (bench/host_vsched.c), `vsched host` and `vsched run --host` as a user runs them.
 * 0, or -errno with why (len bytes): skipped when this vsched cannot (no `host` command).
 */
int hb_vsched_probe(const char *vsched, char *why, size_t len);
int hb_vsched_run(const char *vsched, const char *accel, const struct hb_scn *s,
		  const struct hb_opts *o, struct hb_result *r, char *why, size_t len);

#endif
