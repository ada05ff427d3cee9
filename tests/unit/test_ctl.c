// SPDX-License-Identifier: GPL-2.0
/*
 * Control directory: where /dev/fuse is usable, a mount served in-process, driven with plain
 * syscalls (so ASan sees the FUSE handlers). The VM registry is test_ctl_registry.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "ctl_test.h"
#include "sched/files.h"
#include "sched/group.h"
#include "test.h"
#include "util/cpuset.h"
#include "vsched.h"

static ssize_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

static ssize_t write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_TRUNC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	if (n < 0)
		n = -errno;
	close(fd);
	return n;
}

/* The d_type readdir gives name in dir. */
static void dir_types(const char *dir, const char *name, unsigned char want)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool found = false;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	while ((e = readdir(d)))
		if (!strcmp(e->d_name, name)) {
			found = true;
			CU_ASSERT_EQUAL(e->d_type, want);
		}
	closedir(d);
	CU_ASSERT_TRUE(found);
}

struct poller {
	int fd;
	short revents;
	int64_t ms;
};

static void *poller(void *arg)
{
	struct poller *w = arg;
	struct pollfd pfd = { w->fd, POLLPRI, 0 };
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (poll(&pfd, 1, 20000) == 1)
		w->revents = pfd.revents;
	clock_gettime(CLOCK_MONOTONIC, &b);
	w->ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
	return NULL;
}

/* poll(2) on cgroup.events: POLLPRI before the first read, and a waiting poll woken by a move. */
static void ctl_poll_events(struct vsched *vs, const char *dir)
{
	struct pollfd pfd = { -1, POLLPRI, 0 };
	struct poller w = { -1, 0, -1 };
	char p[PATH_MAX + 32], buf[64];
	pthread_t t;

	CU_ASSERT_EQUAL_FATAL(vsched_mkdir_threaded(vs, "pt"), 0);
	snprintf(p, sizeof(p), "%s/pt/cgroup.events", dir);
	pfd.fd = w.fd = open(p, O_RDONLY);
	CU_ASSERT_TRUE_FATAL(pfd.fd >= 0);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 1);
	CU_ASSERT_EQUAL(pfd.revents, POLLPRI | POLLERR);
	CU_ASSERT_EQUAL(pread(pfd.fd, buf, sizeof(buf), 0), 21);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, poller, &w), 0);
	usleep(100000);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "pt"), 0);
	pthread_join(t, NULL);
	/*
	 * Woken by the move, not the 20 s timeout (the revents say so too). Not under 2 s: at load
	 * 20 under nice 19 the move came 2-3 s after the poll began (failed).
	 */
	CU_ASSERT_EQUAL(w.revents, POLLPRI | POLLERR);
	CU_ASSERT_TRUE(w.ms >= 0 && w.ms < 20000);
	CU_ASSERT_EQUAL(pread(pfd.fd, buf, sizeof(buf), 0), 21);
	CU_ASSERT_EQUAL(memcmp(buf, "populated 1\n", 12), 0);
	CU_ASSERT_EQUAL(poll(&pfd, 1, 0), 0);
	close(pfd.fd);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "/"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "pt"), 0);
}

