// SPDX-License-Identifier: GPL-2.0
/* `vsched run --domain`: the launch description and the plan applied through the C API. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/run.h"
#include "libvirt/apply.h"
#include "libvirt/domain_launch.h"
#include "libvirt_util.h"
#include "test.h"
#include "vsched.h"

#define NS "https://vsched.dev/xmlns/groups/1.0"

static const char *write_tmp(const char *xml)
{
	static char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/tmp/vsched-launch-%d.xml", (int)getpid());
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(xml, f);
	fclose(f);
	return path;
}

static void expect_file(struct vsched *vs, const char *path, const char *file, const char *want)
{
	char buf[256];
	ssize_t n = vsched_read(vs, path, file, buf, sizeof(buf));

	if (n < 0 || strcmp(buf, want))
		printf("\n    %s/%s: got '%s' (%zd), want '%s'\n", path, file, n < 0 ? "" : buf, n,
		       want);
	CU_ASSERT_TRUE(n >= 0 && !strcmp(buf, want));
}

static void test_launch_apply_api(void)
{
	const char *xml =
		"<domain type='kvm'><name>direct</name><memory unit='MiB'>128</memory>\n"
		"<vcpu current='3'>4</vcpu>\n"
		"<os><type>hvm</type><kernel>/boot/bzImage</kernel><initrd>/boot/initrd</initrd>"
		"<cmdline>console=ttyS0</cmdline></os>\n"
		"<cputune><shares>300</shares><global_quota>150000</global_quota>\n"
		"<period>100000</period><quota>60000</quota><vcpupin vcpu='1' cpuset='0-1'/>"
		"<emulatorpin cpuset='0'/>"
		"<vcpusched vcpus='2' scheduler='idle'/></cputune>\n"
		"<metadata><v:groups xmlns:v='" NS "'>\n"
		"<v:group name='latency' weight='400' burst='5000' quota='50000'/>\n"
		"<v:group name='batch' weight='50'/>\n"
		"<v:assign vcpus='0-1' group='latency'/><v:assign vcpus='3' group='batch'/>\n"
		"</v:groups></metadata></domain>";
	const char *path = write_tmp(xml);
	struct domain_launch l;
	struct vsched *vs;

	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, false, &l), 0);
	CU_ASSERT_STRING_EQUAL(l.def.name, "direct");
	CU_ASSERT_EQUAL(l.def.max_vcpus, 4);
	CU_ASSERT_EQUAL(l.def.vcpus, 3);
	CU_ASSERT_EQUAL(l.def.memory, 128ULL << 20);
	CU_ASSERT_STRING_EQUAL(l.def.kernel, "/boot/bzImage");
	CU_ASSERT_STRING_EQUAL(l.def.initrd, "/boot/initrd");
	CU_ASSERT_STRING_EQUAL(l.def.cmdline, "console=ttyS0");
	CU_ASSERT_TRUE(l.def.tune.vcpus[1].pinned);
	/* A vsched VM pins nothing but its lanes: each pin is reported, with its line. */
	CU_ASSERT_EQUAL(l.diag.nr_warn, 2);
	CU_ASSERT_TRUE(l.diag.nr_warn > 0 && strstr(l.diag.warn[0], ":5: <vcpupin>: ") &&
		       strstr(l.diag.warn[0], "not applied"));
	CU_ASSERT_TRUE(l.diag.nr_warn > 1 && strstr(l.diag.warn[1], ":5: <emulatorpin>: "));

	vs = vsched_create(2, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(domain_launch_apply(&l, vs), 0);
	/* The root (the VM) takes no cpu.weight: <shares> is reported, not applied. */
	CU_ASSERT_EQUAL(l.diag.nr_warn, 3);
	CU_ASSERT_TRUE(l.diag.nr_warn > 2 &&
		       strstr(l.diag.warn[2], "no cpu.weight here; '300' not applied"));
	CU_ASSERT_TRUE(l.diag.nr_warn > 2 && strstr(l.diag.warn[2], ":4: <cputune/shares>: "));
	/* The global cap sits on "libvirt", which holds everything else. */
	expect_file(vs, "libvirt", "cpu.max", "150000 100000\n");
	expect_file(vs, "libvirt/latency", "cpu.weight", "400\n");
	expect_file(vs, "libvirt/latency", "cpu.max", "50000 100000\n");
	expect_file(vs, "libvirt/latency", "cpu.max.burst", "5000\n");
	expect_file(vs, "libvirt/batch", "cpu.weight", "50\n");
	expect_file(vs, "libvirt/latency/vcpu0", "cpu.max", "60000 100000\n");
	expect_file(vs, "libvirt/latency/vcpu0", "vsched.vcpus", "0\n");
	expect_file(vs, "libvirt/latency/vcpu1", "vsched.vcpus", "1\n");
	expect_file(vs, "libvirt/vcpu2", "cpu.idle", "1\n");
	expect_file(vs, "libvirt/vcpu2", "vsched.vcpus", "2\n");
	/* vCPU 3 is offline at start ("current" 3): its group exists, it was not moved. */
	expect_file(vs, "libvirt/batch/vcpu3", "vsched.vcpus", "\n");
	expect_file(vs, "", "vsched.vcpus", "3\n");

	/* Applying the same plan again (live re-tune with no change) is harmless. */
	CU_ASSERT_EQUAL(domain_launch_apply(&l, vs), 0);
	expect_file(vs, "libvirt/latency/vcpu1", "vsched.vcpus", "1\n");
	vsched_destroy(vs);
	domain_launch_free(&l);
	unlink(path);
}

