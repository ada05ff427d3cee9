// SPDX-License-Identifier: GPL-2.0
/*
 * Domains libvirtd 9.0 accepts (each case checked here with `virsh define`, and `virsh start`
 * under TCG where it says so) must not be refused: the hook would stop a domain libvirt starts.
 * And what libvirt refuses is refused with its words. Found by the hostile run of branch
 * libvirt3 (docs/libvirt.md).
 */
#include <string.h>

#include "libvirt_util.h"
#include "libvirt/plan.h"
#include "libvirt/vgroups.h"
#include "util/compiler.h"
#include "test.h"

#define HEAD "<domain>\n<name>t</name><memory>64</memory>\n<vcpu>2</vcpu>\n"

/* xml parses; its warnings, each followed by '|', go to out. */
static void accepted(const char *xml, char *out, size_t len)
{
	struct domain_def def;
	struct diag d;
	size_t i, n = 0;
	int ret;

	out[0] = '\0';
	ret = parse_str(xml, &def, &d);
	if (ret)
		printf("\n    refused: %s\n", d.msg);
	CU_ASSERT_EQUAL_FATAL(ret, 0);
	for (i = 0; i < d.nr_warn && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s|", d.warn[i]);
	domain_free(&def);
	diag_free(&d);
}

/*
 * Host CPU lists go to 16383 in libvirt (VIR_DOMAIN_CPUMASK_LEN); vsched refused 1024 and up
 * ("Invalid value of 'cpuset': 5000"), so the hook stopped such a domain on a large host.
 */
static void test_host_cpus_beyond_1023(void)
{
	char w[1024];

	accepted(HEAD "<cputune><vcpupin vcpu='0' cpuset='1024-1025,16383'/>"
		 "<emulatorpin cpuset='5000'/></cputune></domain>", w, sizeof(w));
	accepted("<domain>\n<name>t</name><memory>64</memory>\n<vcpu cpuset='8191'>2</vcpu>"
		 "<iothreads>1</iothreads><cputune><iothreadpin iothread='1' cpuset='4096'/>"
		 "</cputune></domain>", w, sizeof(w));
	expect_parse_error(HEAD "<cputune><vcpupin vcpu='0' cpuset='16384'/></cputune></domain>",
			   "t.xml:4: <vcpupin> '16384'", "Failed to parse bitmap '16384'");
	expect_parse_error(HEAD "<cputune><emulatorpin cpuset='5000,^5000'/></cputune></domain>",
			   "t.xml:4: <emulatorpin> '5000,^5000'", "Invalid value of 'cpuset'");
	expect_parse_error("<domain>\n<name>t</name><memory>64</memory>\n"
			   "<vcpu cpuset='0-16384'>2</vcpu></domain>", "t.xml:3: <vcpu> '0-16384'",
			   "Failed to parse bitmap '0-16384'");
}

/*
 * <vcpupin vcpu> is an unsigned int to libvirt 9.0: 65536 and 4294967295 define and start (the
 * pin is ignored, "Ignoring vcpupin for missing vcpus"); vsched refused above 65535.
 */
static void test_vcpupin_vcpu_uint(void)
{
	char w[1024];

	accepted(HEAD "<cputune><vcpupin vcpu='65536' cpuset='0'/>"
		 "<vcpupin vcpu='4294967295' cpuset='0'/></cputune></domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "Ignoring vcpupin for missing vcpus (vcpu 65536)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "(vcpu 4294967295)"));
	expect_parse_error(HEAD "<cputune><vcpupin vcpu='4294967296' cpuset='0'/></cputune>"
			   "</domain>", "t.xml:4: <vcpupin> '4294967296'",
			   "Invalid value for attribute 'vcpu' in element 'vcpupin'");
}

/*
 * <vcpus> is libvirt's master for which vCPUs are online: current='1' with both listed enabled
 * starts two (libvirtd 9.0 dumps current='2'); {0 yes, 1 no, 2 yes} starts vCPUs 0 and 2, and
 * the hook moved vCPUs 0 and 1 instead: "moving vCPU 1 to g/vcpu1: No such process", exit 1 at
 * 'started', and libvirt killed the domain.
 */