static void test_ctl_mount_serves_api(void)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], buf[256];
	struct vsched *vs;
	struct ctl *c;
	struct stat st;
	int fd;

	if (access("/dev/fuse", R_OK | W_OK) || geteuid()) {
		test_skip("mounting needs /dev/fuse and root");
		return;
	}
	set_run_dir();
	snprintf(dir, sizeof(dir), "%s/mnt", run_dir);
	vs = vsched_create(2, 4);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL_FATAL(ctl_mount(vs, dir, &c), 0);

	CU_ASSERT_EQUAL(stat(dir, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode, S_IFDIR | 0755);
	CU_ASSERT_EQUAL(mkdir(strcat(strcpy(p, dir), "/g"), 0), 0);
	CU_ASSERT_EQUAL(mkdir(p, 0), -1);
	CU_ASSERT_EQUAL(errno, EEXIST);
	snprintf(p, sizeof(p), "%s/g/cpu.weight", dir);
	CU_ASSERT_EQUAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode, S_IFREG | 0644);
	CU_ASSERT_EQUAL(st.st_size, 0);
	CU_ASSERT_EQUAL(read_file(p, buf, sizeof(buf)), 4);
	CU_ASSERT_STRING_EQUAL(buf, "100\n");
	/* readdir gives each entry's type, as kernfs does (it gave DT_UNKNOWN). */
	dir_types(dir, "g", DT_DIR);
	dir_types(dir, "cpu.stat", DT_REG);
	dir_types(dir, ".", DT_DIR);
	CU_ASSERT_EQUAL(write_file(p, "0"), -ERANGE);
	CU_ASSERT_EQUAL(write_file(p, "250\n"), 4);
	CU_ASSERT_EQUAL(vsched_read(vs, "g", "cpu.weight", buf, sizeof(buf)), 4);
	CU_ASSERT_STRING_EQUAL(buf, "250\n");
	/* A change through the API shows at once in the directory. */
	CU_ASSERT_EQUAL(vsched_write_str(vs, "g", "cpu.max", "5000 10000"), 0);
	snprintf(p, sizeof(p), "%s/g/cpu.max", dir);
	CU_ASSERT_EQUAL(read_file(p, buf, sizeof(buf)), 11);
	CU_ASSERT_STRING_EQUAL(buf, "5000 10000\n");
	/* Read-only file: root opens it for writing, as on cgroupfs; the write is EINVAL. */
	snprintf(p, sizeof(p), "%s/g/cpu.stat", dir);
	fd = open(p, O_WRONLY);
	CU_ASSERT_TRUE(fd >= 0);
	errno = 0;
	CU_ASSERT_EQUAL(write(fd, "1", 1), -1);
	CU_ASSERT_EQUAL(errno, EINVAL);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof(p), "%s/g", dir);
	CU_ASSERT_EQUAL(rmdir(p), 0);
	CU_ASSERT_EQUAL(vsched_stat(vs, "g", NULL, &st.st_mode), -ENOENT);
	ctl_poll_events(vs, dir);

	ctl_unmount(c);
	CU_ASSERT_EQUAL(stat(dir, &st), -1);
	CU_ASSERT_EQUAL(errno, ENOENT);
	vsched_destroy(vs);
	rm_run_dir();
}

/* An open descriptor inside the mount must not stop the unmount from finishing. */
static void test_ctl_unmount_with_open_file(void)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], buf[64];
	struct vsched *vs;
	struct ctl *c;
	int fd;

	if (access("/dev/fuse", R_OK | W_OK) || geteuid()) {
		test_skip("mounting needs /dev/fuse and root");
		return;
	}
	set_run_dir();
	snprintf(dir, sizeof(dir), "%s/busy", run_dir);
	vs = vsched_create(1, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL_FATAL(ctl_mount(vs, dir, &c), 0);
	snprintf(p, sizeof(p), "%s/cpu.stat", dir);
	fd = open(p, O_RDONLY);
	CU_ASSERT(fd >= 0);
	ctl_unmount(c);
	/* The descriptor now belongs to a severed connection. */
	CU_ASSERT_EQUAL(read(fd, buf, sizeof(buf)), -1);
	close(fd);
	vsched_destroy(vs);
	rm_run_dir();
}

/*
 * The clock hook runs under the tree's lock right before a write takes effect: armed, it moves
 * vCPU 0 out of the delegated subtree there, as a concurrent move by root would land between a
 * permission check made in another lock section and the write.
 */
static bool race_armed;

static uint64_t race_clock(void *arg)
{
	struct sched *s = vsched_sched(arg);
	struct cpuset set;

	if (race_armed) {
		race_armed = false;
		cpuset_clear(&set);
		cpuset_set(&set, 0);
		cgroup_move_vcpus(s, &set, group_lookup(s, "o"), true);
	}
	return 0;
}

