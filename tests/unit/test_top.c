// SPDX-License-Identifier: GPL-2.0
/* `vsched top`'s arithmetic on fixed snapshots (cmd/top_calc.c) and its vsched.vcpu.stat parser. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd/top.h"
#include "test.h"

#define NEAR(a, b) CU_ASSERT_TRUE(fabs((a) - (b)) < 0.01)

/*
 * A VM: root, /web (weight 300, two vCPUs), /batch (weight 100, cpu.max 0.5 CPU, one vCPU),
 * /idle (weight 1000, no vCPU busy). usage in usec, one second apart.
 */
static struct top_group groups[2][4];
static struct top_vcpu vcpus[2][3];
static struct top_vm vms[2];

static void vm_fill(unsigned int k, uint64_t web, uint64_t batch, uint64_t thr_usec,
		    uint64_t nr_thr)
{
	struct top_vm *vm = &vms[k];
	struct top_group *g = groups[k];
	struct top_vcpu *v = vcpus[k];

	memset(vm, 0, sizeof(*vm));
	memset(g, 0, sizeof(groups[k]));
	memset(v, 0, sizeof(vcpus[k]));
	snprintf(vm->name, sizeof(vm->name), "vm");
	vm->lanes = 2;
	vm->nr_groups = 4;
	vm->groups = g;
	vm->nr_vcpus = 3;
	vm->vcpus = v;
	snprintf(g[0].path, sizeof(g[0].path), "/");
	g[0].parent = -1;
	snprintf(g[1].path, sizeof(g[1].path), "/web");
	snprintf(g[2].path, sizeof(g[2].path), "/batch");
	snprintf(g[3].path, sizeof(g[3].path), "/idle");
	g[1].weight = 300;
	g[2].weight = 100;
	g[3].weight = 1000;
	g[1].quota_us = g[3].quota_us = TOP_QUOTA_MAX;
	g[2].quota_us = 50000;
	g[2].period_us = 100000;
	g[1].depth = g[2].depth = g[3].depth = 1;
	g[1].usage_usec = web;
	g[2].usage_usec = batch;
	g[2].throttled_usec = thr_usec;
	g[2].nr_throttled = nr_thr;
	g[0].usage_usec = web + batch;
	v[0] = (struct top_vcpu){ .id = 0, .group = 1, .usage_usec = web / 2 };
	v[1] = (struct top_vcpu){ .id = 1, .group = 1, .usage_usec = web - web / 2 };
	v[2] = (struct top_vcpu){ .id = 2, .group = 2, .usage_usec = batch };
}

/* Every vCPU of snapshot k in state (as its vcpu.stat's state line says). */
static void vm_state(unsigned int k, const char *state)
{
	unsigned int i;

	for (i = 0; i < vms[k].nr_vcpus; i++)
		snprintf(vms[k].vcpus[i].state, sizeof(vms[k].vcpus[i].state), "%s", state);
}

static void test_top_delta(void)
{
	struct top_gstat g[4];
	struct top_vstat v[3];

	vm_fill(0, 1000000, 500000, 100000, 3);
	vm_fill(1, 2500000, 1000000, 400000, 8);
	top_vm_delta(&vms[0], &vms[1], 1.0, g, v);
	CU_ASSERT_TRUE(g[0].valid && g[1].valid && g[2].valid && g[3].valid);
	NEAR(g[0].cpu_pct, 200.0);
	NEAR(g[1].cpu_pct, 150.0);
	NEAR(g[2].cpu_pct, 50.0);
	NEAR(g[3].cpu_pct, 0.0);
	CU_ASSERT_FALSE(g[3].busy);
	NEAR(g[2].throttled_pct, 30.0);
	CU_ASSERT_EQUAL(g[2].d_throttled, 5);
	NEAR(v[0].cpu_pct, 75.0);
	NEAR(v[2].cpu_pct, 50.0);
	CU_ASSERT_EQUAL(g[0].nr_busy_vcpus, 3);
	CU_ASSERT_EQUAL(g[1].nr_busy_vcpus, 2);
	/* half the interval: twice the rate */
	top_vm_delta(&vms[0], &vms[1], 0.5, g, v);
	NEAR(g[1].cpu_pct, 300.0);
	/* no previous snapshot: nothing valid */
	top_vm_delta(NULL, &vms[1], 1.0, g, v);
	CU_ASSERT_FALSE(g[0].valid || v[0].valid);
}

