// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "test.h"
#include "util/cpuset.h"

static void test_cpuset_parse_ranges_and_exclusions(void)
{
	struct cpuset s;
	char buf[64];

	CU_ASSERT_EQUAL(cpuset_parse("0-3,^2", 8, &s), 0);
	CU_ASSERT_TRUE(cpuset_test(&s, 0) && cpuset_test(&s, 1) && cpuset_test(&s, 3));
	CU_ASSERT_FALSE(cpuset_test(&s, 2));
	CU_ASSERT_EQUAL(cpuset_count(&s), 3);
	CU_ASSERT_EQUAL(cpuset_format(&s, buf, sizeof(buf)), 5);
	CU_ASSERT_STRING_EQUAL(buf, "0-1,3");

	/* Exclusion applies after every inclusion, whatever the order. */
	CU_ASSERT_EQUAL(cpuset_parse("^1, 0-2 ,5\n", 8, &s), 0);
	CU_ASSERT_EQUAL(cpuset_format(&s, buf, sizeof(buf)), 5);
	CU_ASSERT_STRING_EQUAL(buf, "0,2,5");
}

static void test_cpuset_parse_errors_keep_set(void)
{
	struct cpuset s;
	const char *bad[] = { "", ",", "1-", "-1", "3-1", "a", "1,,2", "1 2", "^", "1-^2" };
	size_t i;

	cpuset_clear(&s);
	cpuset_set(&s, 7);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_EQUAL(cpuset_parse(bad[i], 8, &s), -EINVAL);
	CU_ASSERT_EQUAL(cpuset_parse("0-8", 8, &s), -ERANGE);
	CU_ASSERT_EQUAL(cpuset_parse("99999", 8, &s), -ERANGE);
	CU_ASSERT_EQUAL(cpuset_count(&s), 1);
	CU_ASSERT_TRUE(cpuset_test(&s, 7));
}

static void test_cpuset_format_small_buffer(void)
{
	struct cpuset s;
	char buf[3];

	CU_ASSERT_EQUAL(cpuset_parse("10-12", 16, &s), 0);
	CU_ASSERT_EQUAL(cpuset_format(&s, buf, sizeof(buf)), -ENOSPC);
	cpuset_clear(&s);
	CU_ASSERT_EQUAL(cpuset_format(&s, buf, sizeof(buf)), 0);
	CU_ASSERT_STRING_EQUAL(buf, "");
}

static CU_TestInfo cpuset_tests[] = {
	{ "ranges and exclusions", test_cpuset_parse_ranges_and_exclusions },
	{ "errors keep the set", test_cpuset_parse_errors_keep_set },
	{ "format into a small buffer", test_cpuset_format_small_buffer },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/cpuset", cpuset_tests)