static void test_launch_refuses_before_start(void)
{
	struct domain_launch l;
	const char *path;

	/* libvirt's parser takes <shares>0</shares>; a cgroup v2 tree does not. */
	path = write_tmp("<domain><name>z</name><memory>1024</memory>\n"
			 "<cputune><shares>0</shares></cputune></domain>");
	CU_ASSERT_EQUAL(domain_launch_load(path, false, &l), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, ":2: <shares> '0': shares '0' must be in "
						  "range [1, 10000]"));
	CU_ASSERT_PTR_NULL(l.def.name);
	domain_launch_free(&l);
	/* libvirt takes a name vsched cannot register: refused here, not once the guest runs. */
	path = write_tmp("<domain><name>.hidden</name><memory>1024</memory></domain>");
	CU_ASSERT_EQUAL(domain_launch_load(path, false, &l), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, ":1: <name> '.hidden': a vsched VM's name"));
	CU_ASSERT_PTR_NULL(l.def.name);
	domain_launch_free(&l);
	CU_ASSERT_EQUAL(domain_launch_load("/nonexistent/d.xml", false, &l), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, "/nonexistent/d.xml: No such file"));
	domain_launch_free(&l);
	unlink(path);
}

/* A failure half way through the C API back end undoes everything (all or nothing). */
static void test_launch_apply_rolls_back(void)
{
	const char *path = write_tmp(
		"<domain><name>rb</name><memory>1024</memory><vcpu>2</vcpu>\n"
		"<cputune><period>100000</period><quota>60000</quota></cputune>\n"
		"<metadata><v:groups xmlns:v='" NS "'>\n"
		"<v:group name='a' weight='300'/><v:group name='b' parent='a' weight='20'/>\n"
		"<v:assign vcpus='0' group='a'/><v:assign vcpus='1' group='b'/>\n"
		"</v:groups></metadata></domain>");
	struct domain_launch l;
	struct vsched *vs = vsched_create(2, 2);
	char *before = NULL, *after = NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, false, &l), 0);
	/* "a" exists with other values; the tree has room for "a/b" only: "a/vcpu0" fails. */
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/", "cgroup.subtree_control", "+cpu"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "a", "cpu.weight", "77"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/", "cgroup.max.descendants", "2"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "a"), 0);
	CU_ASSERT_EQUAL(vsched_read_alloc(vs, "a", "cpu.weight", &before) > 0, 1);
	CU_ASSERT_EQUAL(domain_launch_apply(&l, vs), -EAGAIN);
	if (!strstr(l.diag.msg, "mkdir a/vcpu0: Resource temporarily unavailable"))
		printf("\n    %s\n", l.diag.msg);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, "mkdir a/vcpu0: Resource temporarily "
						  "unavailable"));
	/* As before: a/b is gone, a keeps its weight, vCPU 1 is back in a, vCPU 0 in the root. */
	expect_file(vs, "a", "cpu.weight", "77\n");
	expect_file(vs, "a", "cgroup.subtree_control", "");
	expect_file(vs, "a", "vsched.vcpus", "1\n");
	expect_file(vs, "", "vsched.vcpus", "0\n");
	expect_file(vs, "", "cgroup.subtree_control", "cpu\n");
	CU_ASSERT_EQUAL(vsched_stat(vs, "a/b", NULL, &(mode_t){ 0 }), -ENOENT);
	CU_ASSERT_EQUAL(vsched_stat(vs, "a/vcpu0", NULL, &(mode_t){ 0 }), -ENOENT);
	CU_ASSERT_EQUAL(vsched_read_alloc(vs, "a", "cpu.weight", &after) > 0, 1);
	CU_ASSERT_STRING_EQUAL(before, after);
	free(before);
	free(after);
	vsched_destroy(vs);
	domain_launch_free(&l);
	unlink(path);
}

