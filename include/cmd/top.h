/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `vsched top`: a live view of every running VM's group tree, read from the registry of running
 * VMs and their control directories only (cpu.stat, cpu.weight, cpu.max, cpu.max.burst,
 * vsched.vcpu.stat), like systemd-cgtop. docs/top.md has the columns and formulas.
 *
 *	top_model.c	snapshots: the registry and each VM's directory, parsed
 *	top_calc.c	deltas between two snapshots: CPU %, fluid share, throttling, waits
 *	top_rows.c	the visible rows (tree order, sort, collapse) and their text columns
 *	top_batch.c	-b: plain text snapshots
 *	top_tui.c	the interactive ncurses screen
 */
#ifndef VSCHED_CMD_TOP_H
#define VSCHED_CMD_TOP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sched/core.h"

#define TOP_QUOTA_MAX	UINT64_MAX	/* cpu.max "max" */
#define TOP_BUSY_PCT	1.0		/* busy in an interval: used >= 1 % of a CPU */
/* The label of the host scheduler's tree: has a '/', so no VM is named so (collapse keys). */
#define TOP_HOST_NAME	"host:/"

struct top_vcpu {
	unsigned int id;
	int tid;
	unsigned int group;		/* index in top_vm.groups */
	uint64_t usage_usec;
	char state[12];			/* running, waiting, throttled, idle */
	int lane;			/* -1: none */
	uint64_t wait_usec, nr_waits;
	uint64_t hist[SCHED_WAIT_BUCKETS];
	uint64_t t_ns;			/* CLOCK_MONOTONIC its line was read at, 0 if not known */
};

struct top_group {
	char path[PATH_MAX];		/* "/" for the root, "/a/b" */
	int parent;			/* index in top_vm.groups, -1 for the root */
	unsigned int depth;
	unsigned int weight;		/* 0: no cpu.weight (the root) */
	bool idle;			/* cpu.idle 1: weight WEIGHT_IDLEPRIO in load units */
	uint64_t quota_us, period_us;	/* quota TOP_QUOTA_MAX: "max" */
	uint64_t burst_us;
	uint64_t usage_usec, nr_periods, nr_throttled, throttled_usec, nr_bursts, burst_usec;
};

struct top_vm {
	char name[160];			/* TOP_HOST_NAME: the host scheduler's tree (host set) */
	bool host;			/* the daemon's directory (<run dir>/host), not a VM's */
	uint64_t dev;			/* host: its mount's st_dev, new with each daemon */
	int pid;
	char ctl[PATH_MAX];		/* "" without a control directory */
	int err;			/* -errno reading the directory, 0 if read */
	bool stopped;			/* its VMM was stopped (SIGSTOP, a debugger): not read */
	unsigned int lanes;		/* vsched.lanes, 0 if unknown */
	uint64_t t_ns;			/* CLOCK_MONOTONIC its counters were read at, 0 if not */
	unsigned int nr_groups;		/* depth first, parents before children */
	struct top_group *groups;
	unsigned int nr_vcpus;
	struct top_vcpu *vcpus;
};

struct top_snap {
	uint64_t t_ns;			/* CLOCK_MONOTONIC when taken */
	unsigned int nr_vms;		/* the host's tree first (if host), VMs by name */
	bool host;			/* vms[0] is the host scheduler's tree */
	struct top_vm *vms;
};

/* top_model.c */
/*
 * The host scheduler's tree when a daemon's directory is mounted at host_dir (NULL: none; not
 * with `only`), then every running VM (only `only` if not NULL), read now. 0 or -errno (the
 * registry).
 */
int top_snap_take(struct top_snap *s, const char *only, const char *host_dir);
/* <run dir>/host into buf when a daemon's directory is mounted there: buf, else NULL. */
const char *top_host_dir(char *buf, size_t len);
void top_snap_free(struct top_snap *s);
/* Reads the tree below vm->ctl into vm (vm->err set too). 0 or -errno. */
int top_vm_read(struct top_vm *vm);
void top_vm_free(struct top_vm *vm);
/* Parses one vsched.vcpu.stat line into v (group left alone). 0 or -EINVAL. */
int top_parse_vcpu_line(const char *line, struct top_vcpu *v);

