// SPDX-License-Identifier: GPL-2.0
/* The VM registry (util/registry.h): names, records, liveness of their holders, a claim race. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ctl_test.h"
#include "util/registry.h"

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

static CU_TestInfo ctl_registry_tests[] = {
	{ "VM names and default directory", test_ctl_names },
	{ "registry: own, live and dead holders", test_ctl_register_liveness },
	{ "registry: one name, one of many VMMs starting at once", test_ctl_register_race },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("ctl registry", ctl_registry_tests);
