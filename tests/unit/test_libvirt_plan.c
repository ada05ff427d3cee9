// SPDX-License-Identifier: GPL-2.0
/* The apply plan: generation, v1/v2 rendering, execution through back ends, dry run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libvirt/apply.h"
#include "libvirt/fsops.h"
#include "libvirt/plan.h"
#include "libvirt/target.h"
#include "libvirt/vcputhread.h"
#include "libvirt_util.h"
#include "util/file.h"
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
	return 1;
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
	struct diag d;
	struct fsops f;
	struct plan p;
	struct rec r = { .fail_file = "cpu.weight", .fail_err = -ENOENT };
	struct fs_backend be = { .mkdir = rec_mkdir, .write = rec_write, .move = rec_move,
				 .ctx = &r };

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
	diag_free(&d);
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

static void write_file_str(const char *dir, const char *name, const char *value)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	CU_ASSERT_EQUAL(file_write(p, value, strlen(value)), 0);
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
	struct diag d;
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
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 0, &tid0, NULL), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 1, &tid1, NULL), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 2, &tid, NULL), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 3, &tid, NULL), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 4, &tid, NULL), -ESRCH);

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
	CU_ASSERT_EQUAL(dir_target_open(&t, root, NULL, getpid(), true, f), 0);
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
	diag_free(&d);
	snprintf(buf, sizeof(buf), "rm -rf %s", root);
	CU_ASSERT_EQUAL(system(buf), 0);
}

/* libvirt's systemd layout on cgroup v2: <shares> on the scope, the rest in scope/libvirt. */
static void test_dir_backend_v2_scope(void)
{
	char root[] = "/tmp/vsched-scope-XXXXXX", dom[128], buf[128], *dry = NULL;
	struct domain_def def;
	struct diag d;
	pthread_t th;
	size_t len;
	FILE *out = open_memstream(&dry, &len);

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
	CU_ASSERT_EQUAL(apply_domain(&def, dom, getpid(), APPLY_QEMU | APPLY_DRY_RUN, out, &d), 0);
	write_file_str(root, "cpu.weight", "100");
	write_file_str(dom, "cpu.weight", "100");
	write_file_str(dom, "cpu.max", "max 100000");
	CU_ASSERT_EQUAL(apply_domain(&def, dom, getpid(), APPLY_QEMU, NULL, &d), -ESRCH);
	/*
	 * No thread of vCPU 0 in this process: the move fails, saying what it looked for, and
	 * the values written before it are undone.
	 */
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "moving vCPU 0 to vcpu0: No such process (looked for "
					     "vCPU 0 in libvirt's "));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "named 'vcpu0' or 'CPU 0/<accelerator>' (KVM, TCG"));
	read_file(root, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "100");
	read_file(dom, "cpu.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "max 100000");
	diag_free(&d);
	diag_init(&d, "t.xml");
	/* The same with a thread for vCPU 0 goes through. */
	pthread_barrier_init(&vcpu_barrier, NULL, 2);
	pthread_create(&th, NULL, vcpu_thread, (void *)(uintptr_t)0);
	pthread_barrier_wait(&vcpu_barrier);
	CU_ASSERT_EQUAL(apply_domain(&def, dom, getpid(), APPLY_QEMU, NULL, &d), 0);
	read_file(root, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "300");
	read_file(dom, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "100");
	read_file(dom, "cpu.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "50000 100000");
	diag_free(&d);
	diag_init(&d, "t.xml");
	/* Given as a plain directory, nothing is guessed: shares on the group itself. */
	CU_ASSERT_EQUAL(apply_domain(&def, dom, getpid(), 0, NULL, &d), 0);
	read_file(dom, "cpu.weight", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "300");
	pthread_barrier_wait(&vcpu_barrier);
	pthread_join(th, NULL);
	pthread_barrier_destroy(&vcpu_barrier);
	fclose(out);
	free(dry);
	domain_free(&def);
	diag_free(&d);
	snprintf(buf, sizeof(buf), "rm -rf %s", root);
	CU_ASSERT_EQUAL(system(buf), 0);
}

static pthread_barrier_t named_barrier;

static void *named_thread(void *arg)
{
	pthread_setname_np(pthread_self(), arg);
	pthread_barrier_wait(&named_barrier);	/* named */
	pthread_barrier_wait(&named_barrier);	/* test done */
	return NULL;
}

/* TID of this process's thread with that name, 0 if none. */
static pid_t thread_named(const char *name)
{
	char path[300], buf[32];
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	pid_t tid = 0;

	while (d && (e = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!file_read(path, buf, sizeof(buf)) && !strncmp(buf, name, strlen(name)) &&
		    buf[strlen(name)] == '\n')
			tid = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return tid;
}

/*
 * vCPU threads: QEMU's names under any accelerator ("CPU n/TCG" without /dev/kvm), and QEMU's
 * own mapping from libvirt's status file first when it describes this process.
 */
static void test_vcpu_threads(void)
{
	static const char *const names[] = { "CPU 0/TCG", "CPU 1/KVM", "worker", "CPU 3/" };
	char dir[] = "/tmp/vsched-status-XXXXXX", path[128];
	struct diag why;
	pthread_t th[4];
	pid_t tids[4] = { 0 }, tid, other;
	FILE *f;
	unsigned int i;

	pthread_barrier_init(&named_barrier, NULL, 5);
	for (i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, named_thread, (void *)names[i]);
	pthread_barrier_wait(&named_barrier);
	/* By name: TCG and KVM; a bare "CPU 3/" is nobody's. */
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 0, &tids[0], NULL), 0);
	CU_ASSERT_EQUAL(vcpu_thread_find(NULL, getpid(), 1, &tids[1], NULL), 0);
	diag_init(&why, NULL);
	CU_ASSERT_EQUAL(vcpu_thread_find("none", getpid(), 3, &tid, &why), -ESRCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "named 'vcpu3' or 'CPU 3/<accelerator>' (KVM, TCG"));
	CU_ASSERT_EQUAL(tids[0], thread_named("CPU 0/TCG"));
	CU_ASSERT_EQUAL(tids[1], thread_named("CPU 1/KVM"));

	/* libvirt's status file maps vCPU 2 to the thread called "worker" (QEMU's own mapping). */
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("VSCHED_LIBVIRT_RUNDIR", dir, 1);
	tids[2] = thread_named("worker");
	CU_ASSERT_TRUE_FATAL(tids[2] > 0);
	snprintf(path, sizeof(path), "%s/dom.xml", dir);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "<domstatus state='running' pid='%d'>\n<vcpus>\n<vcpu id='2' pid='%d'/>\n"
		"</vcpus>\n<domain type='qemu'/>\n</domstatus>\n", (int)getpid(), (int)tids[2]);
	fclose(f);
	CU_ASSERT_EQUAL(vcpu_thread_find("dom", getpid(), 2, &tid, NULL), 0);
	CU_ASSERT_EQUAL(tid, tids[2]);
	/* Not there: names; a status file of another QEMU process is not believed. */
	CU_ASSERT_EQUAL(vcpu_thread_find("dom", getpid(), 0, &tid, NULL), 0);
	CU_ASSERT_EQUAL(tid, tids[0]);
	/* (Not getpid() + 1: that can be one of this process's threads, /proc shows its group.) */
	other = fork();
	if (other == 0)
		_exit(0);
	CU_ASSERT_TRUE_FATAL(other > 0);
	waitpid(other, NULL, 0);
	CU_ASSERT_EQUAL(vcpu_thread_find("dom", other, 2, &tid, NULL) < 0, 1);
	diag_init(&why, NULL);
	CU_ASSERT_EQUAL(vcpu_thread_find("dom", getpid(), 3, &tid, &why), -ESRCH);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.msg, "looked for vCPU 3 in libvirt's "));
	unsetenv("VSCHED_LIBVIRT_RUNDIR");
	unlink(path);
	rmdir(dir);
	pthread_barrier_wait(&named_barrier);
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&named_barrier);
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