static void test_vcpus_master(void)
{
	struct domain_def def;
	struct diag d;
	struct plan p;
	unsigned int i, moved = 0;

	CU_ASSERT_EQUAL_FATAL(parse_str("<domain><name>t</name><memory>64</memory>"
		"<vcpu current='1'>2</vcpu><vcpus><vcpu id='0' enabled='yes' hotpluggable='no'/>"
		"<vcpu id='1' enabled='yes' hotpluggable='yes' order='2'/></vcpus></domain>",
		&def, &d), 0);
	CU_ASSERT_EQUAL(def.vcpus, 2);
	CU_ASSERT_EQUAL(cpuset_count(&def.online), 2);
	domain_free(&def);
	diag_free(&d);

	CU_ASSERT_EQUAL_FATAL(parse_str("<domain><name>t</name><memory>64</memory>"
		"<vcpu>3</vcpu><vcpus><vcpu id='0' enabled='yes' hotpluggable='no'/>"
		"<vcpu id='1' enabled='no' hotpluggable='yes'/><vcpu id='2' enabled='yes' "
		"hotpluggable='yes'/></vcpus><metadata><v:groups xmlns:v='" VGROUPS_NS "'>"
		"<v:group name='g'/><v:assign vcpus='0-2' group='g'/></v:groups></metadata>"
		"</domain>", &def, &d), 0);
	CU_ASSERT_EQUAL(def.vcpus, 2);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, PLAN_LIBVIRT_VCPUS, &p), 0);
	for (i = 0; i < p.nr; i++)
		if (p.ops[i].kind == PLAN_MOVE) {
			CU_ASSERT(p.ops[i].vcpu == 0 || p.ops[i].vcpu == 2);
			moved++;
		}
	CU_ASSERT_EQUAL(moved, 2);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/* With vCPUs listed in <vcpus>, libvirt does not check current's range (libvirtd 9.0 defines
 * current='0' and current='5' of 2 as current='1'); vsched refused them. */
static void test_vcpus_current_ignored(void)
{
	static const char *const cur[] = { "0", "5" };
	struct domain_def def;
	struct diag d;
	char xml[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cur); i++) {
		snprintf(xml, sizeof(xml), "<domain><name>t</name><memory>64</memory><vcpu "
			 "current='%s'>2</vcpu><vcpus><vcpu id='0' enabled='yes'/></vcpus></domain>",
			 cur[i]);
		CU_ASSERT_EQUAL(parse_str(xml, &def, &d), 0);
		if (d.msg[0])
			printf("\n    current='%s': %s\n", cur[i], d.msg);
		CU_ASSERT_EQUAL(def.vcpus, 1);
		domain_free(&def);
		diag_free(&d);
	}
	/* Without <vcpus> both stay refused, and a bad value always is. */
	expect_parse_error("<domain><name>t</name><memory>64</memory>\n<vcpu current='0'>2</vcpu>"
			   "</domain>", "t.xml:2: <vcpu> '0'", "current vcpus count must be an integer");
	expect_parse_error("<domain><name>t</name><memory>64</memory>\n<vcpu current='3'>2</vcpu>"
			   "</domain>", "t.xml:2: <vcpu> '3'",
			   "maxvcpus must not be less than current vcpus (2 < 3)");
	expect_parse_error("<domain><name>t</name><memory>64</memory>\n<vcpu current='x'>2</vcpu>"
			   "<vcpus><vcpu id='0' enabled='yes'/></vcpus></domain>", "t.xml:2: <vcpu> 'x'",
			   "Invalid value for attribute 'current' in element 'vcpu'");
}

/* libvirt's refusals of <vcpus>, each seen with `virsh define` (the last two: its QEMU driver). */
static void test_vcpus_refused(void)
{
#define V3 "<domain><name>t</name><memory>64</memory>\n<vcpu>3</vcpu><vcpus>\n"
	expect_parse_error(V3 "<vcpu id='0' enabled='yes'/><vcpu id='0' enabled='no'/></vcpus>"
			   "</domain>", "<vcpus>", "vcpu 0 can't be offline");
	expect_parse_error(V3 "<vcpu id='1' enabled='yes'/></vcpus></domain>", "<vcpus>",
			   "vcpu 0 can't be offline");
	expect_parse_error(V3 "<vcpu id='5' enabled='yes'/></vcpus></domain>",
			   "t.xml:3: <vcpu> '5'", "vcpu id '5' is out of range of maximum vcpu count");
	expect_parse_error(V3 "<vcpu id='0'/></vcpus></domain>", "t.xml:3: <vcpu>",
			   "Missing required attribute 'enabled' in element 'vcpu'");
	expect_parse_error(V3 "<vcpu enabled='yes'/></vcpus></domain>", "t.xml:3: <vcpu>",
			   "Missing required attribute 'id' in element 'vcpu'");
	expect_parse_error(V3 "<vcpu id='x' enabled='yes'/></vcpus></domain>", "<vcpu> 'x'",
			   "Invalid value for attribute 'id' in element 'vcpu': 'x'.");
	expect_parse_error(V3 "<vcpu id='0' enabled='maybe'/></vcpus></domain>", "<vcpu> 'maybe'",
			   "Invalid value for attribute 'enabled' in element 'vcpu': 'maybe'.");
	expect_parse_error(V3 "<vcpu id='0' enabled='yes' order='x'/></vcpus></domain>",
			   "<vcpu> 'x'", "Invalid value for attribute 'order'");
	expect_parse_error(V3 "<vcpu id='0' enabled='yes' hotpluggable='no'/><vcpu id='1' "
			   "enabled='no' hotpluggable='no'/></vcpus></domain>", "<vcpus> '1'",
			   "vcpu '1' is both offline and not hotpluggable");
	expect_parse_error(V3 "<vcpu id='0' enabled='yes' hotpluggable='yes'/></vcpus></domain>",
			   "<vcpus>", "vcpu0 can't be hotpluggable");
#undef V3
}

