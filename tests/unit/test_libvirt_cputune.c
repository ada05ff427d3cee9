// SPDX-License-Identifier: GPL-2.0
/* Domain XML parsing of <cputune>: ranges and lists as libvirt validates them, iothread ids,
 * numbers as libvirt reads them. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "libvirt_util.h"
#include "libvirt/plan.h"
#include "util/compiler.h"
#include "test.h"

#define TUNE(body) DOM_HEAD("4") "<cputune>\n" body "\n</cputune>\n</domain>"

static void test_cputune_ranges(void)
{
	struct domain_def def;
	struct diag d;

	expect_parse_error(TUNE("<shares>many</shares>"), "t.xml:6: <shares> 'many'",
		     "can't parse cputune shares value");
	expect_parse_error(TUNE("<shares>-5</shares>"), "<shares> '-5'",
		     "can't parse cputune shares value");
	expect_parse_error(TUNE("<period>999</period>"), "t.xml:6: <period> '999'",
		     "Value of cputune 'period' must be in range [1000, 1000000]");
	expect_parse_error(TUNE("<quota>5</quota>\n<period>1000001</period>"),
		     "t.xml:6: <quota> '5'",
		     "Value of cputune 'quota' must be in range [1000, 17592186044415]");
	expect_parse_error(TUNE("<global_period>1000001</global_period>"),
		     "<global_period> '1000001'",
		     "Value of cputune 'global_period' must be in range [1000, 1000000]");
	expect_parse_error(TUNE("<global_quota>17592186044416</global_quota>"),
		     "<global_quota> '17592186044416'", "must be in range [1000, 17592186044415]");
	expect_parse_error(TUNE("<emulator_quota>12.5</emulator_quota>"),
		     "<emulator_quota> '12.5'", "can't parse cputune emulator_quota value");

	/* Edges that pass: 0 = unset, any negative = unlimited, the largest quota. */
	CU_ASSERT_EQUAL_FATAL(parse_str(TUNE("<period>0</period><quota>-17</quota>"
					     "<global_period>1000</global_period>"
					     "<global_quota>17592186044415</global_quota>"
					     "<shares>262144</shares>"), &def, &d), 0);
	CU_ASSERT_EQUAL(def.tune.vcpu.period, 0);
	CU_ASSERT_EQUAL(def.tune.vcpu.quota, -17);
	CU_ASSERT_EQUAL(def.tune.global.period, 1000);
	CU_ASSERT_EQUAL(def.tune.global.quota, 17592186044415LL);
	CU_ASSERT_EQUAL(def.tune.shares, 262144);
	domain_free(&def);
	diag_free(&d);

	/* Scalars: the first counts (XPath name[1]), later ones are warned about. */
	CU_ASSERT_EQUAL_FATAL(parse_str(TUNE("<period>2000</period>\n<period>5</period>"), &def,
					&d), 0);
	CU_ASSERT_EQUAL(def.tune.vcpu.period, 2000);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "t.xml:7: <period>: only the first"));
	domain_free(&def);
	diag_free(&d);
}

