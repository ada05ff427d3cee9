// SPDX-License-Identifier: GPL-2.0
/*
 * What a domain is refused or warned about beyond <cputune> and the groups themselves:
 * <vcpu placement cpuset> and the name's characters as libvirt 9.0 reads them (each case
 * checked with `virsh define` against libvirtd 9.0.0 here), the warning a vsched VM gives for
 * what it does not honour, and vsched's elements where they are not read.
 */
#include <string.h>

#include "libvirt_util.h"
#include "libvirt/plan.h"
#include "util/compiler.h"
#include "test.h"

#define NS "https://vsched.dev/xmlns/groups/1.0"
#define HEAD "<domain><name>t</name><memory>64</memory>\n"

/* The warnings of parsing xml, and with vsched those a vsched VM adds (plan_warn_vsched()),
 * each followed by '|'. */
static void warnings_of(const char *xml, bool vsched, char *out, size_t len)
{
	struct domain_def def;
	struct diag d;
	size_t i, n = 0;

	out[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	if (vsched)
		CU_ASSERT_EQUAL(plan_warn_vsched(&def, &d), 0);
	for (i = 0; i < d.nr_warn && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s|", d.warn[i]);
	domain_free(&def);
	diag_free(&d);
}

static void vcpu_warnings(const char *xml, char *out, size_t len)
{
	warnings_of(xml, true, out, len);
}

static void parse_warnings(const char *xml, char *out, size_t len)
{
	warnings_of(xml, false, out, len);
}

/* placement is 'static' or 'auto'; a cpuset (not read with 'auto') is a non-empty list. */
static void test_vcpu_placement_refused(void)
{
	expect_parse_error(HEAD "<vcpu placement='bogus'>2</vcpu></domain>", "t.xml:2: <vcpu> 'bogus'",
			   "Invalid value for attribute 'placement' in element 'vcpu': 'bogus'.");
	expect_parse_error(HEAD "<vcpu placement=''>2</vcpu></domain>", "t.xml:2: <vcpu> ''",
			   "attribute 'placement'");
	expect_parse_error(HEAD "<vcpu cpuset=''>2</vcpu></domain>", "t.xml:2: <vcpu> ''",
			   "Failed to parse bitmap ''");
	expect_parse_error(HEAD "<vcpu cpuset='0,^0'>2</vcpu></domain>", "t.xml:2: <vcpu> '0,^0'",
			   "Invalid value of 'cpuset': 0,^0");
	expect_parse_error(HEAD "<vcpu cpuset='0-99999'>2</vcpu></domain>",
			   "t.xml:2: <vcpu> '0-99999'", "Failed to parse bitmap");
}

/* A vsched VM places its vCPUs on its lanes: both are named, with <vcpu>'s line. */
static void test_vcpu_placement_warned(void)
{
	char w[1024];

	vcpu_warnings(HEAD "<vcpu cpuset=' 1-2 '>2</vcpu></domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:2: <vcpu>: cpuset='1-2': "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "default pinning is not applied|"));
	/* 'auto' drops the cpuset unread, as libvirt does. */
	vcpu_warnings(HEAD "\n<vcpu placement='auto' cpuset='x'>2</vcpu></domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:3: <vcpu>: placement='auto': "));
	CU_ASSERT_PTR_NULL(strstr(w, "cpuset"));
	/* Without placement, numatune's 'auto' makes it 'auto' (virsh dumpxml shows so). */
	vcpu_warnings(HEAD "<vcpu>2</vcpu><numatune><memory placement='auto'/></numatune>"
		      "</domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:2: <vcpu>: placement='auto': "));
	vcpu_warnings(HEAD "<vcpu placement='static'>2</vcpu></domain>", w, sizeof(w));
	CU_ASSERT_STRING_EQUAL(w, "");
}

/* libvirt refuses a newline in a name ("invalid char in name"), not a tab. */
static void test_name_newline(void)
{
	char w[256];

	expect_parse_error("<domain>\n<name>a&#10;b</name><memory>64</memory></domain>",
			   "t.xml:2: <name>", "invalid char in name: '\\n'");
	vcpu_warnings("<domain><name>a&#9;b</name><memory>64</memory></domain>", w, sizeof(w));
}

/* <groups> under <domain> or inside another namespace's element was dropped without a word. */
static void test_stray_groups(void)
{
	char w[1024];

	parse_warnings(HEAD "<v:groups xmlns:v='" NS "'><v:group name='a'/></v:groups></domain>",
		       w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:2: <groups>: vsched's namespace (" NS ") is "
				      "read only in a child of <metadata>; this element is ignored|"));
	parse_warnings(HEAD "<metadata><x:a xmlns:x='urn:x'>\n<x:b><v:groups xmlns:v='" NS "'/>"
		       "</x:b></x:a></metadata></domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:3: <groups>: "));
	/* Other versions too; the one read, and <cputune>'s own warning, are not repeated. */
	parse_warnings(HEAD "<devices><v:groups xmlns:v='https://vsched.dev/xmlns/groups/2.0'/>"
		       "</devices><metadata><v:groups xmlns:v='" NS "'><v:group name='a'/>"
		       "</v:groups></metadata><cputune><v:shares xmlns:v='" NS "'>5</v:shares>"
		       "</cputune></domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "(https://vsched.dev/xmlns/groups/2.0)"));
	CU_ASSERT_PTR_NULL(strstr(w, "(" NS ")"));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "<shares>: unknown element in <cputune>"));
	parse_warnings(HEAD "<metadata><v:groups xmlns:v='" NS "'><v:group name='a'/></v:groups>"
		       "</metadata></domain>", w, sizeof(w));
	CU_ASSERT_STRING_EQUAL(w, "");
}

