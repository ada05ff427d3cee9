// SPDX-License-Identifier: GPL-2.0
/* The public API (vsched.h): generic write rules, paths, listings, notification, locking. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vs_test.h"
#include "sched/core.h"
#include "util/compiler.h"

static void test_api_create_and_ids(void)
{
	struct vsched *vs;

	errno = 0;
	CU_ASSERT_PTR_NULL(vsched_create(0, 4));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(vsched_create(2, 0));
	vs = vsched_create(2, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	READ_IS(vs, "/", "cgroup.procs", "");	/* no pid yet */
	READ_IS(vs, "/", "cgroup.threads", "");	/* threads not started */
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(vs, 2, 77), -ERANGE);
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(vs, 0, -1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_set_pid(vs, -1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(vs, 1, 77), 0);
	CU_ASSERT_EQUAL(vsched_set_pid(vs, 70), 0);
	READ_IS(vs, "/", "cgroup.threads", "77\n");
	READ_IS(vs, "/", "cgroup.procs", "70\n");
	vsched_destroy(vs);
	vsched_destroy(NULL);
}

static void test_api_generic_write_rules(void)
{
	struct vsched *vs = vs_new(2);
	char big[4097];

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	/* 4096 bytes reach the parser (which finds an overflow); one more is E2BIG */
	memset(big, '1', sizeof(big));
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", big, 4096), -ERANGE);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", big, 4097), -E2BIG);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cgroup.subtree_control", big, 4097), -E2BIG);
	/* a successful write returns its length */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", "50\n", 3), 3);
	/* zero bytes: success, no effect, even where the content would be invalid */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", "", 0), 0);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cgroup.type", "", 0), 0);
	READ_IS(vs, "g", "cpu.weight", "50\n");
	READ_IS(vs, "g", "cgroup.type", "domain\n");
	/* the handler sees a NUL-terminated copy: it stops at an embedded NUL */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", "70\0zz", 5), 5);
	READ_IS(vs, "g", "cpu.weight", "70\n");
	/* As the kernel here: the size first, an empty write does nothing, else EINVAL. */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.stat", "", 0), 0);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.stat", big, 4097), -E2BIG);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.stat", "1", 1), -EINVAL);
	/* missing group or file */
	CU_ASSERT_EQUAL(vsched_write(vs, "h", "cpu.weight", "1", 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.nothing", "1", 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", NULL, "1", 1), -ENOENT);
	vsched_destroy(vs);
}

static void test_api_read_sizes(void)
{
	struct vsched *vs = vsched_create(2, 1024);
	char small[8], *all = NULL;
	unsigned int i;
	ssize_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	for (i = 0; i < 1024; i++)
		vsched_set_vcpu_tid(vs, i, 1000000 + (pid_t)i);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.max.depth", small, 4), -ENOSPC);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.max.depth", small, 0), -ENOSPC);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.max.depth", small, 5), 4);
	CU_ASSERT_STRING_EQUAL(small, "max\n");
	/* 1024 lines of 8 bytes: more than the first buffer of vsched_read_alloc() */
	n = vsched_read_alloc(vs, "/", "cgroup.threads", &all);
	CU_ASSERT_EQUAL(n, 1024 * 8);
	if (n > 0) {
		CU_ASSERT_EQUAL(strncmp(all, "1000000\n1000001\n", 16), 0);
		CU_ASSERT_EQUAL(strcmp(all + n - 8, "1001023\n"), 0);
		free(all);
	}
	CU_ASSERT_EQUAL(vsched_read_alloc(vs, "/", "cpu.max", &all), -ENOENT);
	READ_IS(vs, "/", "vsched.vcpus", "0-1023\n");
	/*
	 * A file that cannot be read says so whatever the buffer (found by fuzz/api_files.c:
	 * with no room at all it said ENOSPC, retry larger, which could never succeed).
	 */
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	CU_ASSERT_EQUAL(vsched_read(vs, "t", "cgroup.procs", small, sizeof(small)), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_read(vs, "t", "cgroup.procs", small, 0), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_read(vs, "t", "cgroup.threads", small, 0), -ENOSPC);
	vsched_destroy(vs);
}

static int collect_none(const char *name __unused, mode_t mode __unused, void *arg __unused)
{
	return 0;
}

