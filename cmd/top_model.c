// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots for `vsched top`: the registry of running VMs (registry_list()) and, for each,
 * the group tree in its control directory, read with the files any user reads (no private
 * channel): cpu.stat, cpu.weight, cpu.max, cpu.max.burst and vsched.vcpu.stat per group. With
 * a host scheduler running, its directory (<run dir>/host) is read the same way, first: the
 * partitions, the VM groups and the VMs' subtrees below them, as one tree.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd/top.h"
#include "util/file.h"
#include "util/registry.h"
#include "util/time.h"

#define SMALL_FILE	4096
#define VCPU_STAT_MAX	(256 * 1024)	/* 128 vCPUs with full wait histograms */

static int read_file_at(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	return file_read(path, buf, size);
}

/* cpu.stat: "key value" lines; unknown keys are skipped (the kernel adds some now and then). */
static void parse_cpu_stat(const char *buf, struct top_group *g)
{
	static const struct {
		const char *key;
		size_t off;
	} keys[] = {
		{ "usage_usec", offsetof(struct top_group, usage_usec) },
		{ "nr_periods", offsetof(struct top_group, nr_periods) },
		{ "nr_throttled", offsetof(struct top_group, nr_throttled) },
		{ "throttled_usec", offsetof(struct top_group, throttled_usec) },
		{ "nr_bursts", offsetof(struct top_group, nr_bursts) },
		{ "burst_usec", offsetof(struct top_group, burst_usec) },
	};
	const char *p = buf;
	char key[32];
	uint64_t val;
	size_t i;

	while (*p) {
		if (sscanf(p, "%31s %" SCNu64, key, &val) == 2)
			for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
				if (!strcmp(key, keys[i].key))
					*(uint64_t *)((char *)g + keys[i].off) = val;
		p += strcspn(p, "\n");
		p += *p == '\n';
	}
}

/* "max 100000" or "QUOTA PERIOD"; a group without the file (no +cpu above) has no limit. */
static void parse_cpu_max(const char *buf, struct top_group *g)
{
	char q[32];

	g->quota_us = TOP_QUOTA_MAX;
	g->period_us = 100000;
	if (sscanf(buf, "%31s %" SCNu64, q, &g->period_us) == 2 && strcmp(q, "max"))
		g->quota_us = strtoull(q, NULL, 10);
}

/* "wait_hist=3:1,12:40" or "wait_hist=-" */
static int parse_hist(const char *p, uint64_t *hist)
{
	unsigned int b;
	uint64_t n;
	int used;

	if (*p == '-')
		return 0;
	while (sscanf(p, "%u:%" SCNu64 "%n", &b, &n, &used) == 2) {
		if (b >= SCHED_WAIT_BUCKETS)
			return -EINVAL;
		hist[b] = n;
		p += used;
		if (*p != ',')
			break;
		p++;
	}
	return 0;
}

int top_parse_vcpu_line(const char *line, struct top_vcpu *v)
{
	unsigned int group = v->group;
	const char *p;
	int used;

	memset(v, 0, sizeof(*v));
	v->group = group;
	v->lane = -1;
	if (sscanf(line, "%u%n", &v->id, &used) != 1)
		return -EINVAL;
	for (p = line + used; *p && *p != '\n';) {
		char key[32];
		const char *val;
		size_t klen;

		p += strspn(p, " ");
		klen = strcspn(p, "=\n ");
		if (p[klen] != '=' || klen >= sizeof(key))
			return -EINVAL;
		memcpy(key, p, klen);
		key[klen] = '\0';
		val = p + klen + 1;
		if (!strcmp(key, "tid"))
			v->tid = atoi(val);
		else if (!strcmp(key, "usage_usec"))
			v->usage_usec = strtoull(val, NULL, 10);
		else if (!strcmp(key, "state"))
			sscanf(val, "%11[a-z]", v->state);
		else if (!strcmp(key, "lane"))
			v->lane = atoi(val);
		else if (!strcmp(key, "wait_usec"))
			v->wait_usec = strtoull(val, NULL, 10);
		else if (!strcmp(key, "nr_waits"))
			v->nr_waits = strtoull(val, NULL, 10);
		else if (!strcmp(key, "wait_hist") && parse_hist(val, v->hist))
			return -EINVAL;
		p = val + strcspn(val, " \n");
	}
	return 0;
}

