/* SPDX-License-Identifier: GPL-2.0 */
/* Shared helpers of the libvirt unit tests: parse a domain from a string or the test data. */
#ifndef VSCHED_TESTS_LIBVIRT_UTIL_H
#define VSCHED_TESTS_LIBVIRT_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/CUnit.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "test.h"

#include "libvirt/domain.h"

/* A domain around a <cputune> body and a <metadata> body; vcpu count as a string. */
#define DOM_HEAD(vcpus)                                                                     \
	"<domain type='kvm'>\n<name>t</name>\n<memory unit='MiB'>64</memory>\n"              \
	"<vcpu placement='static'>" vcpus "</vcpu>\n"

static inline int parse_str(const char *xml, struct domain_def *def, struct diag *d)
{
	diag_init(d, "t.xml");
	return domain_parse_memory(xml, strlen(xml), def, d);
}

/* xml is refused with one message naming where and text, and nothing of the domain is kept. */
static inline void expect_parse_error(const char *xml, const char *where, const char *text)
{
	struct domain_def def;
	struct diag d;

	CU_ASSERT_EQUAL(parse_str(xml, &def, &d), -EINVAL);
	if (!strstr(d.msg, where) || !strstr(d.msg, text))
		printf("\n    got: %s\n    want: %s ... %s\n", d.msg, where, text);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, where));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, text));
	CU_ASSERT_PTR_NULL(def.name);
	diag_free(&d);
}

/* d warned with a message that contains needle. */
static inline bool libvirt_has_warning(const struct diag *d, const char *needle)
{
	size_t i;

	for (i = 0; i < d->nr_warn; i++)
		if (strstr(d->warn[i], needle))
			return true;
	return false;
}

/* $SHARED, or ../shared next to the repository (tests run from the repository root). */
static inline const char *shared_dir(void)
{
	const char *s = getenv("SHARED");

	return s && *s ? s : "../shared";
}

/*
 * The path of a file of ../shared/testdata (a clone of its own has no ../shared): false, with a
 * counted, visible skip naming what is missing, when the testdata directory is absent. A file
 * missing from a present directory is the test's failure, not a skip.
 */
static inline bool testdata_file(const char *rel, char *buf, size_t len)
{
	char why[PATH_MAX + 128];
	struct stat st;

	snprintf(buf, len, "%s/testdata", shared_dir());
	if (stat(buf, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(why, sizeof(why), "%s is absent (no ../shared next to this clone): %s not "
			 "tested", buf, rel);
		test_skip(why);
		return false;
	}
	snprintf(buf, len, "%s/testdata/%s", shared_dir(), rel);
	return true;
}

#endif
