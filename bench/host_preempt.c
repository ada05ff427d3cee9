// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-preempt: what a preemption costs in host mode (`vsched host`, docs/host.md)
 * against the embedded core: from the event that makes the core take a holder's lane to the
 * holder being kicked (the moment it would leave KVM_RUN).
 *
 * vCPU 0 sits in a cpu.idle group, vCPU 1 in its parent: when vCPU 1 becomes runnable while
 * vCPU 0 holds the one lane, the core takes the lane from vCPU 0 at once. The holder H spins
 * (as a vCPU inside KVM_RUN) until its kick flag is set.
 *  in-process: thread A feeds the core under the tree's lock and sets the flag on the PREEMPT
 *              decision, as rt_preempt() kicks.
 *  host:       A sends RUNNABLE to a daemon (host/ in a child process); the daemon's core
 *              decides and sends PREEMPT; the VMM's agent thread receives it and sets the flag.
 *              Idle-lane offers do not apply (the lane is held): the path is the same with them.
 * Per round: vCPU 0 granted and spinning, then vCPU 1 runnable (timed until the kick), then both
 * blocked (0 first: its lane is not handed back). BENCH_PRE_ROUNDS overrides the number of rounds (default 5000).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host/host.h"
#include "host/proto.h"
#include "sched/core.h"
#include "util/time.h"
#include "vsched.h"

struct pre {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool granted, done, stop;
	bool kicked;		/* atomic: the holder's kick */
	uint64_t t0;
	uint64_t *samples;
	unsigned int n, rounds;
	int fd;			/* host mode */
};

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t quant(struct pre *p, unsigned int permille)
{
	return p->samples[(size_t)p->n * permille / 1000];
}

/* H: waits for its grant, spins "in the guest" until kicked, records the latency. */
static void *holder(void *arg)
{
	struct pre *p = arg;

	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->granted && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop)
			break;
		p->granted = false;
		pthread_mutex_unlock(&p->lock);
		while (!__atomic_load_n(&p->kicked, __ATOMIC_ACQUIRE))
			;
		pthread_mutex_lock(&p->lock);
		p->samples[p->n++] = time_mono_ns() - p->t0;
		__atomic_store_n(&p->kicked, false, __ATOMIC_RELEASE);
		p->done = true;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