/* A domain that joins the host scheduler: <shares> and the global cap go to the VM's group. */
static void test_launch_host(void)
{
	const char *head = "<domain><name>h</name><memory>1024</memory><vcpu>2</vcpu>\n";
	const char *tune = "<cputune><shares>300</shares><global_quota>150000</global_quota>"
			   "</cputune>\n";
	char xml[1024];
	struct domain_launch l;
	struct vsched *vs;
	const char *path;

	snprintf(xml, sizeof(xml), "%s<resource><partition>/machine/t1</partition></resource>\n"
		 "%s<metadata><v:groups xmlns:v='" NS "'><v:group name='fast' weight='400'/>"
		 "<v:assign vcpus='0' group='fast'/></v:groups></metadata></domain>", head, tune);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, false, &l), 0);
	CU_ASSERT_TRUE(l.host.join);
	CU_ASSERT_STRING_EQUAL(l.host.partition, "/machine/t1");
	CU_ASSERT_STRING_EQUAL(l.host.weight, "300");
	CU_ASSERT_STRING_EQUAL(l.host.max, "150000 100000");
	vs = vsched_create(2, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(domain_launch_apply(&l, vs), 0);
	/* Applied, not warned about; the groups sit right below the VM (no "libvirt" group). */
	CU_ASSERT_EQUAL(l.diag.nr_warn, 0);
	expect_file(vs, "fast", "cpu.weight", "400\n");
	expect_file(vs, "fast", "vsched.vcpus", "0\n");
	CU_ASSERT_EQUAL(vsched_stat(vs, "libvirt", NULL, &(mode_t){ 0 }), -ENOENT);
	vsched_destroy(vs);
	domain_launch_free(&l);

	/* host='yes' without a partition (the default one), a period alone: "max PERIOD". */
	snprintf(xml, sizeof(xml), "%s<cputune><global_period>20000</global_period></cputune>"
		 "<metadata><v:groups xmlns:v='" NS "' host='yes'/></metadata></domain>", head);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, false, &l), 0);
	CU_ASSERT_TRUE(l.host.join);
	CU_ASSERT_PTR_NULL(l.host.partition);
	CU_ASSERT_STRING_EQUAL(l.host.weight, "");
	CU_ASSERT_STRING_EQUAL(l.host.max, "max 20000");
	domain_launch_free(&l);

	/* host='no' keeps a partitioned domain embedded; --host against it is refused. */
	snprintf(xml, sizeof(xml), "%s<resource><partition>/machine</partition></resource>\n"
		 "%s<metadata><v:groups xmlns:v='" NS "' host='no'/></metadata></domain>", head,
		 tune);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, false, &l), 0);
	CU_ASSERT_FALSE(l.host.join);
	CU_ASSERT_STRING_EQUAL(l.host.weight, "");
	domain_launch_free(&l);
	CU_ASSERT_EQUAL(domain_launch_load(path, true, &l), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, ":4: <groups> 'no': host='no' keeps this "
						  "domain off the host scheduler"));
	domain_launch_free(&l);

	/* --host joins a plain domain; its <shares> is range-checked as cpu.weight. */
	snprintf(xml, sizeof(xml), "%s<cputune><shares>10001</shares></cputune></domain>", head);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL(domain_launch_load(path, true, &l), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, ":2: <shares> '10001': shares '10001' must be "
						  "in range [1, 10000]"));
	domain_launch_free(&l);
	snprintf(xml, sizeof(xml), "%s<cputune><shares>2</shares></cputune></domain>", head);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL(domain_launch_load(path, true, &l), 0);
	CU_ASSERT_TRUE(l.host.join);
	CU_ASSERT_STRING_EQUAL(l.host.weight, "2");
	domain_launch_free(&l);

	/*
	 * An empty <partition> is absent, as libvirt's virXPathString() gives NULL for "": it
	 * does not make the domain join, and with --host the default partition is used.
	 */
	snprintf(xml, sizeof(xml), "%s<resource><partition></partition></resource></domain>",
		 head);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, false, &l), 0);
	CU_ASSERT_FALSE(l.host.join);
	domain_launch_free(&l);
	CU_ASSERT_EQUAL_FATAL(domain_launch_load(path, true, &l), 0);
	CU_ASSERT_TRUE(l.host.join);
	CU_ASSERT_PTR_NULL(l.host.partition);
	domain_launch_free(&l);

	/* Other attributes of <groups> are still refused; a bad partition names its line. */
	snprintf(xml, sizeof(xml), "%s<metadata><v:groups xmlns:v='" NS "' hots='yes'/>"
		 "</metadata></domain>", head);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL(domain_launch_load(path, false, &l), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, ":2: <groups> 'hots': unknown attribute"));
	domain_launch_free(&l);
	snprintf(xml, sizeof(xml), "%s<resource>\n<partition>/machine/.x</partition></resource>"
		 "</domain>", head);
	path = write_tmp(xml);
	CU_ASSERT_EQUAL(domain_launch_load(path, false, &l), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(l.diag.msg, ":3: <partition> '/machine/.x': part '.x': a "
						  "group name may not start with '.'"));
	domain_launch_free(&l);
	unlink(path);
}

