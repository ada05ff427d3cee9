// SPDX-License-Identifier: GPL-2.0
/*
 * The public API from several threads while the VM runs (the runtime charging, deciding and
 * kicking on the same lock): groups made and removed, vCPUs moved, every cpu.* file written
 * with good and bad values, files read and listed, a notify callback calling back in. No call
 * may fail otherwise than with the file's errno, the tree ends as the threads left it and
 * cpu.stat keeps counting. Under ASan in `make check`; on branch apicheck the same load ran
 * with the whole library under TSan (docs/api.md).
 */
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "../fixture/runvm.h"
#include "vs_test.h"

#define NR_THREADS	4

struct apit {
	struct vsched *vs;
	atomic_bool stop;
	atomic_uint bad;	/* results no rule allows */
	atomic_uint notified;
};

static bool apit_errno_ok(int ret)
{
	/* What these writes may answer, racing each other: cpu-controller.md's errnos. */
	return ret >= 0 || ret == -ENOENT || ret == -EINVAL || ret == -ERANGE || ret == -EBUSY ||
	       ret == -EEXIST || ret == -EOPNOTSUPP;
}

/* Makes and removes g0..g3 (threaded) and their children, moves vCPUs among them. */
static void *apit_tree(void *arg)
{
	struct apit *t = arg;
	unsigned int seed = 1;
	char path[32], cpus[8];

	while (!t->stop) {
		int g = rand_r(&seed) % 4, ret;

		snprintf(path, sizeof(path), "g%d", g);
		switch (rand_r(&seed) % 5) {
		case 0:
			ret = vsched_mkdir_threaded(t->vs, path);
			break;
		case 1:
			snprintf(cpus, sizeof(cpus), "%d", rand_r(&seed) % 4);
			ret = vsched_assign(t->vs, cpus, path);
			break;
		case 2:
			ret = vsched_assign(t->vs, "0-3", "/");
			if (!ret)
				ret = vsched_rmdir(t->vs, path);
			break;
		case 3:
			snprintf(path, sizeof(path), "g%d/s%d", g, rand_r(&seed) % 2);
			ret = vsched_mkdir_threaded(t->vs, path);
			break;
		default:
			snprintf(path, sizeof(path), "g%d/s%d", g, rand_r(&seed) % 2);
			ret = vsched_rmdir(t->vs, path);
		}
		if (!apit_errno_ok(ret))
			t->bad++;
	}
	return NULL;
}

static void *apit_write(void *arg)
{
	static const char *const files[] = { "cpu.weight", "cpu.max", "cpu.max.burst", "cpu.idle",
					     "cpu.weight.nice", "cgroup.subtree_control" };
	static const char *const vals[] = { "100", "0", "50000 100000", "max", "1", "-1", "2000",
					    "+cpu", "-cpu", "10001", "19", "1000 1000" };
	struct apit *t = arg;
	unsigned int seed = 2;
	char path[32];

	while (!t->stop) {
		snprintf(path, sizeof(path), "g%d", rand_r(&seed) % 4);
		if (!apit_errno_ok(vsched_write_str(t->vs, path, files[rand_r(&seed) % 6],
						    vals[rand_r(&seed) % 12])))
			t->bad++;
	}
	return NULL;
}

static int apit_name(const char *name, mode_t mode, void *arg)
{
	(void)mode;
	(void)arg;
	return name[0] ? 0 : -EIO;
}

static void *apit_read(void *arg)
{
	struct apit *t = arg;
	unsigned int seed = 3;
	char path[32], *buf;
	uint64_t id;
	mode_t mode;
	ssize_t n;

	while (!t->stop) {
		snprintf(path, sizeof(path), "g%d", rand_r(&seed) % 4);
		n = vsched_read_alloc(t->vs, path, "cpu.stat", &buf);
		if (n >= 0 && (strncmp(buf, "usage_usec ", 11) || (size_t)n != strlen(buf)))
			t->bad++;
		free(buf);
		n = vsched_read_alloc(t->vs, path, "vsched.vcpu.stat", &buf);
		free(buf);
		if ((n < 0 && n != -ENOENT) ||
		    !apit_errno_ok(vsched_list_children(t->vs, path, apit_name, NULL)) ||
		    !apit_errno_ok(vsched_list_files(t->vs, path, apit_name, NULL)) ||
		    !apit_errno_ok(vsched_stat(t->vs, path, "cpu.max", &mode)) ||
		    !apit_errno_ok(vsched_node_id(t->vs, path, NULL, &id)))
			t->bad++;
	}
	return NULL;
}

/* Runs outside the lock: it may call the API (vsched.h). */
static void apit_notify(struct vsched *vs, enum vsched_event ev, const char *path,
			const char *file, void *arg)
{
	struct apit *t = arg;
	char buf[64];

	(void)ev;
	(void)file;
	vsched_read(vs, path, "cgroup.procs", buf, sizeof(buf));
	t->notified++;
}

static void apit_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void test_api_threads_running_vm(void)
{
	static void *(*const fn[NR_THREADS])(void *) = { apit_tree, apit_write, apit_write,
							   apit_read };
	struct apit t = { 0 };
	pthread_t th[NR_THREADS];
	uint64_t u0, u1;
	struct runvm r;
	int i;

	if (!test_accel_usable(VM_ACCEL_THREAD))
		return;
	CU_ASSERT_EQUAL_FATAL(runvm_create(&r, "t-api-threads", 4, 2, true), 0);
	r.vm.accel = VM_ACCEL_THREAD;
	CU_ASSERT_EQUAL_FATAL(runvm_start(&r), 0);
	t.vs = r.vs;
	vsched_set_notify(r.vs, apit_notify, &t);
	u0 = vs_usage_usec(r.vs, "/");
	for (i = 0; i < NR_THREADS; i++)
		CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, fn[i], &t), 0);
	apit_sleep_ms(1500);
	t.stop = true;
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(th[i], NULL);
	CU_ASSERT_EQUAL(t.bad, 0);
	CU_ASSERT_TRUE(t.notified > 0);
	/* Every vCPU back in the root, every group gone: the tree answers as a fresh one. */
	CU_ASSERT_EQUAL(vsched_assign(r.vs, "0-3", "/"), 0);
	for (i = 0; i < 4; i++) {
		char path[32];

		snprintf(path, sizeof(path), "g%d/s0", i);
		vsched_rmdir(r.vs, path);
		snprintf(path, sizeof(path), "g%d/s1", i);
		vsched_rmdir(r.vs, path);
		snprintf(path, sizeof(path), "g%d", i);
		vsched_rmdir(r.vs, path);
	}
	READ_IS(r.vs, "/", "vsched.vcpus", "0-3\n");
	READ_IS(r.vs, "/", "cgroup.stat",
		"nr_descendants 0\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	/* The VM ran on: its hog vCPUs' usage grew. */
	apit_sleep_ms(50);
	u1 = vs_usage_usec(r.vs, "/");
	CU_ASSERT_TRUE(u1 > u0);
	vsched_set_notify(r.vs, NULL, NULL);
	runvm_stop(&r);
	runvm_destroy(&r);
}

static CU_TestInfo api_threads_tests[] = {
	{ "threads on every call while the VM runs (thread backend)", test_api_threads_running_vm },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/api threads", api_threads_tests)
