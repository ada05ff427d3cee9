// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>

#include "test.h"
#include "vmm/payload.h"

static void test_payload_parse_kinds(void)
{
	struct payload_spec s;
	char buf[64];

	CU_ASSERT_EQUAL(payload_parse_kind("hog", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_HOG);
	CU_ASSERT_EQUAL(payload_parse_kind("duty:3000/7000", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_DUTY);
	CU_ASSERT_EQUAL(s.arg[0], 3000);
	CU_ASSERT_EQUAL(s.arg[1], 7000);
	CU_ASSERT_EQUAL(payload_format(&s, buf, sizeof(buf)), 14);
	CU_ASSERT_STRING_EQUAL(buf, "duty:3000/7000");
	CU_ASSERT_EQUAL(payload_parse_kind("halt-duty:1/4000000", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_HALT_DUTY);
	CU_ASSERT_EQUAL(payload_parse_kind("io:7", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_IO);
	CU_ASSERT_EQUAL(s.arg[0], 7);
	CU_ASSERT_EQUAL(payload_format(&s, buf, sizeof(buf)), 4);
	CU_ASSERT_STRING_EQUAL(buf, "io:7");
	CU_ASSERT_EQUAL(payload_parse_kind("count:5", &s), 0);
	CU_ASSERT_EQUAL(payload_parse_kind("probe", &s), 0);
	CU_ASSERT_EQUAL(payload_parse_kind("emufail", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_EMUFAIL);
	CU_ASSERT_EQUAL(payload_parse_kind("steal", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_STEAL);
	CU_ASSERT_EQUAL(payload_parse_kind("fault", &s), 0);
	CU_ASSERT_EQUAL(s.kind, PAYLOAD_FAULT);
}

static void test_payload_parse_kind_errors_keep_spec(void)
{
	const char *bad[] = { "", "hogs", "hog:", "hog:1", "duty", "duty:", "duty:5",
			      "duty:5/", "duty:/5", "duty:0/5", "duty:5/0", "duty:-1/5",
			      "duty:5/5/5", "duty: 5/5", "io", "io:0", "io:x", "io:1x",
			      "halt-duty:1/4000001", "duty:99999999999999999999/1", "count:", "emufail:1",
			      "steal:1" };
	struct payload_spec s = { .kind = PAYLOAD_IO, .arg = { 42, 0 } };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CU_ASSERT_EQUAL(payload_parse_kind(bad[i], &s), -EINVAL);
		CU_ASSERT_EQUAL(s.kind, PAYLOAD_IO);
		CU_ASSERT_EQUAL(s.arg[0], 42);
	}
}

static void test_payload_assign_lists(void)
{
	struct payload_spec s[4] = { 0 };

	CU_ASSERT_EQUAL(payload_parse_assign("0-1=hog,2-3=duty:3000/7000", 4, s), 0);
	CU_ASSERT_EQUAL(s[0].kind, PAYLOAD_HOG);
	CU_ASSERT_EQUAL(s[1].kind, PAYLOAD_HOG);
	CU_ASSERT_EQUAL(s[2].kind, PAYLOAD_DUTY);
	CU_ASSERT_EQUAL(s[3].arg[1], 7000);

	/* Commas inside a list: "0,2=io:5" is one list {0,2}. */
	memset(s, 0, sizeof(s));
	CU_ASSERT_EQUAL(payload_parse_assign("0,2=io:5,1=hog", 4, s), 0);
	CU_ASSERT_EQUAL(s[0].kind, PAYLOAD_IO);
	CU_ASSERT_EQUAL(s[2].kind, PAYLOAD_IO);
	CU_ASSERT_EQUAL(s[1].kind, PAYLOAD_HOG);
	CU_ASSERT_EQUAL(s[3].kind, 0);
	/* A bare kind fills only the vCPUs still without one. */
	CU_ASSERT_EQUAL(payload_parse_assign("probe", 4, s), 0);
	CU_ASSERT_EQUAL(s[3].kind, PAYLOAD_PROBE);
	CU_ASSERT_EQUAL(s[0].kind, PAYLOAD_IO);
	/* cpuset exclusions work inside a list. */
	memset(s, 0, sizeof(s));
	CU_ASSERT_EQUAL(payload_parse_assign("0-3,^2=hog", 4, s), 0);
	CU_ASSERT_EQUAL(s[2].kind, 0);
	CU_ASSERT_EQUAL(s[3].kind, PAYLOAD_HOG);
}

static void test_payload_assign_errors_keep_specs(void)
{
	struct payload_spec s[4] = { { .kind = PAYLOAD_IO, .arg = { 9 } } };

	CU_ASSERT_EQUAL(payload_parse_assign("0-4=hog", 4, s), -ERANGE);
	CU_ASSERT_EQUAL(payload_parse_assign("1=hog,1=io:3", 4, s), -EEXIST);
	CU_ASSERT_EQUAL(payload_parse_assign("0=hog", 4, s), -EEXIST);	/* 0 already has io */
	CU_ASSERT_EQUAL(payload_parse_assign("1=hog,2", 4, s), -EINVAL);
	CU_ASSERT_EQUAL(payload_parse_assign("1=hog,", 4, s), -EINVAL);
	CU_ASSERT_EQUAL(payload_parse_assign(",1=hog", 4, s), -EINVAL);
	CU_ASSERT_EQUAL(payload_parse_assign("1=nope", 4, s), -EINVAL);
	CU_ASSERT_EQUAL(payload_parse_assign("=hog", 4, s), -EINVAL);
	CU_ASSERT_EQUAL(payload_parse_assign("2=hog,3=bad", 4, s), -EINVAL);
	CU_ASSERT_EQUAL(s[0].kind, PAYLOAD_IO);
	CU_ASSERT_EQUAL(s[0].arg[0], 9);
	CU_ASSERT_EQUAL(s[1].kind, 0);
	CU_ASSERT_EQUAL(s[2].kind, 0);
	CU_ASSERT_EQUAL(s[3].kind, 0);
}

static CU_TestInfo payload_spec_tests[] = {
	{ "kinds parse and format", test_payload_parse_kinds },
	{ "bad kinds keep the spec", test_payload_parse_kind_errors_keep_spec },
	{ "per-vCPU lists", test_payload_assign_lists },
	{ "assignment errors keep specs", test_payload_assign_errors_keep_specs },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("vmm/payload-spec", payload_spec_tests)
