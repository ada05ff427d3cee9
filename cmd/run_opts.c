// SPDX-License-Identifier: GPL-2.0
/*
 * The flags of `vsched run`: one table (the getopt arrays and --help are made from it), the
 * rules between flags, --domain and the demo's defaults.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/run.h"
#include "libvirt/apply.h"
#include "sched/trace.h"
#include "util/registry.h"
#include "vmm/linux/cpuid.h"
#include "vmm/opts.h"
#include "vmm/payload.h"

#define RUN_DEMO_DURATION_NS 3000000000ULL
/*
 * The demo: six vCPUs in four groups on the default lanes, so the shares show: web (weight 300)
 * against batch (100), a latency vCPU at 30 % duty, and a vCPU capped at 0.2 CPU.
 */
#define RUN_DEMO_VCPUS 6
static const char run_demo_payload[] = "0-3=hog,4=duty:3000/7000,5=hog";
static const char *const run_demo_groups[] = {
	"web:weight=300", "batch:weight=100", "latency:weight=100", "capped:max=20000 100000",
};
static const char *const run_demo_assigns[] = { "0-1=web", "2-3=batch", "4=latency", "5=capped" };

#define RUN_CFG(f)	offsetof(struct run_cfg, f)

static int run_set_name(void *arg, const char *val)
{
	struct run_cfg *cfg = arg;

	if (registry_name_valid(val))
		return -EINVAL;
	cfg->name = val;
	cfg->name_given = true;
	return 0;
}

static int run_set_vcpus(void *arg, const char *val)
{
	return opts_parse_uint(val, 1, VM_MAX_VCPUS, &((struct run_cfg *)arg)->vcpus);
}

static int run_set_memory(void *arg, const char *val)
{
	struct run_cfg *cfg = arg;

	return opts_parse_size(val, &cfg->mem) || !cfg->mem ? -EINVAL : 0;
}

static int run_add(const char **list, unsigned int *nr, const char *val)
{
	if (*nr == RUN_MAX_ARGS)
		return -E2BIG;
	list[(*nr)++] = val;
	return 0;
}

static int run_add_payload(void *arg, const char *val)
{
	struct run_cfg *cfg = arg;

	return run_add(cfg->payload, &cfg->nr_payload, val);
}

static int run_add_group(void *arg, const char *val)
{
	struct run_cfg *cfg = arg;

	return run_add(cfg->groups, &cfg->nr_groups, val);
}

static int run_add_assign(void *arg, const char *val)
{
	struct run_cfg *cfg = arg;

	return run_add(cfg->assigns, &cfg->nr_assigns, val);
}

static int run_set_cpuid_hide(void *arg, const char *val)
{
	struct run_cfg *cfg = arg;

	cfg->cpuid_hide_set = true;
	return lx_cpuid_hide_parse(val, &cfg->kernel.cpuid_hide);
}

static int run_set_duration(void *arg, const char *val)
{
	return opts_parse_duration(val, &((struct run_cfg *)arg)->duration_ns);
}

static int run_set_cpus(void *arg, const char *val)
{
	return opts_parse_uint(val, 1, 4096, &((struct run_cfg *)arg)->cpus);
}

static int run_set_ctl_dir(void *arg, const char *val)
{
	if (!*val)
		return -EINVAL;
	((struct run_cfg *)arg)->ctl_dir = val;
	return 0;
}

static int run_set_accel(void *arg, const char *val)
{
	return accel_parse(val, &((struct run_cfg *)arg)->accel);
}