static void test_api_mkdir_rmdir(void)
{
	struct vsched *vs = vs_new(2);
	char name[4200];

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/a/"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, ""), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "x/y"), -ENOENT);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b\nc"), -EINVAL);
	/* a directory may not shadow a file of its parent */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "cgroup.procs"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "vsched.vcpus"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/cpu.weight"), -EEXIST);
	/* As cgroupfs (kernfs has no NAME_MAX): any name a path can hold, 4095 bytes. */
	memset(name, 'n', sizeof(name));
	name[256] = '\0';
	CU_ASSERT_EQUAL(vsched_mkdir(vs, name), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, name), 0);
	memset(name, 'n', sizeof(name));
	name[4095] = '\0';
	CU_ASSERT_EQUAL(vsched_mkdir(vs, name), 0);
	CU_ASSERT_EQUAL(vsched_stat(vs, name, "cpu.weight", &(mode_t){ 0 }), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, name), 0);
	name[4095] = 'n';
	name[4096] = '\0';
	CU_ASSERT_EQUAL(vsched_mkdir(vs, name), -ENAMETOOLONG);
	/* A path no group can have is ENAMETOOLONG for every call, as on cgroupfs (not ENOENT). */
	{
		char small[8];
		mode_t m;
		uid_t u;
		gid_t gi;

		CU_ASSERT_EQUAL(vsched_rmdir(vs, name), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_read(vs, name, "cpu.weight", small, sizeof(small)),
				-ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_write(vs, name, "cpu.weight", "1", 1), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_stat(vs, name, NULL, &m), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_assign(vs, "0", name), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_chown(vs, name, 1, 1), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_owner(vs, name, &u, &gi), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_list_children(vs, name, collect_none, NULL), -ENAMETOOLONG);
	}
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a"), -EBUSY);	/* has a child */
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "/"), -EBUSY);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/zz"), -ENOENT);
	WRITE_OK(vs, "a", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/b"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a"), -EBUSY);	/* populated */
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a"), -ENOENT);
	READ_IS(vs, "/", "cgroup.stat",
		"nr_descendants 0\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	/* mkdir_threaded undoes the mkdir when the type change is refused */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/d"), 0);
	WRITE_OK(vs, "p/d", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "p/t"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p/t"), -ENOENT);
	vsched_destroy(vs);
}

struct names {
	char buf[1024];
	int stop_at;
	int n;
};

static int collect(const char *name, mode_t mode, void *arg)
{
	struct names *nm = arg;
	size_t len = strlen(nm->buf);

	snprintf(nm->buf + len, sizeof(nm->buf) - len, "%s:%o ", name, (unsigned int)mode & 07777);
	return ++nm->n == nm->stop_at ? 42 : 0;
}

