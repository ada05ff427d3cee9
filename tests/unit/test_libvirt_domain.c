// SPDX-License-Identifier: GPL-2.0
/* Domain XML parsing: libvirt's own test files, top-level elements, errors. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "libvirt_util.h"
#include "libvirt/plan.h"
#include "util/compiler.h"
#include "test.h"

static char testdata[PATH_MAX];

/* Sets testdata to libvirt/name of ../shared/testdata; false (a counted skip) without it. */
static bool have_testdata(const char *name)
{
	char rel[128];

	snprintf(rel, sizeof(rel), "libvirt/%s", name);
	return testdata_file(rel, testdata, sizeof(testdata));
}

static int parse_testdata(struct domain_def *def, struct diag *d)
{
	diag_init(d, testdata);
	return domain_parse_file(testdata, def, d);
}

/* tests/qemuxmlconfdata/cputune.xml: positive in libvirt's suite. */
static void test_testdata_cputune(void)
{
	struct domain_def def;
	struct diag d;

	if (!have_testdata("qemuxmlconfdata__cputune.xml"))
		return;
	CU_ASSERT_EQUAL_FATAL(parse_testdata(&def, &d), 0);
	CU_ASSERT_STRING_EQUAL(def.name, "QEMUGuest1");
	CU_ASSERT_STRING_EQUAL(def.uuid, "c7a5fdbd-edaf-9455-926a-d65c16db1809");
	CU_ASSERT_EQUAL(def.max_vcpus, 4);
	CU_ASSERT_EQUAL(def.vcpus, 4);
	CU_ASSERT_EQUAL(def.memory, 219136ULL * 1024);
	CU_ASSERT_EQUAL(def.iothreads.count, 4);
	CU_ASSERT_TRUE(def.tune.shares_set);
	CU_ASSERT_EQUAL(def.tune.shares, 2048);
	CU_ASSERT_EQUAL(def.tune.vcpu.period, 1000000);
	CU_ASSERT_TRUE(def.tune.vcpu.quota < 0);
	CU_ASSERT_EQUAL(def.tune.global.period, 1000000);
	CU_ASSERT_TRUE(def.tune.global.quota < 0);
	CU_ASSERT_TRUE(def.tune.vcpus[0].pinned && cpuset_test(&def.tune.vcpus[0].pin, 0));
	CU_ASSERT_TRUE(def.tune.vcpus[1].pinned && cpuset_test(&def.tune.vcpus[1].pin, 1));
	CU_ASSERT_TRUE(def.tune.emulatorpin_set && cpuset_test(&def.tune.emulatorpin, 1));
	CU_ASSERT_EQUAL(def.tune.vcpus[0].policy, VCPU_SCHED_BATCH);
	CU_ASSERT_EQUAL(def.tune.vcpus[1].policy, VCPU_SCHED_FIFO);
	CU_ASSERT_EQUAL(def.tune.vcpus[1].priority, 0);
	CU_ASSERT_EQUAL(def.tune.vcpus[2].policy, VCPU_SCHED_RR);
	CU_ASSERT_EQUAL(def.tune.vcpus[3].policy, VCPU_SCHED_RR);
	CU_ASSERT_FALSE(def.groups.present);
	/* Things vsched cannot do are named on a vsched VM, not silently dropped. */
	CU_ASSERT_EQUAL(plan_warn_vsched(&def, &d), 0);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<iothread_period>"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<iothreadsched>"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<vcpusched>: real-time scheduler 'rr'"));
	domain_free(&def);
	diag_free(&d);
}

/* tests/qemuxml2argvdata/cputune-iothreads.xml: children "intentionally in odd order". */
static void test_testdata_odd_order(void)
{
	struct domain_def def;
	struct diag d;

	if (!have_testdata("qemuxml2argvdata__cputune-iothreads.xml"))
		return;
	CU_ASSERT_EQUAL_FATAL(parse_testdata(&def, &d), 0);
	CU_ASSERT_EQUAL(def.tune.shares, 2048);
	CU_ASSERT_EQUAL(def.tune.vcpu.period, 1000000);
	CU_ASSERT_TRUE(def.tune.vcpu.quota < 0);
	CU_ASSERT_TRUE(def.tune.vcpus[1].pinned && cpuset_test(&def.tune.vcpus[1].pin, 1));
	CU_ASSERT_EQUAL(plan_warn_vsched(&def, &d), 0);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "<iothreadpin>"));
	domain_free(&def);
	diag_free(&d);
}