static void test_cputune_lists(void)
{
	struct domain_def def;
	struct diag d;

	expect_parse_error(TUNE("<vcpupin cpuset='1'/>"), "t.xml:6: <vcpupin>",
		     "missing vcpu id in vcpupin");
	expect_parse_error(TUNE("<vcpupin vcpu='x' cpuset='1'/>"), "<vcpupin> 'x'",
		     "Invalid value for attribute 'vcpu' in element 'vcpupin': 'x'. Expected "
		     "non-negative integer value");
	expect_parse_error(TUNE("<vcpupin vcpu='1'/>"), "<vcpupin>", "missing cpuset for vcpupin");
	expect_parse_error(TUNE("<vcpupin vcpu='1' cpuset='0'/>\n<vcpupin vcpu='1' cpuset='1'/>"),
		     "t.xml:7: <vcpupin> '1'", "duplicate vcpupin for vcpu '1'");
	expect_parse_error(TUNE("<vcpupin vcpu='1' cpuset='0,^0'/>"), "<vcpupin> '0,^0'",
		     "Invalid value of 'cpuset'");
	expect_parse_error(TUNE("<emulatorpin cpuset='0'/><emulatorpin cpuset='1'/>"),
		     "<emulatorpin>", "only one emulatorpin is supported");
	expect_parse_error(TUNE("<vcpusched scheduler='idle'/>"), "<vcpusched>",
		     "Missing attribute 'vcpus' in element 'vcpussched'");
	expect_parse_error(TUNE("<vcpusched vcpus='0' scheduler='fair'/>"), "<vcpusched> 'fair'",
		     "Invalid scheduler attribute: 'fair'");
	expect_parse_error(TUNE("<vcpusched vcpus='0' scheduler='fifo'/>"), "<vcpusched>",
		     "Missing scheduler priority");
	expect_parse_error(TUNE("<vcpusched vcpus='5' scheduler='idle'/>"), "<vcpusched> '5'",
		     "invalid vcpu '5' for vcpusched");
	expect_parse_error(TUNE("<iothreadpin iothread='1' cpuset='0'/>"), "<iothreadpin> '1'",
		     "Cannot find 'iothread' : 1");
	expect_parse_error(TUNE("<cachetune><cache id='0' level='3' type='both' size='3' "
			  "unit='MiB'/></cachetune>"),
		     "<cachetune>", "Missing attribute 'vcpus' in element 'cachetune'");

	/*
	 * resctrl groups as libvirt's virDomainResctrlVcpuMatch(): cachetunes (all read before the
	 * memorytunes) neither overlap nor repeat one another; a memorytune may equal one, not
	 * overlap it (libvirt's cachetune-colliding-tunes and memorytune-colliding-cachetune).
	 * vCPUs beyond the domain's do not count (cachetune-extra-tunes).
	 */
	expect_parse_error(TUNE("<cachetune vcpus='0'/>\n<cachetune vcpus='0'/>"),
			   "t.xml:7: <cachetune> '0'", "Identical vcpus in cachetunes found");
	expect_parse_error(TUNE("<memorytune vcpus='0'/>\n<cachetune vcpus='0-1'/>"),
			   "t.xml:6: <memorytune> '0'", "Overlapping vcpus in resctrls");
	expect_parse_error(TUNE("<cachetune vcpus='0-1'/>\n<cachetune vcpus='1-2'/>"),
			   "t.xml:7: <cachetune> '1-2'", "Overlapping vcpus in resctrls");
	CU_ASSERT_EQUAL(parse_str(TUNE("<cachetune vcpus='0-1'/><memorytune vcpus='0-1'/>"
				       "<cachetune vcpus='2,100'/><cachetune vcpus='3,100'/>"),
				  &def, &d), 0);
	domain_free(&def);
	diag_free(&d);

	/* vcpupin beyond the vCPUs: libvirt only warns. vcpusched idle maps to cpu.idle. */
	CU_ASSERT_EQUAL_FATAL(parse_str(TUNE("<vcpupin vcpu='9' cpuset='0'/>"
					     "<vcpusched vcpus='1-2' scheduler='idle'/>"
					     "<emulator_period>2000</emulator_period>"
					     "<memorytune vcpus='0'><node id='0' bandwidth='20'/>"
					     "</memorytune>"
					     "<cachetune vcpus='1'/><bogus/>"), &def, &d), 0);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "Ignoring vcpupin for missing vcpus"));
	CU_ASSERT_EQUAL(def.tune.vcpus[1].policy, VCPU_SCHED_IDLE);
	CU_ASSERT_EQUAL(def.tune.vcpus[2].policy, VCPU_SCHED_IDLE);
	CU_ASSERT_EQUAL(def.tune.vcpus[0].policy, VCPU_SCHED_NONE);
	CU_ASSERT_EQUAL(def.tune.emulator.period, 2000);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<bogus>: unknown element"));
	/* What libvirt alone applies is named on a vsched VM (plan_warn_vsched()). */
	CU_ASSERT_FALSE(libvirt_has_warning(&d, "<emulator_period>"));
	CU_ASSERT_EQUAL(plan_warn_vsched(&def, &d), 0);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<emulator_period>: vsched has no emulator"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<memorytune>: vsched does not drive resctrl"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<cachetune>: vsched does not drive resctrl"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<bogus>: unknown element"));
	domain_free(&def);
	diag_free(&d);
}

