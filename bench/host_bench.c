// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host: whole VMs sharing the host CPUs (issue 17), vsched's host scheduler beside the
 * kernel in the same run, each VM a process of hog vCPUs:
 *  weights    two VMs of four hog vCPUs, cpu.weight 200:100 (libvirt's cpu.shares
 *             2048:1024), on 2 host CPUs: goal, the split within 0.5 % of capacity of 2:1
 *             and no worse than the kernel;
 *  inside     the same two VMs, a's vCPUs in two groups of weights 300:100 (--group/--assign):
 *             per-vCPU groups keep their accuracy while the VMs share the host;
 *  partition  a partition capped "100000 100000" (1 CPU) holding three VMs of two hog vCPUs,
 *             beside an uncapped VM of two in a partition of half its weight: the cap binds
 *             (the capped side's weight alone would give it 1.33 CPU); goal, quota used within
 *             +-1 % of what was allowed, the uncapped VM takes the rest. The quota is
 *             counted on the partition's VMMs' whole processes (what the cap governs, as a
 *             kernel cgroup's: the daemon charges each VMM's threads other than its vCPUs'
 *             to its VM group, host/host_other.c), and also on their vCPU threads alone;
 *             and as the daemon charged it (the partition's cpu.stat), which also holds the
 *             daemon's own CPU for its VMs (host/host_dcpu.c).
 * Each VM's CPU is its process's CPU clock over one window after a warm-up; errors are in % of
 * capacity (lanes x window): err against the whole capacity, nerr against what the side's VMs
 * got together (the machine is shared; as bench-fair's nerr). The vsched side runs
 * `vsched host` and `vsched run --host` on each backend (KVM where /dev/kvm opens, the thread
 * backend everywhere), or says why it cannot. Each scenario's overhead line shows what the
 * vsched side's scheduling across processes cost: the daemon's CPU and the VMMs' threads
 * other than vCPUs (agents, helpers; on the kernel side, the processes' main threads).
 * Prints numbers; timing never decides pass/fail.
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host_bench.h"
#include "util/file.h"
#include "work.h"

#define HB_SIDES	3	/* kernel, vsched thread, vsched kvm */
#define HB_MAX_VCPUS	8	/* per VM, as measured */

/* The vCPU threads' TIDs, per VM and per group, found by name on first use. */
struct hb_tids {
	int vm[HB_MAX_VMS][HB_MAX_VCPUS];
	int grp[HB_MAX_VMS][HB_MAX_GROUPS][HB_MAX_VCPUS];
};

static const struct hb_scn scns[] = {
	{ "weights", "two VMs of 4 hog vCPUs, cpu.weight 200:100 (cpu.shares 2048:1024)",
	  .parts = { { "machine", 100, 0, 0 } }, .nr_parts = 1,
	  .vms = { { "a", 0, 200, 4, 2.0 / 3 }, { "b", 0, 100, 4, 1.0 / 3 } }, .nr_vms = 2,
	  .capped = -1 },
	{ "inside", "the weights VMs, a's vCPUs 0-1 in a group of weight 300, 2-3 in one of 100",
	  .parts = { { "machine", 100, 0, 0 } }, .nr_parts = 1,
	  .vms = { { "a", 0, 200, 4, 2.0 / 3,
		     { { "fast", 300, 0, 2, 0.5 }, { "slow", 100, 2, 2, 1.0 / 6 } }, 2 },
		   { "b", 0, 100, 4, 1.0 / 3 } }, .nr_vms = 2, .capped = -1 },
	{ "partition", "3 VMs of 2 hogs in /capped (weight 200, cpu.max \"100000 100000\") "
	  "beside 1 VM of 2 hogs in /machine (weight 100)",
	  .parts = { { "capped", 200, 100000, 100000 }, { "machine", 100, 0, 0 } },
	  .nr_parts = 2,
	  .vms = { { "c1", 0, 100, 2, 1.0 / 6 }, { "c2", 0, 100, 2, 1.0 / 6 },
		   { "c3", 0, 100, 2, 1.0 / 6 }, { "free", 1, 100, 2, 1.0 / 2 } },
	  .nr_vms = 4, .capped = 0 },
};

/* The TID of the thread of pid named name, or -ESRCH. */
static int find_thread(pid_t pid, const char *name)
{
	char path[320], comm[32];
	struct dirent *e;
	DIR *d;
	int tid = -ESRCH;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	while (d && (e = readdir(d)) && tid < 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%s/comm", (int)pid, e->d_name);
		if (e->d_name[0] != '.' && !file_read(path, comm, sizeof(comm)) &&
		    !strncmp(comm, name, strlen(name)) && comm[strlen(name)] == '\n')
			tid = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return tid;
}

/* A thread's time on a CPU (schedstat, ns): another process's thread has no clock for us. */
static double thread_cpu_s(pid_t pid, int tid)
{
	char path[96], buf[128];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", (int)pid, tid);
	return file_read(path, buf, sizeof(buf)) ? 0 : strtoull(buf, NULL, 10) / 1e9;
}

/* The CPU now of vCPU threads first..first+n-1 of pid, tids found on first use; < 0: gone. */
static double vcpus_cpu_s(pid_t pid, unsigned int first, unsigned int n, int *tids)
{
	unsigned int k;
	double sum = 0;
	char name[16];

	for (k = 0; k < n && k < HB_MAX_VCPUS; k++) {
		if (!tids[k]) {
			snprintf(name, sizeof(name), "vcpu%u", first + k);
			tids[k] = find_thread(pid, name);
		}
		if (tids[k] < 0)
			return -1;
		sum += thread_cpu_s(pid, tids[k]);
	}
	return sum;
}

/* Every VM's and every group's vCPU threads' CPU now, into v and g. */
static int vcpu_snap(const struct hb_scn *s, const pid_t *pids, struct hb_tids *t,
		     double v[HB_MAX_VMS], double g[HB_MAX_VMS][HB_MAX_GROUPS])
{
	unsigned int i, j;

	for (i = 0; i < s->nr_vms; i++) {
		v[i] = vcpus_cpu_s(pids[i], 0, s->vms[i].vcpus, t->vm[i]);
		if (v[i] < 0)
			return -ESRCH;
		for (j = 0; j < s->vms[i].nr_grps; j++) {
			const struct hb_grp *gr = &s->vms[i].grps[j];

			g[i][j] = vcpus_cpu_s(pids[i], gr->first, gr->n, t->grp[i][j]);
			if (g[i][j] < 0)
				return -ESRCH;
		}
	}
	return 0;
}

/* usage_usec in a cpu.stat, s; -1: none. */
static double stat_usage_s(const char *path)
{
	char buf[1024], *p;

	if (!path[0] || file_read(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "usage_usec ");
	return p ? atof(p + strlen("usage_usec ")) / 1e6 : -1;
}

static uint64_t clock_of(clockid_t clk, bool ok)
{
	return ok ? time_now_on(clk) : 0;
}

int hb_measure(const struct hb_scn *s, const struct hb_opts *o, const pid_t *pids, pid_t daemon,
	       struct hb_result *r)
{
	static struct hb_tids tids;
	double g0[HB_MAX_VMS][HB_MAX_GROUPS], v0[HB_MAX_VMS];
	clockid_t clk[HB_MAX_VMS], dclk = 0;
	uint64_t c0[HB_MAX_VMS], d0, t0, t1;
	double u0;
	bool dok = daemon > 0 && !clock_getcpuclockid(daemon, &dclk);
	unsigned int i, j;

	memset(&tids, 0, sizeof(tids));
	for (i = 0; i < s->nr_vms; i++)
		if (clock_getcpuclockid(pids[i], &clk[i]))
			return -ESRCH;
	sleep_ns((uint64_t)(o->warmup_s * 1e9));
	t0 = time_mono_ns();
	for (i = 0; i < s->nr_vms; i++)
		c0[i] = time_now_on(clk[i]);
	d0 = clock_of(dclk, dok);
	u0 = stat_usage_s(r->capped_stat);
	if (vcpu_snap(s, pids, &tids, v0, g0))
		return -ESRCH;
	sleep_ns((uint64_t)(o->window_s * 1e9));
	for (i = 0; i < s->nr_vms; i++)
		r->cpu_s[i] = (double)(time_now_on(clk[i]) - c0[i]) / 1e9;
	r->daemon_s = (double)(clock_of(dclk, dok) - d0) / 1e9;
	r->capped_s = u0 < 0 ? -1 : stat_usage_s(r->capped_stat) - u0;
	if (vcpu_snap(s, pids, &tids, r->vcpu_s, r->grp_s))
		return -ESRCH;
	t1 = time_mono_ns();
	r->seconds = (double)(t1 - t0) / 1e9;
	for (i = 0; i < s->nr_vms; i++) {
		r->vcpu_s[i] -= v0[i];
		for (j = 0; j < s->vms[i].nr_grps; j++)
			r->grp_s[i][j] -= g0[i][j];
	}
	return 0;
}

struct side {
	const char *name;
	bool ok;
	struct hb_result r;
	char why[256];
};

/* Share of the capacity, in %. */
static double pct(const struct hb_opts *o, const struct side *sd, double cpu_s)
{
	return 100.0 * cpu_s / (sd->r.seconds * o->lanes);
}

/* What a side's VMs got together: the host is shared, so a side may get less than lanes. */
static double given(const struct hb_scn *s, const struct side *sd)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < s->nr_vms; i++)
		sum += sd->r.cpu_s[i];
	return sum;
}

/*
 * One row: a VM or a group inside one, its ideal share and each side's; err: |share of the
 * capacity - ideal|, nerr: the same of what the side's VMs got together (bench-fair's nerr), in
 * % of capacity. The largest of each go into max/nmax.
 */
static void row(const struct hb_scn *s, const struct hb_opts *o, const struct side *sides,
		unsigned int nr, const char *label, double ideal, const double *cpu, double *max,
		double *nmax)
{
	unsigned int k;

	printf("  %-8s %7.2f", label, 100 * ideal);
	for (k = 0; k < nr; k++) {
		double v, err, nerr;

		if (!sides[k].ok)
			continue;
		v = pct(o, &sides[k], cpu[k]);
		err = fabs(v - 100 * ideal);
		nerr = fabs(100 * cpu[k] / given(s, &sides[k]) - 100 * ideal);
		max[k] = fmax(max[k], err);
		nmax[k] = fmax(nmax[k], nerr);
		printf(" | %8.2f %6.2f %6.2f", v, err, nerr);
	}
	printf("\n");
}

/*
 * A group's CPU as its share of its VM's vCPU threads applied to what the VM process got. The
 * process also counts the VMM's other threads (a host-mode VMM's agent wakes for every
 * decision, its helper reports), which are in no group: against the process, the groups
 * looked short by their share of that (nerr 0.4-0.7 % in host mode, where the daemon's own
 * cpu.stat split a's groups within 0.08 %, docs/host.md). The VM rows still show it. The
 * scenarios' groups hold all of their VM's vCPUs.
 */
static double grp_in_vm(const struct hb_scn *s, const struct side *sd, unsigned int i,
			unsigned int j)
{
	double threads = 0;
	unsigned int n;

	for (n = 0; n < s->vms[i].nr_grps; n++)
		threads += sd->r.grp_s[i][n];
	return threads > 0 ? sd->r.cpu_s[i] * sd->r.grp_s[i][j] / threads : 0;
}

/*
 * The capped partition's quota used, in % of what was allowed: by its VMs' whole processes
 * (what the cap governs: the kernel charges a cgroup every thread, the daemon its vCPUs and its
 * VMMs' other threads, agents and helpers), or by its vCPU threads alone.
 */
static void quota_used(const struct hb_scn *s, const struct side *sides, unsigned int nr,
		       bool vcpus)
{
	const struct hb_part *p = &s->parts[s->capped];
	unsigned int i, k;

	printf("  cpu.max of /%s: quota used, %% of what was allowed, %s:", p->name,
	       vcpus ? "vCPU threads" : "VMM processes");
	for (k = 0; k < nr; k++) {
		double used = 0, allowed = sides[k].r.seconds * p->quota_us / p->period_us;

		for (i = 0; sides[k].ok && i < s->nr_vms; i++)
			if (s->vms[i].part == (unsigned int)s->capped)
				used += vcpus ? sides[k].r.vcpu_s[i] : sides[k].r.cpu_s[i];
		if (!sides[k].ok)
			continue;
		printf(" %s %.2f %%", sides[k].name, 100 * used / allowed);
		/* The kernel's goal is on this line; vsched's on the daemon's charge below. */
		if (k == 0 && !vcpus)
			printf(" %s", fabs(100 * used / allowed - 100) <= 1 ? "met" : "MISSED");
	}
	printf("%s\n", vcpus ? "" : "; goal 100 +- 1 % (the kernel: its cgroup's usage)");
}

/*
 * The same as the daemon charged it (the partition's cpu.stat): its vCPUs, its VMMs' other
 * threads and the daemon's own CPU for its VMs (host/host_dcpu.c), which the processes' clocks
 * do not show; as a kernel cgroup's usage counts the scheduling done in its tasks. The goal is
 * on this line for vsched, as cpu.max is on cpu.stat's usage everywhere; the processes' line
 * above reads under it by the daemon's work for them (docs/host.md "Limits").
 */
static void quota_charged(const struct hb_scn *s, const struct side *sides, unsigned int nr)
{
	const struct hb_part *p = &s->parts[s->capped];
	unsigned int k;

	printf("  cpu.max of /%s: quota used, %% of what was allowed, charged by the daemon:",
	       p->name);
	for (k = 0; k < nr; k++) {
		double used;

		if (!sides[k].ok || sides[k].r.capped_s < 0)
			continue;
		used = 100 * sides[k].r.capped_s /
		       (sides[k].r.seconds * p->quota_us / p->period_us);
		printf(" %s %.2f %% %s", sides[k].name, used,
		       fabs(used - 100) <= 1 ? "met" : "MISSED");
	}
	printf("; goal 100 +- 1 %%\n");
}

/*
 * Lag at the window's ends: a VM may be up to a slice ahead or behind wherever the window's ends
 * fall in a rotation (bench/noise.c), HB_LAG_SLICE_S / (window x lanes) of capacity at each end,
 * with no bias at all. A side worse than the kernel by less than that is luck either way;
 * it is printed as such, never as a plain "met".
 */
#define HB_LAG_SLICE_S	0.012	/* the runtime's slice among hogs (docs/host.md) */

/* Each vsched side's nerr against the goal and the kernel's in the same run, in words. */
static void verdict(const struct hb_scn *s, const struct hb_opts *o, const struct side *sides,
		    unsigned int nr, const double *nmax)
{
	double goal = s->capped < 0 ? 0.5 : 1.0;
	double lag = 2 * 100 * HB_LAG_SLICE_S / (o->window_s * o->lanes);
	bool kok = sides[0].ok;
	unsigned int k;

	printf("  verdict:");
	for (k = 1; k < nr; k++) {
		if (!sides[k].ok) {
			printf(" %s not run (%s)", sides[k].name, sides[k].why[0] ? sides[k].why :
			       "skipped");
			continue;
		}
		if (nmax[k] > goal)
			printf(" %s MISSED (nerr %.2f > %.1f %%)", sides[k].name, nmax[k], goal);
		else if (s->capped >= 0 || !kok || nmax[k] <= nmax[0])
			printf(" %s met%s", sides[k].name,
			       s->capped < 0 && !kok ? " (no kernel side to compare)" : "");
		else if (nmax[k] <= nmax[0] + lag)
			printf(" %s met, worse than the kernel by %.2f within the window-end lag "
			       "(%.2f)", sides[k].name, nmax[k] - nmax[0], lag);
		else
			printf(" %s MISSED (worse than the kernel: %.2f > %.2f + lag %.2f %%)",
			       sides[k].name, nmax[k], nmax[0], lag);
	}
	printf("\n");
}

static void report(const struct hb_scn *s, const struct hb_opts *o, const struct side *sides,
		   unsigned int nr)
{
	double max[HB_SIDES] = { 0 }, nmax[HB_SIDES] = { 0 }, cpu[HB_SIDES];
	unsigned int i, j, k;
	char label[32];

	printf("\n%s: %s\n  %-8s %7s", s->name, s->what, "vm", "ideal%");
	for (k = 0; k < nr; k++)
		if (sides[k].ok)
			printf(" | %7s%% %6s %6s", sides[k].name, "err", "nerr");
	printf("\n");
	for (i = 0; i < s->nr_vms; i++) {
		for (k = 0; k < nr; k++)
			cpu[k] = sides[k].r.cpu_s[i];
		row(s, o, sides, nr, s->vms[i].name, s->vms[i].ideal, cpu, max, nmax);
		for (j = 0; j < s->vms[i].nr_grps; j++) {
			for (k = 0; k < nr; k++)
				cpu[k] = grp_in_vm(s, &sides[k], i, j);
			snprintf(label, sizeof(label), "%s/%s", s->vms[i].name,
				 s->vms[i].grps[j].name);
			row(s, o, sides, nr, label, s->vms[i].grps[j].ideal, cpu, max, nmax);
		}
	}
	printf("  max err / nerr (%% of capacity):");
	for (k = 0; k < nr; k++)
		if (sides[k].ok)
			printf(" %s %.2f / %.2f %% (given %.2f %%)", sides[k].name, max[k], nmax[k],
			       pct(o, &sides[k], given(s, &sides[k])));
	printf("; goal <= %s\n", s->capped < 0 ? "0.5 % and <= kernel" : "1 %");
	verdict(s, o, sides, nr, nmax);
	/* What scheduling across processes costs, not hidden in the VMs' rows. */
	printf("  overhead, CPUs: daemon / VMMs' threads other than vCPUs:");
	for (k = 0; k < nr; k++) {
		double other = 0;

		for (i = 0; sides[k].ok && i < s->nr_vms; i++)
			other += sides[k].r.cpu_s[i] - sides[k].r.vcpu_s[i];
		/* Read after the processes' clocks: a thread-less process shows -0.0000 without fmax. */
		if (sides[k].ok)
			printf(" %s %.4f / %.4f", sides[k].name,
			       sides[k].r.daemon_s / sides[k].r.seconds,
			       fmax(other, 0) / sides[k].r.seconds);
	}
	printf("\n");
	if (s->capped < 0)
		return;
	quota_used(s, sides, nr, false);
	quota_used(s, sides, nr, true);
	quota_charged(s, sides, nr);
}

static bool kvm_here(void)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
}

int main(int argc, char **argv)
{
	struct hb_opts o = { .lanes = 2, .warmup_s = 1.0, .window_s = 3.0 };
	const char *vsched = getenv("VSCHED"), *kwhy = NULL;
	struct side sides[HB_SIDES] = { { "kernel" }, { "thread" }, { "kvm" } };
	char vwhy[256] = "";
	bool kernel, vs;
	int failed = 0;
	unsigned int i, k, nr = 2 + kvm_here();
	int c;

	while ((c = getopt(argc, argv, "s:")) != -1) {
		if (c != 's' || (o.window_s = atof(optarg)) <= 0) {
			fprintf(stderr, "usage: bench-host [-s SECONDS] [SCENARIO...]\n");
			return 2;
		}
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("bench-host: skipped (needs 2 host CPUs)\n");
		return 0;
	}
	kernel = !hb_kernel_probe(&kwhy);
	if (!vsched)
		snprintf(vwhy, sizeof(vwhy), "needs $VSCHED");
	vs = vsched && !hb_vsched_probe(vsched, vwhy, sizeof(vwhy));
	printf("bench-host: %u host CPUs, %.1f s warm-up, %.1f s window per side; errors in %% "
	       "of capacity\n", o.lanes, o.warmup_s, o.window_s);
	printf("kernel side: %s\n", kernel ? "the host's cgroup cpu controller, one cgroup per VM "
	       "process" : kwhy);
	if (vs)
		printf("vsched side: vsched host + vsched run --host, backends thread%s\n",
		       nr > 2 ? ", kvm" : " (no /dev/kvm)");
	else
		printf("vsched side: skipped (%s)\n", vwhy);
	for (i = 0; i < sizeof(scns) / sizeof(scns[0]); i++) {
		const struct hb_scn *s = &scns[i];
		int err, a;

		/* Only the scenarios named, if any (bench-host partition: that case alone). */
		for (a = optind; a < argc && strcmp(argv[a], s->name); a++)
			;
		if (optind < argc && a == argc)
			continue;

		for (k = 0; k < nr; k++) {
			memset(&sides[k].r, 0, sizeof(sides[k].r));
			sides[k].ok = false;
			if (k == 0 && kernel) {
				err = hb_kernel_run(s, &o, &sides[k].r);
				if (err)
					printf("%s: kernel side failed: %s\n", s->name,
					       strerror(-err));
			} else if (k > 0 && vs) {
				err = hb_vsched_run(vsched, sides[k].name, s, &o, &sides[k].r,
						    sides[k].why, sizeof(sides[k].why));
				if (err)
					printf("%s: vsched side (%s) failed: %s\n", s->name,
					       sides[k].name, sides[k].why);
			} else {
				continue;
			}
			sides[k].ok = !err;
			failed |= err != 0;
		}
		report(s, &o, sides, nr);
	}
	/* A side that should have run and did not fails make bench (each said why above). */
	return failed;
}
