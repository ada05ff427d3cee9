// SPDX-License-Identifier: GPL-2.0
/*
 * `vsched run`: flags into a struct vm, then start it and wait for the first of: the guest
 * ending, --duration, SIGINT or SIGTERM. The main thread blocks those signals before any
 * vCPU thread exists (so they inherit the mask) and takes them only inside ppoll(). Not a
 * signalfd: every signal sent to any thread of the process (each vCPU slice timer) wakes a
 * signalfd's pollers, which cost a host context switch per slice.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "libvirt/apply.h"
#include "libvirt/domain_launch.h"
#include "sched/runsched.h"
#include "vmm/linux.h"
#include "vmm/linux/cpuid.h"
#include "vmm/opts.h"
#include "vmm/payload.h"
#include "vmm/run.h"
#include "vmm/stats.h"
#include "vmm/vm.h"
#include "vsched.h"

#define RUN_MAX_PAYLOAD_ARGS 64
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

struct run_cfg {
	const char *name;
	unsigned int vcpus;
	uint64_t mem;
	const char *payload[RUN_MAX_PAYLOAD_ARGS];
	unsigned int nr_payload;
	struct linux_opts kernel;
	bool cpuid_hide_set;
	uint64_t duration_ns;
	const char *stats;
	const char *trace;
	const char *domain;
	unsigned int cpus;
	bool verbose;
	bool demo;
	const char *groups[RUN_MAX_PAYLOAD_ARGS];
	unsigned int nr_groups;
	const char *assigns[RUN_MAX_PAYLOAD_ARGS];
	unsigned int nr_assigns;
	bool no_sched;
	bool no_pin;
	bool monitor;
	bool name_given;
	const char *ctl_dir;
	bool no_ctl;
	enum vm_accel accel;
};

enum { OPT_KERNEL = 0x100, OPT_INITRD, OPT_CMDLINE, OPT_CPUID_HIDE, OPT_STATS, OPT_GROUP,
       OPT_ASSIGN, OPT_NO_SCHED, OPT_NO_PIN, OPT_MONITOR, OPT_CTL_DIR, OPT_NO_CTL, OPT_DOMAIN,
       OPT_ACCEL, OPT_TRACE };

static const struct option run_options[] = {
	{ "name", required_argument, NULL, 'n' },
	{ "vcpus", required_argument, NULL, 'c' },
	{ "memory", required_argument, NULL, 'm' },
	{ "payload", required_argument, NULL, 'p' },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "initrd", required_argument, NULL, OPT_INITRD },
	{ "cmdline", required_argument, NULL, OPT_CMDLINE },
	{ "cpuid-hide", required_argument, NULL, OPT_CPUID_HIDE },
	{ "duration", required_argument, NULL, 'd' },
	{ "stats", required_argument, NULL, OPT_STATS },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "domain", required_argument, NULL, OPT_DOMAIN },
	{ "cpus", required_argument, NULL, 'P' },
	{ "group", required_argument, NULL, OPT_GROUP },
	{ "assign", required_argument, NULL, OPT_ASSIGN },
	{ "no-sched", no_argument, NULL, OPT_NO_SCHED },
	{ "no-pin", no_argument, NULL, OPT_NO_PIN },
	{ "monitor", no_argument, NULL, OPT_MONITOR },
	{ "ctl-dir", required_argument, NULL, OPT_CTL_DIR },
	{ "no-ctl", no_argument, NULL, OPT_NO_CTL },
	{ "accel", required_argument, NULL, OPT_ACCEL },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void run_usage(FILE *f)
{
	fprintf(f,
		"usage: vsched run [OPTIONS]\n"
		"Start a VM with built-in payload guests (default) or a Linux kernel.\n"
		"With no options (or only --accel): a 6-vCPU demo of groups for 3 seconds.\n\n"
		"  -n, --name NAME          VM name (default \"vm\", \"demo\" for the demo)\n"
		"  -c, --vcpus N            number of vCPUs, 1-%u (default 1)\n"
		"  -m, --memory SIZE        guest RAM, e.g. 64M, 1G (default 32M; 256M with --kernel)\n"
		"  -p, --payload SPEC       KIND[:ARGS] for every vCPU, or LIST=KIND[:ARGS],... per\n"
		"                           vCPU list in cpuset syntax (0-1=hog,2-3=duty:3000/7000);\n"
		"                           repeatable; vCPUs given none run hog. Kinds: hog,\n"
		"                           duty:BUSY_US/SLEEP_US, halt-duty:BUSY_US/SLEEP_US, io:N,\n"
		"                           probe, fault, count:N, emufail, steal\n"
		"      --kernel FILE        boot Linux (bzImage or vmlinux) instead of payloads\n"
		"      --initrd FILE        initramfs for --kernel\n"
		"      --cmdline STRING     kernel command line for --kernel\n"
		"      --cpuid-hide LIST    deny the --kernel guest CPU features: xsave,cx16,popcnt\n"
		"                           (instructions a software-assisted KVM cannot emulate)\n"
		"  -d, --duration TIME      stop after TIME (3, 2.5s, 500ms); default: run until the\n"
		"                           guest ends or SIGINT/SIGTERM\n"
		"      --stats FILE         write per-vCPU statistics as JSON at exit\n"
		"      --trace FILE         write the schedule as trace-event JSON at exit, for\n"
		"                           ui.perfetto.dev (docs/trace.md)\n"
		"      --domain FILE        libvirt domain XML: name, vCPUs, memory, <os> kernel,\n"
		"                           <cputune> and vCPU groups (docs/libvirt.md)\n"
		"  -P, --cpus P             host CPUs (lanes) the vCPU scheduler may use (default:\n"
		"                           the CPUs in this process's affinity mask)\n"
		"      --group PATH[:K=V,..] create a group (and missing parents) and set it up;\n"
		"                           K is weight, nice, max, burst, idle or a file name:\n"
		"                           --group web:weight=300,max=\"50000 100000\"; repeatable\n"
		"      --assign CPUSET=PATH move vCPUs into a group: --assign 0-1=web/fe; repeatable\n"
		"      --no-sched           no vCPU scheduler: the host kernel runs the vCPU threads\n"
		"      --no-pin             lanes float: do not run lane i on the i-th host CPU\n"
		"      --monitor            print each group's CPU share once a second\n"
		"      --ctl-dir PATH       mount the control directory there (default\n"
		"                           /run/vsched/NAME; docs/control-directory.md)\n"
		"      --no-ctl             no control directory\n"
		"      --accel BACKEND      kvm, thread (vCPUs as host threads, payloads without\n"
		"                           probe/fault/emufail, no --kernel) or auto (default:\n"
		"                           kvm where /dev/kvm works, else thread)\n"
		"  -v, --verbose            progress once a second and more messages\n"
		"  -h, --help               this text\n\n"
		"Exit status: 0 powered off or --duration, 1 setup failed, 2 usage, 3 guest reset,\n"
		"4 guest error, 128+N stopped by signal N.\n",
		VM_MAX_VCPUS);
}

static int run_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "vsched run: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'vsched run --help'.\n");
	return -EINVAL;
}

/* The domain of --domain: its strings back cfg's for the whole run. */
static struct domain_launch run_launch;