enum {
	RUN_OPT_NAME, RUN_OPT_VCPUS, RUN_OPT_MEMORY, RUN_OPT_PAYLOAD, RUN_OPT_KERNEL,
	RUN_OPT_INITRD, RUN_OPT_CMDLINE, RUN_OPT_CPUID_HIDE, RUN_OPT_DURATION, RUN_OPT_STATS,
	RUN_OPT_TRACE, RUN_OPT_DOMAIN, RUN_OPT_CPUS, RUN_OPT_GROUP, RUN_OPT_ASSIGN, RUN_OPT_NO_SCHED,
	RUN_OPT_NO_PIN, RUN_OPT_MONITOR, RUN_OPT_CTL_DIR, RUN_OPT_NO_CTL, RUN_OPT_ACCEL,
	RUN_OPT_HOST, RUN_OPT_PARTITION, RUN_OPT_WEIGHT, RUN_OPT_MAX, RUN_OPT_VERBOSE, RUN_NR_OPTS
};
#define RUN_BIT(o)	(1ULL << RUN_OPT_##o)

static const struct cmd_opt run_opts[RUN_NR_OPTS] = {
	[RUN_OPT_NAME] = { "name", 'n', "NAME", run_set_name, 0,
		"1-128 printable characters, no '/', not starting with '.'",
		"VM name (default \"vm\", \"demo\" for the demo)" },
	[RUN_OPT_VCPUS] = { "vcpus", 'c', "N", run_set_vcpus, 0, "1-128",
		"number of vCPUs, 1-128 (default 1)" },
	[RUN_OPT_MEMORY] = { "memory", 'm', "SIZE", run_set_memory, 0, NULL,
		"guest RAM, e.g. 64M, 1G (default 32M; 256M with --kernel)" },
	[RUN_OPT_PAYLOAD] = { "payload", 'p', "SPEC", run_add_payload, 0, NULL,
		"KIND[:ARGS] for every vCPU, or LIST=KIND[:ARGS],... per\n"
		"vCPU list in cpuset syntax (0-1=hog,2-3=duty:3000/7000);\n"
		"repeatable; vCPUs given none run hog. Kinds: hog,\n"
		"duty:BUSY_US/SLEEP_US, halt-duty:BUSY_US/SLEEP_US, io:N,\n"
		"probe, fault, count:N, emufail, steal" },
	[RUN_OPT_KERNEL] = { "kernel", 0, "FILE", NULL, RUN_CFG(kernel.kernel), NULL,
		"boot Linux (bzImage or vmlinux) instead of payloads" },
	[RUN_OPT_INITRD] = { "initrd", 0, "FILE", NULL, RUN_CFG(kernel.initrd), NULL,
		"initramfs for --kernel" },
	[RUN_OPT_CMDLINE] = { "cmdline", 0, "STRING", NULL, RUN_CFG(kernel.cmdline), NULL,
		"kernel command line for --kernel" },
	[RUN_OPT_CPUID_HIDE] = { "cpuid-hide", 0, "LIST", run_set_cpuid_hide, 0,
		"xsave,cx16,popcnt",
		"deny the --kernel guest CPU features: xsave,cx16,popcnt\n"
		"(instructions a software-assisted KVM cannot emulate)" },
	[RUN_OPT_DURATION] = { "duration", 'd', "TIME", run_set_duration, 0, NULL,
		"stop after TIME (3, 2.5s, 500ms); default: run until the\n"
		"guest ends or SIGINT/SIGTERM/SIGHUP" },
	[RUN_OPT_STATS] = { "stats", 0, "FILE", NULL, RUN_CFG(stats), NULL,
		"write per-vCPU statistics as JSON at exit" },
	[RUN_OPT_TRACE] = { "trace", 0, "FILE", NULL, RUN_CFG(trace), NULL,
		"write the schedule as trace-event JSON at exit, for\n"
		"ui.perfetto.dev (docs/trace.md)" },
	[RUN_OPT_DOMAIN] = { "domain", 0, "FILE", NULL, RUN_CFG(domain), NULL,
		"libvirt domain XML: name, vCPUs, memory, <os> kernel,\n"
		"<cputune> and vCPU groups (docs/libvirt.md)" },
	[RUN_OPT_CPUS] = { "cpus", 'P', "P", run_set_cpus, 0, NULL,
		"host CPUs (lanes) the vCPU scheduler may use (default:\n"
		"the CPUs in this process's affinity mask)" },
	[RUN_OPT_GROUP] = { "group", 0, "PATH[:K=V,..]", run_add_group, 0, NULL,
		"create a group (and missing parents) and set it up;\n"
		"K is weight, nice, max, burst, idle or a file name:\n"
		"--group web:weight=300,max=\"50000 100000\"; repeatable" },
	[RUN_OPT_ASSIGN] = { "assign", 0, "CPUSET=PATH", run_add_assign, 0, NULL,
		"move vCPUs into a group: --assign 0-1=web/fe; repeatable" },
	[RUN_OPT_NO_SCHED] = { "no-sched", 0, NULL, NULL, RUN_CFG(no_sched), NULL,
		"no vCPU scheduler: the host kernel runs the vCPU threads" },
	[RUN_OPT_NO_PIN] = { "no-pin", 0, NULL, NULL, RUN_CFG(no_pin), NULL,
		"lanes float: do not run lane i on the i-th host CPU" },
	[RUN_OPT_MONITOR] = { "monitor", 0, NULL, NULL, RUN_CFG(monitor), NULL,
		"print each group's CPU share once a second" },
	[RUN_OPT_CTL_DIR] = { "ctl-dir", 0, "PATH", run_set_ctl_dir, 0, NULL,
		"mount the control directory there (default\n"
		"/run/vsched/NAME; docs/control-directory.md)" },
	[RUN_OPT_NO_CTL] = { "no-ctl", 0, NULL, NULL, RUN_CFG(no_ctl), NULL,
		"no control directory" },
	[RUN_OPT_ACCEL] = { "accel", 0, "BACKEND", run_set_accel, 0, "kvm, thread or auto",
		"kvm, thread (vCPUs as host threads, payloads without\n"
		"probe/fault/emufail, no --kernel) or auto (default:\n"
		"kvm where /dev/kvm works, else thread)" },
	[RUN_OPT_HOST] = { "host", 0, NULL, NULL, RUN_CFG(host), NULL,
		"join the host scheduler (`vsched host`) instead of\n"
		"scheduling the vCPUs on lanes of its own (docs/host.md)" },
	[RUN_OPT_PARTITION] = { "partition", 0, "PATH", NULL, RUN_CFG(partition), NULL,
		"--host: the group above the VM's (default /machine);\n"
		"the VM's group is PATH/NAME" },
	[RUN_OPT_WEIGHT] = { "weight", 0, "W", NULL, RUN_CFG(weight), NULL,
		"--host: the VM group's cpu.weight, 1-10000 (default 100)" },
	[RUN_OPT_MAX] = { "max", 0, "\"QUOTA PERIOD\"", NULL, RUN_CFG(max), NULL,
		"--host: the VM group's cpu.max (default \"max 100000\")" },
	[RUN_OPT_VERBOSE] = { "verbose", 'v', NULL, NULL, RUN_CFG(verbose), NULL,
		"progress once a second and more messages" },
};