/* libvirt refuses a second <emulatorsched> ("only one emulatorsched is supported"); vsched
 * ignored it with a warning, so `vsched run` started a domain `virsh define` refuses. */
static void test_emulatorsched_one(void)
{
	expect_parse_error(HEAD "<cputune><emulatorsched scheduler='idle'/>\n"
			   "<emulatorsched scheduler='batch'/></cputune></domain>",
			   "t.xml:5: <emulatorsched>", "only one emulatorsched is supported");
}

/*
 * A hand-written <vs:groups> with unprefixed children: libvirt keeps them in no namespace (virsh
 * dumpxml shows <group name="a"/>), and the message said "unknown element <group> ... (expected
 * <group> or <assign>)", which does not tell what is wrong.
 */
static void test_groups_child_without_namespace(void)
{
	expect_parse_error(HEAD "<metadata><v:groups xmlns:v='" VGROUPS_NS "'>\n<group name='a'/>"
			   "</v:groups></metadata></domain>", "t.xml:5: <group>",
			   "in the namespace " VGROUPS_NS ", e.g. <vs:group>");
}

/*
 * The contents of <cachetune>/<memorytune>, each case as libvirtd 9.0 defined or refused it
 * (libvirt's cachetune-colliding-{allocs,types,monitor}.xml and memorytune-colliding-allocs.xml
 * among them); vsched refused none of them before.
 */
static void test_resctrl_contents(void)
{
#define CACHE(t) "<cache id='0' level='3' type='" t "' size='12'/>"
	static const struct {
		const char *body, *msg;	/* msg NULL: accepted */
	} cases[] = {
		{ "<cachetune vcpus='0'>" CACHE("code") CACHE("code") "</cachetune>",
		  "Colliding cache allocations for cache level '3' id '0', type 'code'" },
		{ "<cachetune vcpus='0'>" CACHE("both") CACHE("code") "</cachetune>",
		  "Colliding cache allocations for cache level '3' id '0', type 'code'" },
		{ "<cachetune vcpus='0'>" CACHE("code") CACHE("both") "</cachetune>", "type 'both'" },
		{ "<cachetune vcpus='0'>" CACHE("data") CACHE("code") "</cachetune>", NULL },
		{ "<cachetune vcpus='0'>" CACHE("both") "<cache id='0' level='2' type='both' "
		  "size='12'/></cachetune>", NULL },
		{ "<cachetune vcpus='0-1'>" CACHE("both") "<monitor level='3' vcpus='2'/></cachetune>",
		  "Monitor vcpus conflicts with allocation" },
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='0'/><monitor level='3' "
		  "vcpus='0'/></cachetune>", "Identical vcpus found in same type monitors" },
		{ "<cachetune vcpus='0-2'><monitor level='3' vcpus='0-1'/><monitor level='3' "
		  "vcpus='1'/></cachetune>", "vcpus overlaps in resctrl groups" },
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='0'/><monitor level='3' "
		  "vcpus='1'/></cachetune>", NULL },
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='7'/></cachetune>",
		  "vcpus is empty" },
		{ "<cachetune vcpus='0'><monitor level='2' vcpus='0'/></cachetune>",
		  "Invalid monitor cache level '2'" },
		{ "<cachetune vcpus='0'><monitor level='3'/></cachetune>",
		  "Missing monitor attribute 'vcpus'" },
		{ "<cachetune vcpus='0'><cache level='3' type='both' size='12'/></cachetune>",
		  "Missing required attribute 'id' in element 'cache'" },
		{ "<cachetune vcpus='0'><cache id='0' level='3' type='foo' size='12'/></cachetune>",
		  "Invalid value for attribute 'type' in element 'cache': 'foo'." },
		{ "<cachetune vcpus='0'><cache id='0' level='3' type='both'/></cachetune>",
		  "missing element or attribute './@size'" },
		{ "<cachetune vcpus='0'><cache id='0' level='3' type='both' size='-1'/></cachetune>",
		  "Invalid value '-1' for element or attribute './@size'" },
		{ "<cachetune vcpus='0'><cache id='0' level='3' type='both' size='12' unit='foo'/>"
		  "</cachetune>", "unknown suffix 'foo'" },
		{ "<cachetune vcpus='0'><foo/></cachetune>", NULL },
		{ "<memorytune vcpus='0'><node id='0' bandwidth='50'/><node id='0' bandwidth='50'/>"
		  "</memorytune>", "Memory Bandwidth already defined for node 0" },
		{ "<memorytune vcpus='0'><node id='0' bandwidth='101'/></memorytune>",
		  "Memory Bandwidth value exceeding 100 is invalid." },
		{ "<memorytune vcpus='0'><node id='0'/></memorytune>",
		  "Missing required attribute 'bandwidth' in element 'node'" },
		{ "<memorytune vcpus='0'><node id='0' bandwidth='100'/><monitor vcpus='0'/>"
		  "</memorytune>", NULL },
	};
	char xml[1024], w[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(xml, sizeof(xml), "<domain><name>t</name><memory>64</memory>\n"
			 "<vcpu>4</vcpu>\n<cputune>\n%s</cputune></domain>", cases[i].body);
		if (cases[i].msg)
			expect_parse_error(xml, "t.xml:4: <", cases[i].msg);
		else
			accepted(xml, w, sizeof(w));
	}
