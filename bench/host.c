// SPDX-License-Identifier: GPL-2.0
/*
 * Host-kernel baseline: each vCPU of a scenario becomes a plain thread pinned to the same P CPUs,
 * placed in a cgroup mirroring the scenario's group tree, doing the same work as the payload
 * guest (spin, or busy/sleep). CPU per group is read from the threads' own CPU clocks.
 *
 * cgroup v1 (this host): /sys/fs/cgroup/cpu, cpu.shares = weight * 1024 / 100,
 * cpu.cfs_quota_us / cpu.cfs_period_us / cpu.cfs_burst_us, and thread placement through "tasks".
 * cgroup v2 (where its cpu controller is enabled): the process goes into a threaded subtree so
 * single threads can be placed with cgroup.threads.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host.h"
#include "util/file.h"
#include "window.h"
#include "work.h"

#define V1_ROOT		"/sys/fs/cgroup/cpu"
#define V2_ROOT		"/sys/fs/cgroup"
#define WARMUP_NS	300000000ULL

struct host_cg {
	bool v2;
	char top[256];		/* our directory */
	char orig[512];		/* v2: the cgroup the process came from */
};

struct host_thread {
	struct host_run *run;
	unsigned int idx;
	pthread_t thread;
	clockid_t clock;
	_Atomic uint64_t work;
	int err;
};

struct host_run {
	const struct scenario *s;
	struct host_cg cg;
	unsigned int lanes;
	struct host_thread th[SCN_MAX_VCPUS];
	atomic_uint nready;
	atomic_bool go;
	atomic_bool stop;
	atomic_bool measuring;
	pthread_mutex_t wake_lock;
	struct bench_result *r;
};

static int write_file(const char *dir, const char *file, const char *val)
{
	char path[768];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return file_write(path, val, strlen(val));
}

/*
 * The root's subtree_control names "cpu" as a word: the kernel lists cpuset first ("cpuset cpu
 * io memory ..."), where a substring search for "cpu" lands on "cpuset" and missed the cpu
 * controller on every systemd host (the kernel side was skipped as if it had none).
 */
static bool v2_has_cpu(void)
{
	char buf[512], *tok, *save = NULL;

	if (file_read(V2_ROOT "/cgroup.subtree_control", buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, "cpu"))
			return true;
	return false;
}

int host_probe(const char **reason)
{
	if (access(V1_ROOT "/cpu.shares", W_OK) == 0)
		return 0;
	if (v2_has_cpu())
		return 0;
	*reason = "no writable cgroup cpu controller (v1 " V1_ROOT " or v2 with +cpu)";
	return -ENOENT;
}

static void group_dir(const struct host_cg *cg, const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", cg->top, path);
}