static int add_vcpus(struct top_vm *vm, const char *buf, unsigned int group, uint64_t t_ns)
{
	const char *p;

	for (p = buf; *p; p += strcspn(p, "\n"), p += *p == '\n') {
		struct top_vcpu *nv = realloc(vm->vcpus, (vm->nr_vcpus + 1) * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		vm->vcpus = nv;
		nv[vm->nr_vcpus].group = group;
		/* The daemon's root lists its free slots too (tid 0): no vCPU of any VM. */
		if (!top_parse_vcpu_line(p, &nv[vm->nr_vcpus]) &&
		    (!vm->host || nv[vm->nr_vcpus].tid)) {
			nv[vm->nr_vcpus].t_ns = t_ns;
			vm->nr_vcpus++;
		}
	}
	return 0;
}

/* The control directory's FUSE server may leave d_type unknown: ask stat() then. */
static bool is_dir(const struct dirent *de, const char *path)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* Reads the group at dir (path below the root) and, depth first, its children by name. */
static int read_group(struct top_vm *vm, const char *dir, const char *path, int parent,
		      unsigned int depth)
{
	char buf[SMALL_FILE], sub[PATH_MAX], subpath[PATH_MAX];
	struct top_group *g, *ng;
	struct dirent **des;
	unsigned int me = vm->nr_groups;
	int i, n, ret;

	ng = realloc(vm->groups, (vm->nr_groups + 1) * sizeof(*ng));
	if (!ng)
		return -ENOMEM;
	vm->groups = ng;
	g = &ng[vm->nr_groups++];
	memset(g, 0, sizeof(*g));
	snprintf(g->path, sizeof(g->path), "%s", path);
	g->parent = parent;
	g->depth = depth;
	/* cpu.stat is read for the whole tree at once, after it (read_usage()). */
	if (!read_file_at(dir, "cpu.weight", buf, sizeof(buf)))
		g->weight = (unsigned int)strtoul(buf, NULL, 10);
	if (!read_file_at(dir, "cpu.idle", buf, sizeof(buf)))
		g->idle = buf[0] == '1';
	parse_cpu_max(read_file_at(dir, "cpu.max", buf, sizeof(buf)) ? "" : buf, g);
	if (!read_file_at(dir, "cpu.max.burst", buf, sizeof(buf)))
		g->burst_us = strtoull(buf, NULL, 10);
	/* cpu.stat and vsched.vcpu.stat are read for the whole tree at once (read_usage()). */

	n = scandir(dir, &des, NULL, alphasort);
	if (n < 0)
		return -errno;
	ret = 0;
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof(sub), "%s/%s", dir, des[i]->d_name);
		if (!ret && des[i]->d_name[0] != '.' && is_dir(des[i], sub)) {
			snprintf(subpath, sizeof(subpath), "%s/%s", depth ? path : "",
				 des[i]->d_name);
			ret = read_group(vm, sub, subpath, (int)me, depth + 1);
			/* A group removed while we read is no error: it is just gone. */
			if (ret == -ENOENT || ret == -ENODEV)
				ret = 0;
		}
		free(des[i]);
	}
	free(des);
	return ret;
}

/*
 * Every group's cpu.stat, then every group's vsched.vcpu.stat, back to back, and the VM's time
 * halfway through: read between the other files, the root's and its groups' usage were up to
 * 60 ms apart on a loaded host, so the groups' CPU % did not add up to the VM's; and timed by
 * the snapshot's start, a VM's counters were read a varying time after it, so a vCPU waiting
 * all along showed STEAL% 107.8. Each group's vsched.vcpu.stat is timed on its own: with 55
 * groups the pass took 0.5-2 s on a loaded host, varying between snapshots, and over the VM's
 * time a vCPU waiting all along showed STEAL% 113. A group gone meanwhile keeps no usage (its
 * rate shows as unknown) and no vCPUs.
 */
static int read_usage(struct top_vm *vm, char *big)
{
	char buf[SMALL_FILE], dir[2 * PATH_MAX];
	uint64_t t0 = time_mono_ns();
	unsigned int i;
	int ret;

	for (i = 0; i < vm->nr_groups; i++) {
		struct top_group *g = &vm->groups[i];

		snprintf(dir, sizeof(dir), "%s%s", vm->ctl, i ? g->path : "");
		ret = read_file_at(dir, "cpu.stat", buf, sizeof(buf));
		if (!i && ret)
			return ret;
		if (!ret)
			parse_cpu_stat(buf, g);
	}
	for (i = 0; i < vm->nr_groups; i++) {
		uint64_t t1;

		snprintf(dir, sizeof(dir), "%s%s", vm->ctl, i ? vm->groups[i].path : "");
		t1 = time_mono_ns();
		if (read_file_at(dir, "vsched.vcpu.stat", big, VCPU_STAT_MAX))
			continue;
		ret = add_vcpus(vm, big, i, t1 + (time_mono_ns() - t1) / 2);
		if (ret)
			return ret;
	}
	vm->t_ns = t0 + (time_mono_ns() - t0) / 2;
	return 0;
}

