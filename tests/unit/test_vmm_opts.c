// SPDX-License-Identifier: GPL-2.0
#include <errno.h>

#include "test.h"
#include "util/ratelimit.h"
#include "vmm/opts.h"

static void test_opts_size(void)
{
	uint64_t b = 7;

	CU_ASSERT_EQUAL(opts_parse_size("4096", &b), 0);
	CU_ASSERT_EQUAL(b, 4096);
	CU_ASSERT_EQUAL(opts_parse_size("64M", &b), 0);
	CU_ASSERT_EQUAL(b, 64ULL << 20);
	CU_ASSERT_EQUAL(opts_parse_size("1GiB", &b), 0);
	CU_ASSERT_EQUAL(b, 1ULL << 30);
	CU_ASSERT_EQUAL(opts_parse_size("512k", &b), 0);
	CU_ASSERT_EQUAL(b, 512ULL << 10);
	b = 7;
	CU_ASSERT_EQUAL(opts_parse_size("", &b), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_size("-1M", &b), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_size("12Q", &b), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_size("1MM", &b), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_size("99999999999999999999", &b), -ERANGE);
	CU_ASSERT_EQUAL(opts_parse_size("99999999999T", &b), -ERANGE);
	CU_ASSERT_EQUAL(b, 7);
}

static void test_opts_duration(void)
{
	uint64_t ns = 7;

	CU_ASSERT_EQUAL(opts_parse_duration("3", &ns), 0);
	CU_ASSERT_EQUAL(ns, 3000000000ULL);
	CU_ASSERT_EQUAL(opts_parse_duration("2.5s", &ns), 0);
	CU_ASSERT_EQUAL(ns, 2500000000ULL);
	CU_ASSERT_EQUAL(opts_parse_duration("500ms", &ns), 0);
	CU_ASSERT_EQUAL(ns, 500000000ULL);
	CU_ASSERT_EQUAL(opts_parse_duration("250us", &ns), 0);
	CU_ASSERT_EQUAL(ns, 250000ULL);
	ns = 7;
	CU_ASSERT_EQUAL(opts_parse_duration("0", &ns), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_duration("-1", &ns), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_duration("5h", &ns), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_duration("s", &ns), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_duration("nan", &ns), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_duration("0x10", &ns), -EINVAL);	/* not 16 s */
	CU_ASSERT_EQUAL(opts_parse_duration("0X1p4", &ns), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_duration(" 3", &ns), -EINVAL);
	CU_ASSERT_EQUAL(ns, 7);
}

static void test_opts_uint(void)
{
	unsigned int v = 7;

	CU_ASSERT_EQUAL(opts_parse_uint("4", 1, 128, &v), 0);
	CU_ASSERT_EQUAL(v, 4);
	CU_ASSERT_EQUAL(opts_parse_uint("0", 1, 128, &v), -ERANGE);
	CU_ASSERT_EQUAL(opts_parse_uint("129", 1, 128, &v), -ERANGE);
	CU_ASSERT_EQUAL(opts_parse_uint("4x", 1, 128, &v), -EINVAL);
	CU_ASSERT_EQUAL(opts_parse_uint("+4", 1, 128, &v), -EINVAL);
	CU_ASSERT_EQUAL(v, 4);
}

static void test_ratelimit_window(void)
{
	struct ratelimit rl = RATELIMIT_INIT(1000, 3);

	CU_ASSERT_TRUE(ratelimit_allow(&rl, 100));
	CU_ASSERT_TRUE(ratelimit_allow(&rl, 200));
	CU_ASSERT_TRUE(ratelimit_allow(&rl, 300));
	CU_ASSERT_FALSE(ratelimit_allow(&rl, 400));
	CU_ASSERT_FALSE(ratelimit_allow(&rl, 1099));
	/* The window that began at 100 ends at 1100. */
	CU_ASSERT_TRUE(ratelimit_allow(&rl, 1100));
	CU_ASSERT_EQUAL(ratelimit_take_missed(&rl), 2);
	CU_ASSERT_EQUAL(ratelimit_take_missed(&rl), 0);
}

static CU_TestInfo vmm_opts_tests[] = {
	{ "sizes", test_opts_size },
	{ "durations", test_opts_duration },
	{ "counts", test_opts_uint },
	{ "ratelimit window", test_ratelimit_window },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("vmm/opts", vmm_opts_tests)
