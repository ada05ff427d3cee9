// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon kicks a preempted holder itself (HOST_HELLO_KICK): after writing the PREEMPT in
 * the holder's grant-page entry it signals the holder's thread with the kick signal, whose
 * handler in the VMM sets that thread's immediate_exit (vmm/kick.c), so KVM_RUN ends (or is
 * not entered) and the vCPU applies the PREEMPT from its entry on the way out (rt_page_exit()).
 * The agent's wake-up and its kick were on the path before (docs/host.md); the datagram still
 * goes, for the agent's bookkeeping, which skips it once applied.
 *
 * The daemon must never signal a thread that is not a vCPU thread of that VMM. So a reported
 * TID is opened as a thread pidfd (PIDFD_THREAD, Linux 6.9): the pidfd names that task and no
 * other for its whole life, so a TID reused after the thread ended is never signalled (the
 * signal to a dead task fails with ESRCH). It is accepted only if, with the pidfd held, the
 * thread is in /proc/<peer>/task/ and both the thread and the peer (SO_PEERCRED's pid, held
 * as a pidfd from the connection on) are still alive: the TID cannot name another task while
 * the pidfd's task lives. A TID that fails is refused: the VMM is hung up on. A kernel without
 * thread pidfds gets no direct kick (the agent kicks), never an unchecked one.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "util/file.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif
#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77
#endif

/* The signal the VMM's vCPU threads take as a kick (include/vmm/kick.h's VCPU_KICK_SIGNAL). */
#define HOST_KICK_SIGNAL	(SIGRTMIN + 1)

static int host_pidfd_open(pid_t pid, unsigned int flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

/* A pidfd's task is alive (readable: it exited). */
bool host_pidfd_alive(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 0) == 0;
}

/* At the connection: who the peer is, by the kernel's word rather than the HELLO's. */
void host_kick_peer(struct host_client *c)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	int fd = -1;

	c->peer_fd = -1;
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) || cr.pid <= 0)
		return;
	c->peer_pid = cr.pid;
	len = sizeof(fd);
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) || fd < 0)
		fd = host_pidfd_open(cr.pid, 0);	/* before 6.5: the pid, at once */
	c->peer_fd = fd;
}

/* A join that asked for kicks: no vCPU kickable until its TID is checked. */
int host_kick_create(struct host_client *c)
{
	unsigned int i;

	if (c->peer_fd < 0)
		return -EOPNOTSUPP;
	c->kick_fd = malloc(c->nr_vcpus * sizeof(*c->kick_fd));
	c->kick_tid = calloc(c->nr_vcpus, sizeof(*c->kick_tid));
	if (!c->kick_fd || !c->kick_tid) {
		free(c->kick_fd);
		free(c->kick_tid);
		c->kick_fd = NULL;
		c->kick_tid = NULL;
		return -ENOMEM;
	}
	for (i = 0; i < c->nr_vcpus; i++)
		c->kick_fd[i] = -1;
	return 0;
}

/*
 * A TID the VMM reports for vcpu. Without kicks: not checked (it is only shown in
 * cgroup.threads). With: 0 and kickable, 0 and not kickable (no thread pidfds here), or
 * -ESRCH: not a live thread of the peer (the caller hangs up).
 */
int host_kick_tid(struct host_client *c, unsigned int vcpu, pid_t tid)
{
	char path[64];
	struct stat st;
	int fd;

	if (!c->kick_fd)
		return 0;
	if (c->kick_fd[vcpu] >= 0)
		close(c->kick_fd[vcpu]);
	c->kick_fd[vcpu] = -1;
	if (tid <= 0)
		return -ESRCH;
	fd = host_pidfd_open(tid, PIDFD_THREAD);
	if (fd < 0)
		return errno == EINVAL ? 0 : -ESRCH;	/* EINVAL: no thread pidfds */
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)c->peer_pid, (int)tid);
	if (stat(path, &st) || !host_pidfd_alive(fd) || !host_pidfd_alive(c->peer_fd)) {
		close(fd);
		return -ESRCH;
	}
	c->kick_fd[vcpu] = fd;
	c->kick_tid[vcpu] = tid;
	return 0;
}

