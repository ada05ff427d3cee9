// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "test.h"
#include "util/word.h"

static void test_word_escape_one_word(void)
{
	char buf[64] = "> ";
	size_t n = 2;

	word_escape(buf, sizeof(buf), &n, "web 1\\\x1b]0;x\x7f\xc3\xa9");
	CU_ASSERT_STRING_EQUAL(buf, "> web\\x201\\x5c\\x1b]0;x\\x7f\xc3\xa9");
	CU_ASSERT_EQUAL(n, strlen(buf));
}

/* A byte's \xNN form is never cut: the string ends before it. */
static void test_word_escape_truncates_whole(void)
{
	char buf[8];
	size_t n = 0;

	word_escape(buf, sizeof(buf), &n, "abcd efgh");
	CU_ASSERT_STRING_EQUAL(buf, "abcd");
	CU_ASSERT_EQUAL(n, 4);
	n = 0;
	word_escape(buf, sizeof(buf), &n, "abcdefghij");
	CU_ASSERT_STRING_EQUAL(buf, "abcdefg");
	CU_ASSERT_EQUAL(n, 7);
	n = 30;			/* a prefix that already filled it (snprintf's would-be length) */
	word_escape(buf, sizeof(buf), &n, "x");
	CU_ASSERT_EQUAL(n, 7);
	CU_ASSERT_EQUAL(buf[7], '\0');
}

static CU_TestInfo word_tests[] = {
	{ "spaces, backslashes and control bytes as \\xNN", test_word_escape_one_word },
	{ "truncates before a form that does not fit", test_word_escape_truncates_whole },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/word", word_tests)
