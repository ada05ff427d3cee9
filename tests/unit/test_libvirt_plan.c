// SPDX-License-Identifier: GPL-2.0
/*
 * The apply plan: generation and v1/v2 rendering. Its execution through back ends is in
 * test_libvirt_exec.c, the directory back end and vCPU threads in test_libvirt_dir.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libvirt/fsops.h"
#include "libvirt/plan.h"
#include "libvirt_plan_test.h"
#include "test.h"

/* The plan of dom_full up to its vCPUs, the same for every target. */
#define PLAN_FULL_GROUPS                                                                   \
	"shares / 300\n"                                                                    \
	"max / 250000 100000\n"                                                             \
	"mkdir fast\n"                                                                      \
	"idle fast 0\n"                                                                     \
	"weight fast 400\n"                                                                 \
	"burst fast 0\n"                                                                    \
	"max fast 150000 100000\n"                                                          \
	"burst fast 10000\n"                                                                \
	"mkdir fast/bg\n"                                                                   \
	"idle fast/bg 1\n"                                                                  \
	"burst fast/bg 0\n"                                                                 \
	"max fast/bg max 100000\n"

static void plan_text(const struct plan *p, char **buf)
{
	size_t len;
	FILE *f = open_memstream(buf, &len);

	plan_print(p, f);
	fclose(f);
}

static void test_plan_build(void)
{
	struct domain_def def;
	struct diag d;
	struct plan p;
	char *txt;

	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	plan_text(&p, &txt);
	CU_ASSERT_STRING_EQUAL(txt,
			       PLAN_FULL_GROUPS
			       "mkdir fast/vcpu0\n"
			       "idle fast/vcpu0 0\n"
			       "max fast/vcpu0 50000 100000\n"
			       "move fast/vcpu0 vcpu0\n"
			       "mkdir fast/bg/vcpu1\n"
			       "idle fast/bg/vcpu1 0\n"
			       "max fast/bg/vcpu1 50000 100000\n"
			       "move fast/bg/vcpu1 vcpu1\n"
			       "mkdir vcpu2\n"
			       "idle vcpu2 1\n"
			       "max vcpu2 50000 100000\n"
			       "move vcpu2 vcpu2\n");
	free(txt);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

static void test_plan_minimal(void)
{
	struct domain_def def;
	struct diag d;
	struct plan p;
	char *txt;

	/* No cputune, no metadata: every online vCPU goes to the VM's group, nothing else. */
	CU_ASSERT_EQUAL_FATAL(parse_str("<domain><name>m</name><memory>1</memory>"
					"<vcpu current='1'>2</vcpu></domain>", &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	plan_text(&p, &txt);
	CU_ASSERT_STRING_EQUAL(txt, "move / vcpu0\n");
	free(txt);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

static bool has_op(const struct fsops *f, const char *path, const char *file, const char *val)
{
	size_t i;

	for (i = 0; i < f->nr; i++)
		if (f->ops[i].kind == FSOP_WRITE && !strcmp(f->ops[i].path, path) &&
		    !strcmp(f->ops[i].file, file) && !strcmp(f->ops[i].value, val))
			return true;
	return false;
}

static void test_render_v1_v2(void)
{
	struct domain_def def;
	struct diag d;
	struct fsops f2, f1;
	struct plan p;

	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V2, &f2, &d), 0);
	/* v2: <shares> verbatim into cpu.weight; thread groups are threaded, +cpu in parents. */
	CU_ASSERT_TRUE(has_op(&f2, "", "cpu.weight", "300"));
	CU_ASSERT_TRUE(f2.ops[0].optional);
	CU_ASSERT_TRUE(has_op(&f2, "", "cpu.max", "250000 100000"));
	CU_ASSERT_TRUE(has_op(&f2, "", "cgroup.subtree_control", "+cpu"));
	CU_ASSERT_TRUE(has_op(&f2, "fast", "cgroup.subtree_control", "+cpu"));
	CU_ASSERT_TRUE(has_op(&f2, "fast/bg", "cgroup.type", "threaded"));
	CU_ASSERT_TRUE(has_op(&f2, "fast", "cpu.weight", "400"));
	CU_ASSERT_TRUE(has_op(&f2, "fast", "cpu.max.burst", "10000"));
	CU_ASSERT_TRUE(has_op(&f2, "fast/bg", "cpu.max", "max 100000"));
	CU_ASSERT_TRUE(has_op(&f2, "vcpu2", "cpu.idle", "1"));
	CU_ASSERT_EQUAL(f2.ops[f2.nr - 1].kind, FSOP_MOVE);
	CU_ASSERT_STRING_EQUAL(f2.ops[f2.nr - 1].path, "vcpu2");
	CU_ASSERT_EQUAL(f2.ops[f2.nr - 1].vcpu, 2);

	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V1, &f1, &d), 0);
	/* v1: <shares> verbatim into cpu.shares; group weights converted (400 -> 4096). */
	CU_ASSERT_TRUE(has_op(&f1, "", "cpu.shares", "300"));
	CU_ASSERT_TRUE(has_op(&f1, "fast", "cpu.shares", "4096"));
	CU_ASSERT_TRUE(has_op(&f1, "", "cpu.cfs_quota_us", "250000"));
	CU_ASSERT_TRUE(has_op(&f1, "fast/bg", "cpu.cfs_quota_us", "-1"));
	CU_ASSERT_TRUE(has_op(&f1, "fast", "cpu.cfs_burst_us", "10000"));
	CU_ASSERT_TRUE(has_op(&f1, "fast/vcpu0", "cpu.cfs_period_us", "100000"));
	CU_ASSERT_FALSE(has_op(&f1, "", "cgroup.subtree_control", "+cpu"));
	fsops_free(&f1);
	fsops_free(&f2);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/* Renders a domain for a flavour and returns the error (message in d). */
static int render_str(const char *xml, enum fs_flavor fl, struct diag *d)
{
	struct domain_def def;
	struct fsops f;
	struct plan p;
	int ret;

	ret = parse_str(xml, &def, d);
	if (ret)
		return ret;
	ret = plan_build(&def, 0, &p);
	if (!ret) {
		ret = fsops_render(&p, fl, &f, d);
		if (!ret)
			fsops_free(&f);
		plan_free(&p);
	}
	domain_free(&def);
	return ret;
}

static void test_render_shares_ranges(void)
{
	struct diag d;

	/* libvirt: v2 [1, 10000], v1 [2, 262144], no conversion and no clamping. */
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune>\n<shares>0</shares></cputune>"
				   "</domain>", FS_V2, &d), -EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg, "t.xml:6: <shares> '0': shares '0' must be in range "
				      "[1, 10000]");
	diag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>10001</shares></cputune>"
				   "</domain>", FS_V2, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "shares '10001' must be in range [1, 10000]"));
	diag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>10001</shares></cputune>"
				   "</domain>", FS_V1, &d), 0);
	diag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>1</shares></cputune>"
				   "</domain>", FS_V1, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "shares '1' must be in range [2, 262144]"));
	diag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>1</shares></cputune>"
				   "</domain>", FS_V2, &d), 0);
	diag_free(&d);
}

