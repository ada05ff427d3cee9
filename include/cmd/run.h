/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `vsched run`, composed in cmd/: the VM (vmm/), the scheduler runtime on its vCPUs
 * (sched/runtime/), the group tree built from --group/--assign or a --domain plan through the
 * public API (vsched.h, libvirt-hooks/), the control directory (ctl/), --stats and the live
 * group table. One header for the run_*.c files of cmd/ and their tests.
 */
#ifndef VSCHED_CMD_RUN_H
#define VSCHED_CMD_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "libvirt/domain_launch.h"
#include "sched/runtime.h"
#include "util/compiler.h"
#include "util/json.h"
#include "vmm/accel.h"
#include "vmm/linux.h"
#include "vmm/vm.h"

/* Process exit statuses of `vsched run` (also in man/vsched.1). */
#define RUN_EXIT_OK 0		/* guest powered off, or --duration elapsed */
#define RUN_EXIT_FAILURE 1	/* the VM could not be set up */
#define RUN_EXIT_USAGE 2	/* bad flags: nothing was started */
#define RUN_EXIT_RESET 3	/* guest reset: reboot or triple fault */
#define RUN_EXIT_GUEST_ERROR 4	/* emulation failure, failed entry, KVM internal error */
/* Stopped by SIGINT/SIGTERM: 128 + the signal number, as a shell reports it. */

struct ctl;
struct json;
struct payload_spec;
struct run_stats;
struct runtime;
struct vsched;

/* --- the flags (cmd/run_opts.c) --- */
#define RUN_MAX_ARGS	64	/* of each repeatable flag */

/* The flags of `vsched run` (cmd/run_opts.c), or what --domain and the demo put there. */
struct run_cfg {
	const char *name;
	unsigned int vcpus;
	uint64_t mem;
	const char *payload[RUN_MAX_ARGS];
	unsigned int nr_payload;
	struct linux_opts kernel;
	bool cpuid_hide_set;
	uint64_t duration_ns;
	const char *stats;
	bool stats_created;		/* stats did not exist before (run_out_open()) */
	const char *trace;	/* --trace FILE */
	const char *domain;
	unsigned int cpus;
	bool verbose;
	bool demo;
	const char *groups[RUN_MAX_ARGS];
	unsigned int nr_groups;
	const char *assigns[RUN_MAX_ARGS];
	unsigned int nr_assigns;
	bool no_sched;
	bool no_pin;
	bool monitor;
	bool name_given;
	const char *ctl_dir;
	bool no_ctl;
	enum vm_accel accel;
	/* --host: join the host scheduler (`vsched host`), or --domain said so */
	bool host;
	const char *partition;	/* --partition PATH: absolute, NULL = the daemon's default */
	const char *weight;	/* --weight W: the VM group's cpu.weight, NULL = default */
	const char *max;	/* --max "QUOTA PERIOD": the VM group's cpu.max, NULL = "max" */
	/* weight and max parsed once by run_parse() (run_host_parse()): what the join sends */
	unsigned int host_weight;	/* cpu.weight 1..10000, 0: the daemon's default */
	uint64_t host_quota_us;		/* cpu.max quota, UINT64_MAX: "max" */
	uint64_t host_period_us;	/* cpu.max period, 0: the default */
	struct domain_launch launch;	/* --domain: its strings back the fields above */
};

/*
 * Flags into cfg, checked against one another. 0, 1 after --help, or -EINVAL after a message
 * (what it allocated is freed then). After 0, run_cfg_free() frees the --domain description.
 */
int run_parse(int argc, char **argv, struct run_cfg *cfg);
void run_cfg_free(struct run_cfg *cfg);
/*
 * The files the command line (or --domain) names (cmd/run_files.c): --kernel and --initrd
 * readable and of a format the Linux boot path takes, --ctl-dir a directory or one that can be
 * made, with FUSE. Before anything starts (before /dev/kvm). 0, or -EIO after one message
 * naming the file.
 */
int run_check_files(struct run_cfg *cfg);
/* What `vsched run --domain` cannot start (domain_launch_check() with this VMM's limits). */
int run_domain_check(const struct domain_def *def, struct diag *d);
/*
 * An output file (--stats, --trace) opened now, so a path that cannot be written is refused
 * before anything runs, but not truncated: a run that fails before the VM leaves a file that
 * was there as it was (and removes one it made: *created). NULL with errno.
 */
FILE *run_out_open(const char *path, bool *created);
/* Empties a regular output file just before its document is written. 0 or -errno. */
int run_out_begin(FILE *f);
/* Whether output paths a and b name one file (the same inode, or one name not made yet). */
bool run_same_file(const char *a, const char *b);
/*
 * The VM group's settings for the host scheduler (cfg->partition, weight, max), checked as the
 * interface files check them (partition an absolute group path, cpu.weight 1..10000, cpu.max
 * syntax and tg_set_cfs_bandwidth()'s ranges) and parsed into cfg->host_weight, host_quota_us
 * and host_period_us: the one parse. 0 or -EINVAL with msg (msglen bytes) naming the setting
 * ("weight '0' (1-10000, as cpu.weight)"); NULL values are not checked.
 */