/*
 * Applying an edited domain to a joined VM gives the state it describes: without <shares> or a
 * global cap the VM group's weight and cap go back to their defaults, as a group's knobs do.
 */
static void test_apply_host_defaults(void)
{
	const char *xml = "<domain><name>h2</name><memory>1024</memory>\n"
			  "<resource><partition>/machine</partition></resource></domain>";
	struct domain_def def;
	struct apply_host ah;
	struct diag d;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	CU_ASSERT_EQUAL(apply_host_plan(&def, APPLY_NOT_RUNNING, &ah, &d), 0);
	CU_ASSERT_TRUE(ah.join);
	out = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(out);
	CU_ASSERT_EQUAL(apply_host_write(&ah, true, out, &d), 0);
	fclose(out);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "/host/machine/h2/cpu.weight 100\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "/host/machine/h2/cpu.max max 100000\n"));
	free(buf);
	domain_free(&def);
	diag_free(&d);
}

/*
 * What `vsched run --domain` cannot start (more than VM_MAX_VCPUS vCPUs, too little RAM for
 * payload guests) is refused naming the element and line (run_domain_check(): run, and a dry
 * run of a VM that does not run, which printed run's plan and exit 0 before branch libvirt4:
 * t-libvirt-run.sh).
 */
static void test_launch_check_dry_run(void)
{
	static const struct {
		const char *xml, *want;
	} cases[] = {
		{ "<domain><name>c1</name><memory>65536</memory>\n<vcpu current='129'>200</vcpu>"
		  "</domain>",
		  "t.xml:2: <vcpu> '129': 129 vCPUs to start, this VMM runs at most 128" },
		{ "<domain><name>c2</name>\n<memory>3071</memory><vcpu>2</vcpu></domain>",
		  "t.xml:2: <memory>: 3071K of RAM; a VM of payload guests (no <os><kernel>) needs "
		  "at least 3072K" },
	};
	struct domain_def def;
	struct diag d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		CU_ASSERT_EQUAL_FATAL(parse_str(cases[i].xml, &def, &d), 0);
		CU_ASSERT_EQUAL(run_domain_check(&def, &d), -EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, cases[i].want));
		domain_free(&def);
		diag_free(&d);
	}
	/* A kernel boot needs no payload area; 128 vCPUs start. */
	CU_ASSERT_EQUAL_FATAL(parse_str("<domain><name>c3</name><memory>1024</memory>"
					"<vcpu>128</vcpu><os><kernel>/k</kernel></os></domain>",
					&def, &d), 0);
	CU_ASSERT_EQUAL(run_domain_check(&def, &d), 0);
	domain_free(&def);
	diag_free(&d);
}

static CU_TestInfo tests[] = {
	{ "what run cannot start is refused, dry run included", test_launch_check_dry_run },
	{ "apply resets a joined VM group's unset knobs", test_apply_host_defaults },
	{ "joining the host scheduler", test_launch_host },
	{ "plan applied through the C API", test_launch_apply_api },
	{ "a bad domain is refused before anything starts", test_launch_refuses_before_start },
	{ "a failure half way is rolled back", test_launch_apply_rolls_back },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_launch", tests);
