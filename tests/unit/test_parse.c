// SPDX-License-Identifier: GPL-2.0
/* sched/parse: kstrtox and vsscanf semantics, case tables taken from the kernel's behaviour. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "sched/parse.h"
#include "util/compiler.h"

struct u64_case {
	const char *in;
	int ret;
	uint64_t val;
};

static void test_parse_u64_table(void)
{
	static const struct u64_case cases[] = {
		{ "100", 0, 100 },
		{ "100\n", 0, 100 },
		{ "+100", 0, 100 },
		{ "0x64", 0, 100 },
		{ "0X64", 0, 100 },
		{ "0xfF", 0, 255 },
		{ "0144", 0, 100 },
		{ "010", 0, 8 },
		{ "0", 0, 0 },
		{ "0\n", 0, 0 },
		{ "00", 0, 0 },
		{ "18446744073709551615", 0, UINT64_MAX },
		{ "0xffffffffffffffff", 0, UINT64_MAX },
		{ "01777777777777777777777", 0, UINT64_MAX },
		{ "08", -EINVAL, 0 },
		{ "0x", -EINVAL, 0 },	/* base 8, "0" then 'x' left over */
		{ "0xg", -EINVAL, 0 },
		{ " 100", -EINVAL, 0 },
		{ "100 ", -EINVAL, 0 },
		{ "100\n\n", -EINVAL, 0 },
		{ "100\t", -EINVAL, 0 },
		{ "1e2", -EINVAL, 0 },
		{ "-1", -EINVAL, 0 },
		{ "-0", -EINVAL, 0 },
		{ "++1", -EINVAL, 0 },
		{ "+", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
		{ "\n", -EINVAL, 0 },
		{ "abc", -EINVAL, 0 },
		{ "max", -EINVAL, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "99999999999999999999", -ERANGE, 0 },
		{ "0x10000000000000000", -ERANGE, 0 },
		/* Overflow is reported before trailing garbage, as in _kstrtoull(). */
		{ "99999999999999999999x", -ERANGE, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t v = 12345;
		int ret = parse_u64(cases[i].in, &v);

		CU_ASSERT_EQUAL(ret, cases[i].ret);
		if (ret != cases[i].ret)
			fprintf(stderr, "parse_u64(\"%s\") = %d\n", cases[i].in, ret);
		CU_ASSERT_EQUAL(v, ret ? 12345 : cases[i].val);
	}
}

struct s64_case {
	const char *in;
	int ret;
	int64_t val;
};

