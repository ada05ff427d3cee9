// SPDX-License-Identifier: GPL-2.0
/* The apply plan: generation, v1/v2 rendering, execution through back ends, dry run. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libvirt/apply.h"
#include "libvirt/fsops.h"
#include "libvirt/plan.h"
#include "libvirt/target.h"
#include "libvirt_util.h"
#include "test.h"

#define NS "https://vsched.dev/xmlns/groups/1.0"

static const char *dom_full =
	DOM_HEAD("3")
	"<cputune><shares>300</shares><period>100000</period><quota>50000</quota>\n"
	"<global_quota>250000</global_quota><vcpusched vcpus='2' scheduler='idle'/></cputune>\n"
	"<metadata><v:groups xmlns:v='" NS "'>\n"
	"<v:group name='fast' weight='400' quota='150000' burst='10000'/>\n"
	"<v:group name='bg' parent='fast' idle='yes'/>\n"
	"<v:assign vcpus='0' group='fast'/><v:assign vcpus='1' group='bg'/>\n"
	"</v:groups></metadata></domain>";

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
	struct xdiag d;
	struct plan p;
	char *txt;

	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	plan_text(&p, &txt);
	CU_ASSERT_STRING_EQUAL(txt,
			       "shares / 300\n"
			       "max / 250000 100000\n"
			       "mkdir fast\n"
			       "idle fast 0\n"
			       "weight fast 400\n"
			       "burst fast 0\n"
			       "max fast 150000 100000\n"
			       "burst fast 10000\n"
			       "mkdir fast/bg\n"
			       "idle fast/bg 1\n"
			       "burst fast/bg 0\n"
			       "max fast/bg max 100000\n"
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
	xdiag_free(&d);
}

static void test_plan_minimal(void)
{
	struct domain_def def;
	struct xdiag d;
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
	xdiag_free(&d);
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
	struct xdiag d;
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
	xdiag_free(&d);
}

/* Renders a domain for a flavour and returns the error (message in d). */
static int render_str(const char *xml, enum fs_flavor fl, struct xdiag *d)
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
	struct xdiag d;

	/* libvirt: v2 [1, 10000], v1 [2, 262144], no conversion and no clamping. */
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune>\n<shares>0</shares></cputune>"
				   "</domain>", FS_V2, &d), -EINVAL);
	CU_ASSERT_STRING_EQUAL(d.msg, "t.xml:6: <shares> '0': shares '0' must be in range "
				      "[1, 10000]");
	xdiag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>10001</shares></cputune>"
				   "</domain>", FS_V2, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "shares '10001' must be in range [1, 10000]"));
	xdiag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>10001</shares></cputune>"
				   "</domain>", FS_V1, &d), 0);
	xdiag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>1</shares></cputune>"
				   "</domain>", FS_V1, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "shares '1' must be in range [2, 262144]"));
	xdiag_free(&d);
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("1") "<cputune><shares>1</shares></cputune>"
				   "</domain>", FS_V2, &d), 0);
	xdiag_free(&d);
}

static void test_render_v1_caps(void)
{
	struct xdiag d;
	const char *xml =
		DOM_HEAD("2") "<cputune><period>100000</period><quota>50000</quota></cputune>\n"
		"<metadata><v:groups xmlns:v='" NS "'>\n"
		"<v:group name='slow' quota='20000'/>\n"
		"<v:assign vcpus='1' group='slow'/></v:groups></metadata></domain>";

	/* v1 refuses a child cap above its parent's; v2 does not care. */
	CU_ASSERT_EQUAL(render_str(xml, FS_V2, &d), 0);
	xdiag_free(&d);
	CU_ASSERT_EQUAL(render_str(xml, FS_V1, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.xml:5: <cputune/quota> '50000 100000'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "slow/vcpu1 exceeds slow (20000 100000)"));
	xdiag_free(&d);
	/* An unlimited group inherits its parent's ratio: the VM's global cap. */
	CU_ASSERT_EQUAL(render_str(DOM_HEAD("2") "<cputune><global_quota>30000</global_quota>"
				   "</cputune>\n<metadata><v:groups xmlns:v='" NS "'>\n"
				   "<v:group name='a'/><v:group name='b' parent='a' "
				   "quota='40000'/></v:groups></metadata></domain>", FS_V1, &d),
			-EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "a/b exceeds the VM (30000 100000)"));
	xdiag_free(&d);
}

/* A back end that records calls, as the C API back end would receive them. */
struct rec {
	char log[4096];
	size_t len;
	const char *fail_file;	/* write to this file fails with fail_err */
	int fail_err;
};

static int rec_mkdir(void *ctx, const char *path)
{
	struct rec *r = ctx;

	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, "M %s\n", path);
	return 0;
}

