// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched run` = a VM (vmm/) + the scheduler runtime on its vCPUs (sched/runtime/) + the group
 * tree from --group/--assign or a --domain plan (vsched.h, libvirt-hooks/) + the control
 * directory (ctl/). In order: the flags (run_opts.c), the payloads, what the flags allow of
 * the backend (run_accel.c), the files they name (run_files.c), the backend, the group tree
 * (run_sched.c); nothing has started before. Then the VM runs (run_vm.c).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "libvirt/apply.h"
#include "util/time.h"
#include "vmm/linux.h"
#include "vmm/payload.h"
#include "vmm/vm.h"

static int run_payload_one(const struct run_cfg *cfg, const char *arg,
			   struct payload_opts *opts)
{
	static const char *const why[] = {
		[EINVAL] = "bad syntax or unknown kind", [ERANGE] = "vCPU out of range",
		[EEXIST] = "a vCPU is given two payloads",
	};
	int ret = payload_parse_assign(arg, cfg->vcpus, opts->spec);

	if (!ret)
		return 0;
	return run_usage_error("invalid --payload '%s': %s (%u vCPUs)", arg,
			       -ret < (int)ARRAY_SIZE(why) && why[-ret] ? why[-ret] :
			       strerror(-ret), cfg->vcpus);
}

static int run_payload_specs(const struct run_cfg *cfg, struct payload_opts *opts)
{
	struct payload_spec hog = { .kind = PAYLOAD_HOG };
	unsigned int i;

	/* Per-vCPU lists first, so a bare KIND fills the rest whatever the flag order. */
	for (i = 0; i < cfg->nr_payload; i++)
		if (strchr(cfg->payload[i], '=') && run_payload_one(cfg, cfg->payload[i], opts))
			return -EINVAL;
	for (i = 0; i < cfg->nr_payload; i++)
		if (!strchr(cfg->payload[i], '=') && run_payload_one(cfg, cfg->payload[i], opts))
			return -EINVAL;
	for (i = 0; i < cfg->vcpus; i++)
		if (!opts->spec[i].kind)
			opts->spec[i] = hog;
	return 0;
}

/* Each payload vCPU's long-run demand in CPUs, for the fluid ideal in the group table. */
static int run_payload_demand(struct run_sched *rs, const struct payload_opts *po, unsigned int n)
{
	double demand[VM_MAX_VCPUS];
	unsigned int i;

	for (i = 0; i < n; i++) {
		const struct payload_spec *sp = &po->spec[i];

		demand[i] = (sp->kind == PAYLOAD_DUTY || sp->kind == PAYLOAD_HALT_DUTY) &&
					    sp->arg[0] + sp->arg[1] ?
				    (double)sp->arg[0] / (double)(sp->arg[0] + sp->arg[1]) :
				    1.0;
	}
	return run_sched_set_demand(rs, demand, n);
}

/* The domain's groups and <cputune>, through the C API, on the tree before the VM exists. */
static int run_domain_apply(struct run_cfg *cfg, struct run_sched *rs)
{
	int ret = domain_launch_apply(&cfg->launch, rs->vs);

	apply_report("vsched run", &cfg->launch.diag);
	if (!ret && cfg->no_sched)
		fprintf(stderr, "vsched run: warning: %s: --no-sched: the groups are set up but "
			"the host kernel schedules the vCPU threads\n", cfg->domain);
	return ret;
}

/* The boot method: Linux, or payload guests from --payload (hog for vCPUs given none). */
static int run_boot(struct run_cfg *cfg, struct vm *vm, struct payload_opts *popts)
{
	if (cfg->kernel.kernel) {
		vm->boot = &linux_boot_ops;
		vm->boot_data = &cfg->kernel;
		return 0;
	}
	memset(popts, 0, sizeof(*popts));
	if (run_payload_specs(cfg, popts))
		return -EINVAL;
	if (cfg->mem < PAYLOAD_MIN_MEM)
		return run_usage_error("--memory must be at least %lluK for payloads",
				       (unsigned long long)PAYLOAD_MIN_MEM >> 10);
	vm->boot = &payload_boot_ops;
	vm->boot_data = popts;
	return 0;
}

