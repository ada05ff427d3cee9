// SPDX-License-Identifier: GPL-2.0
/* The vsched groups element of <metadata>: parsing and validation. */
#include <errno.h>
#include <string.h>

#include "libvirt_util.h"
#include "util/compiler.h"
#include "test.h"

#define NS "https://vsched.dev/xmlns/groups/1.0"
#define META(body)                                                                          \
	DOM_HEAD("4") "<metadata>\n<v:groups xmlns:v='" NS "'>\n" body                        \
	"\n</v:groups>\n</metadata>\n</domain>"

static void test_vgroups_parse(void)
{
	struct domain_def def;
	struct diag d;
	const struct vgroup *g;
	int lat, bg;

	/* Children before parents, assignment before its group: document order is free. */
	CU_ASSERT_EQUAL_FATAL(parse_str(META(
		"<v:assign vcpus='3' group='bg'/>\n"
		"<v:group name='bg' parent='batch' idle='yes'/>\n"
		"<v:group name='latency' weight='400' period='100000' quota='150000' "
		"burst='20000'/>\n"
		"<v:group name='batch' weight='50' quota='-1'/>\n"
		"<v:assign vcpus='0-2,^1' group='latency'/>"), &def, &d), 0);
	CU_ASSERT_TRUE(def.groups.present);
	CU_ASSERT_EQUAL_FATAL(def.groups.nr, 3);
	/* Sorted parents first: depth-1 groups, in document order, then bg. */
	CU_ASSERT_STRING_EQUAL(def.groups.g[0].name, "latency");
	CU_ASSERT_STRING_EQUAL(def.groups.g[1].name, "batch");
	CU_ASSERT_STRING_EQUAL(def.groups.g[2].name, "bg");
	CU_ASSERT_STRING_EQUAL(def.groups.g[2].path, "batch/bg");
	CU_ASSERT_EQUAL(def.groups.g[2].parent, 1);
	g = &def.groups.g[0];
	CU_ASSERT_TRUE(g->weight_set && g->weight == 400);
	CU_ASSERT_EQUAL(g->period, 100000);
	CU_ASSERT_EQUAL(g->quota, 150000);
	CU_ASSERT_EQUAL(g->burst, 20000);
	CU_ASSERT_TRUE(def.groups.g[2].idle);
	CU_ASSERT_TRUE(def.groups.g[1].quota < 0);
	lat = 0;
	bg = 2;
	CU_ASSERT_EQUAL(def.groups.vcpu_group[0], lat);
	CU_ASSERT_EQUAL(def.groups.vcpu_group[1], -1);
	CU_ASSERT_EQUAL(def.groups.vcpu_group[2], lat);
	CU_ASSERT_EQUAL(def.groups.vcpu_group[3], bg);
	domain_free(&def);
	diag_free(&d);

	/* Foreign namespaces in <metadata> are someone else's; ours may be absent or empty. */
	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("2") "<metadata><n:x xmlns:n='urn:other'>"
					"<n:group/></n:x></metadata></domain>", &def, &d), 0);
	CU_ASSERT_FALSE(def.groups.present);
	domain_free(&def);
	diag_free(&d);
	CU_ASSERT_EQUAL_FATAL(parse_str(META(""), &def, &d), 0);
	CU_ASSERT_TRUE(def.groups.present);
	CU_ASSERT_EQUAL(def.groups.nr, 0);
	domain_free(&def);
	diag_free(&d);
}

/*
 * Names that are control files on a host's cgroup tree (v1 and v2) or in a control directory:
 * refused while parsing, before a plan could fail half way on the real tree.
 */
static void expect_control_file_names(void)
{
	static const char *const bad[] = {
		"tasks", "notify_on_release", "release_agent", "cgroup.procs",
		"cgroup.clone_children",
		"cpu.max", "cpu.shares", "cpuacct.usage", "cpuset.cpus", "memory.max", "io.weight",
		"blkio.weight", "pids.max", "devices.allow", "freezer.state", "hugetlb.2MB.max",
		"rdma.max", "misc.max", "net_cls.classid", "perf_event.x", "irq.pressure",
		"vsched.vcpus", "cpu.anything",
	};
	static const char *const good[] = { "cpu", "tasks2", "memory-hog", "io_bound", "web.v2",
					    "cpux.max", "Cpu.max" };
	char xml[1024], where[128];
	struct domain_def def;
	struct diag d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(xml, sizeof(xml), META("<v:group name='%s'/>"), bad[i]);
		snprintf(where, sizeof(where), "<group> '%s'", bad[i]);
		expect_parse_error(xml, where, "the name of a cgroup control file");
	}
	for (i = 0; i < ARRAY_SIZE(good); i++) {
		snprintf(xml, sizeof(xml), META("<v:group name='%s'/>"), good[i]);
		CU_ASSERT_EQUAL(parse_str(xml, &def, &d), 0);
		domain_free(&def);
		diag_free(&d);
	}
}