static int rec_write(void *ctx, const char *path, const char *file, const char *value)
{
	struct rec *r = ctx;

	if (r->fail_file && !strcmp(file, r->fail_file))
		return r->fail_err;
	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, "W %s/%s=%s\n",
				   path, file, value);
	return 0;
}

static int rec_move(void *ctx, const char *path, unsigned int vcpu)
{
	struct rec *r = ctx;

	r->len += (size_t)snprintf(r->log + r->len, sizeof(r->log) - r->len, "V %u>%s\n", vcpu,
				   path);
	return 0;
}

static void test_exec_backend(void)
{
	struct domain_def def;
	struct xdiag d;
	struct fsops f;
	struct plan p;
	struct rec r = { .fail_file = "cpu.weight", .fail_err = -ENOENT };
	struct fs_backend be = { rec_mkdir, rec_write, rec_move, &r };

	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("2") "<cputune><shares>300</shares></cputune>\n"
					"<metadata><v:groups xmlns:v='" NS "'>\n"
					"<v:group name='g' idle='1'/><v:assign vcpus='1' group='g'/>"
					"</v:groups></metadata></domain>", &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	CU_ASSERT_EQUAL_FATAL(fsops_render(&p, FS_V2, &f, &d), 0);
	/* The VM's group has no cpu.weight (a kernel-like root): warned, the rest applied. */
	CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), 0);
	CU_ASSERT_STRING_EQUAL(r.log, "M g\n"
				      "W g/cgroup.type=threaded\n"
				      "W /cgroup.subtree_control=+cpu\n"
				      "W g/cpu.idle=1\n"
				      "W g/cpu.max.burst=0\n"
				      "W g/cpu.max=max 100000\n"
				      "V 0>\n"
				      "V 1>g\n");
	CU_ASSERT_EQUAL(d.nr_warn, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.warn[0], "no cpu.weight here; '300' not applied"));

	/* A failure inside a group stops the run and names file, value, errno and element. */
	memset(&r, 0, sizeof(r));
	r.fail_file = "cpu.idle";
	r.fail_err = -EINVAL;
	CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "<vsched:group>: writing '1' to g/cpu.idle: "
					     "Invalid argument"));
	CU_ASSERT_PTR_NULL(strstr(r.log, "V "));
	fsops_free(&f);
	plan_free(&p);
	domain_free(&def);
	xdiag_free(&d);
}

static void make_file(const char *dir, const char *name)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	CU_ASSERT_TRUE(fd >= 0);
	if (fd >= 0)
		close(fd);
}

static void read_file(const char *dir, const char *name, char *buf, size_t len)
{
	char p[512];
	ssize_t n;
	int fd;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	buf[0] = '\0';
	fd = open(p, O_RDONLY);
	if (fd < 0)
		return;
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	close(fd);
}

static pthread_barrier_t vcpu_barrier;

/* vCPUs 0-1 named as vsched names them, 2 and 3 as QEMU does under KVM and under TCG. */
static void *vcpu_thread(void *arg)
{
	unsigned int i = (unsigned int)(uintptr_t)arg;
	char name[16];

	snprintf(name, sizeof(name), i < 2 ? "vcpu%u" : i == 2 ? "CPU %u/KVM" : "CPU %u/TCG", i);
	pthread_setname_np(pthread_self(), name);
	pthread_barrier_wait(&vcpu_barrier);	/* named */
	pthread_barrier_wait(&vcpu_barrier);	/* test done */
	return NULL;
}