/*
 * Fluid: 200 % over web (300) and batch (100); batch's cap is 50 %, which its weighted share
 * (50 %) just meets; idle (1000) was not busy and takes nothing.
 */
static void test_top_fluid_weights_caps(void)
{
	struct top_gstat g[4];
	struct top_vstat v[3];

	vm_fill(0, 0, 0, 0, 0);
	vm_fill(1, 1500000, 500000, 0, 0);
	top_vm_delta(&vms[0], &vms[1], 1.0, g, v);
	NEAR(g[0].fluid_pct, 200.0);
	NEAR(g[1].fluid_pct, 150.0);
	NEAR(g[2].fluid_pct, 50.0);
	NEAR(g[3].fluid_pct, 0.0);

	/* batch capped at 20 %: the 30 % it cannot take go to web, bounded by its 2 lanes */
	vms[1].groups[2].quota_us = 20000;
	top_fluid(&vms[1], v, g);
	NEAR(g[2].fluid_pct, 20.0);
	NEAR(g[1].fluid_pct, 180.0);

	/* equal weights: web would get 100 %, batch 100 % but its cap (50 %) binds */
	vms[1].groups[2].quota_us = 50000;
	vms[1].groups[1].weight = 100;
	top_fluid(&vms[1], v, g);
	NEAR(g[2].fluid_pct, 50.0);
	NEAR(g[1].fluid_pct, 150.0);
}

/* A vCPU takes at most one lane, and a lane what the host gave per lane in use. */
static void test_top_fluid_lanes(void)
{
	struct top_gstat g[4];
	struct top_vstat v[3];

	/* web has one busy vCPU at weight 300: its share (3/4 of 100 %) is above one lane's 50 % */
	vm_fill(0, 0, 0, 0, 0);
	vm_fill(1, 500000, 500000, 0, 0);
	vms[1].vcpus[1].usage_usec = 0;
	vms[1].vcpus[0].usage_usec = 500000;
	top_vm_delta(&vms[0], &vms[1], 1.0, g, v);
	CU_ASSERT_EQUAL(g[1].nr_busy_vcpus, 1);
	NEAR(g[0].fluid_pct, 100.0);
	NEAR(g[1].fluid_pct, 50.0);
	NEAR(g[2].fluid_pct, 50.0);
	/* without vsched.lanes a lane is one CPU: the weights alone decide */
	vms[1].lanes = 0;
	top_fluid(&vms[1], v, g);
	NEAR(g[1].fluid_pct, 75.0);
	NEAR(g[2].fluid_pct, 25.0);
	/* a cpu.idle group weighs 3/1024 of a default one, whatever its cpu.weight */
	vms[1].groups[2].idle = true;
	top_fluid(&vms[1], v, g);
	NEAR(g[1].fluid_pct, 100.0 * 300 / (300 + 100.0 * 3 / 1024));
	NEAR(g[2].fluid_pct, 100.0 * (100.0 * 3 / 1024) / (300 + 100.0 * 3 / 1024));
}

/*
 * Demand: a vCPU asks for what it got plus what its waits would have given it, at most a lane.
 * web's two hogs waited 40 % each (lane 70 %: each asks a lane); batch's duty vCPU got 20 % and
 * waited 1 %: it asks 20.7 %, below its weighted 35 %, and web takes the rest.
 */
static void test_top_fluid_demand(void)
{
	struct top_gstat g[4];
	struct top_vstat v[3];
	unsigned int k;

	for (k = 0; k < 2; k++) {
		vm_fill(k, k * 1200000, k * 200000, 0, 0);
		vm_state(k, "running");
		vms[k].vcpus[0].wait_usec = vms[k].vcpus[1].wait_usec = k * 400000;
		vms[k].vcpus[2].wait_usec = k * 10000;
	}
	top_vm_delta(&vms[0], &vms[1], 1.0, g, v);
	NEAR(g[0].cpu_pct, 140.0);
	NEAR(v[0].steal_pct, 40.0);
	NEAR(v[0].demand_pct, 70.0);
	NEAR(v[2].demand_pct, 20.7);
	NEAR(g[1].demand_pct, 140.0);
	NEAR(g[2].fluid_pct, 20.7);
	NEAR(g[1].fluid_pct, 119.3);
}

