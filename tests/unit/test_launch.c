// SPDX-License-Identifier: GPL-2.0
/* --group / --assign specs of `vsched run`, applied through the public API. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "cmd/run.h"
#include "test.h"
#include "vsched.h"

static void read_file(struct vsched *vs, const char *path, const char *file, char *buf,
		      size_t len)
{
	ssize_t n = vsched_read(vs, path, file, buf, len);

	CU_ASSERT_TRUE(n >= 0);
	if (n < 0)
		buf[0] = '\0';
}

static void test_launch_group_settings(void)
{
	struct vsched *vs = vsched_create(2, 4);
	char msg[256], buf[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(run_group_add(vs, "web:weight=300,max=\"50000 100000\"", msg, sizeof(msg)),
			0);
	CU_ASSERT_EQUAL(run_group_add(vs, "web/fe:burst=20000", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(run_group_add(vs, "bg:idle=1", msg, sizeof(msg)), 0);
	read_file(vs, "web", "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "300\n");
	read_file(vs, "web", "cpu.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "50000 100000\n");
	read_file(vs, "web/fe", "cpu.max.burst", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "20000\n");
	read_file(vs, "bg", "cpu.idle", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1\n");
	/* Missing parents are created on the way; an existing group is reused. */
	CU_ASSERT_EQUAL(run_group_add(vs, "a/b/c", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(run_group_add(vs, "a/b:weight=50", msg, sizeof(msg)), 0);
	read_file(vs, "a/b", "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "50\n");
	vsched_destroy(vs);
}

static void test_launch_group_errors(void)
{
	struct vsched *vs = vsched_create(2, 4);
	char msg[256], buf[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(run_group_add(vs, "web:weight=0", msg, sizeof(msg)), -ERANGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cpu.weight"));
	CU_ASSERT_EQUAL(run_group_add(vs, "web:colour=red", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(run_group_add(vs, "web:weight", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(run_group_add(vs, ":weight=3", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(run_group_add(vs, "web:max=1 100000", msg, sizeof(msg)), -EINVAL);
	/* The failed value left the group's setting as it was. */
	read_file(vs, "web", "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "100\n");
	vsched_destroy(vs);
}

static void test_launch_assign(void)
{
	struct vsched *vs = vsched_create(2, 4);
	char msg[256], buf[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	vsched_set_vcpu_tid(vs, 0, 1000);
	vsched_set_vcpu_tid(vs, 1, 1001);
	vsched_set_vcpu_tid(vs, 2, 1002);
	CU_ASSERT_EQUAL(run_group_add(vs, "web/fe", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(run_group_add(vs, "bg", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(run_group_assign(vs, "0-1=web/fe", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(run_group_assign(vs, "2=bg", msg, sizeof(msg)), 0);
	read_file(vs, "web/fe", "cgroup.threads", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1000\n1001\n");
	read_file(vs, "bg", "cgroup.threads", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1002\n");
	CU_ASSERT_EQUAL(run_group_assign(vs, "0-1", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(run_group_assign(vs, "=web", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_EQUAL(run_group_assign(vs, "7=web", msg, sizeof(msg)), -ERANGE);
	CU_ASSERT_EQUAL(run_group_assign(vs, "0=nope", msg, sizeof(msg)), -ENOENT);
	/* no path (an unset shell variable, "0=$G"): refused, not the root; "/" names the root */
	CU_ASSERT_EQUAL(run_group_assign(vs, "0=", msg, sizeof(msg)), -EINVAL);
	read_file(vs, "web/fe", "cgroup.threads", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1000\n1001\n");
	CU_ASSERT_EQUAL(run_group_assign(vs, "2=/", msg, sizeof(msg)), 0);
	read_file(vs, "bg", "cgroup.threads", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "");
	vsched_destroy(vs);
}

/* A file's name is no group (found by fuzz/cli_specs.c): mkdir's EEXIST is not "it exists". */
static void test_launch_group_file_name(void)
{
	struct vsched *vs = vsched_create(2, 4);
	char msg[256];

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(run_group_add(vs, "cpu.stat", msg, sizeof(msg)), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "cpu.stat: an interface file, not a group"));
	CU_ASSERT_EQUAL(run_group_add(vs, "a/cpu.max:weight=5", msg, sizeof(msg)), -EEXIST);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "a/cpu.max: an interface file"));
	/* Nor are "." and "..", which mkdir answers EEXIST too: named, not "an interface file". */
	CU_ASSERT_EQUAL(run_group_add(vs, "../x", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "mkdir ..: '.' and '..' are not group names"));
	CU_ASSERT_EQUAL(run_group_add(vs, "b/./c", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(msg, "mkdir b/.: '.' and '..' are not group names"));
	/* An existing group is still reused. */
	CU_ASSERT_EQUAL(run_group_add(vs, "a", msg, sizeof(msg)), 0);
	CU_ASSERT_EQUAL(run_group_add(vs, "a:weight=5", msg, sizeof(msg)), 0);
	vsched_destroy(vs);
}

/*
 * A spec says each thing once: a second weight, a nice beside a weight, a weight before idle=1
 * and an empty value were taken in order, one value dropped without a word. Refused before the
 * group is made.
 */
static void test_launch_group_once(void)
{
	static const char *const bad[] = {
		"web:weight=300,weight=400", "web:weight=3,cpu.weight=4", "web:nice=5,weight=5",
		"web:cpu.weight.nice=1,weight=5", "web:weight=5,idle=1", "web:nice=2,idle=1",
		"web:max=", "web:max=\"\"", "web:burst=1000,cpu.max.burst=2000",
	};
	struct vsched *vs = vsched_create(2, 4);
	char msg[256], buf[256];
	size_t i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = run_group_add(vs, bad[i], msg, sizeof(msg));

		if (ret != -EINVAL)
			printf("\n    '%s': %d, want -EINVAL\n", bad[i], ret);
		CU_ASSERT_EQUAL(ret, -EINVAL);
	}
	CU_ASSERT_NOT_EQUAL(vsched_stat(vs, "web", NULL, &(mode_t){ 0 }), 0);
	CU_ASSERT_EQUAL(run_group_add(vs, "web:weight=5,nice=", msg, sizeof(msg)), -EINVAL);
	CU_ASSERT_STRING_EQUAL(msg, "'nice=': no value");
	/* idle=0 sets no weight; settings of different files in any order. */
	CU_ASSERT_EQUAL(run_group_add(vs, "web:idle=0,weight=5,max=max,burst=0", msg, sizeof(msg)),
			0);
	read_file(vs, "web", "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "5\n");
	vsched_destroy(vs);
}

static CU_TestInfo launch_tests[] = {
	{ "--group creates groups and writes settings", test_launch_group_settings },
	{ "--group errors name the part and change nothing", test_launch_group_errors },
	{ "--assign moves vCPUs by cpuset", test_launch_assign },
	{ "--group refuses an interface file's name", test_launch_group_file_name },
	{ "--group says each setting once", test_launch_group_once },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("launch", launch_tests);