int run_host_parse(struct run_cfg *cfg, char *msg, size_t msglen);
/*
 * --host (cmd/run_host.c): is there a host scheduler to join? Connects to <run dir>/host.sock.
 * -errno after the one message "vsched run: no host scheduler at <sock>: <why>". Where one
 * listens: 0, or -ENOSYS after a message in a build without the remote runtime (host mode of
 * sched/runtime.h, RUNTIME_HOST_RETRY_NS).
 */
int run_host_check(const struct run_cfg *cfg);
/*
 * The one message for a join the daemon at sock refused with err; -ENOTDIR (a partition inside
 * a joined VM's group) names the partition and, from the registry, that VM.
 */
void run_host_join_failed(const struct run_cfg *cfg, const char *sock, int err);
/* Prints the usage error "vsched run: <msg>" and the --help hint; returns -EINVAL. */
int run_usage_error(const char *fmt, ...) __printf(1, 2);
/* The demo's banner: what it runs, on how many lanes, with which groups. */
void run_demo_banner(const struct run_cfg *cfg, unsigned int lanes, enum vm_accel accel);

/* --- the vCPU backend (cmd/run_accel.c) --- */
/* What decides the vCPU backend. */
struct run_accel_req {
	enum vm_accel accel;		/* --accel (AUTO when not given) */
	const char *domain;		/* --domain FILE, for messages */
	const char *domain_type;	/* its <domain type=...>: "kvm", "qemu", "" or NULL */
	bool kernel;			/* --kernel: needs a real CPU */
	const struct payload_spec *specs;	/* payload kinds per vCPU, or NULL */
	unsigned int nr_vcpus;
};

/*
 * The backend, or -RUN_EXIT_USAGE / -RUN_EXIT_FAILURE after one message: --accel against the
 * domain's type, KVM asked for where it is missing, or the thread backend asked to run what
 * needs a CPU (--kernel, probe, fault, emufail). "auto" that falls back to the thread backend
 * prints one line saying so and why.
 */
int run_accel_choose(const struct run_accel_req *req, enum vm_accel *out);
/* The same checks without probing KVM: what the flags alone refuse (-RUN_EXIT_USAGE). */
int run_accel_check(const struct run_accel_req *req);

/* --- groups at launch: --group and --assign (cmd/run_groups.c) --- */
/* 0 or -errno; on error msg (msglen bytes) says which part of spec failed. */
int run_group_add(struct vsched *vs, const char *spec, char *msg, size_t msglen);
int run_group_assign(struct vsched *vs, const char *spec, char *msg, size_t msglen);

/* --- per-group statistics and the live table (cmd/run_monitor.c) --- */
/*
 * The --stats "groups" key: [{"path": "/a", "cpu.weight": .., "cpu.max": "..", "cpu.stat":
 * {"usage_usec": .., ...}}, ...], root first, depth first, and the "runtime" counters when the
 * context has a runtime. arg is the struct run_monitor_ctx below.
 */
struct run_monitor_ctx {
	struct vsched *vs;
	struct runtime *rt;	/* may be NULL */
};
void run_monitor_json(struct json *j, void *arg);

/*
 * One line per group: weight, cpu.max, CPU used as % of capacity between two snapshots, and,
 * given each vCPU's demand (CPUs, 0..1; NULL: no column), the fluid ideal (sched/fluid.h).
 */
struct run_monitor_snap {
	unsigned int nr;
	char path[32][256];
	uint64_t usage_usec[32];
	uint64_t nr_throttled[32];
	double lane_cpu_ns, lane_held_ns;	/* sched_delivery_totals() */
};
void run_monitor_snapshot(struct vsched *vs, struct run_monitor_snap *snap);
void run_monitor_table(FILE *f, struct vsched *vs, const struct run_monitor_snap *before,
		       const struct run_monitor_snap *after, double seconds, unsigned int lanes,
		       const double *demand);

/*
 * A thread printing the group table to f every interval_ns (CPU % over that interval), for the
 * demo's live view. run_monitor_stop() joins it and prints the table over the whole run.
 */
struct run_monitor;
int run_monitor_start(FILE *f, struct vsched *vs, unsigned int lanes, uint64_t interval_ns,
		      const double *demand, struct run_monitor **out);
void run_monitor_stop(struct run_monitor *m);

