// SPDX-License-Identifier: GPL-2.0
/*
 * Found by sweeping libvirt's own test suite files through `vsched apply --dry-run` and
 * `vsched run --domain` (branch xmlcorpus, docs/libvirt.md "libvirt's test suite, swept"):
 * each case is a file libvirt's suite parses that vsched refused, or a knob a vsched VM
 * does not honour that passed without a word.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libvirt_util.h"
#include "cmd/run.h"
#include "libvirt/plan.h"
#include "util/compiler.h"
#include "test.h"

#define CT_HEAD "<domain><name>t</name><memory>64</memory>\n<vcpu>4</vcpu>\n<cputune>\n"

static void parses(const char *xml)
{
	struct domain_def def;
	struct diag d;
	int ret = parse_str(xml, &def, &d);

	if (ret)
		printf("\n    refused: %s\n", d.msg);
	CU_ASSERT_EQUAL(ret, 0);
	if (!ret)
		domain_free(&def);
	diag_free(&d);
}

/*
 * A monitor may share vCPUs with earlier ones when it names all of its element's vCPUs
 * (libvirt's virDomainResctrlValidateMonitor(); genericxml2xmlindata/cachetune-small.xml, a
 * DO_TEST of genericxml2xmltest.c, has monitors 0, 1 and 0-1 of vcpus 0-1: vsched refused it,
 * "vcpus overlaps in resctrl groups"). The first earlier monitor that meets it decides.
 */
static void test_monitor_of_all_vcpus(void)
{
	static const struct {
		const char *body, *msg;	/* msg NULL: parses */
	} cases[] = {
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='0'/><monitor level='3' "
		  "vcpus='1'/><monitor level='3' vcpus='0-1'/></cachetune>", NULL },
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='0-1'/><monitor level='3' "
		  "vcpus='0'/></cachetune>", "vcpus overlaps in resctrl groups" },
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='0-1'/><monitor level='3' "
		  "vcpus='0-1'/></cachetune>", "Identical vcpus found in same type monitors" },
		/* The overlap with monitor 0 decides before the equal one is seen. */
		{ "<cachetune vcpus='0-1'><monitor level='3' vcpus='0'/><monitor level='3' "
		  "vcpus='0-1'/><monitor level='3' vcpus='0-1'/></cachetune>", NULL },
		{ "<cachetune vcpus='0-2'><monitor level='3' vcpus='0-1'/><monitor level='3' "
		  "vcpus='1-2'/></cachetune>", "vcpus overlaps in resctrl groups" },
		{ "<memorytune vcpus='2-3'><node id='0' bandwidth='10'/><monitor vcpus='2'/>"
		  "<monitor vcpus='2-3'/></memorytune>", NULL },
	};
	char xml[1024];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(xml, sizeof(xml), CT_HEAD "%s</cputune></domain>", cases[i].body);
		if (cases[i].msg)
			expect_parse_error(xml, "t.xml:4: <monitor>", cases[i].msg);
		else
			parses(xml);
	}
}

/* Parses to def (the caller frees it), or fails the test. */
static bool parses_to(const char *xml, struct domain_def *def)
{
	struct diag d;
	int ret = parse_str(xml, def, &d);

	if (ret)
		printf("\n    refused: %s\n", d.msg);
	CU_ASSERT_EQUAL(ret, 0);
	diag_free(&d);
	return !ret;
}

#define NUMA_CELLS "<cpu><numa><cell id='0' cpus='0' memory='109550' unit='KiB'/>\n" \
		   "<cell id='1' cpus='1' memory='1' unit='MiB'/></numa></cpu>\n"

/*
 * Without <memory> (or with 0) the guest NUMA cells give the memory, their sum, as libvirt's
 * virDomainDefPostParseMemory() infers it (qemuxml2argvdata/cpu-numa-no-memory-element.xml, a
 * DO_TEST: vsched refused it, "Memory size must be specified via <memory> or in the <numa>
 * configuration"). A given <memory> stays as it is; a cell's bad memory is refused.
 */
static void test_memory_from_numa_cells(void)
{
	struct domain_def def;

	if (parses_to("<domain><name>t</name><vcpu>2</vcpu>\n" NUMA_CELLS "</domain>", &def)) {
		CU_ASSERT_EQUAL(def.memory, (109550ULL + 1024) * 1024);
		CU_ASSERT_EQUAL(def.memory_line, 2);
		domain_free(&def);
	}
	if (parses_to("<domain><name>t</name><memory>0</memory><vcpu>2</vcpu>\n" NUMA_CELLS
		      "</domain>", &def)) {
		CU_ASSERT_EQUAL(def.memory, (109550ULL + 1024) * 1024);
		domain_free(&def);
	}
	if (parses_to("<domain><name>t</name><memory>4096</memory><vcpu>2</vcpu>\n" NUMA_CELLS
		      "</domain>", &def)) {
		CU_ASSERT_EQUAL(def.memory, 4096ULL * 1024);
		domain_free(&def);
	}
	expect_parse_error("<domain><name>t</name><vcpu>2</vcpu>\n<cpu><numa>\n"
			   "<cell id='0' cpus='0-1' memory='x'/></numa></cpu></domain>",
			   "t.xml:3: <cell> 'x'", "Invalid value 'x' for element or attribute "
			   "'./@memory'");
	expect_parse_error("<domain><name>t</name><vcpu>2</vcpu>\n<cpu><numa>\n"
			   "<cell id='0' cpus='0-1'/></numa></cpu></domain>", "t.xml:3: <cell>",
			   "missing element or attribute './@memory'");
	expect_parse_error("<domain><name>t</name><vcpu>2</vcpu><cpu/></domain>", "<memory>",
			   "Memory size must be specified via <memory> or in the <numa> "
			   "configuration");
}

