// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host, kernel side: each VM a process of hog threads pinned to the lanes' CPUs, in a
 * cgroup PARTITION/VM of the host's cpu controller (below the bench's own group, kernel_parent()),
 * as bench/host.c sets groups up: cgroup v1
 * "cpu" where mounted (cpu.shares = weight * 1024 / 100: libvirt's <shares> 2048:1024 for
 * weights 200:100, cpu.cfs_quota_us/cpu.cfs_period_us), else cgroup v2 (cpu.weight, cpu.max).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_bench.h"
#include "util/compiler.h"
#include "util/file.h"
#include "work.h"

#define V1_ROOT		"/sys/fs/cgroup/cpu"
#define V2_ROOT		"/sys/fs/cgroup"

static int __printf(3, 4) put(const char *dir, const char *file, const char *fmt, ...)
{
	char path[512], val[64];
	va_list ap;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	return file_write(path, val, strlen(val));
}

static bool v1(void)
{
	return access(V1_ROOT "/cpu.shares", W_OK) == 0;
}

int hb_kernel_probe(const char **reason)
{
	char buf[512], *tok, *save = NULL;

	if (v1())
		return 0;
	if (!file_read(V2_ROOT "/cgroup.subtree_control", buf, sizeof(buf)))
		for (tok = strtok_r(buf, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save))
			if (!strcmp(tok, "cpu"))
				return 0;
	*reason = "no writable cgroup cpu controller (v1 " V1_ROOT " or v2 with +cpu)";
	return -ENOENT;
}

/* A group's weight and cap in the files of the hierarchy's version; inner: it has children. */
static int cg_set(const char *dir, bool inner, unsigned int weight, uint64_t quota,
		  uint64_t period)
{
	unsigned long long q = quota, per = period ? period : 100000;
	int err = 0;

	if (v1()) {
		err = put(dir, "cpu.shares", "%llu", (weight * 1024ULL + 50) / 100);
		if (!err)
			err = put(dir, "cpu.cfs_period_us", "%llu", per);
		if (!err)
			err = quota ? put(dir, "cpu.cfs_quota_us", "%llu", q) :
				      put(dir, "cpu.cfs_quota_us", "-1");
		return err;
	}
	if (inner)
		err = put(dir, "cgroup.subtree_control", "+cpu");
	if (!err)
		err = put(dir, "cpu.weight", "%u", weight);
	if (!err)
		err = quota ? put(dir, "cpu.max", "%llu %llu", q, per) :
			      put(dir, "cpu.max", "max %llu", per);
	return err;
}

/* The vCPU's group directory inside its VM, or NULL (the VM's own). */
struct hk_vcpu {
	unsigned int id;
	char dir[600];
};

/* A vCPU: named as vsched names it, in its group, spinning. */
static void *hog(void *arg)
{
	struct hk_vcpu *c = arg;
	char name[16];
	int err;

	snprintf(name, sizeof(name), "vcpu%u", c->id);
	prctl(PR_SET_NAME, name);
	/* A thread left in its VM's group would skew the groups' split without a word: the VM
	   ends, and the parent's measure fails ("kernel side failed"). */
	if (c->dir[0] && (err = put(c->dir, v1() ? "tasks" : "cgroup.threads", "%d",
				    (int)syscall(SYS_gettid)))) {
		fprintf(stderr, "bench-host: kernel side: %s into %s: %s\n", name, c->dir,
			strerror(-err));
		_exit(1);
	}
	for (;;)
		work_spin();
	return NULL;
}

/* A VM: its vCPUs as hog threads on CPUs 0..lanes-1, started when the parent has placed it. */
static pid_t vm_start(const struct hb_vm *v, const char *vmdir, unsigned int lanes, int *go)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		static struct hk_vcpu c[64];
		unsigned int i, j;
		cpu_set_t set;
		pthread_t t;
		char ch;

		close(fds[1]);
		CPU_ZERO(&set);
		for (i = 0; i < lanes; i++)
			CPU_SET(i, &set);
		if (sched_setaffinity(0, sizeof(set), &set) || read(fds[0], &ch, 1) != 1)
			_exit(1);
		for (i = 0; i < v->vcpus && i < 64; i++) {
			c[i].id = i;
			for (j = 0; j < v->nr_grps; j++)
				if (i >= v->grps[j].first && i < v->grps[j].first + v->grps[j].n)
					snprintf(c[i].dir, sizeof(c[i].dir), "%s/%s", vmdir,
						 v->grps[j].name);
			if (i)
				pthread_create(&t, NULL, hog, &c[i]);
		}
		hog(&c[0]);
	}
	close(fds[0]);
	*go = fds[1];
	return pid;
}