/*
 * iothread ids as libvirt numbers them: the <iothreadids> given, then the lowest free ids up to
 * the <iothreads> count (libvirt's iothreads-ids-partial.xml: 4 iothreads, ids 5 and 6 given,
 * so 1, 2, 5, 6). Any id may be large: a pin of iothread 3999999 crashed the parser.
 */
static void test_iothread_ids(void)
{
	struct domain_def def;
	struct diag d;
	const char *head = "<domain><name>i</name><memory>1024</memory>\n<iothreads>4</iothreads>"
			   "<iothreadids><iothread id='5'/><iothread id='6'/></iothreadids>\n";
	char xml[512];

	snprintf(xml, sizeof(xml), "%s<cputune><iothreadpin iothread='6' cpuset='0'/>"
		 "<iothreadpin iothread='2' cpuset='0'/><iothreadsched iothreads='1,5' "
		 "scheduler='batch'/></cputune></domain>", head);
	CU_ASSERT_EQUAL(parse_str(xml, &def, &d), 0);
	domain_free(&def);
	diag_free(&d);
	snprintf(xml, sizeof(xml), "%s<cputune>\n<iothreadpin iothread='3' cpuset='0'/></cputune>"
		 "</domain>", head);
	expect_parse_error(xml, "t.xml:4: <iothreadpin> '3'", "Cannot find 'iothread' : 3");
	expect_parse_error("<domain><name>i</name><memory>1024</memory><iothreads>1</iothreads>\n"
			   "<iothreadids><iothread id='7'/><iothread id='7'/></iothreadids></domain>",
			   "t.xml:2: <iothread> '7'", "Duplicate iothread id '7' found");
	expect_parse_error("<domain><name>i</name><memory>1024</memory><iothreadids>\n"
			   "<iothread id='0'/></iothreadids></domain>", "t.xml:2: <iothread> '0'",
			   "invalid iothread 'id' value '0'");
	expect_parse_error("<domain><name>i</name><memory>1024</memory>\n"
			   "<iothreads>4000000</iothreads><cputune>\n"
			   "<iothreadpin iothread='3999999' cpuset='0'/>\n"
			   "<iothreadpin iothread='2999999' cpuset='0'/>\n"
			   "<iothreadpin iothread='3999999' cpuset='1'/></cputune></domain>",
			   "t.xml:5: <iothreadpin>", "duplicate iothreadpin for same iothread "
			   "'3999999'");
}

/*
 * Numbers as libvirt 9.0 reads them, each case seen with `virsh define` on libvirtd 9.0.0:
 * strtoull/strtoll in base 10 with nothing left over, so leading blanks and '+' pass, trailing
 * blanks do not; unsigned values refuse '-'; an empty <cputune> scalar or <iothreads> is
 * absent; the text of an element is all its text (comments and CDATA do not split it).
 */
