// SPDX-License-Identifier: GPL-2.0
/* cgroup.* core files and vsched.* extensions: the type state machine, moves, every errno. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vs_test.h"
#include "util/compiler.h"

static void test_cgroup_files_on_root_and_child(void)
{
	struct vsched *vs = vs_new(4);
	char buf[64];

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	/* CFTYPE_NOT_ON_ROOT */
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.type", buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.events", buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.bogus", buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(vsched_read(vs, "nope", "cgroup.procs", buf, sizeof(buf)), -ENOENT);
	READ_IS(vs, "g", "cgroup.type", "domain\n");
	READ_IS(vs, "g", "cgroup.events", "populated 0\nfrozen 0\n");
	READ_IS(vs, "/", "cgroup.controllers", "cpu\n");
	READ_IS(vs, "/", "cgroup.subtree_control", "cpu\n");
	READ_IS(vs, "g", "cgroup.controllers", "cpu\n");
	READ_IS(vs, "g", "cgroup.subtree_control", "");	/* empty: 0 bytes */
	READ_IS(vs, "/", "cgroup.procs", "4000\n");
	READ_IS(vs, "/", "cgroup.threads", "4001\n4002\n4003\n4004\n");
	READ_IS(vs, "g", "cgroup.procs", "");
	READ_IS(vs, "g", "cgroup.threads", "");
	READ_IS(vs, "g", "cgroup.max.depth", "max\n");
	READ_IS(vs, "g", "cgroup.max.descendants", "max\n");
	READ_IS(vs, "/", "vsched.vcpus", "0-3\n");
	READ_IS(vs, "g", "vsched.vcpus", "\n");
#define IDLE " state=idle lane=-1 wait_usec=0 nr_waits=0 wait_hist=-\n"
	READ_IS(vs, "/", "vsched.vcpu.stat",
		"0 tid=4001 usage_usec=0 user_usec=0 system_usec=0" IDLE
		"1 tid=4002 usage_usec=0 user_usec=0 system_usec=0" IDLE
		"2 tid=4003 usage_usec=0 user_usec=0 system_usec=0" IDLE
		"3 tid=4004 usage_usec=0 user_usec=0 system_usec=0" IDLE);
#undef IDLE
	READ_IS(vs, "/", "vsched.lanes", "2\n");
	CU_ASSERT_EQUAL(vsched_write_str(vs, "g", "vsched.lanes", "3"), -ENOENT);
	READ_IS(vs, "g", "vsched.vcpu.stat", "");
	/* read-only files: the write is EINVAL, as cgroup_file_write() without a handler */
	WRITE_IS(vs, "g", "cgroup.controllers", "cpu", -EINVAL);
	WRITE_IS(vs, "g", "cgroup.events", "0", -EINVAL);
	WRITE_IS(vs, "g", "cgroup.stat", "0", -EINVAL);
	WRITE_IS(vs, "g", "vsched.vcpu.stat", "0", -EINVAL);
	vsched_destroy(vs);
}