/*
 * A starved group: /batch's vCPU waited 95 % of the interval and ran 0.5 %. Counted by its CPU
 * alone it was idle and /batch's fluid share 0 (web took all 200.5): the starvation top is for
 * did not show. Runnable, it asks for a lane and gets its cap (branch seecheck).
 */
static void test_top_fluid_starved(void)
{
	struct top_gstat g[4];
	struct top_vstat v[3];
	unsigned int k;

	for (k = 0; k < 2; k++) {
		vm_fill(k, k * 2000000, k * 5000, 0, 0);
		vm_state(k, "waiting");
		vms[k].vcpus[2].wait_usec = k * 950000;
	}
	top_vm_delta(&vms[0], &vms[1], 1.0, g, v);
	NEAR(g[0].cpu_pct, 200.5);
	NEAR(v[2].cpu_pct, 0.5);
	NEAR(v[2].demand_pct, 95.5);
	CU_ASSERT_EQUAL(g[0].nr_busy_vcpus, 3);
	NEAR(g[2].fluid_pct, 50.0);
	NEAR(g[1].fluid_pct, 150.5);
	NEAR(g[3].fluid_pct, 0.0);
}

static void test_top_waits(void)
{
	uint64_t a[SCHED_WAIT_BUCKETS] = { 0 }, b[SCHED_WAIT_BUCKETS] = { 0 };

	CU_ASSERT_EQUAL(top_hist_quantile(a, b, 0.99), 0);
	/* 99 short waits and one long one since the last snapshot: p99 is the long one */
	a[10] = 500;
	b[10] = 599;
	b[60] = 1;
	CU_ASSERT_EQUAL(top_hist_quantile(a, b, 0.99), sched_wait_bucket_ceil_ns(60));
	CU_ASSERT_EQUAL(top_hist_quantile(a, b, 0.5), sched_wait_bucket_ceil_ns(10));
	/* the 500 older waits do not count */
	b[60] = 0;
	CU_ASSERT_EQUAL(top_hist_quantile(a, b, 0.99), sched_wait_bucket_ceil_ns(10));
}

static void test_top_parse(void)
{
	struct top_vcpu v = { .group = 7 };

	CU_ASSERT_EQUAL(top_parse_vcpu_line("3 tid=41 usage_usec=1200 user_usec=1000 "
					    "system_usec=200 state=waiting lane=-1 wait_usec=77 "
					    "nr_waits=5 wait_hist=0:2,47:3\n", &v), 0);
	CU_ASSERT_EQUAL(v.id, 3);
	CU_ASSERT_EQUAL(v.group, 7);
	CU_ASSERT_EQUAL(v.tid, 41);
	CU_ASSERT_EQUAL(v.usage_usec, 1200);
	CU_ASSERT_STRING_EQUAL(v.state, "waiting");
	CU_ASSERT_EQUAL(v.lane, -1);
	CU_ASSERT_EQUAL(v.wait_usec, 77);
	CU_ASSERT_EQUAL(v.nr_waits, 5);
	CU_ASSERT_EQUAL(v.hist[0], 2);
	CU_ASSERT_EQUAL(v.hist[47], 3);
	CU_ASSERT_EQUAL(top_parse_vcpu_line("0 tid=1 usage_usec=0 wait_hist=-", &v), 0);
	CU_ASSERT_EQUAL(v.hist[0], 0);
	/* an older VMM's line (no scheduler fields) still gives the usage */
	CU_ASSERT_EQUAL(top_parse_vcpu_line("1 tid=9 usage_usec=5 user_usec=5 system_usec=0", &v),
			0);
	CU_ASSERT_EQUAL(v.usage_usec, 5);
	CU_ASSERT_EQUAL(v.lane, -1);
	CU_ASSERT_EQUAL(top_parse_vcpu_line("x tid=1", &v), -EINVAL);
	CU_ASSERT_EQUAL(top_parse_vcpu_line("1 tid", &v), -EINVAL);
	CU_ASSERT_EQUAL(top_parse_vcpu_line("1 wait_hist=999:1", &v), -EINVAL);
}