static void test_parse_s64_table(void)
{
	static const struct s64_case cases[] = {
		{ "-20", 0, -20 },
		{ "-20\n", 0, -20 },
		{ "19", 0, 19 },
		{ "+19", 0, 19 },
		{ "-0", 0, 0 },
		{ "-0x10", 0, -16 },
		{ "-010", 0, -8 },
		{ "9223372036854775807", 0, INT64_MAX },
		{ "-9223372036854775808", 0, INT64_MIN },
		{ "9223372036854775808", -ERANGE, 0 },
		{ "-9223372036854775809", -ERANGE, 0 },
		{ "18446744073709551616", -ERANGE, 0 },
		{ "-18446744073709551616", -ERANGE, 0 },
		{ "--1", -EINVAL, 0 },
		{ "-+1", -EINVAL, 0 },
		{ "+-1", -EINVAL, 0 },
		{ "-", -EINVAL, 0 },
		{ " -1", -EINVAL, 0 },
		{ "-1 ", -EINVAL, 0 },
		{ "1.5", -EINVAL, 0 },
		{ "", -EINVAL, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int64_t v = 777;
		int ret = parse_s64(cases[i].in, &v);

		CU_ASSERT_EQUAL(ret, cases[i].ret);
		if (ret != cases[i].ret)
			fprintf(stderr, "parse_s64(\"%s\") = %d\n", cases[i].in, ret);
		CU_ASSERT_EQUAL(v, ret ? 777 : cases[i].val);
	}
}

static void test_parse_int_range(void)
{
	int v = 5;

	CU_ASSERT_EQUAL(parse_int("2147483647", &v), 0);
	CU_ASSERT_EQUAL(v, INT_MAX);
	CU_ASSERT_EQUAL(parse_int("-2147483648\n", &v), 0);
	CU_ASSERT_EQUAL(v, INT_MIN);
	v = 5;
	CU_ASSERT_EQUAL(parse_int("2147483648", &v), -ERANGE);
	CU_ASSERT_EQUAL(parse_int("-2147483649", &v), -ERANGE);
	CU_ASSERT_EQUAL(parse_int("1 2", &v), -EINVAL);
	CU_ASSERT_EQUAL(v, 5);
}

static void test_parse_isspace_and_strstrip(void)
{
	char a[] = " \t threaded \n", b[] = "\n\n", c[] = "x", d[] = "\xa0max\xa0";
	const char *sp = " \t\n\v\f\r\xa0";
	int i, n = 0;

	for (i = 0; i < 256; i++)
		n += parse_isspace((char)i);
	CU_ASSERT_EQUAL(n, 7);
	while (*sp)
		CU_ASSERT_TRUE(parse_isspace(*sp++));
	CU_ASSERT_STRING_EQUAL(parse_strstrip(a), "threaded");
	CU_ASSERT_STRING_EQUAL(parse_strstrip(b), "");
	CU_ASSERT_STRING_EQUAL(parse_strstrip(c), "x");
	CU_ASSERT_STRING_EQUAL(parse_strstrip(d), "max");
}

static void test_parse_scan_primitives(void)
{
	const char *p = "  12345678901234567890123 4";
	char tok[21];
	uint64_t v = 0;

	CU_ASSERT_TRUE(parse_scan_str(&p, tok, 20));
	CU_ASSERT_STRING_EQUAL(tok, "12345678901234567890");
	CU_ASSERT_TRUE(parse_scan_ull(&p, &v));	/* the rest of the long token */
	CU_ASSERT_EQUAL(v, 123);
	CU_ASSERT_TRUE(parse_scan_ull(&p, &v));
	CU_ASSERT_EQUAL(v, 4);
	CU_ASSERT_FALSE(parse_scan_ull(&p, &v));	/* input used up */
	CU_ASSERT_FALSE(parse_scan_str(&p, tok, 20));

	p = "-5";
	CU_ASSERT_FALSE(parse_scan_ull(&p, &v));	/* %llu takes no sign */
	p = "+5";
	CU_ASSERT_FALSE(parse_scan_ull(&p, &v));
	p = " \n";
	CU_ASSERT_TRUE(parse_scan_str(&p, tok, 20));	/* converts an empty token */
	CU_ASSERT_STRING_EQUAL(tok, "");
	/* simple_strntoull() wraps modulo 2^64 */
	p = "18446744073709551621";
	CU_ASSERT_TRUE(parse_scan_ull(&p, &v));
	CU_ASSERT_EQUAL(v, 5);
	CU_ASSERT_EQUAL(*p, '\0');
	p = "0x10";
	CU_ASSERT_TRUE(parse_scan_ull(&p, &v));	/* base 10: stops at 'x' */
	CU_ASSERT_EQUAL(v, 0);
	CU_ASSERT_EQUAL(*p, 'x');
}

struct max_case {
	const char *in;
	int ret;
	uint64_t quota, period;	/* expected, with period preloaded to 250000 */
};

#define INF UINT64_MAX

static void test_parse_cpu_max_table(void)
{
	static const struct max_case cases[] = {
		{ "max", 0, INF, 250000 },
		{ "max\n", 0, INF, 250000 },
		{ "max 50000", 0, INF, 50000 },
		{ "1000", 0, 1000, 250000 },
		{ "1000\n", 0, 1000, 250000 },
		{ "1000 100000", 0, 1000, 100000 },
		{ "  1000\t100000\n", 0, 1000, 100000 },
		{ "1000 100000 5000", 0, 1000, 100000 },
		{ "1000 abc", 0, 1000, 250000 },
		{ "1000 -5", 0, 1000, 250000 },
		{ "1000abc", 0, 1000, 250000 },
		{ "100000abc 100000", 0, 100000, 100000 },
		{ "0", 0, 0, 250000 },	/* syntax is fine; the setter rejects it */
		{ "1000 0x10", 0, 1000, 0 },
		{ "max 18446744073709551621", 0, INF, 5 },	/* %llu wraps */
		{ "12345678901234567890123", -EINVAL, 0, 0 },	/* quota too big for ns */
		{ "1234567890123456 1000", 0, 1234567890123456ULL, 1000 },
		{ "18446744073709551 1000", 0, 18446744073709551ULL, 1000 },	/* U64_MAX/1000 */
		{ "18446744073709552 1000", -EINVAL, 0, 0 },
		{ "18446744073709551615", -EINVAL, 0, 0 },	/* digits never mean "max" */
		{ "max 18446744073709552", -EINVAL, 0, 0 },
		{ "-1", -EINVAL, 0, 0 },
		{ "-1 100000", -EINVAL, 0, 0 },
		{ "+1000", -EINVAL, 0, 0 },
		{ "MAX", -EINVAL, 0, 0 },
		{ "maxx", -EINVAL, 0, 0 },
		{ "unlimited", -EINVAL, 0, 0 },
		{ "", -EINVAL, 0, 0 },
		{ "\n", -EINVAL, 0, 0 },
		{ "   ", -EINVAL, 0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t q = 42, p = 250000;
		int ret = parse_cpu_max(cases[i].in, &q, &p);

		CU_ASSERT_EQUAL(ret, cases[i].ret);
		if (ret != cases[i].ret)
			fprintf(stderr, "parse_cpu_max(\"%s\") = %d\n", cases[i].in, ret);
		CU_ASSERT_EQUAL(q, ret ? 42 : cases[i].quota);
		CU_ASSERT_EQUAL(p, ret ? 250000 : cases[i].period);
	}
}

static CU_TestInfo parse_tests[] = {
	{ "kstrtoull table", test_parse_u64_table },
	{ "kstrtoll table", test_parse_s64_table },
	{ "kstrtoint range", test_parse_int_range },
	{ "isspace and strstrip", test_parse_isspace_and_strstrip },
	{ "vsscanf primitives", test_parse_scan_primitives },
	{ "cpu.max syntax table", test_parse_cpu_max_table },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/parse", parse_tests)