/* --domain FILE: everything validated (groups and <cputune> too) before anything starts. */
static int run_domain(struct run_cfg *cfg)
{
	const struct domain_def *def = &run_launch.def;
	int ret;

	ret = domain_launch_load(cfg->domain, &run_launch);
	apply_report("vsched run", &run_launch.diag);
	if (ret)
		return ret;
	if (def->vcpus > VM_MAX_VCPUS) {
		fprintf(stderr, "vsched run: %s: %u vCPUs, this VMM runs at most %u\n",
			cfg->domain, def->vcpus, VM_MAX_VCPUS);
		return -EINVAL;
	}
	if (def->vcpus < def->max_vcpus)
		fprintf(stderr, "vsched run: warning: %s: starting %u of %u vCPUs (current); "
			"vsched has no vCPU hot-plug\n", cfg->domain, def->vcpus, def->max_vcpus);
	cfg->name = def->name;
	cfg->name_given = true;		/* a clash with a running VM is an error, not renamed */
	cfg->vcpus = def->vcpus;
	cfg->mem = def->memory;
	cfg->kernel.kernel = def->kernel;
	cfg->kernel.initrd = def->initrd;
	cfg->kernel.cmdline = def->cmdline;
	xdiag_free(&run_launch.diag);	/* reported: keep only what applying adds */
	return 0;
}