static void test_api_listings(void)
{
	struct vsched *vs = vs_new(2);
	struct names nm = { "", 0, 0 };
	mode_t mode = 0;
	uid_t uid;
	gid_t gid;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "b"), 0);
	CU_ASSERT_EQUAL(vsched_list_children(vs, "/", collect, &nm), 0);
	CU_ASSERT_STRING_EQUAL(nm.buf, "a:755 b:755 ");
	nm = (struct names){ "", 0, 0 };
	CU_ASSERT_EQUAL(vsched_list_files(vs, "/", collect, &nm), 0);
	CU_ASSERT_STRING_EQUAL(nm.buf,
			       "cgroup.procs:644 cgroup.threads:644 cgroup.controllers:444 "
			       "cgroup.subtree_control:644 cgroup.max.descendants:644 "
			       "cgroup.max.depth:644 cgroup.stat:444 cpu.stat:444 "
			       "cpu.stat.local:444 vsched.vcpus:644 vsched.vcpu.stat:444 vsched.lanes:444 ");
	nm = (struct names){ "", 0, 0 };
	CU_ASSERT_EQUAL(vsched_list_files(vs, "a", collect, &nm), 0);
	CU_ASSERT_STRING_EQUAL(nm.buf,
			       "cgroup.type:644 cgroup.procs:644 cgroup.threads:644 "
			       "cgroup.controllers:444 cgroup.subtree_control:644 cgroup.events:444 "
			       "cgroup.max.descendants:644 cgroup.max.depth:644 cgroup.stat:444 "
			       "cpu.stat:444 cpu.stat.local:444 cpu.weight:644 cpu.weight.nice:644 "
			       "cpu.idle:644 "
			       "cpu.max:644 cpu.max.burst:644 vsched.vcpus:644 "
			       "vsched.vcpu.stat:444 ");
	nm = (struct names){ "", 2, 0 };
	CU_ASSERT_EQUAL(vsched_list_files(vs, "a", collect, &nm), 42);	/* stopped */
	CU_ASSERT_EQUAL(nm.n, 2);
	CU_ASSERT_EQUAL(vsched_list_files(vs, "zz", collect, &nm), -ENOENT);
	CU_ASSERT_EQUAL(vsched_list_children(vs, "zz", collect, &nm), -ENOENT);

	CU_ASSERT_EQUAL(vsched_stat(vs, "a", NULL, &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFDIR | 0755);
	CU_ASSERT_EQUAL(vsched_stat(vs, "a", "cgroup.events", &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFREG | 0444);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/", "cgroup.events", &mode), -ENOENT);
	CU_ASSERT_EQUAL(vsched_stat(vs, "zz", NULL, &mode), -ENOENT);

	CU_ASSERT_EQUAL(vsched_owner(vs, "a", &uid, &gid), 0);
	CU_ASSERT_EQUAL(uid, 0);
	CU_ASSERT_EQUAL(vsched_chown(vs, "a", 1000, 100), 0);
	CU_ASSERT_EQUAL(vsched_owner(vs, "a", &uid, &gid), 0);
	CU_ASSERT_EQUAL(uid, 1000);
	CU_ASSERT_EQUAL(gid, 100);
	CU_ASSERT_EQUAL(vsched_chown(vs, "zz", 1, 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_owner(vs, "zz", &uid, &gid), -ENOENT);
	vsched_destroy(vs);
}

struct events {
	int n[4];
	int locked_during_callback;
	char last[64];
};

static void on_change(struct vsched *vs, enum vsched_event ev, const char *path,
		      const char *file, void *arg)
{
	struct events *e = arg;

	e->n[ev]++;
	/* called outside the lock, so the runtime may take it */
	if (pthread_mutex_trylock(vsched_mutex(vs)))
		e->locked_during_callback++;
	else
		pthread_mutex_unlock(vsched_mutex(vs));
	snprintf(e->last, sizeof(e->last), "%s %s", path, file ? file : "-");
}

static uint64_t fake_now;
static int clock_reads;

static uint64_t fake_clock(void *arg)
{
	clock_reads++;
	return *(uint64_t *)arg;
}

static void test_api_notify_and_clock(void)
{
	struct vsched *vs = vs_new(2);
	struct events e = { { 0 }, 0, "" };
	char buf[256];

	vsched_set_notify(vs, on_change, &e);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_MKDIR], 1);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_WRITE], 1);	/* cgroup.type */
	WRITE_OK(vs, "t", "cpu.weight", "300");
	CU_ASSERT_STRING_EQUAL(e.last, "t cpu.weight");
	WRITE_IS(vs, "t", "cpu.weight", "0", -ERANGE);	/* failures notify nobody */
	CU_ASSERT_EQUAL(vsched_write(vs, "t", "cpu.weight", "", 0), 0);	/* neither do no-ops */
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_WRITE], 2);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "t"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "7", "t"), -ERANGE);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_ASSIGN], 1);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "/"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "t"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "t"), -ENOENT);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_RMDIR], 1);
	CU_ASSERT_EQUAL(e.locked_during_callback, 0);
	/* A refused mkdir_threaded (a domain child of a populated domain) made nothing: no events. */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/d"), 0);
	WRITE_OK(vs, "p/d", "cgroup.procs", "4000");
	memset(&e.n, 0, sizeof(e.n));
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "p/t"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_MKDIR] + e.n[VSCHED_EV_RMDIR] + e.n[VSCHED_EV_WRITE], 0);
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p/d"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p"), 0);
	memset(&e.n, 0, sizeof(e.n));
	vsched_set_notify(vs, NULL, NULL);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "u"), 0);
	CU_ASSERT_EQUAL(e.n[VSCHED_EV_MKDIR], 0);	/* unregistered */

	/* cpu.stat reads take "now" from the clock the VM was given */
	fake_now = 5000000;
	vsched_set_clock(vs, fake_clock, &fake_now);
	clock_reads = 0;
	CU_ASSERT_TRUE(vsched_read(vs, "u", "cpu.stat", buf, sizeof(buf)) > 0);
	CU_ASSERT_EQUAL(clock_reads, 1);
	vsched_set_clock(vs, NULL, NULL);
	CU_ASSERT_TRUE(vsched_read(vs, "u", "cpu.stat", buf, sizeof(buf)) > 0);
	CU_ASSERT_EQUAL(clock_reads, 1);
	vsched_destroy(vs);
}