static void signal_flag(struct pre *p, bool *flag)
{
	pthread_mutex_lock(&p->lock);
	*flag = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static void wait_flag(struct pre *p, bool *flag)
{
	pthread_mutex_lock(&p->lock);
	while (!*flag)
		pthread_cond_wait(&p->cond, &p->lock);
	*flag = false;
	pthread_mutex_unlock(&p->lock);
}

static void drain(struct pre *p, struct sched *s)
{
	struct sched_decision d[8];
	size_t n, k;

	while ((n = sched_take_decisions(s, d, 8)))
		for (k = 0; k < n; k++) {
			if (d[k].type == SCHED_RUN && d[k].vcpu == 0)
				signal_flag(p, &p->granted);
			if (d[k].type == SCHED_PREEMPT && d[k].vcpu == 0)
				__atomic_store_n(&p->kicked, true, __ATOMIC_RELEASE);
		}
}

static int run_inprocess(struct pre *p)
{
	struct vsched *vs = vsched_create(1, 2);
	struct sched *s;
	pthread_t h;
	unsigned int i;

	if (!vs || vsched_write_str(vs, "/", "cgroup.subtree_control", "+cpu") ||
	    vsched_mkdir_threaded(vs, "/idle") || vsched_write_str(vs, "/idle", "cpu.idle", "1") ||
	    vsched_assign(vs, "0", "/idle")) {
		fprintf(stderr, "bench-host-preempt: cannot make the idle group\n");
		return -1;
	}
	s = vsched_sched(vs);
	pthread_create(&h, NULL, holder, p);
	for (i = 0; i < p->rounds; i++) {
		vsched_lock(vs);
		sched_vcpu_runnable(s, 0, time_mono_ns());
		drain(p, s);
		vsched_unlock(vs);
		usleep(50);	/* H spinning */
		vsched_lock(vs);
		p->t0 = time_mono_ns();
		sched_vcpu_runnable(s, 1, p->t0);
		drain(p, s);
		vsched_unlock(vs);
		wait_flag(p, &p->done);
		vsched_lock(vs);
		/* The preempted one first: blocking 1 first would hand 0 the lane again. */
		sched_vcpu_blocked(s, 0, time_mono_ns());
		sched_vcpu_blocked(s, 1, time_mono_ns());
		drain(p, s);
		vsched_unlock(vs);
	}
	signal_flag(p, &p->stop);
	pthread_join(h, NULL);
	vsched_destroy(vs);
	return 0;
}

/* The agent: GRANT of vCPU 0 wakes H; PREEMPT of vCPU 0 kicks it. */
static void *agent(void *arg)
{
	struct pre *p = arg;
	struct host_ev m;

	while (recv(p->fd, &m, sizeof(m), 0) == sizeof(m)) {
		if (m.type == HOST_MSG_GRANT && m.vcpu == 0)
			signal_flag(p, &p->granted);
		if (m.type == HOST_MSG_PREEMPT && m.vcpu == 0)
			__atomic_store_n(&p->kicked, true, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void send_ev(struct pre *p, uint32_t type, uint32_t vcpu, uint32_t arg)
{
	struct host_ev m = { .type = type, .vcpu = vcpu, .arg = arg };

	if (send(p->fd, &m, sizeof(m), 0) != sizeof(m))
		perror("bench-host-preempt: send");
}

static int run_host(struct pre *p, const char *sock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 2, .name = "bench",
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000, .subtree_cpu = 1 },
	};
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .path = "idle",
		.set = { .shares = 1024, .quota_us = UINT64_MAX, .period_us = 100000, .idle = 1,
			 .threaded = 1 },
	};
	struct host_welcome w;
	pthread_t a, h;
	unsigned int i;

	strcpy(sa.sun_path, sock);
	p->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 200 && connect(p->fd, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(10000);
	if (i == 200 || send(p->fd, &hm, sizeof(hm), 0) != sizeof(hm) ||
	    recv(p->fd, &w, sizeof(w), 0) != sizeof(w) || w.err ||
	    send(p->fd, &gm, sizeof(gm), 0) != sizeof(gm)) {
		fprintf(stderr, "bench-host-preempt: cannot join the daemon at %s\n", sock);
		return -1;
	}
	send_ev(p, HOST_MSG_VCPU, 0, 1);
	send_ev(p, HOST_MSG_VCPU, 1, 0);
	send_ev(p, HOST_MSG_COMMIT, 0, 0);
	pthread_create(&a, NULL, agent, p);
	pthread_create(&h, NULL, holder, p);
	for (i = 0; i < p->rounds; i++) {
		send_ev(p, HOST_MSG_RUNNABLE, 0, 0);
		usleep(50);	/* granted, H spinning */
		p->t0 = time_mono_ns();
		send_ev(p, HOST_MSG_RUNNABLE, 1, 0);
		wait_flag(p, &p->done);
		send_ev(p, HOST_MSG_BLOCKED, 0, 0);
		send_ev(p, HOST_MSG_BLOCKED, 1, 0);
	}
	signal_flag(p, &p->stop);
	pthread_join(h, NULL);
	shutdown(p->fd, SHUT_RDWR);
	pthread_join(a, NULL);
	close(p->fd);
	return 0;
}

static int run_daemon(struct pre *p)
{
	char sock[64];
	pid_t pid = bench_daemon_start("preempt", sock, sizeof(sock));
	int ret = pid < 0 ? -1 : run_host(p, sock);

	bench_daemon_stop(pid, sock);
	return ret;
}

static struct pre *pre_new(unsigned int rounds)
{
	struct pre *p = calloc(1, sizeof(*p));

	if (!p || !(p->samples = calloc(rounds, sizeof(uint64_t))))
		exit(1);
	p->rounds = rounds;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	return p;
}

static void report(const char *what, struct pre *p)
{
	qsort(p->samples, p->n, sizeof(*p->samples), cmp_u64);
	printf("%-11s event -> holder kicked: median %6.1f us  p90 %6.1f us  p99 %6.1f us"
	       "  (%u rounds)\n", what, quant(p, 500) / 1e3, quant(p, 900) / 1e3,
	       quant(p, 990) / 1e3, p->n);
}

int main(void)
{
	const char *env = getenv("BENCH_PRE_ROUNDS");
	unsigned int rounds = env ? (unsigned int)atoi(env) : 5000;
	struct pre *in, *ho;

	if (!rounds)
		return 2;
	in = pre_new(rounds);
	ho = pre_new(rounds);
	if (run_inprocess(in) || run_daemon(ho))
		return 1;
	report("in-process", in);
	report("host", ho);
	printf("host / in-process (median): %.1f; (p99): %.1f\n",
	       (double)quant(ho, 500) / quant(in, 500), (double)quant(ho, 990) / quant(in, 990));
	free(in->samples);
	free(ho->samples);
	free(in);
	free(ho);
	return 0;
}