/* The domain's groups and <cputune>, through the C API, on the tree before the VM exists. */
static int run_domain_apply(const struct run_cfg *cfg, struct runsched *rs)
{
	int ret = domain_launch_apply(&run_launch, rs->vs);

	apply_report("vsched run", &run_launch.diag);
	if (!ret && cfg->no_sched)
		fprintf(stderr, "vsched run: warning: %s: --no-sched: the groups are set up but the "
			"host kernel schedules the vCPU threads\n", cfg->domain);
	return ret;
}

static int run_parse(int argc, char **argv, struct run_cfg *cfg)
{
	bool vcpus_set = false, mem_set = false;
	unsigned int others = 0;
	int c;

	*cfg = (struct run_cfg){ .name = "vm", .vcpus = 1 };
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":n:c:m:p:d:P:vh", run_options, NULL)) != -1) {
		others += c != OPT_ACCEL;
		switch (c) {
		case 'n':
			if (ctl_name_valid(optarg))
				return run_usage_error("invalid --name '%s' (1-128 printable characters, "
						       "no '/', not starting with '.')", optarg);
			cfg->name = optarg;
			cfg->name_given = true;
			break;
		case 'c':
			if (opts_parse_uint(optarg, 1, VM_MAX_VCPUS, &cfg->vcpus))
				return run_usage_error("invalid --vcpus '%s' (1-128)", optarg);
			vcpus_set = true;
			break;
		case 'm':
			if (opts_parse_size(optarg, &cfg->mem) || !cfg->mem)
				return run_usage_error("invalid --memory '%s'", optarg);
			mem_set = true;
			break;
		case 'p':
			if (cfg->nr_payload == RUN_MAX_PAYLOAD_ARGS)
				return run_usage_error("too many --payload options%s", "");
			cfg->payload[cfg->nr_payload++] = optarg;
			break;
		case OPT_KERNEL:
			cfg->kernel.kernel = optarg;
			break;
		case OPT_INITRD:
			cfg->kernel.initrd = optarg;
			break;
		case OPT_CMDLINE:
			cfg->kernel.cmdline = optarg;
			break;
		case OPT_CPUID_HIDE:
			if (lx_cpuid_hide_parse(optarg, &cfg->kernel.cpuid_hide))
				return run_usage_error("invalid --cpuid-hide '%s' (xsave,cx16,popcnt)", optarg);
			cfg->cpuid_hide_set = true;
			break;
		case 'd':
			if (opts_parse_duration(optarg, &cfg->duration_ns))
				return run_usage_error("invalid --duration '%s'", optarg);
			break;
		case OPT_DOMAIN:
			cfg->domain = optarg;
			break;
		case OPT_STATS:
			cfg->stats = optarg;
			break;
		case OPT_TRACE:
			cfg->trace = optarg;
			break;
		case 'P':
			if (opts_parse_uint(optarg, 1, 4096, &cfg->cpus))
				return run_usage_error("invalid --cpus '%s'", optarg);
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case OPT_CTL_DIR:
			if (!*optarg)
				return run_usage_error("invalid --ctl-dir '%s'", optarg);
			cfg->ctl_dir = optarg;
			break;
		case OPT_NO_CTL:
			cfg->no_ctl = true;
			break;
		case OPT_GROUP:
			if (cfg->nr_groups == RUN_MAX_PAYLOAD_ARGS)
				return run_usage_error("too many --group options%s", "");
			cfg->groups[cfg->nr_groups++] = optarg;
			break;
		case OPT_ASSIGN:
			if (cfg->nr_assigns == RUN_MAX_PAYLOAD_ARGS)
				return run_usage_error("too many --assign options%s", "");
			cfg->assigns[cfg->nr_assigns++] = optarg;
			break;
		case OPT_NO_SCHED:
			cfg->no_sched = true;
			break;
		case OPT_NO_PIN:
			cfg->no_pin = true;
			break;
		case OPT_MONITOR:
			cfg->monitor = true;
			break;
		case OPT_ACCEL:
			if (accel_parse(optarg, &cfg->accel))
				return run_usage_error("invalid --accel '%s' (kvm, thread or auto)", optarg);
			break;
		case 'h':
			run_usage(stdout);
			return 1;
		case ':':
			return run_usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return run_usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return run_usage_error("unexpected argument '%s'", argv[optind]);
	cfg->demo = !others;
	if (cfg->domain) {
		if (cfg->name_given || vcpus_set || mem_set || cfg->kernel.kernel ||
		    cfg->kernel.initrd || cfg->kernel.cmdline)
			return run_usage_error("--domain gives the name, vCPUs, memory and kernel; "
					       "%sdo not repeat them as flags", "");
		if (cfg->nr_groups || cfg->nr_assigns)
			return run_usage_error("--domain has its own groups (<metadata>); %suse "
					       "--group/--assign without it", "");
		if (run_domain(cfg))
			return -EINVAL;
		mem_set = true;
	}
	if (cfg->kernel.kernel && cfg->nr_payload)
		return run_usage_error("--kernel and --payload exclude each other%s", "");
	if (!cfg->kernel.kernel && (cfg->kernel.initrd || cfg->kernel.cmdline || cfg->cpuid_hide_set))
		return run_usage_error("--initrd, --cmdline and --cpuid-hide need --kernel%s", "");
	if (cfg->ctl_dir && cfg->no_ctl)
		return run_usage_error("--ctl-dir and --no-ctl exclude each other%s", "");
	if (cfg->no_sched && (cfg->nr_groups || cfg->nr_assigns))
		return run_usage_error("--no-sched excludes --group and --assign%s", "");
	if (cfg->demo) {
		unsigned int i;

		cfg->name = "demo";
		cfg->vcpus = RUN_DEMO_VCPUS;
		cfg->payload[cfg->nr_payload++] = run_demo_payload;
		cfg->duration_ns = RUN_DEMO_DURATION_NS;
		for (i = 0; i < sizeof(run_demo_groups) / sizeof(run_demo_groups[0]); i++)
			cfg->groups[cfg->nr_groups++] = run_demo_groups[i];
		for (i = 0; i < sizeof(run_demo_assigns) / sizeof(run_demo_assigns[0]); i++)
			cfg->assigns[cfg->nr_assigns++] = run_demo_assigns[i];
		cfg->monitor = true;
	}
	if (!mem_set)
		cfg->mem = cfg->kernel.kernel ? LINUX_DEFAULT_MEM : PAYLOAD_DEFAULT_MEM;
	return 0;
}

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
	fprintf(stderr, "vsched run: invalid --payload '%s': %s (%u vCPUs)\n", arg,
		-ret < (int)(sizeof(why) / sizeof(why[0])) && why[-ret] ? why[-ret] :
		strerror(-ret), cfg->vcpus);
	fprintf(stderr, "Try 'vsched run --help'.\n");
	return ret;
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
static int run_payload_demand(struct runsched *rs, const struct payload_opts *po, unsigned int n)
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
	return runsched_set_demand(rs, demand, n);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void run_progress(struct vm *vm)
{
	unsigned int i;

	fprintf(stderr, "vsched: units");
	for (i = 0; i < vm->nr_vcpus; i++)
		fprintf(stderr, " vcpu%u=%llu", i,
			(unsigned long long)(vm->vcpus[i].work_units ? *vm->vcpus[i].work_units : 0));
	fprintf(stderr, "\n");
}

static volatile sig_atomic_t run_signal;

static void run_on_signal(int sig)
{
	run_signal = sig;
}

/*
 * Waits for the VM to stop; returns the signal that stopped it, or 0. SIGINT and SIGTERM are
 * blocked except inside ppoll() (waitmask), so they interrupt it and nothing else.
 */
static int run_wait(struct vm *vm, const struct run_cfg *cfg, const sigset_t *waitmask)
{
	struct pollfd pfd[2] = {
		{ .fd = vm->stop_fd, .events = POLLIN },
		{ .fd = -1, .events = POLLIN },
	};
	struct timespec progress = { 1, 0 };
	int tfd = -1, sig = 0;

	if (cfg->duration_ns) {
		struct itimerspec its = {
			.it_value = { cfg->duration_ns / 1000000000ULL,
				      cfg->duration_ns % 1000000000ULL },
		};

		tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
		if (tfd >= 0 && !timerfd_settime(tfd, 0, &its, NULL))
			pfd[1].fd = tfd;
	}
	while (!vm_stopping(vm)) {
		int n = ppoll(pfd, 2, cfg->verbose ? &progress : NULL, waitmask);

		if (run_signal) {
			sig = run_signal;
			vm->exit_signal = sig;
			vm_stop(vm, VM_EXIT_STOPPED);
			break;
		}
		if (n < 0 && errno != EINTR)
			break;
		if (n == 0) {
			run_progress(vm);
			continue;
		}
		if (n > 0 && (pfd[1].revents & POLLIN))
			vm_stop(vm, VM_EXIT_STOPPED);
	}
	if (tfd >= 0)
		close(tfd);
	return vm->exit_reason == VM_EXIT_STOPPED ? sig : 0;
}

static int run_exit_status(const struct vm *vm, int sig)
{
	switch (vm->exit_reason) {
	case VM_EXIT_POWEROFF:
		return RUN_EXIT_OK;
	case VM_EXIT_STOPPED:
		return sig ? 128 + sig : RUN_EXIT_OK;
	case VM_EXIT_RESET:
		return RUN_EXIT_RESET;
	default:
		return RUN_EXIT_GUEST_ERROR;
	}
}

static int run_write_stats(const struct run_cfg *cfg, FILE *f, struct vm *vm,
			   const struct stats_run *sr)
{
	int ret = stats_write_json(f, vm, sr);

	if (fclose(f) || ret) {
		fprintf(stderr, "vsched run: --stats %s: write failed\n", cfg->stats);
		return -EIO;
	}
	return 0;
}

static int run_ctl_start(const struct run_cfg *cfg, struct vm *vm, struct vsched *vs,
			 struct vm_ctl *vc)
{
	struct vm_ctl_opts o = {
		.name = cfg->name, .name_given = cfg->name_given, .dir = cfg->ctl_dir,
		.no_ctl = cfg->no_ctl,
	};
	int ret = vm_ctl_start(vm, vs, &o, vc);

	/* A VM that ended already (e.g. an emulation failure at once) reports its own status. */
	if (ret == -ECANCELED)
		return 0;
	if (ret == -EEXIST)
		fprintf(stderr, "vsched run: a VM named '%s' is already running (vsched list)\n",
			cfg->name);
	else if (ret)
		fprintf(stderr, "vsched run: control directory %s: %s\n",
			cfg->ctl_dir ? cfg->ctl_dir : cfg->name, strerror(-ret));
	else if (vc->mount_err)
		fprintf(stderr, "vsched run: no control directory (%s); running without one\n",
			strerror(-vc->mount_err));
	else if (cfg->verbose && vc->ctl)
		fprintf(stderr, "vsched: control directory %s\n", ctl_dir(vc->ctl));
	return ret;
}

static int run_vm(const struct run_cfg *cfg, struct vm *vm, struct runsched *rs, FILE *stats,
		  uint64_t start_ns)
{
	struct stats_run sr = { .cmd_start_ns = start_ns };
	struct vm_ctl vc = { 0 };
	struct sigaction sa = { .sa_handler = run_on_signal }, old_int, old_term;
	sigset_t set, old, waitmask;
	int ret, sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	waitmask = old;
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	run_signal = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	ret = vm_create(vm);
	if (ret) {
		if (vm->boot == &linux_boot_ops && cfg->kernel.err[0])
			fprintf(stderr, "vsched run: cannot set up the VM: %s\n", cfg->kernel.err);
		else
			fprintf(stderr, "vsched run: cannot set up the VM: %s\n", strerror(-ret));
		if (vm->accel == VM_ACCEL_KVM && access("/dev/kvm", R_OK | W_OK))
			fprintf(stderr, "vsched run: /dev/kvm: %s\n", strerror(errno));
		sr.exit_status = RUN_EXIT_FAILURE;
		goto out;
	}
	rs->no_pin = cfg->no_pin;
	ret = runsched_attach(rs, vm, cfg->monitor);
	if (ret) {
		fprintf(stderr, "vsched run: cannot start the vCPU scheduler: %s\n", strerror(-ret));
		sr.exit_status = RUN_EXIT_FAILURE;
		goto out;
	}
	ret = vm_start(vm);
	if (ret)
		fprintf(stderr, "vsched run: cannot start vCPU threads: %s\n", strerror(-ret));
	else
		ret = run_ctl_start(cfg, vm, rs->vs, &vc);
	sig = ret ? 0 : run_wait(vm, cfg, &waitmask);
	vm_stop(vm, VM_EXIT_STOPPED);
	vm_ctl_stop(&vc);
	vm_join(vm);
	if (runsched_finish(rs) && !ret)
		ret = -EIO;
	runsched_stats(rs, &sr);
	sr.end_ns = mono_ns();
	sr.exit_status = ret ? RUN_EXIT_FAILURE : run_exit_status(vm, sig);
	if (vm->exit_reason == VM_EXIT_STOPPED && sig)
		fprintf(stderr, "vsched run: %s: stopping the VM\n", strsignal(sig));
	if (stats && run_write_stats(cfg, stats, vm, &sr) && !sr.exit_status)
		sr.exit_status = RUN_EXIT_FAILURE;
	stats = NULL;
	stats_print_summary(stdout, vm, &sr);
out:
	runsched_destroy(rs);
	if (stats) {
		/* No VM ran: leave no empty statistics file behind. */
		fclose(stats);
		unlink(cfg->stats);
	}
	vm_destroy(vm);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return sr.exit_status;
}

int cmd_run(int argc, char **argv)
{
	uint64_t start_ns = mono_ns();
	static struct payload_opts popts;
	struct runsched rs;
	FILE *stats = NULL;
	struct run_cfg cfg;
	unsigned int lanes;
	char msg[512];
	struct vm vm;
	int ret;

	ret = run_parse(argc, argv, &cfg);
	if (ret)
		return ret > 0 ? RUN_EXIT_OK : RUN_EXIT_USAGE;
	vm = (struct vm){
		.name = cfg.name, .mem_size = cfg.mem, .nr_vcpus = cfg.vcpus,
		.nr_lanes = cfg.cpus, .verbose = cfg.verbose,
	};
	if (cfg.kernel.kernel) {
		vm.boot = &linux_boot_ops;
		vm.boot_data = &cfg.kernel;
	} else {
		memset(&popts, 0, sizeof(popts));
		if (run_payload_specs(&cfg, &popts))
			return RUN_EXIT_USAGE;
		if (cfg.mem < PAYLOAD_MIN_MEM) {
			fprintf(stderr, "vsched run: --memory must be at least %lluK for payloads\n",
				(unsigned long long)PAYLOAD_MIN_MEM >> 10);
			return RUN_EXIT_USAGE;
		}
		vm.boot = &payload_boot_ops;
		vm.boot_data = &popts;
	}
	ret = run_accel_choose(&(struct run_accel_req){
		.accel = cfg.accel, .domain = cfg.domain, .domain_type = run_launch.def.type,
		.kernel = cfg.kernel.kernel, .specs = cfg.kernel.kernel ? NULL : popts.spec,
		.nr_vcpus = cfg.vcpus }, &vm.accel);
	if (ret)
		return -ret;
	lanes = cfg.cpus ? cfg.cpus : runsched_default_lanes();
	ret = runsched_setup(&rs, cfg.vcpus, lanes, !cfg.no_sched,
			     (const char *const *)cfg.groups, cfg.nr_groups,
			     (const char *const *)cfg.assigns, cfg.nr_assigns, msg, sizeof(msg));
	if (!ret && cfg.trace)
		ret = runsched_trace(&rs, cfg.trace, msg, sizeof(msg));
	if (ret) {
		fprintf(stderr, "vsched run: %s\nTry 'vsched run --help'.\n", msg);
		runsched_destroy(&rs);
		return RUN_EXIT_USAGE;
	}
	if (cfg.domain && run_domain_apply(&cfg, &rs)) {
		runsched_destroy(&rs);
		return RUN_EXIT_USAGE;
	}
	vm.nr_lanes = lanes;
	if (!cfg.kernel.kernel && run_payload_demand(&rs, &popts, cfg.vcpus)) {
		runsched_destroy(&rs);
		return RUN_EXIT_FAILURE;
	}
	if (cfg.demo) {
		unsigned int i;

		printf("vsched demo: %u vCPUs (%s) on %u lanes, %s backend, for 3 s, in groups:\n",
		       RUN_DEMO_VCPUS, run_demo_payload, lanes, accel_name(vm.accel));
		for (i = 0; i < cfg.nr_groups; i++)
			printf("  --group %s\n", cfg.groups[i]);
		for (i = 0; i < cfg.nr_assigns; i++)
			printf("  --assign %s\n", cfg.assigns[i]);
	}
	/* Opened now, so a path that cannot be written is refused before anything runs. */
	if (cfg.stats && !(stats = fopen(cfg.stats, "w"))) {
		fprintf(stderr, "vsched run: --stats %s: %s\n", cfg.stats, strerror(errno));
		runsched_destroy(&rs);
		return RUN_EXIT_USAGE;
	}
	return run_vm(&cfg, &vm, &rs, stats, start_ns);
}