/* The warnings a vsched VM gives for xml (parse and plan_warn_vsched()), each followed by '|'. */
static void vsched_warnings(const char *xml, char *out, size_t len)
{
	struct domain_def def;
	struct diag d;
	size_t i, n = 0;

	out[0] = '\0';
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	CU_ASSERT_EQUAL(plan_warn_vsched(&def, &d), 0);
	for (i = 0; i < d.nr_warn && n < len; i++)
		n += (size_t)snprintf(out + n, len - n, "%s|", d.warn[i]);
	domain_free(&def);
	diag_free(&d);
}

/*
 * What a vsched VM cannot honour is named with its line (no silent no-ops): <iothreads> (libvirt's
 * iothreads-ids.xml), <perf> with an enabled event (perf.xml), <launchSecurity> (launch-security-
 * sev.xml: the guest ran unencrypted without a word) and a <seclabel> other than type='none'
 * (seclabel-dynamic.xml). All four passed `vsched run --domain` silently. The names must outlive
 * the document (an <iothreads> name taken from the node printed as garbage).
 */
static void test_more_knobs_named(void)
{
	static const char xml[] = "<domain><name>t</name><memory>64</memory>\n"
		"<vcpu>2</vcpu><iothreads>2</iothreads>\n"
		"<perf><event name='cmt' enabled='no'/>"
		"<event name='cpu_cycles' enabled='yes'/></perf>\n"
		"<launchSecurity type='sev'><policy>0x0001</policy></launchSecurity>\n"
		"<seclabel type='none'/><seclabel model='selinux' type='dynamic'/>\n</domain>";
	char w[4096];

	vsched_warnings(xml, w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:2: <iothreads>: 2 iothread(s): a vsched VM has no "
				      "iothreads; not applied|"));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:3: <perf>: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:4: <launchSecurity>: type 'sev': "));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:5: <seclabel>: vsched does not label"));
	/* Nothing asked for: no events enabled, no iothreads, seclabel none. */
	vsched_warnings("<domain><name>t</name><memory>64</memory><iothreads>0</iothreads>"
			"<perf><event name='cmt' enabled='no'/></perf><seclabel type='none'/>"
			"</domain>", w, sizeof(w));
	CU_ASSERT_STRING_EQUAL(w, "");
	/* <iothreadids> alone make iothreads too. */
	vsched_warnings("<domain><name>t</name><memory>64</memory>\n<iothreadids><iothread id='3'/>"
			"</iothreadids></domain>", w, sizeof(w));
	CU_ASSERT_PTR_NOT_NULL(strstr(w, "t.xml:2: <iothreadids>: 1 iothread(s)"));
}

/* run_parse() of `run --domain path`; what it printed on stderr in out (NULL: dropped). */
static int run_parse_domain_out(const char *path, struct run_cfg *cfg, char *out, size_t len)
{
	char *argv[] = { (char *)"run", (char *)"--domain", (char *)path, NULL };
	FILE *tmp = tmpfile();
	int err, ret;
	size_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(tmp);
	fflush(stderr);
	err = dup(2);
	dup2(fileno(tmp), 2);
	ret = run_parse(3, argv, cfg);
	fflush(stderr);
	dup2(err, 2);
	close(err);
	if (out) {
		rewind(tmp);
		n = fread(out, 1, len - 1, tmp);
		out[n] = '\0';
	}
	fclose(tmp);
	return ret;
}

static int run_parse_domain(const char *path, struct run_cfg *cfg)
{
	return run_parse_domain_out(path, cfg, NULL, 0);
}

/* A domain file in a temporary directory; its path in path. */
static void domain_file(const char *xml, char *path, size_t len)
{
	char dir[] = "/tmp/vsched-corpus-XXXXXX";
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, len, "%s/d.xml", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(xml, f);
	fclose(f);
}

static void domain_file_remove(char *path)
{
	unlink(path);
	*strrchr(path, '/') = '\0';
	rmdir(path);
}

/*
 * `vsched run --domain` kept the domain's description, plan and messages to the end and freed
 * none of them: LeakSanitizer reported every run of the sweep, refused or not (vsched run exits
 * 23 instead of 2 under ASan). A refused domain now leaves nothing allocated (a parse refusal
 * kept its warnings, a launch refusal the whole description), and run_cfg_free() frees a parsed
 * one (cmd_run() calls it at every exit).
 */