/* test_cgcore_parent_becomes_threaded, test_cgcore_invalid_domain and the write errnos. */
static void test_cgroup_type_state_machine(void)
{
	struct vsched *vs = vs_new(4);
	char tid[16];

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "gp"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "gp/p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "gp/p/c"), 0);
	WRITE_IS(vs, "gp/p", "cgroup.type", "domain", -EINVAL);
	WRITE_IS(vs, "gp/p", "cgroup.type", "threaded x", -EINVAL);
	WRITE_IS(vs, "gp/p", "cgroup.type", "Threaded", -EINVAL);
	READ_IS(vs, "gp/p", "cgroup.type", "domain\n");
	WRITE_OK(vs, "gp/p", "cgroup.type", " threaded\n");
	READ_IS(vs, "gp/p", "cgroup.type", "threaded\n");
	READ_IS(vs, "gp", "cgroup.type", "domain threaded\n");
	READ_IS(vs, "gp/p/c", "cgroup.type", "domain invalid\n");
	WRITE_OK(vs, "gp/p", "cgroup.type", "threaded");	/* already: no-op */
	WRITE_IS(vs, "gp/p", "cgroup.type", "domain", -EINVAL);	/* one way */

	/* an invalid domain can hold nothing and enable nothing */
	snprintf(tid, sizeof(tid), "%d", VS_TID0);
	WRITE_IS(vs, "gp/p/c", "cgroup.procs", "4000", -EOPNOTSUPP);
	WRITE_IS(vs, "gp/p/c", "cgroup.threads", tid, -EOPNOTSUPP);
	WRITE_IS(vs, "gp/p/c", "vsched.vcpus", "0", -EOPNOTSUPP);
	WRITE_IS(vs, "gp/p/c", "cgroup.subtree_control", "+cpu", -ENOENT);	/* top-down first */
	WRITE_OK(vs, "gp", "cgroup.subtree_control", "+cpu");
	WRITE_OK(vs, "gp/p", "cgroup.subtree_control", "+cpu");	/* threaded: fine */
	WRITE_IS(vs, "gp/p/c", "cgroup.subtree_control", "+cpu", -EOPNOTSUPP);
	/* but it can be made threaded */
	WRITE_OK(vs, "gp/p/c", "cgroup.type", "threaded");
	READ_IS(vs, "gp/p/c", "cgroup.type", "threaded\n");
	/* a threaded group has no cgroup.procs to read */
	{
		char buf[32];

		CU_ASSERT_EQUAL(vsched_read(vs, "gp/p", "cgroup.procs", buf, sizeof(buf)),
				-EOPNOTSUPP);
	}

	/* populated: cannot switch */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "d"), 0);
	WRITE_OK(vs, "d", "cgroup.procs", "4000");
	WRITE_IS(vs, "d", "cgroup.type", "threaded", -EOPNOTSUPP);
	READ_IS(vs, "d", "cgroup.type", "domain\n");

	/* the parent's domain cannot be a thread root: it has a populated domain child */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "d/e"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "d/f"), 0);
	WRITE_OK(vs, "d/e", "cgroup.procs", "4000");
	WRITE_IS(vs, "d/f", "cgroup.type", "threaded", -EOPNOTSUPP);
	/* ... until it is empty again */
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	WRITE_OK(vs, "d/f", "cgroup.type", "threaded");
	READ_IS(vs, "d", "cgroup.type", "domain threaded\n");
	READ_IS(vs, "d/e", "cgroup.type", "domain invalid\n");
	vsched_destroy(vs);
}

static void test_cgroup_threads_moves(void)
{
	struct vsched *vs = vs_new(4);
	static const struct {
		const char *in;
		int ret;
	} bad[] = {
		{ "abc", -EINVAL },	  { "-1", -EINVAL },	{ "99999999999", -EINVAL },
		{ "4001 4002", -EINVAL }, { "", -EINVAL },	{ "0", -ESRCH },
		{ "4242", -ESRCH },	  { "4000", -ESRCH },	/* the VMM's main thread: no vCPU */
	};
	size_t i;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "t"), 0);
	WRITE_OK(vs, "t", "cgroup.type", "threaded");
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (bad[i].in[0])
			WRITE_IS(vs, "t", "cgroup.threads", bad[i].in, bad[i].ret);
	/* the generic path turns "" into a zero-length write, which does nothing; " " is EINVAL */
	WRITE_IS(vs, "t", "cgroup.threads", " ", -EINVAL);
	WRITE_OK(vs, "t", "cgroup.threads", " 4002\n");
	READ_IS(vs, "t", "cgroup.threads", "4002\n");
	READ_IS(vs, "/", "cgroup.threads", "4001\n4003\n4004\n");
	READ_IS(vs, "t", "vsched.vcpus", "1\n");
	READ_IS(vs, "/", "vsched.vcpus", "0,2-3\n");
	READ_IS(vs, "/", "cgroup.procs", "4000\n");	/* the process stays in its domain */
	READ_IS(vs, "t", "cgroup.events", "populated 1\nfrozen 0\n");
	READ_IS(vs, "/", "cgroup.stat",
		"nr_descendants 1\nnr_subsys_cpu 2\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "t"), -EBUSY);	/* populated */

	/* a thread cannot leave its threaded domain for a plain domain */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "d"), 0);
	WRITE_IS(vs, "d", "cgroup.threads", "4001", -EOPNOTSUPP);
	WRITE_IS(vs, "d", "vsched.vcpus", "0", -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "d"), -EOPNOTSUPP);
	READ_IS(vs, "d", "cgroup.threads", "");
	/* back to the root, and to and fro as test_cgcore_thread_migration does */
	for (i = 0; i < 100; i++) {
		WRITE_OK(vs, "/", "cgroup.threads", "4002");
		WRITE_OK(vs, "t", "cgroup.threads", "4002");
	}
	READ_IS(vs, "t", "cgroup.threads", "4002\n");
	WRITE_OK(vs, "/", "cgroup.threads", "4002");
	READ_IS(vs, "t", "cgroup.events", "populated 0\nfrozen 0\n");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "t"), 0);
	vsched_destroy(vs);
}

