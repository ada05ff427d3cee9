// SPDX-License-Identifier: GPL-2.0
/* The daemon the host-mode latency benches talk to (bench/host_daemon.h). */
#include <signal.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host/host.h"

pid_t bench_daemon_start(const char *tag, char *sock, size_t len)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
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
