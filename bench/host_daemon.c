// SPDX-License-Identifier: GPL-2.0
/* The daemon the host-mode latency benches talk to (bench/host_daemon.h). */
#include <signal.h>
#include <linux/futex.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host/host.h"
#include "host/proto.h"

unsigned int bench_daemon_lanes = 1;

pid_t bench_daemon_start(const char *tag, char *sock, size_t len)
{
	struct host_opts o = { .nr_lanes = bench_daemon_lanes, .max_vcpus = 4 };
	struct host *h;
	pid_t pid;

	snprintf(sock, len, "/tmp/vsched-bench-%s.%d.sock", tag, (int)getpid());
	pid = fork();
	if (pid)
		return pid;
	if (host_create(&o, &h) || host_listen(h, sock))
		_exit(1);
	host_run(h, eventfd(0, 0));	/* until SIGTERM */
	_exit(0);
}

void bench_daemon_stop(pid_t pid, const char *sock)
{
	if (pid > 0) {
		kill(pid, SIGTERM);
		waitpid(pid, NULL, 0);
	}
	unlink(sock);
}

bool bench_page_next(const struct host_grant *g, uint32_t *seen, bool (*stop)(void *), void *arg)
{
	uint32_t seq;

	for (;;) {
		if (stop(arg))
			return false;
		seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
		if (seq != *seen && !(seq & 1) &&
		    __atomic_load_n(&g->lane, __ATOMIC_RELAXED) != HOST_LANE_NONE)
			break;
		syscall(SYS_futex, &g->seq, FUTEX_WAIT, seq, NULL, NULL, 0);
	}
	*seen = seq;
	return true;
}

void bench_flag_set(pthread_mutex_t *lock, pthread_cond_t *cond, bool *flag)
{
	pthread_mutex_lock(lock);
	*flag = true;
	pthread_cond_broadcast(cond);
	pthread_mutex_unlock(lock);
}

void bench_flag_wait(pthread_mutex_t *lock, pthread_cond_t *cond, bool *flag)
{
	pthread_mutex_lock(lock);
	while (!*flag)
		pthread_cond_wait(cond, lock);
	*flag = false;
	pthread_mutex_unlock(lock);
}