/* A delegatee's vCPU move is checked in the same lock section as the write (no race). */
static void test_ctl_move_check_atomic(void)
{
	char dir[PATH_MAX], p[PATH_MAX + 64], val[16], got[64];
	struct vsched *vs;
	struct ctl *c;
	int status, fds[2];
	pid_t pid;

	if (access("/dev/fuse", R_OK | W_OK) || geteuid()) {
		test_skip("mounting needs /dev/fuse and root");
		return;
	}
	set_run_dir();
	chmod(run_dir, 0755);		/* the delegatee walks to the mount */
	snprintf(dir, sizeof(dir), "%s/mnt", run_dir);
	vs = vsched_create(2, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	vsched_set_pid(vs, 4000);
	vsched_set_vcpu_tid(vs, 0, 4001);
	vsched_set_vcpu_tid(vs, 1, 4002);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "d"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "d/x"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "d/y"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "o"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "d/y"), 0);
	CU_ASSERT_EQUAL_FATAL(ctl_mount(vs, dir, &c), 0);
	/* Delegate d to 65534: its cgroup.procs (the common ancestor's), d/x's cgroup.threads. */
	snprintf(p, sizeof(p), "%s/d/cgroup.procs", dir);
	CU_ASSERT_EQUAL(chown(p, 65534, 65534), 0);
	snprintf(p, sizeof(p), "%s/d/x/cgroup.threads", dir);
	CU_ASSERT_EQUAL(chown(p, 65534, 65534), 0);
	vsched_set_clock(vs, race_clock, vs);

	CU_ASSERT_EQUAL_FATAL(pipe(fds), 0);
	race_armed = true;
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		ssize_t r = -1;

		if (!setresgid(65534, 65534, 65534) && !setresuid(65534, 65534, 65534))
			r = write_file(p, "4001");
		snprintf(val, sizeof(val), "%zd", r);
		if (write(fds[1], val, strlen(val)) < 0)
			_exit(1);
		_exit(0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	close(fds[1]);
	memset(got, 0, sizeof(got));
	CU_ASSERT_TRUE(read(fds[0], got, sizeof(got) - 1) > 0);
	close(fds[0]);
	/* vCPU 0 was in o (root's) when the write happened: EACCES, and it stays there. */
	CU_ASSERT_EQUAL(atoi(got), -EACCES);
	CU_ASSERT_FALSE(race_armed);
	CU_ASSERT_EQUAL(vsched_read(vs, "o", "vsched.vcpus", got, sizeof(got)), 2);
	CU_ASSERT_STRING_EQUAL(got, "0\n");

	vsched_set_clock(vs, NULL, NULL);
	ctl_unmount(c);
	vsched_destroy(vs);
	rm_run_dir();
}

/*
 * What the directory keeps (chmod, chown of a file, a group's files' creator) saved as records
 * and given back to a new mount (the host scheduler's restart, host/host_owners.c): stat shows
 * the same; a record for a node that is not there, or with a creator on a file, is refused.
 */
static void test_ctl_attrs_saved(void)
{
	char dir[PATH_MAX], p[PATH_MAX + 32], *text, *line, *save = NULL;
	struct vsched *vs;
	struct ctl *c;
	struct stat st;

	if (access("/dev/fuse", R_OK | W_OK) || geteuid()) {
		test_skip("mounting needs /dev/fuse and root");
		return;
	}
	set_run_dir();
	snprintf(dir, sizeof(dir), "%s/mnt", run_dir);
	vs = vsched_create(1, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL_FATAL(ctl_mount(vs, dir, &c), 0);
	snprintf(p, sizeof(p), "%s/g", dir);
	CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
	CU_ASSERT_EQUAL(chown(p, 65534, 65534), 0);	/* the tree's, not a record */
	snprintf(p, sizeof(p), "%s/g/cgroup.procs", dir);
	CU_ASSERT_EQUAL(chown(p, 65534, 65533), 0);
	snprintf(p, sizeof(p), "%s/cgroup.subtree_control", dir);
	CU_ASSERT_EQUAL(chmod(p, 0600), 0);
	text = ctl_attrs_save(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "/g/cgroup.procs\t-\t65534:65533\t-\t-\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(text, "/cgroup.subtree_control\t0600\t-\t-\t-\n"));
	ctl_unmount(c);
	CU_ASSERT_EQUAL_FATAL(ctl_mount(vs, dir, &c), 0);
	snprintf(p, sizeof(p), "%s/g/cgroup.procs", dir);
	CU_ASSERT_EQUAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_uid, 0);			/* a new mount keeps nothing */
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		CU_ASSERT_EQUAL(ctl_attr_load(c, line), 0);
	CU_ASSERT_EQUAL(stat(p, &st), 0);
	CU_ASSERT_TRUE(st.st_uid == 65534 && st.st_gid == 65533);
	snprintf(p, sizeof(p), "%s/cgroup.subtree_control", dir);
	CU_ASSERT_EQUAL(stat(p, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
	CU_ASSERT_EQUAL(ctl_attr_load(c, "/h/cpu.max\t0600\t-\t-\t-"), -ENOENT);
	CU_ASSERT_EQUAL(ctl_attr_load(c, "/g/cgroup.procs\t-\t-\t1:1\t-"), -EINVAL);
	CU_ASSERT_EQUAL(ctl_attr_load(c, "/g\t0600\t-1:0\t-\t-"), -EINVAL);
	free(text);
	ctl_unmount(c);
	vsched_destroy(vs);
	rm_run_dir();
}

static CU_TestInfo ctl_tests[] = {
	{ "mount serves the API", test_ctl_mount_serves_api },
	{ "unmount with a file open inside", test_ctl_unmount_with_open_file },
	{ "a delegated move is checked with the write, atomically", test_ctl_move_check_atomic },
	{ "what the directory keeps is saved and given back", test_ctl_attrs_saved },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("ctl", ctl_tests);
