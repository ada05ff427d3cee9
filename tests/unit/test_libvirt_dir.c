// SPDX-License-Identifier: GPL-2.0
/*
 * The apply plan on real directories: the directory back end for real and as a dry run,
 * libvirt's v2 systemd layout, and how the vCPU threads it moves are found.
 */
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
#include "libvirt/target.h"
#include "libvirt/vcputhread.h"
#include "libvirt_plan_test.h"
#include "util/file.h"
#include "test.h"

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

/*
 * A running vsched VM has the vCPUs it started with (no hot-plug): a domain that starts more is
 * refused before the first write, dry run included, naming <vcpu> and its line (vCPU 2's move
 * failed half way, undone, and the dry run said nothing).
 */
static void test_dir_vsched_vcpus(void)
{
	char root[] = "/tmp/vsched-plan-XXXXXX", sub[600], buf[64], *out;
	const char *xml = DOM_HEAD("4") "<metadata><v:groups xmlns:v='" NS "'>\n"
			  "<v:group name='fast'/><v:assign vcpus='0,3' group='fast'/>"
			  "</v:groups></metadata></domain>";
	struct domain_def def;
	struct diag d;
	size_t len;
	FILE *f;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	/* A control directory of a VM of 2 vCPUs: vCPU 0 in the root, vCPU 1 in a group. */
	make_file(root, "vsched.vcpus");
	write_file_str(root, "vsched.vcpus", "0\n");
	snprintf(sub, sizeof(sub), "%s/a", root);
	mkdir(sub, 0755);
	make_file(sub, "vsched.vcpus");
	write_file_str(sub, "vsched.vcpus", "1\n");
	CU_ASSERT_EQUAL_FATAL(parse_str(xml, &def, &d), 0);
	f = open_memstream(&out, &len);
	CU_ASSERT_EQUAL(apply_domain(&def, root, getpid(), APPLY_DRY_RUN, f, &d), -EINVAL);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "t.xml:4: <vcpu> '4': "));
	CU_ASSERT_PTR_NOT_NULL(strstr(d.msg, "runs 2 vCPUs"));
	free(out);
	diag_free(&d);
	CU_ASSERT_EQUAL(apply_domain(&def, root, getpid(), 0, NULL, &d), -EINVAL);
	snprintf(sub, sizeof(sub), "%s/fast", root);
	CU_ASSERT_EQUAL(access(sub, F_OK), -1);
	domain_free(&def);
	diag_free(&d);
	/* Starting fewer is fine: the others stay where they are. */
	CU_ASSERT_EQUAL_FATAL(parse_str(DOM_HEAD("1") "</domain>", &def, &d), 0);
	f = open_memstream(&out, &len);
	CU_ASSERT_EQUAL(apply_domain(&def, root, getpid(), APPLY_DRY_RUN, f, &d), 0);
	fclose(f);
	free(out);
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
	CU_ASSERT_EQUAL(tids[0], test_thread_named("CPU 0/TCG"));
	CU_ASSERT_EQUAL(tids[1], test_thread_named("CPU 1/KVM"));

	/* libvirt's status file maps vCPU 2 to the thread called "worker" (QEMU's own mapping). */
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	setenv("VSCHED_LIBVIRT_RUNDIR", dir, 1);
	tids[2] = test_thread_named("worker");
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

static CU_TestInfo tests[] = {
	{ "a domain with more vCPUs than the running VM", test_dir_vsched_vcpus },
	{ "directory back end, dry run and real", test_dir_backend },
	{ "libvirt's v2 systemd layout: shares on the scope", test_dir_backend_v2_scope },
	{ "vCPU threads: any accelerator, libvirt's status file", test_vcpu_threads },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("libvirt_dir", tests);