/* Writers, readers and tree changes from several threads: every read is a whole value. */
struct hammer {
	struct vsched *vs;
	int id;
	int bad;
};

static void *hammer_thread(void *arg)
{
	struct hammer *h = arg;
	char path[16], buf[64], val[16];
	int i;

	snprintf(path, sizeof(path), "g%d", h->id);
	for (i = 0; i < 2000; i++) {
		snprintf(val, sizeof(val), "%d", 1 + (i % 2) * 9999);	/* 1 or 10000 */
		if (vsched_write_str(h->vs, path, "cpu.weight", val))
			h->bad++;
		if (vsched_read(h->vs, path, "cpu.weight", buf, sizeof(buf)) < 0 ||
		    (strcmp(buf, "1\n") && strcmp(buf, "10000\n")))
			h->bad++;
		if (vsched_read(h->vs, "g0", "cpu.max", buf, sizeof(buf)) < 0 ||
		    (strcmp(buf, "max 100000\n") && strcmp(buf, "5000 100000\n")))
			h->bad++;
		if (h->id == 0 &&
		    vsched_write_str(h->vs, "g0", "cpu.max", i % 2 ? "5000" : "max"))
			h->bad++;
		if (h->id == 1) {
			if (vsched_mkdir(h->vs, "g1/tmp") || vsched_rmdir(h->vs, "g1/tmp"))
				h->bad++;
			if (vsched_assign(h->vs, i % 2 ? "0-1" : "2-3", "t"))
				h->bad++;
			if (vsched_assign(h->vs, "0-3", "/"))
				h->bad++;
		}
	}
	return NULL;
}

static void test_api_concurrency(void)
{
	struct vsched *vs = vs_new(4);
	struct hammer h[4];
	pthread_t th[4];
	int i;

	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	for (i = 0; i < 4; i++) {
		char path[16];

		snprintf(path, sizeof(path), "g%d", i);
		CU_ASSERT_EQUAL(vsched_mkdir(vs, path), 0);
		h[i] = (struct hammer){ vs, i, 0 };
	}
	for (i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(pthread_create(&th[i], NULL, hammer_thread, &h[i]), 0);
	for (i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		CU_ASSERT_EQUAL(h[i].bad, 0);
	}
	READ_IS(vs, "g2", "cpu.weight", "10000\n");
	READ_IS(vs, "g0", "cpu.max", "5000 100000\n");
	READ_IS(vs, "/", "vsched.vcpus", "0-3\n");
	READ_IS(vs, "/", "cgroup.stat",
		"nr_descendants 5\nnr_subsys_cpu 6\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	vsched_destroy(vs);
}

/* End to end: time the core charged shows in cpu.stat of the group and of every ancestor. */
static void test_api_cpu_stat_from_core(void)
{
	struct vsched *vs = vsched_create(2, 2);
	struct sched_decision d[8];
	struct sched *s;
	uint64_t now = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	vsched_set_clock(vs, fake_clock, &now);
	vsched_set_vcpu_tid(vs, 1, VS_TID0 + 1);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "t"), 0);
	vsched_lock(vs);
	s = vsched_sched(vs);
	CU_ASSERT_EQUAL(sched_vcpu_runnable(s, 1, 1000), 0);
	sched_take_decisions(s, d, ARRAY_SIZE(d));
	CU_ASSERT_EQUAL(sched_vcpu_ran(s, 1, 2500000, 500999, 3001999), 0);
	sched_take_decisions(s, d, ARRAY_SIZE(d));
	vsched_unlock(vs);
	now = 3001999;
	READ_IS(vs, "t", "cpu.stat",
		"usage_usec 3000\nuser_usec 2500\nsystem_usec 500\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	READ_IS(vs, "/", "cpu.stat",
		"usage_usec 3000\nuser_usec 2500\nsystem_usec 500\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	READ_IS(vs, "t", "vsched.vcpu.stat",
		"1 tid=4002 usage_usec=3000 user_usec=2500 system_usec=500 state=running lane=0 "
		"wait_usec=0 nr_waits=1 wait_hist=0:1\n");
	/* the usage stays with the group when the vCPU leaves, as in the kernel */
	now = 7000000;
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "/"), 0);
	/* a change is applied at the VM's "now": the API brought the core's clock there first */
	vsched_lock(vs);
	CU_ASSERT_EQUAL(sched_now(vsched_sched(vs)), 7000000);
	vsched_unlock(vs);
	now = 8000000;
	WRITE_OK(vs, "t", "cpu.max", "5000");
	vsched_lock(vs);
	CU_ASSERT_EQUAL(sched_now(vsched_sched(vs)), 8000000);
	vsched_unlock(vs);
	READ_IS(vs, "t", "cpu.stat",
		"usage_usec 3000\nuser_usec 2500\nsystem_usec 500\nnice_usec 0\nnr_periods 0\n"
		"nr_throttled 0\nthrottled_usec 0\nnr_bursts 0\nburst_usec 0\n");
	READ_IS(vs, "t", "cpu.max", "5000 100000\n");
	/* the same for a typed file (a table row without a write handler of its own) */
	now = 9000000;
	WRITE_OK(vs, "t", "cpu.weight", "200");
	vsched_lock(vs);
	CU_ASSERT_EQUAL(sched_now(vsched_sched(vs)), 9000000);
	vsched_unlock(vs);
	vsched_destroy(vs);
}