/* The group tree before the VM exists: --group/--assign or the domain's plan. */
static int run_groups(struct run_cfg *cfg, struct run_sched *rs, const struct payload_opts *popts,
		      unsigned int lanes)
{
	char msg[512];

	if (run_sched_setup(rs, cfg->vcpus, lanes, !cfg->no_sched,
			   (const char *const *)cfg->groups, cfg->nr_groups,
			   (const char *const *)cfg->assigns, cfg->nr_assigns, msg, sizeof(msg)) ||
	    (cfg->host && run_sched_host(rs, cfg, msg, sizeof(msg))))
		return run_usage_error("%s", msg);
	if (cfg->domain && run_domain_apply(cfg, rs))
		return -EINVAL;
	if (!cfg->kernel.kernel && run_payload_demand(rs, popts, cfg->vcpus))
		return -ENOMEM;
	return 0;
}

/*
 * An output file (--trace, --stats) that cannot be written: a setup failure (exit 1), as an
 * unreadable --kernel is, not a usage error; what the run made is removed.
 */
static int run_out_failed(struct run_sched *rs, const char *msg)
{
	fprintf(stderr, "vsched run: %s\n", msg);
	run_sched_destroy(rs);
	return RUN_EXIT_FAILURE;
}

static int run_start(int argc, char **argv, struct run_cfg *cfg)
{
	uint64_t start_ns = time_mono_ns();
	static struct payload_opts popts;
	struct run_accel_req areq;
	struct run_sched rs;
	FILE *stats = NULL;
	unsigned int lanes;
	char msg[512];
	struct vm vm;
	int ret;

	ret = run_parse(argc, argv, cfg);
	if (ret)
		return ret > 0 ? RUN_EXIT_OK : RUN_EXIT_USAGE;
	vm = (struct vm){
		.name = cfg->name, .mem_size = cfg->mem, .nr_vcpus = cfg->vcpus,
		.nr_lanes = cfg->cpus, .verbose = cfg->verbose,
	};
	if (run_boot(cfg, &vm, &popts))
		return RUN_EXIT_USAGE;
	areq = (struct run_accel_req){
		.accel = cfg->accel, .domain = cfg->domain, .domain_type = cfg->launch.def.type,
		.kernel = cfg->kernel.kernel, .specs = cfg->kernel.kernel ? NULL : popts.spec,
		.nr_vcpus = cfg->vcpus,
	};
	/* Flags first, then the files they name, then KVM: nothing has started before. */
	ret = run_accel_check(&areq);
	if (ret)
		return -ret;
	if (run_check_files(cfg) || run_ctl_check_name(cfg) ||
	    (cfg->host && run_host_check(cfg)))
		return RUN_EXIT_FAILURE;
	ret = run_accel_choose(&areq, &vm.accel);
	if (ret)
		return -ret;
	lanes = cfg->cpus ? cfg->cpus : run_sched_lanes();
	vm.nr_lanes = lanes;
	ret = run_groups(cfg, &rs, &popts, lanes);
	if (ret) {
		run_sched_destroy(&rs);
		return ret == -ENOMEM ? RUN_EXIT_FAILURE : RUN_EXIT_USAGE;
	}
	if (cfg->demo)
		run_demo_banner(cfg, lanes, vm.accel);
	/* Opened now, so a path that cannot be written is refused before anything runs. */
	if (cfg->trace && run_sched_trace(&rs, cfg->trace, msg, sizeof(msg)))
		return run_out_failed(&rs, msg);
	if (cfg->stats && !(stats = run_out_open(cfg->stats, &cfg->stats_created))) {
		snprintf(msg, sizeof(msg), "--stats %s: %s", cfg->stats, strerror(errno));
		return run_out_failed(&rs, msg);
	}
	return run_vm(cfg, &vm, &rs, stats, start_ns);
}

int cmd_run(int argc, char **argv)
{
	struct run_cfg cfg;
	int ret = run_start(argc, argv, &cfg);

	run_cfg_free(&cfg);
	return ret;
}