#undef CACHE
}

/*
 * libvirt ignores a <vcpupin> of a missing vCPU before it reads its cpuset: libvirtd 9.0 defines
 * <vcpupin vcpu='5'/> of 2 vCPUs without a cpuset, or with cpuset='x' or '^0'; vsched refused
 * them (found by a random differential run against libvirtd, 250 domains).
 */
static void test_vcpupin_missing_vcpu_unread(void)
{
	static const char *const pins[] = { "<vcpupin vcpu='5'/>", "<vcpupin vcpu='5' cpuset='x'/>",
					    "<vcpupin vcpu='2' cpuset='0,^0'/>" };
	char xml[256], w[512];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pins); i++) {
		snprintf(xml, sizeof(xml), HEAD "<cputune>%s</cputune></domain>", pins[i]);
		accepted(xml, w, sizeof(w));
		CU_ASSERT_PTR_NOT_NULL(strstr(w, "Ignoring vcpupin for missing vcpus"));
	}
	expect_parse_error(HEAD "<cputune><vcpupin vcpu='1'/></cputune></domain>",
			   "t.xml:4: <vcpupin>", "missing cpuset for vcpupin");
}

/*
 * A <cachetune>/<memorytune> left with no vCPU of the domain is dropped by libvirt, its contents
 * unread (libvirtd 9.0 defines vcpus='7' or '0,^0' of 2 vCPUs around a bad <cache> or <node>, and
 * vcpus='16383'); its list goes to 16383 ("Invalid cachetune attribute 'vcpus' value '16384'").
 */
static void test_resctrl_without_vcpus_unread(void)
{
	char w[512];

	accepted(HEAD "<cputune><cachetune vcpus='7'><cache id='0' level='3' type='foo' size='1'/>"
		 "</cachetune><memorytune vcpus='0,^0'><node id='0' bandwidth='101'/></memorytune>"
		 "<cachetune vcpus='16383'/></cputune></domain>", w, sizeof(w));
	expect_parse_error(HEAD "<cputune><cachetune vcpus='16384'/></cputune></domain>",
			   "t.xml:4: <cachetune> '16384'",
			   "Invalid cachetune attribute 'vcpus' value '16384'");
	expect_parse_error(HEAD "<cputune><cachetune vcpus='1-7'><cache id='0' level='3' "
			   "type='foo' size='1'/></cachetune></cputune></domain>", "t.xml:4: <cache>",
			   "Invalid value for attribute 'type' in element 'cache': 'foo'.");
}

static CU_TestInfo tests[] = {
	{ "host CPU lists up to 16383", test_host_cpus_beyond_1023 },
	{ "vcpupin vcpu is an unsigned int", test_vcpupin_vcpu_uint },
	{ "<vcpus> decides which vCPUs are online", test_vcpus_master },
	{ "<vcpus> refused as libvirt refuses it", test_vcpus_refused },
	{ "<vcpus> makes current's range unchecked", test_vcpus_current_ignored },
	{ "a second <emulatorsched> is refused", test_emulatorsched_one },
	{ "a <groups> child in no namespace is named so", test_groups_child_without_namespace },
	{ "<cachetune>/<memorytune> contents as libvirt", test_resctrl_contents },
	{ "a vcpupin of a missing vCPU is not read", test_vcpupin_missing_vcpu_unread },
	{ "a resctrl element without vCPUs is not read", test_resctrl_without_vcpus_unread },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_accept", tests);