/* Node identities: one per kernfs node, never reused (a name made again is a new node). */
static void test_api_node_id(void)
{
	struct vsched *vs = vs_new(2);
	uint64_t dir, procs, weight, id;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a"), 0);
	WRITE_OK(vs, "p", "cgroup.subtree_control", "+cpu");
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", NULL, &dir), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cgroup.procs", &procs), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.weight", &weight), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "/p/a/", "cpu.weight", &id), 0);
	CU_ASSERT_EQUAL(id, weight);
	CU_ASSERT_NOT_EQUAL(weight, dir);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.bogus", &id), -ENOENT);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/none", NULL, &id), -ENOENT);
	/* -cpu, +cpu: new cpu.* files, the same directory and core files */
	WRITE_OK(vs, "p", "cgroup.subtree_control", "-cpu");
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.weight", &id), -ENOENT);
	WRITE_OK(vs, "p", "cgroup.subtree_control", "+cpu");
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.weight", &id), 0);
	CU_ASSERT_NOT_EQUAL(id, weight);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cgroup.procs", &id), 0);
	CU_ASSERT_EQUAL(id, procs);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", NULL, &id), 0);
	CU_ASSERT_EQUAL(id, dir);
	/* removed and made again: everything new */
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p/a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a"), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", NULL, &id), 0);
	CU_ASSERT_NOT_EQUAL(id, dir);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cgroup.procs", &id), 0);
	CU_ASSERT_NOT_EQUAL(id, procs);
	vsched_destroy(vs);
}

static void count_events(struct vsched *vs __unused, void *arg)
{
	(*(int *)arg)++;
}

/* cgroup.events' event count: populated flips, in the group and its ancestors (kernfs_notify()). */
static void test_api_file_events(void)
{
	struct vsched *vs = vs_new(2);
	uint64_t ev;
	int calls = 0;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "g/t"), 0);
	vsched_set_events_fn(vs, count_events, &calls);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 1);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "nope", &ev), -ENOENT);
	WRITE_OK(vs, "/", "cgroup.procs", "4000");	/* nothing moves: no event */
	CU_ASSERT_EQUAL(calls, 0);
	WRITE_OK(vs, "g", "cgroup.procs", "4000");	/* g and g/t's parent populated */
	CU_ASSERT_EQUAL(calls, 1);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 2);
	WRITE_OK(vs, "g/t", "cgroup.threads", "4001");	/* g stays populated; g/t becomes so */
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g/t", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g/t", "cgroup.procs", &ev), 0);
	CU_ASSERT_EQUAL(ev, 1);				/* only cgroup.events has events */
	vsched_set_events_fn(vs, NULL, NULL);
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(calls, 2);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", &ev), 0);
	CU_ASSERT_EQUAL(ev, 3);
	vsched_destroy(vs);
}

static CU_TestInfo api_tests[] = {
	{ "create, pid and TIDs", test_api_create_and_ids },
	{ "generic write rules (E2BIG, 0 bytes, NUL, read-only)", test_api_generic_write_rules },
	{ "read buffer sizes and read_alloc", test_api_read_sizes },
	{ "mkdir and rmdir errnos", test_api_mkdir_rmdir },
	{ "listings, stat, ownership", test_api_listings },
	{ "change notification and clock", test_api_notify_and_clock },
	{ "concurrent writers and readers", test_api_concurrency },
	{ "cpu.stat from the core's accounting", test_api_cpu_stat_from_core },
	{ "node identities", test_api_node_id },
	{ "file events (cgroup.events, poll)", test_api_file_events },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/api", api_tests)
