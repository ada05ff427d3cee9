// SPDX-License-Identifier: GPL-2.0
/*
 * The public API (vsched.h) given what a program may pass by mistake: a NULL or destroyed
 * handle, NULL paths, values, callbacks and result pointers. Each is -EINVAL (a NULL file
 * -ENOENT; for the functions returning nothing, nothing happens), never a crash, and the tree
 * is unchanged.
 * Branch apicheck: every call here but vsched_destroy(NULL) dereferenced NULL before.
 */
#include "vs_test.h"

static int name_cb(const char *name, mode_t mode, void *arg)
{
	(void)name;
	(void)mode;
	(void)arg;
	return 0;
}

static void test_api_args_null_handle(void)
{
	char buf[64], *out = NULL;
	uint64_t id;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	struct vsched *none = NULL;

	CU_ASSERT_EQUAL(vsched_mkdir(none, "g"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(none, "g"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_rmdir(none, "g"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_read(none, "", "cpu.stat", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(vsched_read_alloc(none, "", "cpu.stat", &out), -EINVAL);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL(vsched_write(none, "g", "cpu.weight", "5", 1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_write_str(none, "g", "cpu.weight", "5"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_write_move(none, "g", "vsched.vcpus", "0", 1, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_assign(none, "0", "g"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_list_children(none, "", name_cb, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_list_files(none, "", name_cb, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_stat(none, "", NULL, &mode), -EINVAL);
	CU_ASSERT_EQUAL(vsched_node_id(none, "", NULL, &id), -EINVAL);
	CU_ASSERT_EQUAL(vsched_chown(none, "", 1, 1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_owner(none, "", &uid, &gid), -EINVAL);
	CU_ASSERT_EQUAL(vsched_file_events(none, "", "cgroup.procs", &id), -EINVAL);
	CU_ASSERT_EQUAL(vsched_set_pid(none, 1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(none, 0, 1), -EINVAL);
	vsched_set_notify(none, NULL, NULL);
	vsched_set_clock(none, NULL, NULL);
	vsched_set_unlocked(none, NULL, NULL);
	vsched_set_events_fn(none, NULL, NULL);
	vsched_lock(none);
	vsched_unlock(none);
	CU_ASSERT_PTR_NULL(vsched_mutex(none));
	CU_ASSERT_PTR_NULL(vsched_sched(none));
	vsched_destroy(none);
}

static void test_api_args_null_pointers(void)
{
	struct vsched *vs = vs_new(2);
	char buf[64], *out = NULL;
	struct vsched_move_perm perm = { NULL, 1 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "g"), 0);
	/* NULL is no path: not the root, which "" and "/" name */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_read(vs, NULL, "cpu.stat", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(vsched_write(vs, NULL, "cgroup.max.depth", "5", 1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", NULL), -EINVAL);
	/* files (none: -ENOENT, as before), values, buffers */
	CU_ASSERT_EQUAL(vsched_read(vs, "g", NULL, buf, sizeof(buf)), -ENOENT);
	CU_ASSERT_EQUAL(vsched_read(vs, "g", "cpu.weight", NULL, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(vsched_read(vs, "g", "cpu.weight", NULL, 0), -ENOSPC);
	CU_ASSERT_EQUAL(vsched_read_alloc(vs, "g", "cpu.weight", NULL), -EINVAL);
	out = buf;	/* a failed read_alloc leaves NULL, not what was there */
	CU_ASSERT_EQUAL(vsched_read_alloc(vs, "g", NULL, &out), -ENOENT);
	CU_ASSERT_PTR_NULL(out);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", NULL, "5", 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", NULL, 0), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "g", "cpu.weight", NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_write_move(vs, "g", "vsched.vcpus", NULL, 1, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_assign(vs, NULL, "g"), -EINVAL);
	CU_ASSERT_EQUAL(vsched_move_check_perm(0, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_move_check_perm(0, &perm), -EINVAL);
	CU_ASSERT_FALSE(vsched_file_moves_vcpus(NULL));
	CU_ASSERT_FALSE(vsched_file_is_cpu(NULL));
	/* callbacks and results */
	CU_ASSERT_EQUAL(vsched_list_children(vs, "", NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_list_files(vs, "g", NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_stat(vs, "g", NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "g", "cpu.weight", NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_owner(vs, "g", NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", "cgroup.events", NULL), -EINVAL);
	CU_ASSERT_EQUAL(vsched_file_events(vs, "g", NULL, (uint64_t *)buf), -ENOENT);
	/* nothing changed */
	READ_IS(vs, "g", "cpu.weight", "100\n");
	READ_IS(vs, "g", "vsched.vcpus", "\n");
	READ_IS(vs, "", "cgroup.max.depth", "max\n");
	READ_IS(vs, "", "cgroup.stat", "nr_descendants 1\nnr_subsys_cpu 2\n"
		"nr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	vsched_destroy(vs);
}

/* A handle after vsched_destroy(), while its memory is not reused (the calls read it). */
static void test_api_args_destroyed(void)
{
	struct vsched *vs = vs_new(1);
	char buf[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	vsched_destroy(vs);
#if !defined(__SANITIZE_ADDRESS__)
	/* Under ASan the read of freed memory is reported, as it should be: the caller's bug. */
	CU_ASSERT_EQUAL(vsched_read(vs, "", "cpu.stat", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), -EINVAL);
	vsched_destroy(vs);	/* not twice */
#else
	(void)buf;
#endif
}

static CU_TestInfo api_args_tests[] = {
	{ "NULL handle: -EINVAL, no crash", test_api_args_null_handle },
	{ "NULL path, file, value, callback, result: -EINVAL", test_api_args_null_pointers },
	{ "destroyed handle: -EINVAL, destroy once", test_api_args_destroyed },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/api args", api_args_tests)