static void test_numbers_as_libvirt(void)
{
	static const struct {
		const char *tune;
		bool ok;
		unsigned long long shares;
	} cases[] = {
		{ "<shares> 300 </shares>", false, 0 },
		{ "<shares>300\n</shares>", false, 0 },
		{ "<shares>+300</shares>", true, 300 },
		{ "<shares>\t300</shares>", true, 300 },
		{ "<shares>\n300</shares>", true, 300 },
		{ "<shares>010</shares>", true, 10 },
		{ "<shares>0x10</shares>", false, 0 },
		{ "<shares>-0</shares>", false, 0 },
		{ "<shares>18446744073709551616</shares>", false, 0 },
		{ "<shares>3<!-- c -->00</shares>", true, 300 },
		{ "<shares><![CDATA[300]]></shares>", true, 300 },
		{ "<shares></shares>", true, 0 },
		{ "<shares/>", true, 0 },
		{ "<shares></shares><shares>400</shares>", true, 0 },	/* the first counts */
	};
	struct domain_def def;
	struct diag d;
	char xml[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		int ret;

		snprintf(xml, sizeof(xml), TUNE("%s"), cases[i].tune);
		ret = parse_str(xml, &def, &d);
		if ((ret == 0) != cases[i].ok)
			printf("\n    %s: %d %s\n", cases[i].tune, ret, d.msg);
		CU_ASSERT_EQUAL(ret == 0, cases[i].ok);
		if (!ret) {
			CU_ASSERT_EQUAL(def.tune.shares_set, cases[i].shares != 0);
			CU_ASSERT_EQUAL(def.tune.shares, cases[i].shares);
		} else {
			CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "can't parse cputune shares value"));
		}
		domain_free(&def);
		diag_free(&d);
	}
	expect_parse_error(TUNE("<period>-1</period>"), "<period> '-1'",
			   "can't parse cputune period value");
	expect_parse_error(TUNE("<quota>-1 </quota>"), "<quota> '-1 '",
			   "can't parse cputune quota value");
	expect_parse_error(DOM_HEAD(" 2 ") "</domain>", "<vcpu> ' 2 '",
			   "maximum vcpus count must be an integer");
	expect_parse_error("<domain><name>x</name><memory>64</memory><vcpu current='1 '>2</vcpu>"
			   "</domain>", "<vcpu> '1 '",
			   "Invalid value for attribute 'current' in element 'vcpu'");
	expect_parse_error(DOM_HEAD("2") "<iothreads>2 </iothreads></domain>",
			   "<iothreads> '2 '", "invalid iothreads count '2 '");
	expect_parse_error(TUNE("<vcpusched vcpus='0' scheduler='fifo' priority='5 '/>"),
			   "<vcpusched> '5 '", "Invalid value for attribute 'priority' in element "
			   "'vcpusched': '5 '. Expected integer value");
	expect_parse_error(TUNE("<vcpupin vcpu='' cpuset='0'/>"), "<vcpupin> ''",
			   "Expected non-negative integer value");
	expect_parse_error("<domain><name>x</name><memory unit='MiB'>64 </memory></domain>",
			   "<memory> '64 '", "Invalid value '64 '");

	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("\n+2") "<iothreads></iothreads>"
					"<cputune><quota> -5</quota><period>+2000</period>"
					"<vcpupin vcpu=' +1' cpuset=' 0'/>"
					"<vcpusched vcpus='0' scheduler='fifo' priority='-5'/>"
					"</cputune></domain>", &def, &d), 0);
	CU_ASSERT_EQUAL(def.max_vcpus, 2);
	CU_ASSERT_EQUAL(def.iothreads.count, 0);
	CU_ASSERT_EQUAL(def.tune.vcpu.quota, -5);
	CU_ASSERT_EQUAL(def.tune.vcpu.period, 2000);
	CU_ASSERT_TRUE(def.tune.vcpus[1].pinned);
	CU_ASSERT_EQUAL(def.tune.vcpus[0].priority, -5);
	domain_free(&def);
	diag_free(&d);
}

static CU_TestInfo cputune_tests[] = {
	{ "iothread ids as libvirt numbers them", test_iothread_ids },
	{ "cputune ranges as libvirt validates", test_cputune_ranges },
	{ "cputune list elements and warnings", test_cputune_lists },
	{ "numbers as libvirt 9.0 reads them", test_numbers_as_libvirt },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_domain cputune", cputune_tests);