static void test_vgroups_errors(void)
{
	expect_parse_error(META("<v:assign vcpus='0' group='nope'/>"), "t.xml:7: <assign> 'nope'",
			  "unknown group");
	expect_parse_error(META("<v:group name='a'/>\n<v:assign vcpus='0-1' group='a'/>\n"
			       "<v:group name='b'/>\n<v:assign vcpus='1' group='b'/>"),
			  "t.xml:10: <assign> '1'", "vCPU 1 is already assigned to group 'a'");
	expect_parse_error(META("<v:group name='a'/>\n<v:assign vcpus='2-4' group='a'/>"),
			  "t.xml:8: <assign> '2-4'", "vCPU 4 is beyond the domain's 4 vCPUs");
	expect_parse_error(META("<v:group name='a' parent='c'/>\n<v:group name='b' parent='a'/>\n"
			       "<v:group name='c' parent='b'/>"),
			  "<group> 'a'", "nesting cycle: a -> c -> b -> a");
	expect_parse_error(META("<v:group name='x'/>\n<v:group name='a' parent='a'/>"),
			  "t.xml:8: <group> 'a'", "nesting cycle: a -> a");
	expect_parse_error(META("<v:group name='a' parent='zz'/>"), "t.xml:7: <group> 'zz'",
			  "unknown parent group of 'a'");
	expect_parse_error(META("<v:group name='a' weight='0'/>"), "t.xml:7: <group> '0'",
			  "weight must be in range [1, 10000]");
	expect_parse_error(META("<v:group name='a' weight='10001'/>"), "<group> '10001'",
			  "weight must be in range [1, 10000]");
	expect_parse_error(META("<v:group name='a' quota='999'/>"), "t.xml:7: <group> '999'",
			  "Value of group 'quota' must be in range [1000, 17592186044415]");
	expect_parse_error(META("<v:group name='a' period='2000000'/>"), "<group> '2000000'",
			  "Value of group 'period' must be in range [1000, 1000000]");
	expect_parse_error(META("<v:group name='a' idle='maybe'/>"), "<group> 'maybe'",
			  "idle must be 'yes' or 'no'");
	expect_parse_error(META("<v:group name='a' idle='yes' weight='5'/>"), "<group> 'a'",
			  "weight and idle='yes' are exclusive");
	expect_parse_error(META("<v:group name='a' quota='5000' burst='6000'/>"), "<group> 'a'",
			  "burst 6000 is larger than quota 5000");
	expect_parse_error(META("<v:group name='a' wieght='5'/>"), "<group> 'wieght'",
			  "unknown attribute");
	expect_parse_error(META("<v:grop name='a'/>"), "<grop>", "unknown element in <groups>");
	/* Nesting is parent='...': an element inside <group> or <assign> was dropped unread. */
	expect_parse_error(META("<v:group name='a'>\n<v:group name='b'/></v:group>"),
			  "t.xml:8: <group>:", "inside <group> 'a'");
	expect_parse_error(META("<v:group name='a'/>\n<v:assign vcpus='0' group='a'>"
			       "<x:weight xmlns:x='urn:x'>5</x:weight></v:assign>"),
			  "t.xml:8: <weight>:", "inside <assign>");
	expect_parse_error(META("<v:group name='a'/><v:group name='a'/>"), "<group> 'a'",
			  "duplicate group (first defined on line 7)");
	expect_parse_error(META("<v:group name='a/b'/>"), "<group> 'a/b'",
			  "a group name uses only");
	expect_parse_error(META("<v:group name='vcpu3'/>"), "<group> 'vcpu3'",
			  "libvirt's thread groups");
	expect_parse_error(META("<v:group name='.hidden'/>"), "<group> '.hidden'",
			  "may not start with '.'");
	expect_control_file_names();
	expect_parse_error(META("<v:assign vcpus='0-' group='a'/><v:group name='a'/>"),
			  "<assign> '0-'", "cpuset syntax");
	expect_parse_error(DOM_HEAD("2") "<metadata>\n<v:groups xmlns:v='"
			  "https://vsched.dev/xmlns/groups/2.0'/></metadata></domain>",
			  "t.xml:6: <groups> 'https://vsched.dev/xmlns/groups/2.0'",
			  "unsupported vsched groups namespace");
}