static int cg_setup(struct host_cg *cg, const struct scenario *s)
{
	unsigned int i, n = scn_nr_groups(s);
	char dir[512], val[64];
	int err;

	cg->v2 = access(V1_ROOT "/cpu.shares", W_OK) != 0;
	snprintf(cg->top, sizeof(cg->top), "%s/vsched-bench.%d", cg->v2 ? V2_ROOT : V1_ROOT,
		 (int)getpid());
	if (mkdir(cg->top, 0755) && errno != EEXIST)
		return -errno;
	if (cg->v2) {
		char buf[512], *p;

		/* The whole process enters the top, which becomes a threaded domain. */
		if ((err = file_read("/proc/self/cgroup", buf, sizeof(buf))))
			return err;
		p = strstr(buf, "0::");
		snprintf(cg->orig, sizeof(cg->orig), "%s%s", V2_ROOT, p ? p + 3 : "/");
		cg->orig[strcspn(cg->orig, "\n")] = '\0';
		snprintf(val, sizeof(val), "%d", (int)getpid());
		if ((err = write_file(cg->top, "cgroup.procs", val)) ||
		    (err = write_file(cg->top, "cgroup.subtree_control", "+cpu")))
			return err;
	}
	for (i = 0; i < n; i++) {
		const struct scn_group *g = &s->groups[i];
		uint64_t period = g->period_us ? g->period_us : 100000;
		unsigned int w = g->weight ? g->weight : 100;

		group_dir(cg, g->path, dir, sizeof(dir));
		if (mkdir(dir, 0755) && errno != EEXIST)
			return -errno;
		if (cg->v2) {
			if ((err = write_file(dir, "cgroup.type", "threaded")) ||
			    (err = write_file(dir, "cgroup.subtree_control", "+cpu")))
				return err;
			snprintf(val, sizeof(val), "%u", w);
			if (!g->idle && (err = write_file(dir, "cpu.weight", val)))
				return err;
			if (g->quota_us)
				snprintf(val, sizeof(val), "%llu %llu", (unsigned long long)g->quota_us,
					 (unsigned long long)period);
			else
				snprintf(val, sizeof(val), "max %llu", (unsigned long long)period);
			if ((err = write_file(dir, "cpu.max", val)))
				return err;
			snprintf(val, sizeof(val), "%llu", (unsigned long long)g->burst_us);
			if (g->burst_us && (err = write_file(dir, "cpu.max.burst", val)))
				return err;
		} else {
			snprintf(val, sizeof(val), "%u", (w * 1024 + 50) / 100);
			if (!g->idle && (err = write_file(dir, "cpu.shares", val)))
				return err;
			snprintf(val, sizeof(val), "%llu", (unsigned long long)period);
			if ((err = write_file(dir, "cpu.cfs_period_us", val)))
				return err;
			snprintf(val, sizeof(val), "%lld", g->quota_us ? (long long)g->quota_us : -1LL);
			if ((err = write_file(dir, "cpu.cfs_quota_us", val)))
				return err;
			snprintf(val, sizeof(val), "%llu", (unsigned long long)g->burst_us);
			if (g->burst_us && (err = write_file(dir, "cpu.cfs_burst_us", val)))
				return err;
		}
		if (g->idle && (err = write_file(dir, "cpu.idle", "1")))
			return err;
	}
	return 0;
}

static void cg_teardown(struct host_cg *cg, const struct scenario *s)
{
	char dir[512], val[32];
	int i;

	if (cg->v2 && cg->orig[0]) {
		snprintf(val, sizeof(val), "%d", (int)getpid());
		write_file(cg->orig, "cgroup.procs", val);
	}
	for (i = (int)scn_nr_groups(s) - 1; i >= 0; i--) {
		group_dir(cg, s->groups[i].path, dir, sizeof(dir));
		rmdir(dir);
	}
	rmdir(cg->top);
}

/* nr_periods and nr_throttled of a group's cpu.stat (same keys in v1 and v2). */
static void cg_throttle_stat(const struct host_cg *cg, const char *path, uint64_t *periods,
			     uint64_t *throttled)
{
	char dir[512], file[600], buf[1024], *p;

	group_dir(cg, path, dir, sizeof(dir));
	snprintf(file, sizeof(file), "%s/cpu.stat", dir);
	*periods = *throttled = 0;
	if (file_read(file, buf, sizeof(buf)))
		return;
	if ((p = strstr(buf, "nr_periods ")))
		*periods = strtoull(p + 11, NULL, 10);
	if ((p = strstr(buf, "nr_throttled ")))
		*throttled = strtoull(p + 13, NULL, 10);
}

static void record_wake(struct host_run *run, uint64_t ns)
{
	struct bench_result *r = run->r;

	if (!atomic_load_explicit(&run->measuring, memory_order_relaxed))
		return;
	pthread_mutex_lock(&run->wake_lock);
	if (r->nr_wake < WAKE_SAMPLES_MAX)
		r->wake_ns[r->nr_wake++] = ns > UINT32_MAX ? UINT32_MAX : (uint32_t)ns;
	pthread_mutex_unlock(&run->wake_lock);
}

