// SPDX-License-Identifier: GPL-2.0
/* The daemon the host-mode latency benches talk to (bench/host_daemon.h). */
#include <sched.h>
#include <signal.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host/host.h"
#include "host/proto.h"

unsigned int bench_daemon_lanes = 1;
bool bench_daemon_pin;
cpu_set_t bench_daemon_mask;
bool bench_daemon_has_mask;

pid_t bench_daemon_start(const char *tag, char *sock, size_t len)
{
	struct host_opts o = { .nr_lanes = bench_daemon_lanes, .max_vcpus = 4 };
	struct host *h;
	pid_t pid;

	snprintf(sock, len, "/tmp/vsched-bench-%s.%d.sock", tag, (int)getpid());
	pid = fork();
	if (pid)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGTERM);	/* a bench that exits early takes its daemon along */
	prctl(PR_SET_NAME, "bench-daemon");	/* named in traces (bench/host_trace_lat.sh) */
	/* The bench's mask before it pinned itself to the lane: the daemon's, as `vsched host`'s. */
	if (bench_daemon_pin && bench_daemon_has_mask)
		sched_setaffinity(0, sizeof(bench_daemon_mask), &bench_daemon_mask);
	if (host_create(&o, &h) || host_listen(h, sock))
		_exit(1);
	if (bench_daemon_pin)
		host_pin_daemon(h);	/* as cmd_host.c */
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

int bench_join(const char *sock, const struct host_hello *hm, int *fd,
	       const struct host_grant **page, struct host_offer **offer)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct host_welcome w;
	struct iovec iov = { .iov_base = &w, .iov_len = sizeof(w) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fds[2], i;
	void *p, *o;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock);
	*fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 200 && connect(*fd, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(10000);
	if (i == 200 || send(*fd, hm, sizeof(*hm), 0) != sizeof(*hm) ||
	    recvmsg(*fd, &mh, 0) != sizeof(w) || w.err)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(2 * sizeof(int)))
		return -1;
	memcpy(fds, CMSG_DATA(cm), sizeof(fds));
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fds[0], 0);
	o = mmap(NULL, sizeof(struct host_offer), PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
	close(fds[0]);
	close(fds[1]);
	if (p == MAP_FAILED || o == MAP_FAILED)
		return -1;
	*page = p;
	*offer = o;
	return 0;
}

void bench_parked(struct host_offer *offer, bool on)
{
	if (on)
		__atomic_fetch_or(&offer->parked[0], 1, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&offer->parked[0], ~1ULL, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void bench_sort_u64(uint64_t *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
}