static void test_render_v1_caps(void)
{
	struct diag d;
	const char *xml =
		DOM_HEAD("2") "<cputune><period>100000</period><quota>50000</quota></cputune>\n"
		"<metadata><v:groups xmlns:v='" NS "'>\n"
		"<v:group name='slow' quota='20000'/>\n"
		"<v:assign vcpus='1' group='slow'/></v:groups></metadata></domain>";

	/* v1 refuses a child cap above its parent's; v2 does not care. */
	CU_ASSERT_EQUAL(render_str(xml, FS_V2, &d), 0);
	diag_free(&d);
	CU_ASSERT_EQUAL(render_str(xml, FS_V1, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.xml:5: <cputune/quota> '50000 100000'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "slow/vcpu1 exceeds slow (20000 100000)"));
	diag_free(&d);
	/* An unlimited group inherits its parent's ratio: the VM's global cap. */
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("2") "<cputune><global_quota>30000</global_quota>"
				   "</cputune>\n<metadata><v:groups xmlns:v='" NS "'>\n"
				   "<v:group name='a'/><v:group name='b' parent='a' "
				   "quota='40000'/></v:groups></metadata></domain>", FS_V1, &d),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "a/b exceeds the VM (30000 100000)"));
	diag_free(&d);
}

/*
 * libvirt writes a quota of VIR_CGROUP_CPU_QUOTA_MAX as "max" on cgroup v2
 * (virCgroupV2SetCpuCfsQuota) and the number on v1.
 */
static void test_render_quota_max(void)
{
	struct domain_def def;
	struct fsops f2, f1;
	struct diag d;
	struct plan p;

	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("1") "<cputune><quota>17592186044415</quota>"
					"<period>50000</period></cputune></domain>", &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V2, &f2, &d), 0);
	CU_ASSERT_TRUE(has_op(&f2, "vcpu0", "cpu.max", "max 50000"));
	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V1, &f1, &d), 0);
	CU_ASSERT_TRUE(has_op(&f1, "vcpu0", "cpu.cfs_quota_us", "17592186044415"));
	fsops_free(&f1);
	fsops_free(&f2);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/* The same for a metadata group: with a burst, v2 writes "max" and the burst, v1 refuses. */
static void test_render_group_quota_max_burst(void)
{
	struct domain_def def;
	struct fsops f2, f1;
	struct diag d;
	struct plan p;

	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("1") "<metadata><v:groups xmlns:v='"
					VGROUPS_NS "'><v:group name='g' quota='17592186044415' "
					"burst='20000'/></v:groups></metadata></domain>", &def, &d),
			      0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V2, &f2, &d), 0);
	CU_ASSERT_TRUE(has_op(&f2, "g", "cpu.max", "max 100000"));
	CU_ASSERT_TRUE(has_op(&f2, "g", "cpu.max.burst", "20000"));
	CU_ASSERT_EQUAL(fsops_render(&p, FS_V1, &f1, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "quota + burst exceed 17592186044415"));
	fsops_free(&f2);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/* On a libvirt QEMU domain, libvirt's vcpuN groups stay libvirt's. */