static const struct cmd_desc run_desc = {
	.prog = "vsched run", .usage = "[OPTIONS]",
	.about = "Start a VM with built-in payload guests (default) or a Linux kernel.\n"
		 "With no options (or only --accel): the demo, 6 vCPUs in four groups for 3\n"
		 "seconds, on as many lanes as this process's affinity mask has CPUs.\n",
	.opts = run_opts, .nr_opts = RUN_NR_OPTS,
	.footer = "Exit status: 0 powered off or --duration, 1 setup failed, 2 usage, 3 guest\n"
		  "reset, 4 guest error, 128+N stopped by signal N.\n",
};

int run_usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cmd_usage_error(&run_desc, "%s", msg);
}

/* What `vsched run --domain` cannot start, with this VMM's limits (domain_launch_check()). */
int run_domain_check(const struct domain_def *def, struct diag *d)
{
	static const struct domain_limits lim = {
		.max_vcpus = VM_MAX_VCPUS,
		.min_mem = PAYLOAD_MIN_MEM,
	};

	return domain_launch_check(def, &lim, d);
}

/*
 * Fewer vCPUs start than <vcpu> counts: named with <vcpu>'s line, once. A <vcpus> that enables
 * other vCPUs has said so already (domain_knobs()): both said "no vCPU hot-plug", this one
 * without a line (found by the libvirt test-file sweep, cpu-hotplug-startup.xml).
 */