int top_vm_read(struct top_vm *vm)
{
	char *big;

	vm->err = -ENOENT;
	if (!vm->ctl[0])
		return vm->err;
	big = malloc(VCPU_STAT_MAX);
	if (!big)
		return vm->err = -ENOMEM;
	vm->err = read_group(vm, vm->ctl, "/", -1, 0);
	if (!vm->err)
		vm->err = read_usage(vm, big);
	if (!vm->err && !read_file_at(vm->ctl, "vsched.lanes", big, SMALL_FILE))
		vm->lanes = (unsigned int)strtoul(big, NULL, 10);
	free(big);
	return vm->err;
}

void top_vm_free(struct top_vm *vm)
{
	free(vm->groups);
	free(vm->vcpus);
	vm->groups = NULL;
	vm->vcpus = NULL;
	vm->nr_groups = vm->nr_vcpus = 0;
}

struct take_ctx {
	struct top_snap *s;
	const char *only;
};

/*
 * A stopped VMM (SIGSTOP, a debugger: state T or t) answers no read of its FUSE directory, which
 * has no timeout: reading it blocked top, every VM's view and q with it.
 */
static bool vmm_stopped(int pid)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	return !file_read(path, buf, sizeof(buf)) && strchr("Tt", file_proc_state(buf));
}

static int take_one(const struct registry_entry *e, void *arg)
{
	struct take_ctx *c = arg;
	struct top_snap *s = c->s;
	struct top_vm *vms, *vm;

	/* A VMM that died without cleaning up is not running (vsched list shows it as stale). */
	if (!e->alive || (c->only && strcmp(c->only, e->name)))
		return 0;
	vms = realloc(s->vms, (s->nr_vms + 1) * sizeof(*vms));
	if (!vms)
		return -ENOMEM;
	s->vms = vms;
	vm = &vms[s->nr_vms++];
	memset(vm, 0, sizeof(*vm));
	snprintf(vm->name, sizeof(vm->name), "%s", e->name);
	snprintf(vm->ctl, sizeof(vm->ctl), "%s", e->ctl);
	vm->pid = (int)e->pid;
	/* A VM whose directory cannot be read still shows, with the reason (vm->err). */
	vm->stopped = vm->ctl[0] && vmm_stopped(vm->pid);
	if (vm->stopped)
		vm->err = -EAGAIN;
	else
		top_vm_read(vm);
	return vm->err == -ENOMEM ? -ENOMEM : 0;
}

const char *top_host_dir(char *buf, size_t len)
{
	return registry_host_dir(buf, len, NULL) ? NULL : buf;
}

/* The daemon's tree as a section of its own, read as a VM's directory is. */
static int take_host(struct top_snap *s, const char *dir)
{
	struct top_vm *vm = calloc(1, sizeof(*vm));
	struct stat st;

	if (!vm)
		return -ENOMEM;
	s->vms = vm;
	s->nr_vms = 1;
	s->host = true;
	vm->host = true;
	snprintf(vm->name, sizeof(vm->name), TOP_HOST_NAME);
	snprintf(vm->ctl, sizeof(vm->ctl), "%s", dir);
	/* Another daemon (a restart) has another mount: its counters start again. */
	if (!stat(dir, &st))
		vm->dev = st.st_dev;
	top_vm_read(vm);
	return vm->err == -ENOMEM ? -ENOMEM : 0;
}

int top_snap_take(struct top_snap *s, const char *only, const char *host_dir)
{
	struct take_ctx c = { s, only };
	int ret = 0;

	memset(s, 0, sizeof(*s));
	s->t_ns = time_mono_ns();
	if (host_dir && !only)
		ret = take_host(s, host_dir);
	if (!ret)
		ret = registry_list(take_one, &c);
	if (ret)
		top_snap_free(s);
	return ret;
}

void top_snap_free(struct top_snap *s)
{
	unsigned int i;

	for (i = 0; i < s->nr_vms; i++)
		top_vm_free(&s->vms[i]);
	free(s->vms);
	memset(s, 0, sizeof(*s));
}