/*
 * A group name may hold any byte but '/' and a newline: the label shows a control byte, a space
 * and a backslash as \xNN, so an escape sequence in a (delegated) group's name does not reach
 * the terminal of whoever runs `vsched top -b`, and the label stays one word for awk.
 */
static void test_top_label_escape(void)
{
	struct top_snap snap = { .nr_vms = 1, .vms = &vms[0] };
	struct top_prefs prefs = { .sort = TOP_SORT_NAME };
	struct top_view view;
	struct top_row *rows;
	unsigned int n, i;
	bool seen = false;

	vm_fill(0, 1000000, 500000, 0, 0);
	snprintf(groups[0][3].path, sizeof(groups[0][3].path), "/\033]0;x\a a\\b");
	CU_ASSERT_EQUAL_FATAL(top_view_build(&view, NULL, &snap), 0);
	CU_ASSERT_EQUAL_FATAL(top_rows(&view, &prefs, &rows, &n), 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT_PTR_NULL(strpbrk(rows[i].text, "\033\a"));
		if (strstr(rows[i].text, "/\\x1b]0;x\\x07\\x20a\\x5cb "))
			seen = true;
	}
	CU_ASSERT_TRUE(seen);
	free(rows);
	top_view_free(&view);
}

/*
 * WAIT99 fits its 7 columns: a p99 of 2.1 s showed as "2097.2ms" and pushed STEAL% out of a
 * 120-column line; the last bucket (waits over 11.9 s) has no upper edge to show.
 */
static void test_top_wait_width(void)
{
	struct top_snap a = { .t_ns = 1000000000, .nr_vms = 1, .vms = &vms[0] };
	struct top_snap b = { .t_ns = 2000000000, .nr_vms = 1, .vms = &vms[1] };
	struct top_prefs prefs = { .sort = TOP_SORT_NAME, .vcpus = true };
	size_t width = strlen(top_rows_header());
	struct top_view view;
	struct top_row *rows;
	unsigned int n, i, seen = 0;

	vm_fill(0, 1000000, 500000, 0, 0);
	vm_fill(1, 2000000, 1000000, 0, 0);
	vcpus[1][0].hist[84] = 1;			/* 2^(84/4) us: 2.1 s */
	vcpus[1][2].hist[SCHED_WAIT_BUCKETS - 1] = 1;	/* over 11.9 s */
	CU_ASSERT_EQUAL_FATAL(top_view_build(&view, &a, &b), 0);
	CU_ASSERT_EQUAL_FATAL(top_rows(&view, &prefs, &rows, &n), 0);
	for (i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(strlen(rows[i].text), width);
		seen += strstr(rows[i].text, " 2.10s ") != NULL;
		seen += strstr(rows[i].text, " >11.9s ") != NULL;
	}
	CU_ASSERT_EQUAL(seen, 2);
	free(rows);
	top_view_free(&view);
}

/*
 * A VM's rates are over the time between its own reads: its counters are read a varying time
 * after the snapshot starts (other VMs first, a loaded host), and over the snapshots' interval a
 * vCPU waiting all along showed STEAL% 107.8. Here the snapshots are 1 s apart, the VM's reads
 * 1.1 s: the batch vCPU waited all 1.1 s, /web ran 1.5 CPUs.
 */