/*
 * An in-memory cgroup tree as a back end: directories, file values, where each vCPU is. The
 * fail_at-th change (mkdir, rmdir, write, move) fails, to check that every failure point
 * leaves the tree as it was.
 */
#define MT_MAX	64
struct mtree {
	int nr_dirs, nr_files;
	char dirs[MT_MAX][96];
	struct {
		char key[160];
		char val[64];
	} files[4 * MT_MAX];
	char where[3][96];
	int changes, fail_at;
};

static int mt_change(struct mtree *m)
{
	return m->changes++ == m->fail_at ? -EBUSY : 0;
}

static int mt_dir(const struct mtree *m, const char *path)
{
	int i;

	for (i = 0; i < m->nr_dirs; i++)
		if (!strcmp(m->dirs[i], path))
			return i;
	return -1;
}

static char *mt_file(struct mtree *m, const char *path, const char *file, bool add)
{
	char key[160];
	int i;

	snprintf(key, sizeof(key), "%s/%s", path, file);
	for (i = 0; i < m->nr_files; i++)
		if (!strcmp(m->files[i].key, key))
			return m->files[i].val;
	if (!add || m->nr_files == 4 * MT_MAX)
		return NULL;
	snprintf(m->files[m->nr_files].key, sizeof(m->files[0].key), "%s", key);
	m->files[m->nr_files].val[0] = '\0';
	return m->files[m->nr_files++].val;
}