/* --- the scheduler side (cmd/run_sched.c) --- */
struct run_sched {
	struct vsched *vs;
	struct runtime *rt;
	struct run_monitor *mon;
	struct run_monitor_ctx ctx;
	unsigned int lanes;
	bool scheduled;
	bool no_pin;		/* lanes float instead of running on host CPUs (--no-pin) */
	double *demand;		/* per vCPU, for the table's ideal column; NULL: unknown */
	const char *trace_path;	/* --trace: the schedule as trace-event JSON, written at the end */
	FILE *trace_file;
	bool trace_created;	/* trace_path did not exist before */
	struct trace *trace;
	struct runtime_host host;	/* --host: host.sock set (run_sched_host()) */
	char host_sock[108];
};

/* Host CPUs this process may use (its affinity mask): the default number of lanes. */
unsigned int run_sched_lanes(void);
/* Builds the tree: every --group spec, then every --assign spec. On error msg says why. */
int run_sched_setup(struct run_sched *rs, unsigned int nr_vcpus, unsigned int lanes,
		    bool scheduled, const char *const *groups, unsigned int nr_groups,
		    const char *const *assigns, unsigned int nr_assigns, char *msg, size_t msglen);
/*
 * --trace FILE: opened now (so a bad path fails before anything runs), recorded from attach,
 * written by run_sched_finish(). 0 or -errno, msg saying why.
 */
int run_sched_trace(struct run_sched *rs, const char *path, char *msg, size_t msglen);
/*
 * --host: the runtime will join the host scheduler at <run dir>/host.sock as cfg's name, in
 * cfg->partition, with cfg->host_weight and host_quota_us/host_period_us on the VM group
 * (parsed by run_parse()).
 * 0, or -EINVAL with msg saying why.
 */
int run_sched_host(struct run_sched *rs, const struct run_cfg *cfg, char *msg, size_t msglen);
/*
 * After vm_create(), before vm_start(): the runtime takes the vCPU hooks. monitor: print the
 * group table every second to stdout. 0 or -errno.
 */
int run_sched_attach(struct run_sched *rs, struct vm *vm, bool monitor);
/*
 * Each vCPU's long-run demand in CPUs (0..1), when known (payload guests): the live table then
 * shows the fluid ideal beside the measured shares. Copied. 0 or -ENOMEM.
 */
int run_sched_set_demand(struct run_sched *rs, const double *demand, unsigned int nr_vcpus);
/* The --stats "groups" writer. */
void run_sched_stats(struct run_sched *rs, struct run_stats *sr);
/*
 * After vm_join(): ends the live table (printing the whole-run table) and writes the trace.
 * 0, or -EIO if the trace could not be written.
 */
int run_sched_finish(struct run_sched *rs);
void run_sched_destroy(struct run_sched *rs);

/* --- the control directory and the name (cmd/run_ctl.c) --- */
struct run_ctl {
	char name[160];		/* the name registered */
	struct ctl *ctl;	/* NULL without a directory */
	int mount_err;		/* why the default directory could not be mounted, or 0 */
	bool started;
};
/*
 * A name given (--name, a --domain's <name>) that a live VMM holds: refused with one message,
 * -EEXIST, before anything starts (run_ctl_start() claims it for good once the vCPUs run).
 */
int run_ctl_check_name(const struct run_cfg *cfg);
/*
 * After vm_start(): waits for the vCPU threads' TIDs, puts them and the pid into vs, claims the
 * name (an unnamed VM takes "vm-<pid>" when "vm" is taken) and mounts the directory. 0 (also
 * when the VM stopped meanwhile), or -errno after one message.
 */
int run_ctl_start(const struct run_cfg *cfg, struct vm *vm, struct vsched *vs,
		  struct run_ctl *rc);
void run_ctl_stop(struct run_ctl *rc);

/* --- the run itself (cmd/run_vm.c) --- */
/*
 * Creates the VM, attaches the runtime, starts the vCPUs and the control directory, waits for
 * the end, writes --stats (stats: the file opened for it, or NULL) and the summary. Returns the
 * process exit status; rs is destroyed.
 */
int run_vm(const struct run_cfg *cfg, struct vm *vm, struct run_sched *rs, FILE *stats,
	   uint64_t start_ns);

/* --- --stats and the exit summary (cmd/run_stats.c) --- */
/* What only the caller knows about the run. */
struct run_stats {
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
uint64_t run_stats_units(const struct vcpu *vcpu);
/* The payload label of a vCPU ("hog", "duty:3000/7000") or the boot method's name. */
void run_stats_label(const struct vcpu *vcpu, char *buf, size_t len);
/* CLOCK_MONOTONIC of vCPU 0's first guest instruction, or 0 if unknown. */
uint64_t run_stats_first_insn(const struct vm *vm, uint64_t *realtime_ns);

/* 0, or -errno when the JSON could not be written (json_end()). */
int run_stats_json(FILE *f, struct vm *vm, const struct run_stats *run);
void run_stats_summary(FILE *f, struct vm *vm, const struct run_stats *run);

#endif
