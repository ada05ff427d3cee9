// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "util/file.h"

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* mkdir -p counts what it made, and exactly that is removed again (a --ctl-dir's parents). */
static void test_file_mkdir_made_removed(void)
{
	char top[] = "/tmp/vsched-file-XXXXXX", path[256];
	unsigned int made = 99;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(top));
	snprintf(path, sizeof(path), "%s/a//b/c/", top);
	CU_ASSERT_EQUAL(file_mkdir_p(path, 0755, &made), 0);
	CU_ASSERT_EQUAL(made, 3);
	CU_ASSERT_TRUE(is_dir(path));
	/* Again: nothing to make. */
	CU_ASSERT_EQUAL(file_mkdir_p(path, 0755, &made), 0);
	CU_ASSERT_EQUAL(made, 0);
	file_rmdir_made(path, 3);
	snprintf(path, sizeof(path), "%s/a", top);
	CU_ASSERT_FALSE(is_dir(path));
	CU_ASSERT_TRUE(is_dir(top));	/* it existed before: kept */
	CU_ASSERT_EQUAL(rmdir(top), 0);
}

/* Failing part way (a name too long): what was made before the failure is removed. */
static void test_file_mkdir_fails_part_way(void)
{
	char top[] = "/tmp/vsched-file-XXXXXX", path[512], longname[300];
	unsigned int made = 99;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(top));
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(path, sizeof(path), "%s/b/c/%s/d", top, longname);
	CU_ASSERT_EQUAL(file_mkdir_p(path, 0755, &made), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(made, 2);	/* b and b/c */
	file_rmdir_made(path, made);
	snprintf(path, sizeof(path), "%s/b", top);
	CU_ASSERT_FALSE(is_dir(path));
	CU_ASSERT_EQUAL(rmdir(top), 0);
}

/* A /proc stat's state follows the name's last ')': names may hold ") R (", spaces, anything. */
static void test_file_proc_state(void)
{
	char self[512];

	CU_ASSERT_EQUAL(file_proc_state("42 (vcpu0) R 1 42"), 'R');
	CU_ASSERT_EQUAL(file_proc_state("42 (a) S (b) T 1 42"), 'T');
	CU_ASSERT_EQUAL(file_proc_state("42 (x y) D 1"), 'D');
	CU_ASSERT_EQUAL(file_proc_state("42 (x)"), '?');
	CU_ASSERT_EQUAL(file_proc_state("42 (x)Z"), '?');
	CU_ASSERT_EQUAL(file_proc_state(""), '?');
	CU_ASSERT_EQUAL_FATAL(file_read("/proc/self/stat", self, sizeof(self)), 0);
	CU_ASSERT_EQUAL(file_proc_state(self), 'R');	/* reading it, this thread runs */
}

static CU_TestInfo file_tests[] = {
	{ "a /proc stat's state, whatever the name", test_file_proc_state },
	{ "mkdir -p counts what it made; exactly that is removed", test_file_mkdir_made_removed },
	{ "mkdir -p failing part way leaves nothing made", test_file_mkdir_fails_part_way },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/file", file_tests)