static void *host_worker(void *arg)
{
	struct host_thread *t = arg;
	struct host_run *run = t->run;
	const struct scn_vcpu *v = &run->s->vcpus[t->idx];
	char dir[512], tid[32];
	cpu_set_t set;
	unsigned int i;

	CPU_ZERO(&set);
	for (i = 0; i < run->lanes; i++)
		CPU_SET(i, &set);
	t->err = -sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
	prctl(PR_SET_TIMERSLACK, 1UL);
	group_dir(&run->cg, v->group, dir, sizeof(dir));
	snprintf(tid, sizeof(tid), "%d", (int)syscall(SYS_gettid));
	if (!t->err)
		t->err = write_file(dir, run->cg.v2 ? "cgroup.threads" : "tasks", tid);
	atomic_fetch_add(&run->nready, 1);
	while (!atomic_load(&run->go) && !atomic_load(&run->stop))
		sleep_ns(1000000);
	if (t->err)
		return NULL;

	while (!atomic_load_explicit(&run->stop, memory_order_relaxed)) {
		uint64_t busy_ns = (uint64_t)v->busy_us * 1000, c0, w0;
		struct timespec at;

		if (v->kind == WORK_HOG) {
			work_spin();
			atomic_fetch_add_explicit(&t->work, 1, memory_order_relaxed);
			continue;
		}
		/* Busy for busy_us of wall time, as the guest measures it with rdtsc, then sleep. */
		c0 = time_mono_ns();
		do {
			work_spin();
			atomic_fetch_add_explicit(&t->work, 1, memory_order_relaxed);
		} while (time_mono_ns() - c0 < busy_ns &&
			 !atomic_load_explicit(&run->stop, memory_order_relaxed));
		w0 = time_mono_ns() + (uint64_t)v->sleep_us * 1000;
		at = time_ns_to_ts(w0);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR)
			;
		record_wake(run, time_mono_ns() - w0);
	}
	return NULL;
}

static void snapshot(void *arg, uint64_t *cpu, uint64_t *work)
{
	struct host_run *run = arg;
	unsigned int i, n = scn_nr_vcpus(run->s);

	for (i = 0; i < n; i++) {
		cpu[i] = time_now_on(run->th[i].clock);
		work[i] = atomic_load(&run->th[i].work);
	}
}

int host_run(const struct scenario *s, unsigned int lanes, double seconds, struct bench_result *r)
{
	unsigned int i, n = scn_nr_vcpus(s), ng = scn_nr_groups(s);
	uint64_t per0[SCN_MAX_GROUPS], thr0[SCN_MAX_GROUPS];
	struct host_run *run;
	int err, started = 0;

	run = calloc(1, sizeof(*run));
	if (!run)
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	run->s = s;
	run->r = r;
	run->lanes = lanes;
	pthread_mutex_init(&run->wake_lock, NULL);
	err = cg_setup(&run->cg, s);
	if (err)
		goto out;
	for (i = 0; i < n; i++) {
		run->th[i].run = run;
		run->th[i].idx = i;
		if (pthread_create(&run->th[i].thread, NULL, host_worker, &run->th[i])) {
			err = -EAGAIN;
			goto stop;
		}
		pthread_getcpuclockid(run->th[i].thread, &run->th[i].clock);
		started++;
	}
	while (atomic_load(&run->nready) < n)
		sleep_ns(1000000);
	for (i = 0; i < n; i++)
		if (run->th[i].err && !err)
			err = run->th[i].err;
	if (err)
		goto stop;
	atomic_store(&run->go, true);

	sleep_ns(WARMUP_NS);
	atomic_store(&run->measuring, true);
	for (i = 0; i < ng; i++)
		cg_throttle_stat(&run->cg, s->groups[i].path, &per0[i], &thr0[i]);
	window_measure(r, s, seconds, snapshot, run);
	atomic_store(&run->measuring, false);

	r->lanes = lanes;
	for (i = 0; i < ng; i++) {
		uint64_t per, thr;

		cg_throttle_stat(&run->cg, s->groups[i].path, &per, &thr);
		r->nr_periods[i] = per - per0[i];
		r->nr_throttled[i] = thr - thr0[i];
	}
stop:
	atomic_store(&run->stop, true);
	for (i = 0; i < (unsigned int)started; i++)
		pthread_join(run->th[i].thread, NULL);
out:
	cg_teardown(&run->cg, s);
	pthread_mutex_destroy(&run->wake_lock);
	free(run);
	return err;
}