static void test_plan_libvirt_vcpus(void)
{
	struct domain_def def;
	struct diag d;
	struct plan p;
	char *txt;

	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, PLAN_LIBVIRT_VCPUS, &p), 0);
	plan_text(&p, &txt);
	CU_ASSERT_STRING_EQUAL(txt,
			       PLAN_FULL_GROUPS
			       "mkdir fast/vcpu0\n"
			       "idle fast/vcpu0 0\n"
			       "mirror fast/vcpu0 vcpu0\n"
			       "move fast/vcpu0 vcpu0\n"
			       "mkdir fast/bg/vcpu1\n"
			       "idle fast/bg/vcpu1 0\n"
			       "mirror fast/bg/vcpu1 vcpu1\n"
			       "move fast/bg/vcpu1 vcpu1\n"
			       "move vcpu2 vcpu2 (libvirt's)\n");
	free(txt);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/*
 * A QEMU domain's group without cpu.max (found by fuzz/domain_xml.c): the groups nest below
 * "libvirt" for the global cap, and so do the leaves of assigned vCPUs (they were made at
 * fast/vcpu0, below a group that did not exist).
 */
static void test_plan_libvirt_vcpus_nested(void)
{
	struct domain_def def;
	struct diag d;
	struct plan p;
	char *txt;

	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, PLAN_LIBVIRT_VCPUS | PLAN_NEST_GLOBAL, &p), 0);
	plan_text(&p, &txt);
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "mkdir libvirt/fast/bg\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "mkdir libvirt/fast/vcpu0\n"
					   "idle libvirt/fast/vcpu0 0\n"
					   "mirror libvirt/fast/vcpu0 vcpu0\n"
					   "move libvirt/fast/vcpu0 vcpu0\n"
					   "mkdir libvirt/fast/bg/vcpu1\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(txt, "move vcpu2 vcpu2 (libvirt's)\n"));
	free(txt);
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
}

/*
 * The longest path a plan can hold (found by fuzz/domain_xml.c): "libvirt/", 16 nested groups
 * of 64 characters, "/vcpu1023". It was cut short, so vCPU 1023 went to a wrong group.
 */
static void test_plan_longest_path(void)
{
	char xml[4096], want[2048], *p = xml;
	struct domain_def def;
	struct diag d;
	struct plan pl;
	int i;

	p += sprintf(p, "<domain><name>deep</name><memory>4096</memory><vcpu>1024</vcpu>"
		     "<cputune><global_quota>5000</global_quota><quota>3000</quota></cputune>"
		     "<metadata><v:groups xmlns:v='" NS "'>");
	strcpy(want, "libvirt");
	for (i = 0; i < VGROUP_DEPTH_MAX; i++) {
		char name[80], parent[80];	/* 64 characters (room for the compiler's %d) */

		snprintf(name, sizeof(name), "n%02d%061d", i, 0);
		snprintf(parent, sizeof(parent), "n%02d%061d", i - 1, 0);
		p += sprintf(p, "<v:group name='%s'%s%s%s/>", name, i ? " parent='" : "",
			     i ? parent : "", i ? "'" : "");
		strcat(strcat(want, "/"), name);
	}
	strcat(want, "/vcpu1023");
	sprintf(p, "<v:assign vcpus='1023' group='n15%061d'/></v:groups></metadata></domain>", 0);
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, PLAN_NEST_GLOBAL, &pl), 0);
	CU_ASSERT_STRING_EQUAL(pl.ops[pl.nr - 1].path, want);
	CU_ASSERT_EQUAL(pl.ops[pl.nr - 1].kind, PLAN_MOVE);
	plan_free(&pl);
	domain_free(&def);
	diag_free(&d);
}

static CU_TestInfo tests[] = {
	{ "quota 17592186044415 is max on v2", test_render_quota_max },
	{ "a group's quota 17592186044415 takes a burst on v2", test_render_group_quota_max_burst },
	{ "plan of a full domain", test_plan_build },
	{ "plan of a bare domain", test_plan_minimal },
	{ "render for cgroup v2 and v1", test_render_v1_v2 },
	{ "shares range depends on the cgroup version", test_render_shares_ranges },
	{ "cgroup v1 cap hierarchy checked before writing", test_render_v1_caps },
	{ "plan for a libvirt QEMU domain: libvirt's vcpuN stay", test_plan_libvirt_vcpus },
	{ "plan for a libvirt QEMU domain nested for a global cap",
	  test_plan_libvirt_vcpus_nested },
	{ "plan paths hold the deepest group and vCPU 1023", test_plan_longest_path },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_plan", tests);