static void run_domain_warn_current(const char *file, const struct domain_def *def)
{
	char never[48];
	unsigned int i;

	if (def->vcpus >= def->max_vcpus)
		return;
	for (i = 0; i < def->nr_knobs; i++)
		if (!strcmp(def->knobs[i].elem, "vcpus"))
			return;
	if (def->vcpus + 1 == def->max_vcpus)
		snprintf(never, sizeof(never), "vCPU %u never starts", def->vcpus);
	else
		snprintf(never, sizeof(never), "vCPUs %u-%u never start", def->vcpus,
			 def->max_vcpus - 1);
	fprintf(stderr, "vsched run: warning: %s:%d: <vcpu>: current='%u' of %u: vsched has no "
		"vCPU hot-plug; %s\n", file, def->vcpu_line, def->vcpus, def->max_vcpus, never);
}

/* --domain FILE: everything validated (groups and <cputune> too) before anything starts. */
static int run_domain(struct run_cfg *cfg)
{
	const struct domain_def *def = &cfg->launch.def;
	int ret;

	ret = domain_launch_load(cfg->domain, cfg->host, &cfg->launch);
	apply_report("vsched run", &cfg->launch.diag);
	if (ret) {
		run_cfg_free(cfg);
		return ret;
	}
	diag_free(&cfg->launch.diag);	/* reported */
	ret = run_domain_check(def, &cfg->launch.diag);
	if (ret) {
		apply_report("vsched run", &cfg->launch.diag);
		run_cfg_free(cfg);
		return ret;
	}
	run_domain_warn_current(cfg->domain, def);
	cfg->name = def->name;
	cfg->name_given = true;	/* a clash with a running VM is an error, not renamed */
	cfg->vcpus = def->vcpus;
	cfg->mem = def->memory;
	cfg->kernel.kernel = def->kernel;
	cfg->kernel.initrd = def->initrd;
	cfg->kernel.cmdline = def->cmdline;
	diag_free(&cfg->launch.diag);	/* reported: keep only what applying adds */
	return 0;
}

/* Flags that exclude or need one another. */
static int run_check_flags(const struct run_cfg *cfg, uint64_t seen)
{
	static const unsigned int vm_group[] = { RUN_OPT_PARTITION, RUN_OPT_WEIGHT, RUN_OPT_MAX };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(vm_group); i++) {
		const char *name = run_opts[vm_group[i]].name;

		if (!(seen & (1ULL << vm_group[i])))
			continue;
		if (cfg->domain)
			return run_usage_error("--%s: --domain gives the partition, weight and cap "
					       "(<resource><partition>, <shares>, <global_quota>); "
					       "do not repeat them as flags", name);
		if (!cfg->host)
			return run_usage_error("--%s needs --host (it sets the VM's group on the "
					       "host scheduler)", name);
	}
	if (cfg->domain && (seen & (RUN_BIT(NAME) | RUN_BIT(VCPUS) | RUN_BIT(MEMORY) |
				    RUN_BIT(KERNEL) | RUN_BIT(INITRD) | RUN_BIT(CMDLINE))))
		return run_usage_error("--domain gives the name, vCPUs, memory and kernel; "
				       "do not repeat them as flags");
	if (cfg->domain && (cfg->nr_groups || cfg->nr_assigns))
		return run_usage_error("--domain has its own groups (<metadata>); use "
				       "--group/--assign without it");
	return 0;
}

/*
 * An output is no input: `--domain web1.xml --stats web1.xml` replaced the domain with the
 * statistics at exit (and --trace a kernel or initrd likewise).
 */