/* The directory back end on a v1-like tree of plain files, with threads named like vCPUs. */
static void test_dir_backend(void)
{
	char root[] = "/tmp/vsched-plan-XXXXXX", sub[600], buf[128], *out;
	const char *xml = DOM_HEAD("2") "<cputune><shares>2048</shares></cputune>\n"
			  "<metadata><v:groups xmlns:v='" NS "'>\n"
			  "<v:group name='g' weight='50'/><v:assign vcpus='1' group='g'/>"
			  "</v:groups></metadata></domain>";
	struct domain_def def;
	struct dir_target t;
	struct xdiag d;
	pthread_t th[4];
	pid_t tid0, tid1, tid;
	size_t len;
	FILE *f;
	unsigned int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	pthread_barrier_init(&vcpu_barrier, NULL, 5);
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, vcpu_thread, (void *)(uintptr_t)i);
	pthread_barrier_wait(&vcpu_barrier);
	CU_ASSERT_EQUAL(vcpu_thread_find(getpid(), 0, &tid0), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(getpid(), 1, &tid1), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(getpid(), 2, &tid), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(getpid(), 3, &tid), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(getpid(), 4, &tid), -ESRCH);

	/* A v1 "cpu" tree: the root has cpu.shares and tasks; g exists already (re-apply). */
	make_file(root, "cpu.shares");
	make_file(root, "tasks");
	snprintf(sub, sizeof(sub), "%s/g", root);
	mkdir(sub, 0755);
	make_file(sub, "cpu.shares");
	make_file(sub, "cpu.idle");
	make_file(sub, "cpu.cfs_burst_us");
	make_file(sub, "cpu.cfs_period_us");
	make_file(sub, "cpu.cfs_quota_us");
	make_file(sub, "tasks");
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);

	/* Dry run: prints, writes nothing. */
	f = open_memstream(&out, &len);
	CU_ASSERT_EQUAL(dir_target_open(&t, root, getpid(), true, f), 0);
	CU_ASSERT_EQUAL(t.flavor, FS_V1);
	fclose(f);
	free(out);
	f = open_memstream(&out, &len);
	CU_ASSERT_EQUAL(apply_domain(&def, root, getpid(), APPLY_DRY_RUN, f, &d), 0);
	fclose(f);
	snprintf(buf, sizeof(buf), "write %s/g/tasks %d\n", root, (int)tid1);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, buf));
	snprintf(buf, sizeof(buf), "write %s/g/cpu.shares 512\n", root);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, buf));
	snprintf(buf, sizeof(buf), "write %s/cpu.shares 2048\n", root);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, buf));
	snprintf(buf, sizeof(buf), "mkdir %s/g\n", root);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, buf));
	free(out);
	read_file(root, "cpu.shares", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "");

	/* For real. */
	CU_ASSERT_EQUAL(apply_domain(&def, root, getpid(), 0, NULL, &d), 0);
	read_file(root, "cpu.shares", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "2048");
	read_file(sub, "cpu.shares", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "512");
	read_file(sub, "cpu.cfs_quota_us", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "-1");
	read_file(sub, "tasks", buf, sizeof(buf));
	CU_ASSERT_EQUAL(atoi(buf), tid1);
	read_file(root, "tasks", buf, sizeof(buf));
	CU_ASSERT_EQUAL(atoi(buf), tid0);

	pthread_barrier_wait(&vcpu_barrier);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&vcpu_barrier);
	domain_free(&def);
	xdiag_free(&d);
	snprintf(buf, sizeof(buf), "rm -rf %s", root);
	CU_ASSERT_EQUAL(system(buf), 0);
}

/* libvirt's systemd layout on cgroup v2: <shares> on the scope, the rest in scope/libvirt. */
static void test_dir_backend_v2_scope(void)
{
	char root[] = "/tmp/vsched-scope-XXXXXX", dom[128], buf[128];
	struct domain_def def;
	struct xdiag d;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	snprintf(dom, sizeof(dom), "%s/libvirt", root);
	CU_ASSERT_EQUAL_FATAL(mkdir(dom, 0755), 0);
	make_file(root, "cpu.weight");
	make_file(dom, "cpu.weight");
	make_file(dom, "cpu.max");
	make_file(dom, "cgroup.threads");
	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("1") "<cputune><shares>300</shares>"
					"<global_quota>50000</global_quota></cputune></domain>",
					&def, &d), 0);
	/* A QEMU domain: shares go up to the scope, the global cap stays on scope/libvirt. */
	CU_ASSERT_EQUAL(apply_domain(&def, dom, getpid(), APPLY_QEMU, NULL, &d), -ESRCH);
	read_file(root, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "300");
	read_file(dom, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "");
	read_file(dom, "cpu.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "50000 100000");
	/* No thread named like vCPU 0 in this process: the move fails, named. */
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "moving vCPU 0 to /: No such process"));
	xdiag_free(&d);
	xdiag_init(&d, "t.xml");
	/* Given as a plain directory (--ctl), nothing is guessed: shares on the group itself. */
	CU_ASSERT_EQUAL(apply_domain(&def, dom, getpid(), 0, NULL, &d), -ESRCH);
	read_file(dom, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "300");
	domain_free(&def);
	xdiag_free(&d);
	snprintf(buf, sizeof(buf), "rm -rf %s", root);
	CU_ASSERT_EQUAL(system(buf), 0);
}

static CU_TestInfo tests[] = {
	{ "plan of a full domain", test_plan_build },
	{ "plan of a bare domain", test_plan_minimal },
	{ "render for cgroup v2 and v1", test_render_v1_v2 },
	{ "shares range depends on the cgroup version", test_render_shares_ranges },
	{ "cgroup v1 cap hierarchy checked before writing", test_render_v1_caps },
	{ "execution through a back end", test_exec_backend },
	{ "directory back end, dry run and real", test_dir_backend },
	{ "libvirt's v2 systemd layout: shares on the scope", test_dir_backend_v2_scope },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_plan", tests);