static void test_top_vm_interval(void)
{
	struct top_snap a = { .t_ns = 1000000000, .nr_vms = 1, .vms = &vms[0] };
	struct top_snap b = { .t_ns = 2000000000, .nr_vms = 1, .vms = &vms[1] };
	struct top_view view;

	vm_fill(0, 1000000, 0, 0, 0);
	vm_fill(1, 1000000 + 1650000, 0, 0, 0);
	vms[0].t_ns = 1000000000;
	vms[1].t_ns = 2100000000;
	vcpus[1][2].wait_usec = 1100000;
	CU_ASSERT_EQUAL_FATAL(top_view_build(&view, &a, &b), 0);
	NEAR(view.seconds, 1.0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(view.vms[0].v);
	NEAR(view.vms[0].v[2].steal_pct, 100.0);
	NEAR(view.vms[0].g[1].cpu_pct, 150.0);
	top_view_free(&view);
	/* Counters without a read time (0) take the snapshots' interval. */
	vms[0].t_ns = vms[1].t_ns = 0;
	CU_ASSERT_EQUAL_FATAL(top_view_build(&view, &a, &b), 0);
	NEAR(view.vms[0].v[2].steal_pct, 110.0);
	top_view_free(&view);
}

/*
 * Each vCPU over the time between its own lines' reads: with 55 groups the vsched.vcpu.stat pass
 * took 0.5-2 s under load, and over the VM's reads (halfway through all files) a vCPU waiting
 * all along showed STEAL% up to 113 (branch seecheck).
 */
static void test_top_vcpu_interval(void)
{
	struct top_gstat g[4];
	struct top_vstat v[3];

	vm_fill(0, 1000000, 0, 0, 0);
	vm_fill(1, 1000000 + 800000, 0, 0, 0);
	/* vCPU 2 read 0.3 s after the VM's midpoint the first time, 0.2 s the second: 0.9 s apart */
	vcpus[0][2].t_ns = 1300000000;
	vcpus[1][2].t_ns = 2200000000;
	vcpus[1][2].wait_usec = 900000;
	top_vm_delta(&vms[0], &vms[1], 0.8, g, v);
	CU_ASSERT_TRUE_FATAL(v[2].valid);
	NEAR(v[2].steal_pct, 100.0);
	NEAR(g[1].cpu_pct, 100.0);
	/* vCPU 0 without read times: the VM's interval */
	NEAR(v[0].cpu_pct, 50.0);
}

/* A group of a fake host scheduler's directory: cpu.stat, cpu.weight, cpu.max, vcpu.stat. */
static void host_group(const char *dir, const char *usage, const char *weight, const char *max,
		       const char *vstat)
{
	static const char *const names[] = { "cpu.stat", "cpu.weight", "cpu.max",
					     "vsched.vcpu.stat" };
	const char *vals[] = { usage, weight, max, vstat };
	char path[PATH_MAX];
	unsigned int i;
	FILE *f;

	mkdir(dir, 0755);
	for (i = 0; i < 4; i++) {
		if (!vals[i])
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "w");
		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fputs(vals[i], f);
		fclose(f);
	}
}

/*
 * The host scheduler's tree (<run dir>/host) is a section of its own, first, read as a VM's
 * directory is: partitions, VM groups and the VMs' subtrees with their weights and caps; its
 * root's free slots (tid 0) are no vCPU rows, and a vCPU row there is a slot. Not with --vm, and
 * no VM counted for it. Before, top read the registry of VMs alone: no partition, no VM group.
 */