static int run_check_outputs(const struct run_cfg *cfg)
{
	const char *out[] = { cfg->stats, cfg->trace }, *in[] = { cfg->domain,
		cfg->kernel.kernel, cfg->kernel.initrd };
	static const char *const out_name[] = { "--stats", "--trace" };
	static const char *const in_name[] = { "--domain", "--kernel", "--initrd" };
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(out); i++)
		for (j = 0; j < ARRAY_SIZE(in); j++)
			if (out[i] && in[j] && strcmp(in[j], "-") && run_same_file(out[i], in[j]))
				return run_usage_error("%s '%s' is the %s file: it would be "
						       "overwritten", out_name[i], out[i],
						       in_name[j]);
	return 0;
}

static int run_check_kernel(const struct run_cfg *cfg)
{
	size_t ring;

	if (cfg->kernel.kernel && cfg->nr_payload)
		return run_usage_error("--kernel and --payload exclude each other");
	if (!cfg->kernel.kernel &&
	    (cfg->kernel.initrd || cfg->kernel.cmdline || cfg->cpuid_hide_set))
		return run_usage_error("--initrd, --cmdline and --cpuid-hide need --kernel");
	if (cfg->ctl_dir && cfg->no_ctl)
		return run_usage_error("--ctl-dir and --no-ctl exclude each other");
	if (cfg->no_sched && (cfg->nr_groups || cfg->nr_assigns))
		return run_usage_error("--no-sched excludes --group and --assign");
	/* Without the scheduler no decision is made: the trace would hold no slice at all. */
	if (cfg->no_sched && cfg->trace)
		return run_usage_error("--no-sched excludes --trace (it records the vCPU "
				       "scheduler's decisions)");
	/* Was taken as the default, silently: VSCHED_TRACE_EVENTS=1M gave 64 Ki events. */
	if (cfg->trace && trace_ring_events_env(&ring))
		return run_usage_error(TRACE_RING_EVENTS_ENV " '%s' is no count of %u to %u "
				       "(trace events per recording thread)",
				       getenv(TRACE_RING_EVENTS_ENV), TRACE_RING_EVENTS_MIN,
				       TRACE_RING_EVENTS_MAX);
	/* Each writes a JSON document of its own at exit: one would replace the other. */
	if (cfg->trace && cfg->stats && run_same_file(cfg->trace, cfg->stats))
		return run_usage_error("--trace and --stats name the same file ('%s', '%s')",
				       cfg->trace, cfg->stats);
	return run_check_outputs(cfg);
}

/* Joining the host scheduler (--host, or the domain said so): what it excludes and needs. */
static int run_check_host(struct run_cfg *cfg, uint64_t seen)
{
	const struct domain_host *h = &cfg->launch.host;
	char msg[512];

	if (h->join) {
		cfg->host = true;
		cfg->partition = h->partition;
		cfg->weight = h->weight[0] ? h->weight : NULL;
		cfg->max = h->max[0] ? h->max : NULL;
	}
	if (!cfg->host)
		return 0;
	if (seen & RUN_BIT(CPUS))
		return run_usage_error("--cpus is refused with %s: the host scheduler owns the "
				       "lanes (vsched host --cpus N)",
				       seen & RUN_BIT(HOST) ? "--host" :
				       "a domain that joins the host scheduler");
	if (cfg->no_sched)
		return run_usage_error("%s and --no-sched exclude each other",
				       seen & RUN_BIT(HOST) ? "--host" :
				       "a domain that joins the host scheduler");
	/* Host mode's lanes are the daemon's CPUs; each grant pins (docs/host.md). */
	if (cfg->no_pin)
		return run_usage_error("--no-pin is refused with %s: the host scheduler "
				       "places the lanes (docs/host.md)",
				       seen & RUN_BIT(HOST) ? "--host" :
				       "a domain that joins the host scheduler");
	if (run_host_parse(cfg, msg, sizeof(msg)))
		return cfg->domain ? run_usage_error("%s: the VM group's %s", cfg->domain, msg) :
				     run_usage_error("invalid --%s", msg);
	return 0;
}