/* The groups inside a VM (v2: threaded, so that single threads can be placed). */
static int vm_groups(const struct hb_vm *v, const char *vmdir)
{
	char dir[600];
	unsigned int j;
	int err = 0;

	for (j = 0; j < v->nr_grps && !err; j++) {
		snprintf(dir, sizeof(dir), "%s/%s", vmdir, v->grps[j].name);
		if (mkdir(dir, 0755))
			return -errno;
		if (!v1())
			err = put(dir, "cgroup.type", "threaded");
		if (!err)
			err = cg_set(dir, false, v->grps[j].weight, 0, 0);
	}
	return err;
}

static void vm_groups_remove(const struct hb_vm *v, const char *vmdir)
{
	char dir[600];
	unsigned int j;

	for (j = 0; j < v->nr_grps; j++) {
		snprintf(dir, sizeof(dir), "%s/%s", vmdir, v->grps[j].name);
		rmdir(dir);
	}
}

/*
 * Where the side's groups go: below the bench's own cgroup v1 "cpu" group, so that the kernel
 * side competes with the rest of the machine as the vsched side (the bench's children) does;
 * the root on cgroup v2, where a group holding the bench cannot have controlled children.
 */
static void kernel_parent(char *buf, size_t len)
{
	char cg[4096], *line, *save = NULL;

	snprintf(buf, len, "%s", v1() ? V1_ROOT : V2_ROOT);
	if (!v1() || file_read("/proc/self/cgroup", cg, sizeof(cg)))
		return;
	for (line = strtok_r(cg, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *ctl = strchr(line, ':'), *path = ctl ? strchr(ctl + 1, ':') : NULL;

		if (!path)
			continue;
		*path++ = '\0';
		if (!strcmp(ctl + 1, "cpu") || !strncmp(ctl + 1, "cpu,", 4)) {
			if (strcmp(path, "/"))
				snprintf(buf, len, "%s%s", V1_ROOT, path);
			return;
		}
	}
}

int hb_kernel_run(const struct hb_scn *s, const struct hb_opts *o, struct hb_result *r)
{
	char parent[128];
	char top[256], dir[512];
	pid_t pids[HB_MAX_VMS] = { 0 };
	int go[HB_MAX_VMS], err = 0;
	unsigned int i;

	kernel_parent(parent, sizeof(parent));
	snprintf(top, sizeof(top), "%s/vsched-bench-host.%d", parent, (int)getpid());
	if (mkdir(top, 0755))
		return -errno;
	if (!v1())
		err = put(top, "cgroup.subtree_control", "+cpu");
	for (i = 0; i < s->nr_parts && !err; i++) {
		const struct hb_part *p = &s->parts[i];

		snprintf(dir, sizeof(dir), "%s/%s", top, p->name);
		err = mkdir(dir, 0755) ? -errno :
					 cg_set(dir, true, p->weight, p->quota_us, p->period_us);
	}
	for (i = 0; i < s->nr_vms && !err; i++) {
		const struct hb_vm *v = &s->vms[i];

		snprintf(dir, sizeof(dir), "%s/%s/%s", top, s->parts[v->part].name, v->name);
		err = mkdir(dir, 0755) ? -errno : cg_set(dir, v->nr_grps, v->weight, 0, 0);
		if (!err)
			err = vm_groups(v, dir);
		if (err)
			break;
		pids[i] = vm_start(v, dir, o->lanes, &go[i]);
		if (pids[i] < 0) {
			err = -errno;
			pids[i] = 0;
			break;
		}
		err = put(dir, "cgroup.procs", "%d", (int)pids[i]);
		if (!err && write(go[i], "g", 1) != 1)
			err = -EPIPE;
		close(go[i]);
	}
	if (!err)
		err = hb_measure(s, o, pids, 0, r);
	for (i = 0; i < s->nr_vms; i++)
		if (pids[i] > 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], NULL, 0);
		}
	/* The processes are gone: the groups are empty and can go, leaves first. */
	for (i = 0; i < s->nr_vms; i++) {
		snprintf(dir, sizeof(dir), "%s/%s/%s", top, s->parts[s->vms[i].part].name,
			 s->vms[i].name);
		vm_groups_remove(&s->vms[i], dir);
		rmdir(dir);
	}
	for (i = 0; i < s->nr_parts; i++) {
		snprintf(dir, sizeof(dir), "%s/%s", top, s->parts[i].name);
		rmdir(dir);
	}
	rmdir(top);
	return err;
}