/* top_calc.c: one VM over the interval between prev (NULL: none yet) and cur. */
struct top_gstat {
	bool valid;			/* the group was there in both snapshots */
	bool busy;			/* cpu_pct >= TOP_BUSY_PCT */
	double cpu_pct;			/* usage_usec delta / interval: 100 = one CPU */
	double fluid_pct;		/* fluid share at the interval's demand (top_fluid()) */
	double throttled_pct;		/* throttled_usec delta / interval */
	uint64_t d_throttled, d_periods, d_bursts;
	double burst_ms;		/* burst_usec delta */
	unsigned int nr_busy_vcpus;	/* busy vCPUs at or below */
	double demand_pct;		/* their demand (top_fluid()) */
};
struct top_vstat {
	bool valid;
	double cpu_pct;
	double steal_pct;		/* wait_usec delta / interval: runnable without a lane */
	uint64_t wait_p99_ns;		/* 0: no wait ended in the interval */
	uint64_t d_waits;
	double demand_pct;		/* busy: CPU got + waited, at most a lane (top_fluid()) */
};
/*
 * Fills g[cur->nr_groups], v[cur->nr_vcpus]; seconds > 0. Groups match by path, vCPUs by id; a
 * vCPU whose lines both have a read time is rated over the time between them instead.
 */
void top_vm_delta(const struct top_vm *prev, const struct top_vm *cur, double seconds,
		  struct top_gstat *g, struct top_vstat *v);
/* The fluid shares (docs/top.md): fills g[].fluid_pct and the demands from the rates, weights,
 * caps and lanes. */
void top_fluid(const struct top_vm *vm, struct top_vstat *v, struct top_gstat *g);
/* Quantile q of the waits between two histograms (upper bucket edge, ns); 0 if none. */
uint64_t top_hist_quantile(const uint64_t *before, const uint64_t *after, double q);

/* top_rows.c */
enum top_sort { TOP_SORT_CPU, TOP_SORT_NAME, TOP_SORT_WEIGHT };
enum top_row_kind { TOP_ROW_VM, TOP_ROW_GROUP, TOP_ROW_VCPU };

struct top_vmview {
	const struct top_vm *vm;
	struct top_gstat *g;		/* NULL before the first interval */
	struct top_vstat *v;
};

struct top_view {
	struct top_snap *prev, *cur;	/* prev NULL before the first interval */
	double seconds;
	unsigned int nr;		/* == cur->nr_vms */
	struct top_vmview *vms;
};

/* What the user chose: sort, collapsed VMs and groups (by "vm\tpath"), vCPU rows. */
struct top_prefs {
	enum top_sort sort;
	bool vcpus;
	unsigned int nr_collapsed;
	char **collapsed;
};

struct top_row {
	enum top_row_kind kind;
	unsigned int vm, idx;		/* VM index; group or vCPU index in it */
	bool has_children;
	char text[256];
};

int top_view_build(struct top_view *view, struct top_snap *prev, struct top_snap *cur);
/* The VMs in the view, the host scheduler's tree left out. */
unsigned int top_view_vms(const struct top_view *view);
void top_view_free(struct top_view *view);
/* The rows to show, in order; *out is malloc'ed. -ENOMEM. */
int top_rows(const struct top_view *view, const struct top_prefs *p, struct top_row **out,
	     unsigned int *n);
const char *top_rows_header(void);
bool top_prefs_collapsed(const struct top_prefs *p, const char *vm, const char *path);
int top_prefs_toggle(struct top_prefs *p, const char *vm, const char *path);
void top_prefs_free(struct top_prefs *p);
const char *top_sort_name(enum top_sort s);

/* Options of `vsched top`. */
struct top_opts {
	bool batch;
	long iterations;		/* -n, 0: until quit */
	double interval;		/* -d seconds */
	const char *vm;			/* --vm */
	bool vcpus;			/* -v: vCPU rows from the start */
	enum top_sort sort;
};

#define TOP_INTERVAL_MIN	0.1
#define TOP_INTERVAL_MAX	3600.0

/* top_batch.c / top_tui.c: the two front ends; return the exit status. */
int top_batch(const struct top_opts *o, FILE *out);
int top_tui(const struct top_opts *o);
/* The first line of a snapshot (both front ends). */
void top_title(char *buf, size_t len, const struct top_view *view, const struct top_opts *o);

#endif