/*
 * The default control directory <run dir>/NAME of a VM named host or host.sock is the host
 * scheduler's directory or socket: mounted over the socket, no VM could join the daemon; and
 * `vsched apply` took the daemon's root for the VM's.
 */
static int run_check_name(const struct run_cfg *cfg)
{
	if (cfg->ctl_dir || cfg->no_ctl || !registry_name_reserved(cfg->name))
		return 0;
	if (cfg->domain)
		return run_usage_error("%s:%d: <name> '%s': %s/%s is the host scheduler's, not a "
				       "VM's control directory; give --ctl-dir or --no-ctl",
				       cfg->domain, cfg->launch.def.name_line, cfg->name,
				       registry_run_dir(), cfg->name);
	return run_usage_error("--name '%s': %s/%s is the host scheduler's, not a VM's control "
			       "directory; give --ctl-dir or --no-ctl", cfg->name,
			       registry_run_dir(), cfg->name);
}

static void run_demo(struct run_cfg *cfg)
{
	unsigned int i;

	cfg->name = "demo";
	cfg->vcpus = RUN_DEMO_VCPUS;
	cfg->payload[cfg->nr_payload++] = run_demo_payload;
	cfg->duration_ns = RUN_DEMO_DURATION_NS;
	for (i = 0; i < ARRAY_SIZE(run_demo_groups); i++)
		cfg->groups[cfg->nr_groups++] = run_demo_groups[i];
	for (i = 0; i < ARRAY_SIZE(run_demo_assigns); i++)
		cfg->assigns[cfg->nr_assigns++] = run_demo_assigns[i];
	cfg->monitor = true;
}

void run_demo_banner(const struct run_cfg *cfg, unsigned int lanes, enum vm_accel accel)
{
	unsigned int i;

	printf("vsched demo: %u vCPUs (%s) on %u lanes, %s backend, for 3 s, in groups:\n",
	       RUN_DEMO_VCPUS, run_demo_payload, lanes, accel_name(accel));
	for (i = 0; i < cfg->nr_groups; i++)
		printf("  --group %s\n", cfg->groups[i]);
	for (i = 0; i < cfg->nr_assigns; i++)
		printf("  --assign %s\n", cfg->assigns[i]);
}

/*
 * What run_parse() allocated for --domain (the description, its plan and messages); cfg's name,
 * memory and kernel paths point into it. Found leaked at every exit of `vsched run --domain`
 * by LeakSanitizer (branch xmlcorpus). Idempotent.
 */
void run_cfg_free(struct run_cfg *cfg)
{
	if (cfg->domain && cfg->name == cfg->launch.def.name)
		cfg->name = NULL;
	domain_launch_free(&cfg->launch);
}

int run_parse(int argc, char **argv, struct run_cfg *cfg)
{
	uint64_t seen;
	int ret;

	*cfg = (struct run_cfg){ .name = "vm", .vcpus = 1 };
	ret = cmd_parse(&run_desc, argc, argv, cfg, &seen);
	if (ret <= 0)
		return ret ? ret : 1;
	cfg->demo = !(seen & ~RUN_BIT(ACCEL));
	ret = run_check_flags(cfg, seen);
	if (ret)
		return ret;
	if (cfg->domain) {
		if (run_domain(cfg))
			return -EINVAL;
		seen |= RUN_BIT(MEMORY);
	}
	ret = run_check_kernel(cfg);
	if (!ret)
		ret = run_check_host(cfg, seen);
	if (!ret)
		ret = run_check_name(cfg);
	if (ret) {
		run_cfg_free(cfg);
		return ret;
	}
	if (cfg->demo)
		run_demo(cfg);
	if (!(seen & RUN_BIT(MEMORY)))
		cfg->mem = cfg->kernel.kernel ? LINUX_DEFAULT_MEM : PAYLOAD_DEFAULT_MEM;
	return 0;
}