static void test_cgroup_procs_moves(void)
{
	struct vsched *vs = vs_new(4);

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "d"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "d/t"), 0);
	WRITE_IS(vs, "d", "cgroup.procs", "x", -EINVAL);
	WRITE_IS(vs, "d", "cgroup.procs", "-5", -EINVAL);
	WRITE_IS(vs, "d", "cgroup.procs", "4000 4001", -EINVAL);
	WRITE_IS(vs, "d", "cgroup.procs", "2147483648", -EINVAL);
	WRITE_IS(vs, "d", "cgroup.procs", "0", -ESRCH);
	WRITE_IS(vs, "d", "cgroup.procs", "777777", -ESRCH);
	READ_IS(vs, "/", "vsched.vcpus", "0-3\n");

	/* the whole process moves; a TID stands for its process */
	WRITE_OK(vs, "d", "cgroup.procs", "4003\n");
	READ_IS(vs, "d", "cgroup.threads", "4001\n4002\n4003\n4004\n");
	READ_IS(vs, "d", "cgroup.procs", "4000\n");
	READ_IS(vs, "/", "cgroup.procs", "");
	READ_IS(vs, "/", "cgroup.threads", "");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "d"), -EBUSY);	/* has a child, and populated */

	/* inside d's threaded subtree a thread may move; d lists the process for the whole subtree */
	WRITE_OK(vs, "d/t", "cgroup.type", "threaded");
	WRITE_OK(vs, "d/t", "cgroup.threads", "4004");
	READ_IS(vs, "d", "cgroup.type", "domain threaded\n");
	READ_IS(vs, "d", "cgroup.procs", "4000\n");
	READ_IS(vs, "d/t", "vsched.vcpus", "3\n");
	/* a process may go into a threaded group from anywhere */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "t2"), 0);
	WRITE_OK(vs, "t2", "cgroup.type", "threaded");
	WRITE_OK(vs, "t2", "cgroup.procs", "4000");
	READ_IS(vs, "t2", "vsched.vcpus", "0-3\n");
	READ_IS(vs, "/", "cgroup.procs", "4000\n");
	READ_IS(vs, "d", "cgroup.type", "domain threaded\n");	/* it still has a threaded child */
	READ_IS(vs, "d", "cgroup.procs", "");
	vsched_destroy(vs);
}

/* The no-internal-process rule: a +cpu domain that cannot be a thread root takes no tasks. */
static void test_cgroup_no_internal_process(void)
{
	struct vsched *vs = vs_new(2);

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/d"), 0);
	WRITE_OK(vs, "p/d", "cgroup.procs", "4000");
	WRITE_OK(vs, "p", "cgroup.subtree_control", "+cpu");
	WRITE_IS(vs, "p", "cgroup.procs", "4000", -EBUSY);
	WRITE_IS(vs, "p", "cgroup.threads", "4001", -EBUSY);
	WRITE_IS(vs, "p", "vsched.vcpus", "0-1", -EBUSY);
	READ_IS(vs, "p/d", "vsched.vcpus", "0-1\n");

	/* test_cgcore_no_internal_process_constraint_on_threads: +cpu in a populated domain */
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "q"), 0);
	WRITE_OK(vs, "q", "cgroup.procs", "4000");
	WRITE_OK(vs, "q", "cgroup.subtree_control", "+cpu");
	READ_IS(vs, "q", "cgroup.type", "domain threaded\n");
	vsched_destroy(vs);
}