static void test_run_domain_freed(void)
{
	static const char *const bad[] = {
		/* Refused parsing, after a warning (<vcpupin> not applied). */
		"<domain type='qemu'><name>t</name><memory>65536</memory><vcpu>2</vcpu><cputune>"
		"<vcpupin vcpu='0' cpuset='0'/><shares>0</shares></cputune></domain>",
		/* Parsed, then refused by the launch check: 1 MiB of RAM for payload guests. */
		"<domain type='qemu'><name>t</name><memory>1024</memory><vcpu>2</vcpu><cputune>"
		"<vcpupin vcpu='0' cpuset='0'/></cputune></domain>",
	};
	struct run_cfg cfg;
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		domain_file(bad[i], path, sizeof(path));
		CU_ASSERT_EQUAL(run_parse_domain(path, &cfg), -EINVAL);
		CU_ASSERT_PTR_NULL(cfg.launch.def.name);
		CU_ASSERT_EQUAL(cfg.launch.diag.nr_warn, 0);
		CU_ASSERT_PTR_NULL(cfg.launch.ops.ops);
		domain_file_remove(path);
	}
	domain_file("<domain type='qemu'><name>t</name><memory>65536</memory><vcpu>2</vcpu>"
		    "<cputune><period>100000</period><quota>50000</quota></cputune></domain>",
		    path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(run_parse_domain(path, &cfg), 0);
	CU_ASSERT_STRING_EQUAL(cfg.name, "t");
	CU_ASSERT_PTR_NOT_NULL(cfg.launch.ops.ops);
	run_cfg_free(&cfg);
	CU_ASSERT_PTR_NULL(cfg.launch.def.name);
	CU_ASSERT_PTR_NULL(cfg.launch.ops.ops);
	run_cfg_free(&cfg);	/* idempotent */
	domain_file_remove(path);
}

/*
 * Fewer vCPUs start than <vcpu> counts: one warning naming <vcpu> and its line. It said
 * "d.xml: starting 3 of 6 vCPUs (current)" without a line, and a second time after the <vcpus>
 * warning of libvirt's cpu-hotplug-startup.xml, which says the same.
 */
static void test_run_current_named_once(void)
{
	struct run_cfg cfg;
	char path[PATH_MAX], err[2048];

	domain_file("<domain type='qemu'><name>t</name><memory>65536</memory>\n"
		    "<vcpu current='2'>6</vcpu></domain>", path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(run_parse_domain_out(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "d.xml:2: <vcpu>: current='2' of 6: vsched has no "
				      "vCPU hot-plug; vCPUs 2-5 never start\n"));
	run_cfg_free(&cfg);
	domain_file_remove(path);
	domain_file("<domain type='qemu'><name>t</name><memory>65536</memory>\n"
		    "<vcpu current='3'>6</vcpu>\n<vcpus><vcpu id='0' enabled='yes'/>"
		    "<vcpu id='1' enabled='no'/><vcpu id='2' enabled='no'/>"
		    "<vcpu id='3' enabled='no'/><vcpu id='4' enabled='yes'/>"
		    "<vcpu id='5' enabled='yes'/></vcpus></domain>", path, sizeof(path));
	CU_ASSERT_EQUAL_FATAL(run_parse_domain_out(path, &cfg, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "d.xml:3: <vcpus>: enabled vCPUs '0,4-5'"));
	CU_ASSERT_PTR_NULL(strstr(err, "<vcpu>:"));
	CU_ASSERT_PTR_NULL(strstr(err, "starting"));
	run_cfg_free(&cfg);
	domain_file_remove(path);
}

/*
 * The repository's copies of libvirt's files (tests/libvirt/suite; tests run from the
 * repository root) that vsched refused before: both parse, the second with 219100 KiB.
 */
static void test_suite_files_parse(void)
{
	static const char *const files[] = {
		"tests/libvirt/suite/genericxml2xmlindata__cachetune-small.xml",
		"tests/libvirt/suite/qemuxml2argvdata__cpu-numa-no-memory-element.xml",
	};
	struct domain_def def;
	struct diag d;
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		diag_init(&d, files[i]);
		ret = domain_parse_file(files[i], &def, &d);
		if (ret)
			printf("\n    refused: %s\n", d.msg);
		CU_ASSERT_EQUAL(ret, 0);
		if (!ret && i == 1)
			CU_ASSERT_EQUAL(def.memory, 219100ULL * 1024);
		if (!ret)
			domain_free(&def);
		diag_free(&d);
	}
}

static CU_TestInfo tests[] = {
	{ "a monitor of all the element's vCPUs may overlap", test_monitor_of_all_vcpus },
	{ "without <memory> the NUMA cells give it", test_memory_from_numa_cells },
	{ "iothreads, perf, launchSecurity, seclabel named", test_more_knobs_named },
	{ "run --domain frees what it parsed", test_run_domain_freed },
	{ "fewer vCPUs started: named once, with <vcpu>", test_run_current_named_once },
	{ "libvirt's files in tests/libvirt/suite parse", test_suite_files_parse },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_corpus", tests);
