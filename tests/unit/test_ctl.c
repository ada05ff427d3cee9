// SPDX-License-Identifier: GPL-2.0
/*
 * Control directory: the VM registry (names, records, liveness) and, where /dev/fuse is usable,
 * a mount served in-process, driven with plain syscalls (so ASan sees the FUSE handlers).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "util/registry.h"
#include "sched/files.h"
#include "sched/group.h"
#include "test.h"
#include "util/cpuset.h"
#include "vsched.h"

static char run_dir[64];

static void set_run_dir(void)
{
	snprintf(run_dir, sizeof(run_dir), "/tmp/vsched-ut-ctl.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(run_dir));
	setenv("VSCHED_RUN_DIR", run_dir, 1);
}

static void rm_run_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", run_dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unsetenv("VSCHED_RUN_DIR");
}

static void test_ctl_names(void)
{
	char buf[PATH_MAX];

	CU_ASSERT_EQUAL(registry_name_valid("vm-1_a.b"), 0);
	CU_ASSERT_EQUAL(registry_name_valid(""), -EINVAL);
	CU_ASSERT_EQUAL(registry_name_valid(".hidden"), -EINVAL);
	CU_ASSERT_EQUAL(registry_name_valid("a/b"), -EINVAL);
	CU_ASSERT_EQUAL(registry_name_valid("a\nb"), -EINVAL);
	CU_ASSERT_EQUAL(registry_name_valid("web server (prod)"), 0);	/* libvirt allows it */
	CU_ASSERT_EQUAL(registry_name_valid("x123456789x123456789x123456789x123456789x123456789"
					    "x123456789x123456789x123456789x123456789x123456789"
					    "x123456789x123456789x12345678"),
			-EINVAL);
	set_run_dir();
	CU_ASSERT_EQUAL(registry_default_dir("vm1", buf, sizeof(buf)), 0);
	CU_ASSERT_EQUAL(strncmp(buf, run_dir, strlen(run_dir)), 0);
	CU_ASSERT_STRING_EQUAL(buf + strlen(run_dir), "/vm1");
	CU_ASSERT_EQUAL(registry_default_dir("../x", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(registry_default_dir("vm1", buf, 8), -ENAMETOOLONG);
	/* The host scheduler's entries are no VM's directory (a VM hid the daemon's socket). */
	CU_ASSERT_EQUAL(registry_name_valid("host"), 0);
	CU_ASSERT_EQUAL(registry_default_dir("host", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(registry_default_dir("host.sock", buf, sizeof(buf)), -EINVAL);
	CU_ASSERT_EQUAL(registry_default_dir("hosts", buf, sizeof(buf)), 0);
	rm_run_dir();
}

static bool record_exists(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/.vms/%s", run_dir, name);
	return access(path, F_OK) == 0;
}

/* Waits (5 s at most) until pid is a zombie: killed, not reaped. */
static bool wait_zombie(pid_t pid)
{
	char path[64], buf[512], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (i = 0; i < 500; i++) {
		int fd = open(path, O_RDONLY);
		ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

		if (fd >= 0)
			close(fd);
		buf[n > 0 ? n : 0] = '\0';
		p = strrchr(buf, ')');
		if (p && p[1] == ' ' && p[2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

/* registry_list() callback: 1 when "me" is listed with /elsewhere and /machine/me. */
static int host_of(const struct registry_entry *e, void *arg __unused)
{
	return !strcmp(e->name, "me") && !strcmp(e->ctl, "/elsewhere") &&
	       !strcmp(e->host, "/machine/me") ? 1 : -1;
}

static void test_ctl_register_liveness(void)
{
	int to_child[2], from_child[2], status;
	char c, fifo[PATH_MAX];
	pid_t pid;

	set_run_dir();
	CU_ASSERT_EQUAL(registry_register("bad/name", NULL, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(registry_register("me", "/somewhere", NULL, 0), 0);
	CU_ASSERT_TRUE(record_exists("me"));
	/* Our own record may be rewritten (the canonical directory, after mounting). */
	CU_ASSERT_EQUAL(registry_register("me", "/elsewhere", NULL, 0), 0);
	/* Joined to the host scheduler: the group is noted, the directory kept. */
	CU_ASSERT_EQUAL(registry_set_host("me", "/machine/me"), 0);
	CU_ASSERT_EQUAL(registry_list(host_of, NULL), 1);
	CU_ASSERT_EQUAL(registry_set_host("me", "/a\nctl /x"), -EINVAL);
	CU_ASSERT_EQUAL(registry_set_host("nobody", "/machine/x"), -ENOENT);
	registry_unregister("me");
	CU_ASSERT_FALSE(record_exists("me"));

	/* A live holder keeps its name; a dead one's record is replaced. */
	CU_ASSERT_EQUAL_FATAL(pipe(to_child), 0);
	CU_ASSERT_EQUAL_FATAL(pipe(from_child), 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		c = registry_register("held", "", NULL, 0) ? 'e' : 'k';
		if (write(from_child[1], &c, 1) != 1 || read(to_child[0], &c, 1) != 1)
			_exit(1);
		_exit(0);
	}
	CU_ASSERT_EQUAL(read(from_child[0], &c, 1), 1);
	CU_ASSERT_EQUAL(c, 'k');
	CU_ASSERT_EQUAL(registry_register("held", "", NULL, 0), -EEXIST);
	/* Someone else's record is not removed by our unregister. */
	registry_unregister("held");
	CU_ASSERT_TRUE(record_exists("held"));
	CU_ASSERT_EQUAL(write(to_child[1], "x", 1), 1);
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_EQUAL(registry_register("held", "", NULL, 0), 0);
	registry_unregister("held");

	/* A holder killed but not reaped yet (a zombie) runs no more: its name is free. */
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		c = registry_register("zombie", "", NULL, 0) ? 'e' : 'k';
		if (write(from_child[1], &c, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	CU_ASSERT_EQUAL(read(from_child[0], &c, 1), 1);
	CU_ASSERT_EQUAL(c, 'k');
	CU_ASSERT_EQUAL(registry_register("zombie", "", NULL, 0), -EEXIST);
	kill(pid, SIGKILL);
	CU_ASSERT_TRUE(wait_zombie(pid));
	CU_ASSERT_EQUAL(registry_register("zombie", "", NULL, 0), 0);
	registry_unregister("zombie");
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);

	/* A FIFO where a record would be neither blocks nor counts (SIGALRM ends a hang). */
	CU_ASSERT_EQUAL(registry_register("me", "", NULL, 0), 0);
	registry_unregister("me");
	snprintf(fifo, sizeof(fifo), "%s/.vms/fifo", run_dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
	alarm(10);
	CU_ASSERT_EQUAL(registry_register("fifo", "", NULL, 0), 0);
	alarm(0);
	registry_unregister("fifo");
	close(to_child[0]);
	close(to_child[1]);
	close(from_child[0]);
	close(from_child[1]);
	rm_run_dir();
}

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
	if (poll(&pfd, 1, 3000) == 1)
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
	CU_ASSERT_EQUAL(w.revents, POLLPRI | POLLERR);
	CU_ASSERT_TRUE(w.ms >= 0 && w.ms < 2000);
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
 * VMMs that start at once under one name: exactly one gets it. The claim read the record and
 * wrote its own, so two that both read "no record" both won (two VMs of one name).
 */
static void test_ctl_register_race(void)
{
	enum { N = 16, ROUNDS = 10 };
	int go[2], res[2], done[2], status, won, round, bad = 0;
	pid_t pids[N];
	char c;
	int i;

	set_run_dir();
	for (round = 0; round < ROUNDS; round++) {
		CU_ASSERT_FATAL(!pipe(go) && !pipe(res) && !pipe(done));
		for (i = 0; i < N; i++) {
			pids[i] = fork();
			CU_ASSERT_FATAL(pids[i] >= 0);
			if (pids[i] == 0) {
				close(go[1]);
				close(done[1]);
				if (read(go[0], &c, 1) != 0)	/* all start when go closes */
					_exit(1);
				c = registry_register("race", "", NULL, 0) ? 'e' : 'k';
				if (write(res[1], &c, 1) != 1 || read(done[0], &c, 1) != 0)
					_exit(1);
				_exit(0);
			}
		}
		close(go[0]);
		close(go[1]);
		for (i = 0, won = 0; i < N; i++) {
			CU_ASSERT_EQUAL(read(res[0], &c, 1), 1);
			won += c == 'k';
		}
		bad += won != 1;
		close(done[1]);
		for (i = 0; i < N; i++)
			CU_ASSERT_EQUAL(waitpid(pids[i], &status, 0), pids[i]);
		close(done[0]);
		close(res[0]);
		close(res[1]);
	}
	if (bad)
		printf("\n    %d of %d rounds gave the name to more or fewer than one\n", bad,
		       ROUNDS);
	CU_ASSERT_EQUAL(bad, 0);
	rm_run_dir();
}

static CU_TestInfo ctl_tests[] = {
	{ "VM names and default directory", test_ctl_names },
	{ "registry: own, live and dead holders", test_ctl_register_liveness },
	{ "registry: one name, one of many VMMs starting at once", test_ctl_register_race },
	{ "mount serves the API", test_ctl_mount_serves_api },
	{ "unmount with a file open inside", test_ctl_unmount_with_open_file },
	{ "a delegated move is checked with the write, atomically", test_ctl_move_check_atomic },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("ctl", ctl_tests);
