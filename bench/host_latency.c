// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-latency: what a lane grant costs in host mode (`vsched host`, docs/host.md)
 * against the embedded core, end to end: from the event that frees or asks for a lane to the
 * waiting vCPU thread running again.
 *
 *  in-process: thread A feeds the core (under the tree's lock, as rt_core.c does), takes the
 *              RUN decision and signals the waiting thread B's condition variable.
 *  host, page:  A sends RUNNABLE to a daemon (host/ in a child process, on a SEQPACKET
 *              socket); the daemon's core decides, writes the grant page and wakes B's futex
 *              on it; B (parked on that futex, as rt_page.c) runs. The agent thread still
 *              receives the GRANT datagram, as rt_remote.c's does, and drops it.
 *  host, agent: the same without the page (before it, or a daemon that cannot make one): the
 *              agent thread receives the GRANT and signals B under the lock.
 * One vCPU, one lane; per round: runnable -> granted (B runs) -> blocked. Median, p90, p99.
 * BENCH_LAT_ROUNDS overrides the number of rounds (default 20000).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/host.h"
#include "host/proto.h"
#include "sched/core.h"
#include "util/time.h"
#include "vsched.h"

struct lat {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool granted, done;
	uint64_t t0;
	uint64_t *samples;
	unsigned int n, rounds;
	/* in-process */
	struct vsched *vs;
	/* host mode */
	int fd;
	const struct host_grant *page;	/* NULL: the agent signals B */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void report(const char *what, struct lat *l)
{
	qsort(l->samples, l->n, sizeof(*l->samples), cmp_u64);
	printf("%-12s grant -> thread runs: median %6.1f us  p90 %6.1f us  p99 %6.1f us"
	       "  (%u rounds)\n",
	       what, l->samples[l->n / 2] / 1e3, l->samples[l->n * 9 / 10] / 1e3,
	       l->samples[l->n * 99 / 100] / 1e3, l->n);
}

/* B: waits for each grant, records the latency, lets A go on. */
/* One condition variable for both waits: broadcasts, so neither wake-up is lost. */
static void *waiter(void *arg)
{
	struct lat *l = arg;

	pthread_mutex_lock(&l->lock);
	while (l->n < l->rounds) {
		while (!l->granted)
			pthread_cond_wait(&l->cond, &l->lock);
		l->samples[l->n++] = time_mono_ns() - l->t0;
		l->granted = false;
		l->done = true;
		pthread_cond_broadcast(&l->cond);
	}
	pthread_mutex_unlock(&l->lock);
	return NULL;
}

static void wait_done(struct lat *l)
{
	pthread_mutex_lock(&l->lock);
	while (!l->done)
		pthread_cond_wait(&l->cond, &l->lock);
	l->done = false;
	pthread_mutex_unlock(&l->lock);
}

static void run_inprocess(struct lat *l)
{
	struct sched *s = vsched_sched(l->vs);
	struct sched_decision d[4];
	pthread_t b;
	unsigned int i;
	size_t n, k;

	pthread_create(&b, NULL, waiter, l);
	for (i = 0; i < l->rounds; i++) {
		vsched_lock(l->vs);
		l->t0 = time_mono_ns();
		sched_vcpu_runnable(s, 0, l->t0);
		while ((n = sched_take_decisions(s, d, 4)))
			for (k = 0; k < n; k++)
				if (d[k].type == SCHED_RUN) {
					/* Signalled under the lock, as rt_grant(). */
					pthread_mutex_lock(&l->lock);
					l->granted = true;
					pthread_cond_broadcast(&l->cond);
					pthread_mutex_unlock(&l->lock);
				}
		vsched_unlock(l->vs);
		wait_done(l);
		vsched_lock(l->vs);
		sched_vcpu_blocked(s, 0, time_mono_ns());
		while (sched_take_decisions(s, d, 4))
			;
		vsched_unlock(l->vs);
	}
	pthread_join(b, NULL);
}

/* B on the grant page: each new grant in vCPU 0's entry, from the daemon's futex wake. */
static void *page_waiter(void *arg)
{
	struct lat *l = arg;
	const struct host_grant *g = &l->page[0];
	uint32_t seen = 0, seq;

	while (l->n < l->rounds) {
		seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
		if (seq == seen || (seq & 1) ||
		    __atomic_load_n(&g->lane, __ATOMIC_RELAXED) == HOST_LANE_NONE) {
			syscall(SYS_futex, &g->seq, FUTEX_WAIT, seq, NULL, NULL, 0);
			continue;
		}
		seen = seq;
		pthread_mutex_lock(&l->lock);
		l->samples[l->n++] = time_mono_ns() - l->t0;
		l->done = true;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

/* The agent: GRANT datagrams in, the waiter signalled under the lock (dropped with a page). */
static void *agent(void *arg)
{
	struct lat *l = arg;
	struct host_ev m;

	while (recv(l->fd, &m, sizeof(m), 0) == sizeof(m)) {
		if (m.type != HOST_MSG_GRANT || l->page)
			continue;
		pthread_mutex_lock(&l->lock);
		l->granted = true;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

static void send_ev(int fd, uint32_t type)
{
	struct host_ev m = { .type = type };

	if (send(fd, &m, sizeof(m), 0) != sizeof(m))
		perror("bench-host-latency: send");
}

static pid_t daemon_start(const char *sock)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host *h;
	int stop = eventfd(0, 0);
	pid_t pid = fork();

	if (pid)
		return pid;
	if (host_create(&o, &h) || host_listen(h, sock))
		_exit(1);
	host_run(h, stop);	/* until SIGTERM */
	_exit(0);
}

/* The WELCOME, and the grant page mapped from the fd it carries if use_page. */
static int recv_welcome(struct lat *l, struct host_welcome *w, bool use_page)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = w, .iov_len = sizeof(*w) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	void *p;
	int fd;

	if (recvmsg(l->fd, &mh, 0) != sizeof(*w) || w->err)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return use_page ? -1 : 0;
	memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	p = use_page ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) : NULL;
	close(fd);
	if (p == MAP_FAILED)
		return -1;
	l->page = p;
	return 0;
}

static int run_host(struct lat *l, const char *sock, bool use_page)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 1, .name = "bench", .flags = use_page ? HOST_HELLO_PAGE : 0,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	struct host_welcome w;
	pthread_t a, b;
	unsigned int i;

	strcpy(sa.sun_path, sock);
	l->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 200 && connect(l->fd, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(10000);
	if (i == 200 || send(l->fd, &hm, sizeof(hm), 0) != sizeof(hm) ||
	    recv_welcome(l, &w, use_page)) {
		fprintf(stderr, "bench-host-latency: cannot join the daemon at %s\n", sock);
		return -1;
	}
	send_ev(l->fd, HOST_MSG_COMMIT);
	pthread_create(&a, NULL, agent, l);
	pthread_create(&b, NULL, l->page ? page_waiter : waiter, l);
	for (i = 0; i < l->rounds; i++) {
		l->t0 = time_mono_ns();
		send_ev(l->fd, HOST_MSG_RUNNABLE);
		wait_done(l);
		send_ev(l->fd, HOST_MSG_BLOCKED);
	}
	pthread_join(b, NULL);
	shutdown(l->fd, SHUT_RDWR);
	pthread_join(a, NULL);
	close(l->fd);
	if (l->page)
		munmap((void *)l->page, 4096);
	return 0;
}

static int run_daemon(struct lat *l, bool use_page)
{
	char sock[64];
	pid_t pid;
	int ret;

	snprintf(sock, sizeof(sock), "/tmp/vsched-bench-host.%d.sock", (int)getpid());
	pid = daemon_start(sock);
	ret = run_host(l, sock, use_page);
	kill(pid, SIGTERM);
	waitpid(pid, NULL, 0);
	unlink(sock);
	return ret;
}

static struct lat *lat_new(unsigned int rounds)
{
	struct lat *l = calloc(1, sizeof(*l));

	if (!l || !(l->samples = calloc(rounds, sizeof(uint64_t))))
		exit(1);
	l->rounds = rounds;
	pthread_mutex_init(&l->lock, NULL);
	pthread_cond_init(&l->cond, NULL);
	return l;
}

int main(void)
{
	const char *env = getenv("BENCH_LAT_ROUNDS");
	unsigned int rounds = env ? (unsigned int)atoi(env) : 20000;
	struct lat *in, *ag, *pg;

	if (!rounds)
		return 2;
	in = lat_new(rounds);
	ag = lat_new(rounds);
	pg = lat_new(rounds);
	in->vs = vsched_create(1, 1);
	if (!in->vs)
		return 1;
	vsched_lock(in->vs);
	sched_advance(vsched_sched(in->vs), time_mono_ns());
	vsched_unlock(in->vs);
	run_inprocess(in);
	report("in-process", in);
	if (run_daemon(pg, true) || run_daemon(ag, false))
		return 1;
	report("host, page", pg);
	report("host, agent", ag);
	printf("host mode / in-process (median): page %.2f, agent %.2f (issue 17's goal: <= 1.10)\n",
	       (double)pg->samples[pg->n / 2] / in->samples[in->n / 2],
	       (double)ag->samples[ag->n / 2] / in->samples[in->n / 2]);
	printf("host mode / in-process (p99): page %.2f, agent %.2f\n",
	       (double)pg->samples[pg->n * 99 / 100] / in->samples[in->n * 99 / 100],
	       (double)ag->samples[ag->n * 99 / 100] / in->samples[in->n * 99 / 100]);
	vsched_destroy(in->vs);
	free(in->samples);
	free(ag->samples);
	free(pg->samples);
	free(in);
	free(ag);
	free(pg);
	return 0;
}