static void test_cgroup_subtree_control(void)
{
	struct vsched *vs = vs_new(2);
	static const char *bad[] = { "cpu", "+memory", "+", "-", "+cpu\t-cpu", "+cpu +io",
				     "*cpu", "+cpux", "+cpu -cpu +bogus" };
	size_t i;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b/c"), 0);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		WRITE_IS(vs, "a", "cgroup.subtree_control", bad[i], -EINVAL);
	READ_IS(vs, "a", "cgroup.subtree_control", "");
	WRITE_OK(vs, "a", "cgroup.subtree_control", "\n");
	WRITE_OK(vs, "a", "cgroup.subtree_control", "+cpu -cpu");	/* last one wins */
	READ_IS(vs, "a", "cgroup.subtree_control", "");
	/* top-down: b cannot enable what a does not give it */
	READ_IS(vs, "a/b", "cgroup.controllers", "");
	WRITE_IS(vs, "a/b", "cgroup.subtree_control", "+cpu", -ENOENT);
	WRITE_OK(vs, "a/b", "cgroup.subtree_control", "-cpu");	/* not enabled: dropped */
	WRITE_OK(vs, "a", "cgroup.subtree_control", "  -cpu  +cpu\t\n");
	READ_IS(vs, "a", "cgroup.subtree_control", "cpu\n");
	READ_IS(vs, "a/b", "cgroup.controllers", "cpu\n");
	WRITE_OK(vs, "a", "cgroup.subtree_control", "+cpu");	/* already: no-op */
	WRITE_OK(vs, "a/b", "cgroup.subtree_control", "+cpu");
	/* a child still uses it: cannot take it away */
	WRITE_IS(vs, "a", "cgroup.subtree_control", "-cpu", -EBUSY);
	WRITE_IS(vs, "/", "cgroup.subtree_control", "-cpu", -EBUSY);
	READ_IS(vs, "a", "cgroup.subtree_control", "cpu\n");
	READ_IS(vs, "/", "cgroup.stat",
		"nr_descendants 3\nnr_subsys_cpu 4\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	READ_IS(vs, "a/b", "cgroup.stat",
		"nr_descendants 1\nnr_subsys_cpu 2\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	WRITE_OK(vs, "a/b", "cgroup.subtree_control", "-cpu");
	WRITE_OK(vs, "a", "cgroup.subtree_control", "-cpu");
	READ_IS(vs, "a", "cgroup.stat",
		"nr_descendants 2\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	READ_IS(vs, "a/b", "cgroup.stat",
		"nr_descendants 1\nnr_subsys_cpu 0\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	vsched_destroy(vs);
}

static void test_cgroup_limits(void)
{
	struct vsched *vs = vs_new(2);

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	WRITE_IS(vs, "p", "cgroup.max.depth", "-1", -ERANGE);
	WRITE_IS(vs, "p", "cgroup.max.depth", "2147483648", -ERANGE);
	WRITE_IS(vs, "p", "cgroup.max.depth", "abc", -EINVAL);
	WRITE_IS(vs, "p", "cgroup.max.depth", "Max", -EINVAL);
	WRITE_IS(vs, "p", "cgroup.max.descendants", "-7", -ERANGE);
	WRITE_IS(vs, "p", "cgroup.max.descendants", "1 2", -EINVAL);
	READ_IS(vs, "p", "cgroup.max.depth", "max\n");
	WRITE_OK(vs, "p", "cgroup.max.depth", " 1 \n");	/* strstrip()ed */
	READ_IS(vs, "p", "cgroup.max.depth", "1\n");
	WRITE_OK(vs, "p", "cgroup.max.descendants", "0x2");
	READ_IS(vs, "p", "cgroup.max.descendants", "2\n");
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a/x"), -EAGAIN);	/* depth */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/b"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/c"), -EAGAIN);	/* descendants */
	WRITE_OK(vs, "p", "cgroup.max.descendants", "2147483647");
	READ_IS(vs, "p", "cgroup.max.descendants", "max\n");
	WRITE_OK(vs, "p", "cgroup.max.depth", "max");
	READ_IS(vs, "p", "cgroup.max.depth", "max\n");
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a/x"), 0);
	WRITE_OK(vs, "p", "cgroup.max.depth", "0");	/* lowering removes nothing */
	READ_IS(vs, "p", "cgroup.stat",
		"nr_descendants 3\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/d"), -EAGAIN);
	vsched_destroy(vs);
}

static void test_vsched_vcpus(void)
{
	struct vsched *vs = vs_new(8);

	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "lat"), 0);
	READ_IS(vs, "lat", "cgroup.type", "threaded\n");
	WRITE_IS(vs, "lat", "vsched.vcpus", "8", -ERANGE);
	WRITE_IS(vs, "lat", "vsched.vcpus", "0-8", -ERANGE);
	WRITE_IS(vs, "lat", "vsched.vcpus", "a", -EINVAL);
	WRITE_IS(vs, "lat", "vsched.vcpus", "3-1", -EINVAL);
	WRITE_IS(vs, "lat", "vsched.vcpus", "\n", -EINVAL);
	READ_IS(vs, "lat", "vsched.vcpus", "\n");
	WRITE_OK(vs, "lat", "vsched.vcpus", "0-5,^2\n");
	READ_IS(vs, "lat", "vsched.vcpus", "0-1,3-5\n");
	READ_IS(vs, "/", "vsched.vcpus", "2,6-7\n");
	READ_IS(vs, "lat", "cgroup.threads", "4001\n4002\n4004\n4005\n4006\n");
	CU_ASSERT_EQUAL(vsched_assign(vs, "7", "lat"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0-1", "/"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "x", "/"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_assign(vs, "9", "/"), -ERANGE);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "missing"), -ENOENT);
	READ_IS(vs, "lat", "vsched.vcpus", "3-5,7\n");
	/* all or nothing: one vCPU in another domain refuses the whole set */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "dom"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "dom/t"), 0);
	WRITE_OK(vs, "dom", "cgroup.procs", "4000");	/* everything into dom */
	READ_IS(vs, "dom", "vsched.vcpus", "0-7\n");
	WRITE_OK(vs, "dom/t", "vsched.vcpus", "6");
	WRITE_IS(vs, "lat", "vsched.vcpus", "0-1", -EOPNOTSUPP);	/* lat is in the root's domain */
	READ_IS(vs, "dom/t", "vsched.vcpus", "6\n");
	READ_IS(vs, "dom", "vsched.vcpus", "0-5,7\n");
	vsched_destroy(vs);
}

