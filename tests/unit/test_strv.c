// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "test.h"
#include "util/strv.h"

static void test_strv_push_copies_in_order(void)
{
	struct strv sv = { 0 };
	char name[8] = "a";
	unsigned int i;

	for (i = 0; i < 100; i++) {
		name[0] = (char)('a' + i % 26);
		CU_ASSERT_EQUAL_FATAL(strv_push(&sv, name), 0);
	}
	name[0] = '?';		/* copies: the caller's buffer may change */
	CU_ASSERT_EQUAL(sv.nr, 100);
	CU_ASSERT_STRING_EQUAL(sv.v[0], "a");
	CU_ASSERT_STRING_EQUAL(sv.v[27], "b");
	CU_ASSERT_STRING_EQUAL(sv.v[99], "v");
	strv_free(&sv);
	CU_ASSERT_EQUAL(sv.nr, 0);
	CU_ASSERT_PTR_NULL(sv.v);
	strv_free(&sv);		/* an empty one too */
}

static CU_TestInfo strv_tests[] = {
	{ "push copies, in order; free empties", test_strv_push_copies_in_order },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/strv", strv_tests)
