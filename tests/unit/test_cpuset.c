// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
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

	/* Items apply in order, as virBitmapParse() (virsh(1): "0-15,^8 is identical to
	 * 9-14,0-7,15 but not identical to ^8,0-15"; libvirtd 9.0 stores vcpupin '^1,0-1' as
	 * '0-1' and <vcpu cpuset='^0,0-1,^1'> as '0'). */
	CU_ASSERT_EQUAL(cpuset_parse("^1, 0-2 ,5\n", 8, &s), 0);
	CU_ASSERT_EQUAL(cpuset_format(&s, buf, sizeof(buf)), 5);
	CU_ASSERT_STRING_EQUAL(buf, "0-2,5");
	CU_ASSERT_EQUAL(cpuset_parse("^0,0-1,^1", 8, &s), 0);
	CU_ASSERT_EQUAL(cpuset_format(&s, buf, sizeof(buf)), 1);
	CU_ASSERT_STRING_EQUAL(buf, "0");
	CU_ASSERT_EQUAL(cpuset_parse("0-3,^1,1", 8, &s), 0);
	CU_ASSERT_EQUAL(cpuset_count(&s), 4);
}

/* What libvirtd 9.0 accepted (`virsh define`, then dumpxml) that reads as ranges. */
static void test_cpuset_parse_libvirt_blanks(void)
{
	const char *ok[][2] = {
		{ "0 - 1", "0-1" }, { "0- 1", "0-1" }, { "0 -1", "0-1" }, { " 0 , 1 ", "0-1" },
		{ "0,", "0" }, { "0-+1", "0-1" }, { "00-01", "0-1" }, { "0\t,1", "0-1" },
		{ "2, ", "2" },
	};
	struct cpuset s;
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		CU_ASSERT_EQUAL(cpuset_parse(ok[i][0], 8, &s), 0);
		cpuset_format(&s, buf, sizeof(buf));
		if (strcmp(buf, ok[i][1]))
			printf("\n    '%s' read as '%s', want '%s'\n", ok[i][0], buf, ok[i][1]);
		CU_ASSERT_STRING_EQUAL(buf, ok[i][1]);
	}
}

/* Host CPU lists go up to libvirt's 16383; only the part below CPUSET_MAX is kept. */
static void test_cpulist_parse_host_cpus(void)
{
	struct cpuset s;
	unsigned int n = 0;

	CU_ASSERT_EQUAL(cpulist_parse("1, 1023-1024,16383", CPULIST_MAX, &s, &n), 0);
	CU_ASSERT_EQUAL(n, 4);
	CU_ASSERT_EQUAL(cpuset_count(&s), 2);
	CU_ASSERT_EQUAL(cpulist_parse("16384", CPULIST_MAX, &s, &n), -ERANGE);
	CU_ASSERT_EQUAL(cpulist_parse("99999999999999999999", CPULIST_MAX, NULL, &n), -ERANGE);
	CU_ASSERT_EQUAL(cpulist_parse("5000,^5000", CPULIST_MAX, NULL, &n), 0);
	CU_ASSERT_EQUAL(n, 0);
	/* The vCPU lists keep CPUSET_MAX. */
	CU_ASSERT_EQUAL(cpuset_parse("1024", CPULIST_MAX, &s), -ERANGE);
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
	{ "libvirt's blanks and trailing comma", test_cpuset_parse_libvirt_blanks },
	{ "host CPU lists up to 16383", test_cpulist_parse_host_cpus },
	{ "errors keep the set", test_cpuset_parse_errors_keep_set },
	{ "format into a small buffer", test_cpuset_format_small_buffer },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/cpuset", cpuset_tests)
