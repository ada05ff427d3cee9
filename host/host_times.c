// SPDX-License-Identifier: GPL-2.0
/*
 * A silent holder's thread as the kernel counts it (/proc/<pid>/task/<tid>/schedstat: ns on a
 * CPU, ns waiting on a runqueue) and the states of its VMM's threads (.../task/<tid>/stat),
 * for host_revoke.c to tell a late VMM from a stuck one. The kernel adds to both times only as
 * the thread leaves a CPU or gets one (and at a tick while it runs): a thread waiting on a
 * runqueue all along shows no change, only its state R. A cgroup freezer shows a frozen
 * thread as D (v1) or S (v2), never T, and its times do not move (6.18 here).
 *
 * Only the peer's own threads are read (SO_PEERCRED's pid, held as a pidfd since the
 * connection): /proc/<peer>/task/, so a TID reused by another process is never read; a reading
 * counts only if the peer and the vCPU's thread pidfd still live after it, so their IDs named
 * them throughout. A thread that began or ended between two readings changes the count:
 * host_revoke.c then judges nothing from the pair.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "util/file.h"

/* Threads of a VMM besides its vCPUs' read at most (its agent, main, I/O threads: 2-7 here). */
#define HOST_TIMES_OTHERS	64

/* path under dirfd read into buf: 0, -ENOENT (no such thread), -errno. */
static int host_times_file(int dirfd, const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? -ENOENT : -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return n < 0 && errno == ESRCH ? -ENOENT : -EINVAL;
	buf[n] = '\0';
	return 0;
}

/* A thread's state from its stat (after the name's last ')'), '?' if unreadable. */
static char host_times_state(int dirfd, const char *tid)
{
	char path[32], buf[512];

	snprintf(path, sizeof(path), "%.16s/stat", tid);
	if (host_times_file(dirfd, path, buf, sizeof(buf)))
		return '?';
	return file_proc_state(buf);
}

/* "run wait slices" of tid: 0, -ENOENT, -EINVAL. */
static int host_times_sched(int dirfd, pid_t tid, uint64_t *run, uint64_t *wait)
{
	char path[32], buf[96], *p, *e;
	int err;

	snprintf(path, sizeof(path), "%d/schedstat", (int)tid);
	err = host_times_file(dirfd, path, buf, sizeof(buf));
	if (err)
		return err;
	errno = 0;
	*run = strtoull(buf, &e, 10);
	if (e == buf || *e != ' ' || errno)
		return -EINVAL;
	p = e + 1;
	*wait = strtoull(p, &e, 10);
	if (e == p || *e != ' ' || errno)
		return -EINVAL;
	return *run ? 0 : -EOPNOTSUPP;	/* "0 0 0": no schedstat in this kernel */
}

/*
 * Every thread of the peer counted, those in R (on a CPU or waiting for one) apart; more than
 * max: -E2BIG (a VMM cannot make each check cost the daemon a read per thread it makes).
 */
static int host_times_vm(int dirfd, pid_t tid, unsigned int max, struct host_times *t)
{
	struct dirent *d;
	DIR *dir;
	char st;
	int fd;

	fd = dup(dirfd);
	if (fd < 0)
		return -errno;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return -ENOMEM;
	}
	while ((d = readdir(dir))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		st = host_times_state(dirfd, d->d_name);
		if (st == '?')
			continue;	/* ended since the listing: the count changes */
		if (++t->vm_threads > max)
			break;
		if (st == 'R')
			t->vm_runnable++;
		if (atoi(d->d_name) == (int)tid)
			t->state = st;
	}
	closedir(dir);
	return t->vm_threads > max ? -E2BIG : 0;
}

/*
 * vcpu's thread's times and state, its VMM's threads counted. 0; -ESRCH: the peer or the
 * thread is gone; -ENOENT: its TID unknown (no thread pidfds, no HOST_HELLO_KICK); else
 * unreadable. Either way but 0 nothing is judged from it.
 */
int host_kick_thread_times(const struct host_client *c, unsigned int vcpu, struct host_times *t)
{
	char path[48];
	int dirfd, err;
	pid_t tid;

	memset(t, 0, sizeof(*t));
	if (c->peer_pid <= 0 || c->peer_fd < 0 || !c->kick_fd || c->kick_fd[vcpu] < 0)
		return -ENOENT;
	tid = c->kick_tid[vcpu];
	snprintf(path, sizeof(path), "/proc/%d/task", (int)c->peer_pid);
	dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dirfd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	err = host_times_sched(dirfd, tid, &t->run_ns, &t->wait_ns);
	if (!err)
		err = host_times_vm(dirfd, tid, c->nr_vcpus + HOST_TIMES_OTHERS, t);
	close(dirfd);
	if (err == -ENOENT || (!err && !t->state))
		err = -ESRCH;
	/* Ended meanwhile: the IDs may name others now. */
	if (!err && (!host_pidfd_alive(c->kick_fd[vcpu]) || !host_pidfd_alive(c->peer_fd)))
		err = -ESRCH;
	return err;
}