/*
 * What only libvirt's QEMU driver applies (emulator and iothread caps, pins and policies,
 * resctrl, vCPU policies) is libvirt's on a QEMU domain: nothing said while parsing (the hook
 * said "ignored" of what libvirt applies). A vsched VM names each, once, with its line.
 */
static void test_libvirt_only_elements(void)
{
	static const char xml[] = HEAD "<vcpu>4</vcpu><iothreads>1</iothreads><cputune>\n"
		"<emulator_quota>20000</emulator_quota><iothread_period>2000</iothread_period>\n"
		"<iothreadpin iothread='1' cpuset='0'/><emulatorsched scheduler='batch'/>\n"
		"<vcpusched vcpus='0' scheduler='rr' priority='1'/>"
		"<vcpusched vcpus='1' scheduler='rr' priority='2'/>\n"
		"<vcpusched vcpus='2' scheduler='batch'/><cachetune vcpus='3'/></cputune></domain>";
	static const char *const named[] = {
		"t.xml:3: <emulator_quota>: vsched has no emulator thread group; ignored|",
		"t.xml:3: <iothread_period>: vsched has no iothreads; ignored|",
		"t.xml:4: <iothreadpin>: vsched has no iothreads; ignored|",
		"t.xml:4: <emulatorsched>: vsched has no emulator thread to schedule; ignored|",
		"t.xml:5: <vcpusched>: real-time scheduler 'rr' is not used by vsched",
		"t.xml:6: <vcpusched>: scheduler 'batch': vsched groups have no batch class",
		"t.xml:6: <cachetune>: vsched does not drive resctrl (CAT); ignored|",
	};
	char w[2048];
	size_t i;

	parse_warnings(xml, w, sizeof(w));
	CU_ASSERT_STRING_EQUAL(w, "");
	vcpu_warnings(xml, w, sizeof(w));
	for (i = 0; i < ARRAY_SIZE(named); i++) {
		if (!strstr(w, named[i]))
			printf("\n    missing: %s\n    in: %s\n", named[i], w);
		CU_ASSERT_PTR_NOT_NULL(strstr(w, named[i]));
	}
	/* The second rr element repeats the first's reason: one warning. */
	CU_ASSERT_PTR_NULL(strstr(w, "t.xml:6: <vcpusched>: real-time"));
}

/* A group's burst without a quota: the kernel takes it and nothing changes. */
static void test_burst_without_quota(void)
{
	char w[512];

	parse_warnings(HEAD "<vcpu>2</vcpu><metadata><v:groups xmlns:v='" NS "'>\n"
		       "<v:group name='g' burst='5000'/>\n<v:group name='h' quota='-1' burst='1'/>"
		       "\n<v:group name='k' quota='20000' burst='5000'/></v:groups></metadata>"
		       "</domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:3: <group>: 'g': burst 5000 has no effect "
				      "without a quota (the group is not capped)|"));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:4: <group>: 'h': burst 1 has no effect"));
	CU_ASSERT_PTR_NULL(strstr(w, "'k'"));
}

/*
 * Domain-level tuning a vsched VM does not apply is named with its line (it was dropped without
 * a word, and <vcpus> put vCPUs 0-1 online where the domain enabled 0 and 3); on a QEMU domain
 * it is libvirt's and said nothing of.
 */
static void test_domain_knobs(void)
{
	static const char xml[] = HEAD "<vcpu current='2'>4</vcpu>\n<vcpus>"
		"<vcpu id='0' enabled='yes'/><vcpu id='1' enabled='no'/>"
		"<vcpu id='2' enabled='no'/><vcpu id='3' enabled='yes'/></vcpus>\n"
		"<currentMemory>32</currentMemory>\n<cpu><topology sockets='1' cores='2' "
		"threads='2'/></cpu>\n<numatune><memory mode='strict' nodeset='0'/></numatune>\n"
		"<memtune><hard_limit>128</hard_limit></memtune>\n<blkiotune><weight>800</weight>"
		"</blkiotune>\n<memoryBacking><hugepages/></memoryBacking>\n"
		"<maxMemory slots='2'>1024</maxMemory></domain>";
	char w[4096];

	vcpu_warnings(xml, w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:3: <vcpus>: enabled vCPUs '0,3': vsched has no "
				      "vCPU hot-plug and starts vCPUs '0-1'; not applied|"));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:4: <currentMemory>: vsched has no balloon"));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:5: <cpu>: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:6: <numatune>: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:7: <memtune>: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:8: <blkiotune>: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:9: <memoryBacking>: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:10: <maxMemory>: "));
	parse_warnings(xml, w, sizeof(w));
	CU_ASSERT_STRING_EQUAL(w, "");
	/* The enabled set of a plain start, and all of <memory> current: nothing to say. */
	vcpu_warnings(HEAD "<vcpu current='2'>3</vcpu><vcpus><vcpu id='0' enabled='yes'/>"
		      "<vcpu id='1' enabled='yes'/><vcpu id='2' enabled='no'/></vcpus>"
		      "<currentMemory unit='KiB'>64</currentMemory></domain>", w, sizeof(w));
	CU_ASSERT_STRING_EQUAL(w, "");
}

static CU_TestInfo tests[] = {
	{ "a group's burst without a quota is warned about", test_burst_without_quota },
	{ "libvirt-only elements: named on a vsched VM only", test_libvirt_only_elements },
	{ "vsched elements outside <metadata> are warned about", test_stray_groups },
	{ "vcpu placement and cpuset refused as libvirt", test_vcpu_placement_refused },
	{ "vcpu placement and cpuset warned on a vsched VM", test_vcpu_placement_warned },
	{ "a newline in the name is refused", test_name_newline },
	{ "domain tuning a vsched VM does not apply is named", test_domain_knobs },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_warn", tests);