/*
 * The state of vcpu's thread (or, its TID unknown, its VMM's main thread) in /proc: R (wants
 * a host CPU), D, S, T (stopped), t, Z...; '?': unknown (no /proc, no peer); 'X': gone.
 */
char host_kick_thread_state(const struct host_client *c, unsigned int vcpu)
{
	char path[64], buf[512];
	ssize_t n;
	int fd;

	if (c->peer_pid <= 0)
		return '?';
	if (c->kick_tid && c->kick_tid[vcpu] > 0)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)c->peer_pid,
			 (int)c->kick_tid[vcpu]);
	else
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)c->peer_pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH ? 'X' : '?';
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return '?';
	buf[n] = '\0';
	return file_proc_state(buf);
}

/* After the PREEMPT is in the page: the holder's thread out of the guest now. */
void host_kick(struct host_client *c, unsigned int vcpu)
{
	if (!c->kick_fd || c->kick_fd[vcpu] < 0)
		return;
	/* A thread that ended (ESRCH), or a VMM of another user (EPERM): the agent kicks. */
	if (!syscall(SYS_pidfd_send_signal, c->kick_fd[vcpu], HOST_KICK_SIGNAL, NULL, 0))
		c->nr_kicks++;
}

/*
 * Before a grant wakes vcpu's parked thread (HOST_HELLO_PIN): the thread onto its lane's CPU.
 * Woken where it last ran, pinned to its old lane's CPU, a grantee queued there behind that
 * lane's holder, while the lane it was given idled until it ran and re-pinned itself, or its
 * agent's GRANT moved it (the agent itself queued on a busy CPU too): in a 1 s trace of
 * bench-host's partition, 66 of 180 grants woke on the wrong CPU, up to 2 ms each.
 *
 * sched_setaffinity() takes a TID, not a pidfd: the pidfd's task alive after the call means
 * the call reached it (a live task keeps its TID); a thread that ended meanwhile is not pinned
 * again (a TID reused during the call would need pid_max allocations in between). That check
 * is host_pin_check()'s, after the grant's wake-up: it changes nothing for this pin, only
 * whether there is a next, and its poll() (3.7 us here, beside 3.2 us for the pin) was on the
 * grantee's path (docs/host.md, "Latency: the page, step by step"). A thread of another user
 * (EPERM) or a CPU outside its cpuset (EINVAL): left to the VMM, as before. true: pinned (the
 * grant's entry says so, HOST_CPU_PINNED, and the thread does not pin itself again).
 */
bool host_pin(struct host_client *c, unsigned int vcpu, uint64_t cpu)
{
	cpu_set_t set;

	if (!c->pin || c->kick_fd[vcpu] < 0 || cpu >= CPU_SETSIZE)
		return false;
	CPU_ZERO(&set);
	CPU_SET((int)cpu, &set);
	if (sched_setaffinity(c->kick_tid[vcpu], sizeof(set), &set))
		return false;
	c->pin_unchecked = (int)vcpu;
	return true;
}

/* After the grant's wake-up: the thread host_pin() last reached still alive, or no more pins. */
void host_pin_check(struct host_client *c)
{
	int vcpu = c->pin_unchecked;

	if (vcpu < 0)
		return;
	c->pin_unchecked = -1;
	if (!c->kick_fd || c->kick_fd[vcpu] < 0)
		return;
	if (!host_pidfd_alive(c->kick_fd[vcpu])) {
		close(c->kick_fd[vcpu]);
		c->kick_fd[vcpu] = -1;
		return;
	}
	__atomic_fetch_add(&c->nr_pins, 1, __ATOMIC_RELAXED);	/* read by tests mid-event */
}

uint64_t host_client_pins(const struct host_client *c)
{
	return __atomic_load_n(&c->nr_pins, __ATOMIC_RELAXED);
}

void host_kick_destroy(struct host_client *c)
{
	unsigned int i;

	for (i = 0; c->kick_fd && i < c->nr_vcpus; i++)
		if (c->kick_fd[i] >= 0)
			close(c->kick_fd[i]);
	free(c->kick_fd);
	c->kick_fd = NULL;
	free(c->kick_tid);
	c->kick_tid = NULL;
	if (c->peer_fd >= 0)
		close(c->peer_fd);
	c->peer_fd = -1;
}