/* cputune-zero-shares.xml parses in libvirt (the cgroup back end refuses 0 later, as ours). */
static void test_testdata_zero_shares(void)
{
	struct domain_def def;
	struct diag d;

	if (!have_testdata("qemuxml2argvdata__cputune-zero-shares.xml"))
		return;
	CU_ASSERT_EQUAL_FATAL(parse_testdata(&def, &d), 0);
	CU_ASSERT_TRUE(def.tune.shares_set);
	CU_ASSERT_EQUAL(def.tune.shares, 0);
	domain_free(&def);
	diag_free(&d);
}

/* cputune-vcpusched-overlap.xml is a DO_TEST_PARSE_ERROR in libvirt. */
static void test_testdata_vcpusched_overlap(void)
{
	struct domain_def def;
	struct diag d;

	if (!have_testdata("qemuxml2argvdata__cputune-vcpusched-overlap.xml"))
		return;
	CU_ASSERT_EQUAL(parse_testdata(&def, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, ":16: <vcpusched> '1-2': "));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "vcpussched attributes 'vcpus' must not overlap"));
	CU_ASSERT_PTR_NULL(def.name);
	diag_free(&d);
}

static void test_top_level(void)
{
	struct domain_def def;
	struct diag d;
	const char *xml = "<domain type='kvm'><name>vm-a</name>"
			  "<uuid>C7A5FDBD EDAF-9455-926A-D65C16DB1809</uuid>"
			  "<memory unit='GiB'>2</memory><vcpu current='2'>6</vcpu>"
			  "<os><type>hvm</type><kernel>/k/bzImage</kernel><initrd>/k/initrd</initrd>"
			  "<cmdline>console=ttyS0 quiet</cmdline></os></domain>";

	/* The blank in the uuid is not allowed (only dashes). */
	CU_ASSERT_EQUAL(parse_str(xml, &def, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "<uuid>"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "malformed uuid element"));
	diag_free(&d);

	xml = "<domain type='kvm'><name>vm-a</name>"
	      "<uuid>C7A5FDBD-EDAF-9455-926A-D65C16DB1809</uuid>"
	      "<memory unit='GiB'>2</memory><vcpu current='2'>6</vcpu>"
	      "<os><type>hvm</type><kernel>/k/bzImage</kernel><initrd>/k/initrd</initrd>"
	      "<cmdline>console=ttyS0 quiet</cmdline></os></domain>";
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	CU_ASSERT_STRING_EQUAL(def.uuid, "c7a5fdbd-edaf-9455-926a-d65c16db1809");
	CU_ASSERT_EQUAL(def.memory, 2ULL << 30);
	CU_ASSERT_EQUAL(def.max_vcpus, 6);
	CU_ASSERT_EQUAL(def.vcpus, 2);
	CU_ASSERT_STRING_EQUAL(def.kernel, "/k/bzImage");
	CU_ASSERT_STRING_EQUAL(def.initrd, "/k/initrd");
	CU_ASSERT_STRING_EQUAL(def.cmdline, "console=ttyS0 quiet");
	CU_ASSERT_EQUAL(d.nr_warn, 0);
	domain_free(&def);
	diag_free(&d);
}

/* A second <cputune> or <metadata> is not read: said, not dropped without a word. */
static void test_repeated_elements(void)
{
	struct domain_def def;
	struct diag d;
	const char *xml = "<domain><name>r</name><memory>1024</memory><vcpu>2</vcpu>\n"
			  "<cputune><period>100000</period></cputune>\n"
			  "<cputune><quota>50000</quota></cputune>\n"
			  "<metadata/>\n<metadata><v:groups xmlns:v='https://vsched.dev/xmlns/"
			  "groups/1.0'><v:group name='g'/></v:groups></metadata></domain>";

	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	CU_ASSERT_EQUAL(def.tune.vcpu.quota, 0);
	CU_ASSERT_EQUAL(d.nr_warn, 2);
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "t.xml:3: <cputune>: only the first <cputune> "
					   "is read"));
	CU_ASSERT_TRUE(libvirt_has_warning(&d, "t.xml:5: <metadata>: only the first <metadata> "
					   "is read"));
	domain_free(&def);
	diag_free(&d);
}

