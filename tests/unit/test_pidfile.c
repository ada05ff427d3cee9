// SPDX-License-Identifier: GPL-2.0
/* util/pidfile: written whole, held while the process lives, taken over from a dead one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test.h"
#include "util/file.h"
#include "util/pidfile.h"

static char dir[] = "/tmp/vsched-pidfile-XXXXXX";
static char path[64];

static int pidfile_init(void)
{
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/host.pid", dir);
	return 0;
}

static int pidfile_clean(void)
{
	unlink(path);
	return rmdir(dir);
}

/* The pid the file names, or -1. */
static long pid_in(const char *p)
{
	char buf[32] = "";

	if (file_read(p, buf, sizeof(buf)))
		return -1;
	return strtol(buf, NULL, 10);
}

/* A child process that takes the pid file and holds it until release() (it exits then). */
static int hold_pipe[2], release_pipe[2];

static pid_t child_hold(int *ret)
{
	pid_t pid;

	if (pipe(hold_pipe) || pipe(release_pipe))
		return -1;
	pid = fork();
	if (pid == 0) {
		char c;

		close(release_pipe[1]);	/* so that the parent's close is its end of file */
		*ret = pidfile_write(path);
		if (write(hold_pipe[1], ret, sizeof(*ret)) != sizeof(*ret) ||
		    read(release_pipe[0], &c, 1) < 0)
			_exit(1);
		_exit(0);	/* dies holding it: the file stays, unlocked */
	}
	if (pid < 0 || read(hold_pipe[0], ret, sizeof(*ret)) != sizeof(*ret))
		*ret = -EIO;
	return pid;
}

static void release(pid_t pid)
{
	close(release_pipe[1]);
	waitpid(pid, NULL, 0);
	close(release_pipe[0]);
	close(hold_pipe[0]);
	close(hold_pipe[1]);
}

static void put_file(const char *p, const char *text)
{
	FILE *f = fopen(p, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* Nothing in dir but the pid file itself: no temporary file is left behind. */
static unsigned int files_in_dir(void)
{
	char cmd[128], buf[16] = "";
	FILE *f;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	f = popen(cmd, "r");
	if (!f || !fgets(buf, sizeof(buf), f))
		buf[0] = '\0';
	if (f)
		pclose(f);
	return (unsigned int)atoi(buf);
}

static void test_pidfile_hold(void)
{
	struct stat st;
	int ret;
	pid_t pid = child_hold(&ret);

	CU_ASSERT_EQUAL_FATAL(ret, 0);
	CU_ASSERT_EQUAL(pid_in(path), (long)pid);
	CU_ASSERT_EQUAL(stat(path, &st), 0);
	CU_ASSERT_EQUAL(st.st_mode & 0777, 0644);
	CU_ASSERT_EQUAL(files_in_dir(), 1);
	/* Held by a live process: refused, and nothing changes. */
	CU_ASSERT_EQUAL(pidfile_write(path), -EEXIST);
	CU_ASSERT_EQUAL(pid_in(path), (long)pid);
	CU_ASSERT_EQUAL(files_in_dir(), 1);
	/* Its holder died without removing it: taken over, the pid replaced. */
	release(pid);
	CU_ASSERT_EQUAL(pid_in(path), (long)pid);
	CU_ASSERT_EQUAL_FATAL(pidfile_write(path), 0);
	CU_ASSERT_EQUAL(pid_in(path), (long)getpid());
	CU_ASSERT_EQUAL(files_in_dir(), 1);
	CU_ASSERT_EQUAL(pidfile_write(path), -EALREADY);
	pidfile_remove(path);
	CU_ASSERT_NOT_EQUAL(access(path, F_OK), 0);
	pidfile_remove(path);		/* twice: nothing */
	CU_ASSERT_EQUAL(files_in_dir(), 0);
}

static void test_pidfile_stale(void)
{
	int ret;
	pid_t pid;

	put_file(path, "999999\n");
	/* A file nobody holds (left by an older daemon): taken over. */
	CU_ASSERT_EQUAL_FATAL(pidfile_write(path), 0);
	CU_ASSERT_EQUAL(pid_in(path), (long)getpid());
	/* Not ours any more (replaced by hand): remove leaves the new file alone. */
	unlink(path);
	put_file(path, "1\n");
	pidfile_remove(path);
	CU_ASSERT_EQUAL(pid_in(path), 1);
	unlink(path);
	/* Let go by remove: another process takes it. */
	CU_ASSERT_EQUAL_FATAL(pidfile_write(path), 0);
	pidfile_remove(path);
	pid = child_hold(&ret);
	CU_ASSERT_EQUAL(ret, 0);
	release(pid);
	unlink(path);
}

static void test_pidfile_refused(void)
{
	char bad[96];

	/* A symbolic link is not followed. */
	CU_ASSERT_EQUAL_FATAL(symlink("/tmp/elsewhere", path), 0);
	CU_ASSERT_EQUAL(pidfile_write(path), -ELOOP);
	unlink(path);
	snprintf(bad, sizeof(bad), "%s/no/such/dir.pid", dir);
	CU_ASSERT_EQUAL(pidfile_write(bad), -ENOENT);
	CU_ASSERT_EQUAL(files_in_dir(), 0);
	/* After a refusal this process may still take one. */
	CU_ASSERT_EQUAL(pidfile_write(path), 0);
	pidfile_remove(path);
	CU_ASSERT_EQUAL(files_in_dir(), 0);
}

static CU_TestInfo pidfile_tests[] = {
	{ "held while alive, refused to others", test_pidfile_hold },
	{ "taken over from a dead holder", test_pidfile_stale },
	{ "links and missing directories refused", test_pidfile_refused },
	CU_TEST_INFO_NULL,
};

TEST_SUITE_FULL("util/pidfile", pidfile_tests, pidfile_init, pidfile_clean)