static void test_top_host_tree(void)
{
	char run[] = "/tmp/vsched-top-host.XXXXXX", host[256], dir[PATH_MAX], title[512];
	struct top_prefs prefs = { .sort = TOP_SORT_NAME, .vcpus = true };
	struct top_opts o = { .interval = 1.0 };
	struct top_snap s;
	struct top_view view;
	struct top_row *rows;
	unsigned int n;
	const struct top_vm *vm;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(run));
	setenv("VSCHED_RUN_DIR", run, 1);
	snprintf(host, sizeof(host), "%s/host", run);
	/* A bare directory (a daemon gone): no host scheduler's tree. */
	mkdir(host, 0755);
	CU_ASSERT_PTR_NULL(top_host_dir(dir, sizeof(dir)));
	host_group(host, "usage_usec 3000\n", NULL, NULL,
		   "0 tid=0 usage_usec=0 state=idle lane=-1\n"
		   "1 tid=0 usage_usec=0 state=idle lane=-1\n");
	snprintf(dir, sizeof(dir), "%s/tenant", host);
	host_group(dir, "usage_usec 3000\nnr_throttled 2\n", "300", "50000 100000\n", "");
	snprintf(dir, sizeof(dir), "%s/tenant/web1", host);
	host_group(dir, "usage_usec 3000\n", "100", "max 100000\n",
		   "2 tid=77 usage_usec=1000 state=running lane=0\n");
	snprintf(dir, sizeof(dir), "%s/tenant/web1/fe", host);
	host_group(dir, "usage_usec 2000\n", "200", "max 100000\n",
		   "3 tid=78 usage_usec=2000 state=waiting lane=-1\n");

	CU_ASSERT_EQUAL_FATAL(top_snap_take(&s, NULL, host), 0);
	CU_ASSERT_TRUE(s.host);
	CU_ASSERT_EQUAL_FATAL(s.nr_vms, 1);
	vm = &s.vms[0];
	CU_ASSERT_TRUE(vm->host);
	CU_ASSERT_EQUAL(vm->err, 0);
	CU_ASSERT_STRING_EQUAL(vm->name, TOP_HOST_NAME);
	CU_ASSERT_EQUAL_FATAL(vm->nr_groups, 4);
	CU_ASSERT_STRING_EQUAL(vm->groups[3].path, "/tenant/web1/fe");
	CU_ASSERT_EQUAL(vm->groups[1].weight, 300);
	CU_ASSERT_EQUAL(vm->groups[1].quota_us, 50000);
	CU_ASSERT_EQUAL(vm->groups[1].nr_throttled, 2);
	CU_ASSERT_EQUAL(vm->nr_vcpus, 2);	/* the two free slots left out */

	CU_ASSERT_EQUAL_FATAL(top_view_build(&view, NULL, &s), 0);
	CU_ASSERT_EQUAL(top_view_vms(&view), 0);
	top_title(title, sizeof(title), &view, &o);
	CU_ASSERT_PTR_NOT_NULL(strstr(title, "VMs 0  host scheduler"));
	CU_ASSERT_EQUAL_FATAL(top_rows(&view, &prefs, &rows, &n), 0);
	CU_ASSERT_EQUAL_FATAL(n, 6);
	CU_ASSERT_EQUAL(strncmp(rows[0].text, "-host:/ ", 8), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[1].text, "  -/tenant "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[1].text, " 300  50000/100000 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[2].text, "    -/tenant/web1 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[3].text, "slot2 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[3].text, " running "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[4].text, "/tenant/web1/fe "));
	CU_ASSERT_PTR_NOT_NULL(strstr(rows[5].text, "slot3 "));
	free(rows);
	top_view_free(&view);
	top_snap_free(&s);

	/* --vm: that VM alone (none runs here), no host section. */
	CU_ASSERT_EQUAL_FATAL(top_snap_take(&s, "web1", host), 0);
	CU_ASSERT_FALSE(s.host);
	CU_ASSERT_EQUAL(s.nr_vms, 0);
	top_snap_free(&s);
	unsetenv("VSCHED_RUN_DIR");
	snprintf(dir, sizeof(dir), "rm -rf '%s'", run);
	CU_ASSERT_EQUAL(system(dir), 0);
}

static CU_TestInfo top_tests[] = {
	{ "deltas and percentages", test_top_delta },
	{ "fluid share: weights of busy groups, caps", test_top_fluid_weights_caps },
	{ "fluid share: one lane per vCPU", test_top_fluid_lanes },
	{ "fluid share: demand from waits", test_top_fluid_demand },
	{ "fluid share: a starved group asks for its share", test_top_fluid_starved },
	{ "wait p99 of an interval", test_top_waits },
	{ "a VM's rates over its own reads' interval", test_top_vm_interval },
	{ "a vCPU's rates over its own lines' reads", test_top_vcpu_interval },
	{ "vsched.vcpu.stat lines", test_top_parse },
	{ "labels escape control bytes, spaces and backslashes", test_top_label_escape },
	{ "WAIT99 of seconds fits its column", test_top_wait_width },
	{ "the host scheduler's tree, first", test_top_host_tree },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("cmd/top", top_tests)