static void test_memory_units(void)
{
	uint64_t b;

	CU_ASSERT_EQUAL(domain_scale_memory("5", NULL, &b), 0);
	CU_ASSERT_EQUAL(b, 5 * 1024);
	CU_ASSERT_EQUAL(domain_scale_memory("5", "KB", &b), 0);
	CU_ASSERT_EQUAL(b, 5000);
	CU_ASSERT_EQUAL(domain_scale_memory("3", "m", &b), 0);
	CU_ASSERT_EQUAL(b, 3ULL << 20);
	CU_ASSERT_EQUAL(domain_scale_memory("1", "TB", &b), 0);
	CU_ASSERT_EQUAL(b, 1000000000000ULL);
	CU_ASSERT_EQUAL(domain_scale_memory("7", "bytes", &b), 0);
	CU_ASSERT_EQUAL(b, 7);
	CU_ASSERT_EQUAL(domain_scale_memory("1", "mib", &b), -EINVAL);
	CU_ASSERT_EQUAL(domain_scale_memory("-1", "MiB", &b), -EINVAL);
	CU_ASSERT_EQUAL(domain_scale_memory("16", "EiB", &b), -ERANGE);
}

/* <memory> bounds as `virsh define` (libvirtd 9.0) drew them: at most LLONG_MAX bytes, kept in
 * KiB rounded up, below 2^53 KiB. 16 EiB - 1 KiB passed, and the VMM wrapped its mapping. */
static void test_memory_libvirt_bounds(void)
{
	static const struct {
		const char *mem;
		uint64_t bytes;		/* 0: refused */
		const char *why;
	} cases[] = {
		{ "<memory unit='b'>1</memory>", 1024, NULL },
		{ "<memory unit='b'>1025</memory>", 2048, NULL },
		{ "<memory unit='b'>9223372036854774784</memory>", 9223372036854774784ULL, NULL },
		{ "<memory unit='KiB'>9007199254740991</memory>", 9223372036854774784ULL, NULL },
		{ "<memory unit='EiB'>7</memory>", 7ULL << 60, NULL },
		{ "<memory unit='b'>9223372036854775807</memory>", 0, "size value too large" },
		{ "<memory unit='EiB'>8</memory>", 0, "value too large: 8EiB" },
		{ "<memory>18014398509481983</memory>", 0,
		  "value too large: 18014398509481983KiB" },
		{ "<memory unit='EiB'>15</memory>", 0, "value too large: 15EiB" },
	};
	char xml[256];
	struct domain_def def;
	struct diag d;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(xml, sizeof(xml), "<domain><name>m</name>\n%s</domain>", cases[i].mem);
		if (!cases[i].bytes) {
			expect_parse_error(xml, "t.xml:2: <memory>", cases[i].why);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
		CU_ASSERT_EQUAL(def.memory, cases[i].bytes);
		CU_ASSERT_EQUAL(def.memory_line, 2);
		domain_free(&def);
		diag_free(&d);
	}
}

static void test_errors_name_element_value_line(void)
{
	expect_parse_error("<domain>\n<name>x</name>\n<vcpu>2</cpu>\n</domain>", "t.xml:3: ",
		     "malformed XML: Opening and ending tag mismatch: vcpu");
	expect_parse_error("", "t.xml", "malformed XML");
	expect_parse_error("<vm><name>x</name></vm>", "t.xml:1: <vm>",
		     "unexpected root element <vm>, expecting <domain>");
	expect_parse_error("<domain xmlns='urn:x'><name>x</name></domain>", "t.xml:1: <domain>",
		     "unexpected root element <domain> in namespace 'urn:x', expecting <domain> "
		     "without a namespace");
	expect_parse_error("<domain>\n<memory>1</memory></domain>", "t.xml:1: <domain>",
		     "missing domain name information");
	expect_parse_error("<domain><name>a/b</name><memory>1</memory></domain>", "<name> 'a/b'",
		     "cannot contain '/'");
	expect_parse_error("<domain><name>x</name>\n<memory unit='MiB'>1x</memory></domain>",
		     "t.xml:2: <memory> '1x'", "Invalid value");
	expect_parse_error("<domain><name>x</name>\n<memory unit='QiB'>1</memory></domain>",
		     "t.xml:2: <memory> 'QiB'", "unknown suffix");
	expect_parse_error("<domain><name>x</name><vcpu>2</vcpu></domain>", "t.xml:1: <memory>",
		     "Memory size must be specified");
	expect_parse_error(DOM_HEAD("four") "</domain>", "t.xml:4: <vcpu> 'four'",
		     "maximum vcpus count must be an integer");
	expect_parse_error("<domain><name>x</name><memory>1</memory>\n<vcpu current='3'>2</vcpu>"
		     "</domain>", "t.xml:2: <vcpu> '3'",
		     "maxvcpus must not be less than current vcpus (2 < 3)");
}

