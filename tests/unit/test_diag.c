// SPDX-License-Identifier: GPL-2.0
/* util/diag: one error message with its place, first one kept, warnings collected. */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "util/diag.h"

static void test_diag_place(void)
{
	struct diag d;

	diag_init(&d, "dom.xml");
	CU_ASSERT_FALSE(diag_failed(&d));
	CU_ASSERT_EQUAL(diag_at(&d, -EINVAL, 7, "shares", "0", "must be %d or more", 2), -EINVAL);
	CU_ASSERT_TRUE(diag_failed(&d));
	CU_ASSERT_STRING_EQUAL(d.msg, "dom.xml:7: <shares> '0': must be 2 or more");
	/* the first error stays: later ones are consequences */
	CU_ASSERT_EQUAL(diag_set(&d, -ENOENT, "later"), -ENOENT);
	CU_ASSERT_STRING_EQUAL(d.msg, "dom.xml:7: <shares> '0': must be 2 or more");

	diag_init(&d, "dom.xml");
	diag_at(&d, -EINVAL, 0, "vcpu", NULL, "no line");
	CU_ASSERT_STRING_EQUAL(d.msg, "dom.xml: <vcpu>: no line");
	diag_init(&d, NULL);
	diag_at(&d, -EINVAL, 3, NULL, NULL, "unknown key '%s'", "x");
	CU_ASSERT_STRING_EQUAL(d.msg, "line 3: unknown key 'x'");
	diag_init(&d, NULL);
	diag_set(&d, -EIO, "%s", "plain");
	CU_ASSERT_STRING_EQUAL(d.msg, "plain");
	/* no diag: the errno still comes back */
	CU_ASSERT_EQUAL(diag_set(NULL, -EPERM, "dropped"), -EPERM);
}

static void test_diag_quote_and_warnings(void)
{
	static const char src[] = "<domain>\n  <shares>   0</shares>\n</domain>\n";
	struct diag d;

	diag_init(&d, "libvirt's XML");
	d.src = src;
	d.src_len = sizeof(src) - 1;
	diag_at(&d, -EINVAL, 2, "shares", "0", "too small");
	CU_ASSERT_STRING_EQUAL(d.msg, "libvirt's XML:2: <shares> '0': too small "
				      "[line 2: `<shares> 0</shares>`]");
	CU_ASSERT_EQUAL(diag_warn(&d, 1, "domain", "ignored %s", "attr"), 0);
	CU_ASSERT_EQUAL(diag_warn(&d, 0, "cputune", "no line"), 0);
	CU_ASSERT_EQUAL_FATAL(d.nr_warn, 2);
	CU_ASSERT_STRING_EQUAL(d.warn[0],
			       "libvirt's XML:1: <domain>: ignored attr [line 1: `<domain>`]");
	CU_ASSERT_STRING_EQUAL(d.warn[1], "libvirt's XML: <cputune>: no line");
	diag_free(&d);
	CU_ASSERT_EQUAL(d.nr_warn, 0);
	CU_ASSERT_PTR_NULL(d.warn);
}

static CU_TestInfo diag_tests[] = {
	{ "message placed at file, line, element, value", test_diag_place },
	{ "source line quoted, warnings collected", test_diag_quote_and_warnings },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/diag", diag_tests)