/*
 * kernfs refuses a name twice in a directory: +cpu whose cpu.* files a child's subdirectory
 * already names fails with EEXIST (cgroup_add_file() in css_populate_dir()) and changes nothing.
 */
static void test_cgroup_subtree_control_shadowed(void)
{
	static const char *names[] = { "cpu.weight", "cpu.weight.nice", "cpu.idle", "cpu.max",
				       "cpu.max.burst" };
	struct vsched *vs = vs_new(2);
	char path[64];
	size_t i;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/c"), 0);
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "p/c/%s", names[i]);
		CU_ASSERT_EQUAL(vsched_mkdir(vs, path), 0);
		WRITE_IS(vs, "p", "cgroup.subtree_control", "+cpu", -EEXIST);
		READ_IS(vs, "p", "cgroup.subtree_control", "");
		READ_IS(vs, "p/c", "cgroup.controllers", "");
		CU_ASSERT_EQUAL(vsched_rmdir(vs, path), 0);
	}
	/* other names, and cpu.* names one level further down, are no files of p's children */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/c/cpu.stat.x"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/c/cpu.stat.x/cpu.max"), 0);
	WRITE_OK(vs, "p", "cgroup.subtree_control", "+cpu");
	READ_IS(vs, "p/c", "cpu.max", "max 100000\n");
	/* and with the files there, the name is taken: mkdir is EEXIST */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/c/cpu.max"), -EEXIST);
	vsched_destroy(vs);
}

static CU_TestInfo cgroup_files_tests[] = {
	{ "root and child file set, defaults", test_cgroup_files_on_root_and_child },
	{ "cgroup.type state machine", test_cgroup_type_state_machine },
	{ "cgroup.threads moves and errnos", test_cgroup_threads_moves },
	{ "cgroup.procs moves and errnos", test_cgroup_procs_moves },
	{ "no-internal-process rule", test_cgroup_no_internal_process },
	{ "cgroup.subtree_control", test_cgroup_subtree_control },
	{ "+cpu shadowed by a subdirectory: EEXIST", test_cgroup_subtree_control_shadowed },
	{ "cgroup.max.depth/descendants", test_cgroup_limits },
	{ "vsched.vcpus and vsched_assign", test_vsched_vcpus },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/cgroup_files", cgroup_files_tests)