static int mt_mkdir(void *ctx, const char *path)
{
	struct mtree *m = ctx;

	if (mt_dir(m, path) >= 0)
		return 0;
	if (mt_change(m))
		return -EBUSY;
	snprintf(m->dirs[m->nr_dirs++], sizeof(m->dirs[0]), "%s", path);
	return 1;
}

static int mt_rmdir(void *ctx, const char *path)
{
	struct mtree *m = ctx;
	int i = mt_dir(m, path), k;
	size_t n = strlen(path);

	if (i < 0)
		return -ENOENT;
	for (k = 0; k < 3; k++)
		if (!strcmp(m->where[k], path))
			return -EBUSY;
	memmove(m->dirs[i], m->dirs[i + 1], (size_t)(m->nr_dirs - i - 1) * sizeof(m->dirs[0]));
	m->nr_dirs--;
	for (k = 0; k < m->nr_files; k++)
		if (!strncmp(m->files[k].key, path, n) && m->files[k].key[n] == '/' &&
		    !strchr(m->files[k].key + n + 1, '/'))
			m->files[k].val[0] = '\0';
	return 0;
}

static int mt_read(void *ctx, const char *path, const char *file, char *buf, size_t len)
{
	struct mtree *m = ctx;
	char *v;

	if (mt_dir(m, path) < 0)
		return -ENOENT;
	v = mt_file(m, path, file, false);
	snprintf(buf, len, "%s", v ? v : "");
	return 0;
}

static int mt_write(void *ctx, const char *path, const char *file, const char *value)
{
	struct mtree *m = ctx;
	char *v;

	if (mt_dir(m, path) < 0)
		return -ENOENT;
	if (mt_change(m))
		return -EBUSY;
	v = mt_file(m, path, file, true);
	if (!v)
		return -ENOSPC;
	/* cgroup.subtree_control holds the controllers, not what was written. */
	if (!strcmp(file, "cgroup.subtree_control"))
		value = value[0] == '+' ? "cpu" : "";
	snprintf(v, 64, "%s", value);
	return 0;
}

static int mt_move(void *ctx, const char *path, unsigned int vcpu)
{
	struct mtree *m = ctx;

	if (mt_dir(m, path) < 0)
		return -ENOENT;
	if (mt_change(m))
		return -EBUSY;
	snprintf(m->where[vcpu], sizeof(m->where[0]), "%s", path);
	return 0;
}