/*
 * A second element of our namespace in <metadata>: `virsh define` (libvirtd 9.0) keeps the first
 * and drops it, so vsched reads the first and names the second; it refused the file before.
 */
static void test_vgroups_second_element(void)
{
	struct domain_def def;
	struct diag d;

	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("2") "<metadata>\n<v:groups xmlns:v='" NS "'>"
					"<v:group name='a'/><v:assign vcpus='0' group='a'/>"
					"</v:groups>\n<w:groups xmlns:w='" NS "'><w:group "
					"name='b' weight='0'/></w:groups></metadata></domain>",
					&def, &d), 0);
	CU_ASSERT_EQUAL(def.groups.nr, 1);
	CU_ASSERT_STRING_EQUAL(def.groups.g[0].name, "a");
	CU_ASSERT_EQUAL(def.groups.vcpu_group[0], 0);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "t.xml:7: <groups>: a second element of namespace"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "only the first (line 6) is read"));
	domain_free(&def);
	diag_free(&d);
	/* The first element of the namespace is the one read: a wrong name there is refused. */
	/* A prefixed attribute is named with its prefix ("'name': unknown attribute" before). */
	expect_parse_error(META("<v:group v:name='a'/>"), "t.xml:7: <group> 'v:name'",
			  "attribute in namespace " NS ": vsched's attributes have no prefix");
	/* Our prefix redeclared to another URI inside <groups>: that URI is named. */
	expect_parse_error(META("<v:group name='a' xmlns:v='urn:x'/>"), "t.xml:7: <group> 'urn:x'",
			  "element in another namespace inside <groups>");
	expect_parse_error(META("<v:group name='a' xml:lang='en'/>"), "<group> 'xml:lang'",
			  "attribute in namespace http://www.w3.org/XML/1998/namespace");
	expect_parse_error(DOM_HEAD("2") "<metadata>\n<v:group xmlns:v='" NS "'/>\n"
			  "<w:groups xmlns:w='" NS "'/></metadata></domain>",
			  "t.xml:6: <group>", "the top-level element is <groups>");
}

static void test_vgroups_depth(void)
{
	char xml[8192], body[6000];
	size_t n = 0;
	int i;
	struct domain_def def;
	struct diag d;

	/* A chain of VGROUP_DEPTH_MAX groups is fine, one more is not. */
	n += (size_t)snprintf(body + n, sizeof(body) - n, "<v:group name='g0'/>");
	for (i = 1; i < VGROUP_DEPTH_MAX; i++)
		n += (size_t)snprintf(body + n, sizeof(body) - n,
				      "<v:group name='g%d' parent='g%d'/>", i, i - 1);
	snprintf(xml, sizeof(xml), DOM_HEAD("4") "<metadata><v:groups xmlns:v='" NS "'>%s"
		 "</v:groups></metadata></domain>", body);
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	CU_ASSERT_EQUAL(def.groups.g[VGROUP_DEPTH_MAX - 1].depth, VGROUP_DEPTH_MAX);
	domain_free(&def);
	diag_free(&d);
	snprintf(body + n, sizeof(body) - n, "<v:group name='deep' parent='g%d'/>",
		 VGROUP_DEPTH_MAX - 1);
	snprintf(xml, sizeof(xml), DOM_HEAD("4") "<metadata><v:groups xmlns:v='" NS "'>%s"
		 "</v:groups></metadata></domain>", body);
	expect_parse_error(xml, "<group> 'deep'", "nested deeper than");
}

static CU_TestInfo tests[] = {
	{ "groups, nesting, assignment", test_vgroups_parse },
	{ "validation errors", test_vgroups_errors },
	{ "nesting depth limit", test_vgroups_depth },
	{ "a second element of the namespace: the first read", test_vgroups_second_element },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_vgroups", tests);