/* Entity declarations are refused with their name and line, before anything expands. */
static void test_entities_refused(void)
{
	size_t ent = 4096, refs = 1000, n = 0, i;
	char *xml = malloc(ent + refs * 3 + 256);

	CU_ASSERT_PTR_NOT_NULL_FATAL(xml);
	n += (size_t)sprintf(xml, "<?xml version='1.0'?>\n<!DOCTYPE domain [\n<!ENTITY e \"");
	memset(xml + n, 'x', ent);
	n += ent;
	n += (size_t)sprintf(xml + n, "\">\n]>\n<domain><name>");
	for (i = 0; i < refs; i++)
		n += (size_t)sprintf(xml + n, "&e;");
	sprintf(xml + n, "</name><memory>1</memory></domain>");
	expect_parse_error(xml, "t.xml:3: <!ENTITY> 'e'", "entity declarations are refused");
	free(xml);
	expect_parse_error("<!DOCTYPE domain [\n<!ENTITY % p 'x'>\n]><domain/>",
			   "t.xml:2: <!ENTITY> 'p'", "entity declarations are refused");
	expect_parse_error("<!DOCTYPE domain [<!ENTITY s SYSTEM 'file:///etc/passwd'>]>"
			   "<domain><name>&s;</name></domain>", "t.xml:1: <!ENTITY> 's'",
			   "entity declarations are refused");
}

/* libxml2's own messages become one line of ours; libxml2 prints nothing itself. */
static void test_xml_errors_one_line(void)
{
	static const char *const bad[] = {
		"<domain><name>a\xff</name></domain>",		/* "...!\nBytes: 0xFF ..." */
		"<domain><name>a</name><vcpu>2</cpu></domain>",
		"<domain><name>&undefined;</name></domain>",
		"<domain><name>a</name><metadata><v:groups/></metadata></domain>",
	};
	struct domain_def def;
	struct diag d;
	char captured[256];
	int pipefd[2], saved;
	ssize_t got;
	size_t i;

	CU_ASSERT_EQUAL_FATAL(pipe(pipefd), 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	dup2(pipefd[1], STDERR_FILENO);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		parse_str(bad[i], &def, &d);
		CU_ASSERT_PTR_NULL(strchr(d.msg, '\n'));
		domain_free(&def);
		diag_free(&d);
	}
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	close(pipefd[1]);
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	got = read(pipefd[0], captured, sizeof(captured) - 1);
	close(pipefd[0]);
	if (got > 0) {
		captured[got] = '\0';
		printf("\n    libxml2 printed: %s\n", captured);
	}
	CU_ASSERT_TRUE(got <= 0);
	CU_ASSERT_EQUAL(parse_str(bad[0], &def, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "Input is not proper UTF-8, indicate encoding ! "
					     "Bytes: 0xFF"));
	diag_free(&d);
}

/* <domain type>: 'kvm' and 'qemu' are kept for `vsched run` to pick the backend, none is fine,
 * anything else is refused where it stands. */
static void test_domain_type(void)
{
	static const char *const types[] = { "kvm", "qemu" };
	struct domain_def def;
	struct diag d;
	char xml[256];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(xml, sizeof(xml), "<domain type='%s'><name>t</name><memory>1024</memory>"
			 "</domain>", types[i]);
		CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
		CU_ASSERT_STRING_EQUAL(def.type, types[i]);
		domain_free(&def);
		diag_free(&d);
	}
	CU_ASSERT_EQUAL_FATAL(parse_str("<domain><name>t</name><memory>1024</memory></domain>",
					&def, &d), 0);
	CU_ASSERT_STRING_EQUAL(def.type, "");
	domain_free(&def);
	diag_free(&d);
	expect_parse_error("<domain type='xen'><name>t</name><memory>1024</memory></domain>",
			   "t.xml:1: <domain> 'xen'", "vsched runs type 'kvm' (KVM) or 'qemu'");
}

static CU_TestInfo tests[] = {
	{ "repeated top-level elements are warned about", test_repeated_elements },
	{ "domain type: kvm, qemu or none", test_domain_type },
	{ "libvirt testdata: cputune.xml parses", test_testdata_cputune },
	{ "libvirt testdata: odd child order parses", test_testdata_odd_order },
	{ "libvirt testdata: zero shares parses", test_testdata_zero_shares },
	{ "libvirt testdata: vcpusched overlap is refused", test_testdata_vcpusched_overlap },
	{ "name, uuid, memory, vcpu current, os", test_top_level },
	{ "memory units", test_memory_units },
	{ "memory bounds as libvirt's", test_memory_libvirt_bounds },
	{ "errors name element, value, line", test_errors_name_element_value_line },
	{ "entity declarations are refused", test_entities_refused },
	{ "libxml2 errors: one line, nothing printed", test_xml_errors_one_line },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_domain", tests);