static int mt_locate(void *ctx, unsigned int vcpu, char *path, size_t len)
{
	struct mtree *m = ctx;

	snprintf(path, len, "%s", m->where[vcpu]);
	return 0;
}

/* Same directories, vCPU places and non-empty values, in any order. */
static bool mt_same(struct mtree *a, struct mtree *b)
{
	int i;

	if (a->nr_dirs != b->nr_dirs)
		return false;
	for (i = 0; i < 3; i++)
		if (strcmp(a->where[i], b->where[i]))
			return false;
	for (i = 0; i < a->nr_dirs; i++)
		if (mt_dir(b, a->dirs[i]) < 0)
			return false;
	for (i = 0; i < a->nr_files + b->nr_files; i++) {
		struct mtree *x = i < a->nr_files ? a : b, *y = i < a->nr_files ? b : a;
		int k = i < a->nr_files ? i : i - a->nr_files;
		const char *val = x->files[k].val;
		int j;
		bool found = !val[0];

		for (j = 0; j < y->nr_files; j++)
			if (!strcmp(y->files[j].key, x->files[k].key))
				found = !strcmp(y->files[j].val, val);
		if (!found)
			return false;
	}
	return true;
}

/* Every failure point of a re-apply over an existing group leaves the tree as it was. */
static void test_exec_all_or_nothing(void)
{
	static struct mtree init, m;
	struct domain_def def;
	struct diag d;
	struct fsops f;
	struct plan p;
	struct fs_backend be = { .mkdir = mt_mkdir, .rmdir = mt_rmdir, .read = mt_read,
				 .write = mt_write, .move = mt_move, .locate = mt_locate,
				 .ctx = &m };
	enum fs_flavor fl;
	int k, total;

	memset(&init, 0, sizeof(init));
	init.fail_at = -1;
	init.nr_dirs = 2;
	strcpy(init.dirs[0], "");
	strcpy(init.dirs[1], "fast");
	strcpy(init.where[1], "fast");
	mt_write(&init, "fast", "cpu.weight", "55");
	mt_write(&init, "fast", "cgroup.type", "threaded");
	mt_write(&init, "", "cpu.max", "max 100000");
	mt_write(&init, "", "cpu.shares", "1024");
	CU_ASSERT_EQUAL_FATAL(parse_str(dom_full, &def, &d), 0);
	CU_ASSERT_EQUAL_FATAL(plan_build(&def, 0, &p), 0);
	for (fl = FS_V2; fl <= FS_V1; fl++) {
		CU_ASSERT_EQUAL_FATAL(fsops_render(&p, fl, &f, &d), 0);
		m = init;
		m.changes = 0;
		CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), 0);
		CU_ASSERT_FALSE(mt_same(&m, &init));
		total = m.changes;
		CU_ASSERT_TRUE(total > 20);
		for (k = 0; k < total; k++) {
			m = init;
			m.changes = 0;
			m.fail_at = k;
			diag_free(&d);
			diag_init(&d, "t.xml");
			CU_ASSERT_EQUAL(fsops_exec(&f, &be, &d), -EBUSY);
			if (!mt_same(&m, &init))
				printf("\n    flavour %d: failure at change %d of %d left "
				       "changes\n", fl, k, total);
			CU_ASSERT_TRUE(mt_same(&m, &init));
		}
		fsops_free(&f);
	}
	plan_free(&p);
	domain_free(&def);
	diag_free(&d);
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
	{ "plan for a libvirt QEMU domain: libvirt's vcpuN stay", test_plan_libvirt_vcpus },
	{ "plan for a libvirt QEMU domain nested for a global cap",
	  test_plan_libvirt_vcpus_nested },
	{ "plan paths hold the deepest group and vCPU 1023", test_plan_longest_path },
	{ "vCPU threads: any accelerator, libvirt's status file", test_vcpu_threads },
	{ "execution is all or nothing at every failure point", test_exec_all_or_nothing },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_plan", tests);
