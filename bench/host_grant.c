// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-latency's grant rows through the daemon (`vsched host` in a child process): B on
 * the grant page (page, parked, pinned), B signalled by the agent thread (agent), or the lane
 * taken by A from the daemon's offer (offer). The rows and their modes: bench/host_latency.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host_lat.h"
#include "host_wake.h"
#include "host/host.h"
#include "host/proto.h"
#include "util/time.h"

/* Every round sampled (bench_page_next()'s stop). */
static bool lat_all_in(void *arg)
{
	const struct lat *x = arg;

	return x->n >= x->rounds;
}

/* B's parked bit (vCPU 0) in the offer page, with rt_page_bit()'s full fences. */
static void lat_parked(struct lat *l, bool on)
{
	if (!l->parked)
		return;
	bench_parked(l->offer, on);
}

/*
 * B's own pin to the lane's CPU as rt_pin_lane() sets it on taking a grant, timed: none where
 * the entry says the daemon pinned it (HOST_CPU_PINNED, protocol 15), a system call before.
 */
static void lat_pin_self(uint64_t cpu)
{
	cpu_set_t one;

	if (cpu == HOST_CPU_NONE || (cpu & HOST_CPU_PINNED) || cpu >= CPU_SETSIZE)
		return;
	CPU_ZERO(&one);
	CPU_SET((int)cpu, &one);
	sched_setaffinity(0, sizeof(one), &one);
}

/* B on the grant page: each new grant in vCPU 0's entry, from the daemon's futex wake. */
static void *page_waiter(void *arg)
{
	struct lat *l = arg;
	const struct host_grant *g = &l->page[0];
	uint32_t seen = 0;
	cpu_set_t all;
	bool more;

	sched_getaffinity(0, sizeof(all), &all);
	__atomic_store_n(&l->b_tid, gettid(), __ATOMIC_RELEASE);
	for (;;) {
		lat_parked(l, true);
		more = bench_page_next(g, &seen, lat_all_in, l);
		lat_parked(l, false);
		if (!more)
			break;
		if (l->pinned)
			lat_pin_self(__atomic_load_n(&g->cpu, __ATOMIC_RELAXED));
		pthread_mutex_lock(&l->lock);
		l->samples[l->n++] = time_mono_ns() - l->t0;
		l->done = true;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
		if (l->pinned)	/* as rt_pin_float() before the next wait: the daemon pins again */
			sched_setaffinity(0, sizeof(all), &all);
	}
	return NULL;
}

/* The agent: GRANT datagrams in, the waiter signalled under the lock (dropped with a page). */
static void *agent(void *arg)
{
	struct lat *l = arg;
	struct host_ev m;

	while (recv(l->fd, &m, sizeof(m), 0) == sizeof(m)) {
		if (m.type == HOST_MSG_GRANT)
			__atomic_fetch_add(&l->grant_msgs, 1, __ATOMIC_RELAXED);
		if (m.type != HOST_MSG_GRANT || l->page)
			continue;
		pthread_mutex_lock(&l->lock);
		l->granted = true;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
	}
	return NULL;
}

static void send_msg(struct lat *l, uint32_t type, uint64_t a, uint64_t b)
{
	struct host_ev m = { .type = type, .a = a, .b = b };

	if (l->took_gen && type != HOST_MSG_TOOK) {
		send_msg(l, HOST_MSG_TOOK, l->took_gen, 0);
		l->took_gen = 0;
	}
	if (send(l->fd, &m, sizeof(m), 0) != sizeof(m))
		perror("bench-host-latency: send");
	l->sent++;
}

static void send_ev(struct lat *l, uint32_t type)
{
	send_msg(l, type, 0, 0);
}

/* Offer mode, not timed: until the daemon offers the lane again for what it read of us. */
static bool wait_offer(struct lat *l, uint64_t *w)
{
	unsigned int i;

	for (i = 0; i < 100000; i++) {
		*w = __atomic_load_n(&l->offer->word, __ATOMIC_ACQUIRE);
		if (host_offer_lane(*w) == 0 && host_offer_vcpu(*w) == HOST_OFFER_FREE &&
		    __atomic_load_n(&l->offer->sent, __ATOMIC_ACQUIRE) == l->sent &&
		    (__atomic_load_n(&l->offer->eligible[0], __ATOMIC_ACQUIRE) & 1))
			return true;
		usleep(10);
	}
	return false;
}

/*
 * One offer round: under its lock (rt->lock's part), A takes the lane with a CAS and signals B
 * as rt_grant() does. false: no offer in time or lost the CAS (the round is redone).
 */
static bool offer_round(struct lat *l, pthread_mutex_t *vmm)
{
	uint64_t w;
	bool took;

	if (!wait_offer(l, &w))
		return false;
	pthread_mutex_lock(vmm);
	l->t0 = time_mono_ns();
	took = __atomic_compare_exchange_n(&l->offer->word, &w,
					   host_offer_word(host_offer_gen(w), 0, 0), false,
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	if (took) {
		pthread_mutex_lock(&l->lock);
		l->granted = true;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&l->lock);
		l->took_gen = host_offer_gen(w);
	}
	pthread_mutex_unlock(vmm);
	return took;
}

/* The WELCOME, the grant page mapped from the fd it carries if use_page, the offer page too. */
static int recv_welcome(struct lat *l, struct host_welcome *w, bool use_page)
{
	char cbuf[CMSG_SPACE(2 * sizeof(int))];
	struct iovec iov = { .iov_base = w, .iov_len = sizeof(*w) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *cm;
	int fd[2] = { -1, -1 };
	void *p, *o = NULL;

	if (recvmsg(l->fd, &mh, 0) != sizeof(*w) || w->err)
		return -1;
	cm = CMSG_FIRSTHDR(&mh);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return use_page ? -1 : 0;
	memcpy(fd, CMSG_DATA(cm), cm->cmsg_len == CMSG_LEN(2 * sizeof(int)) ? 2 * sizeof(int) :
	       sizeof(int));
	p = use_page ? mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd[0], 0) : NULL;
	if (fd[1] >= 0)
		o = mmap(NULL, sizeof(struct host_offer), PROT_READ | PROT_WRITE, MAP_SHARED, fd[1], 0);
	close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	if (p == MAP_FAILED || o == MAP_FAILED)
		return -1;
	l->page = p;
	l->offer = o;
	return 0;
}

static int run_host(struct lat *l, const char *sock, enum mode mode)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 1, .name = "bench",
		.flags = mode == MODE_PINNED ? HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_KICK |
						HOST_HELLO_PIN :
			 mode == MODE_OFFER || mode == MODE_PARKED ?
			 HOST_HELLO_PAGE | HOST_HELLO_OFFER :
			 mode == MODE_PAGE ? HOST_HELLO_PAGE : 0,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	pthread_mutex_t vmm = PTHREAD_MUTEX_INITIALIZER;
	bool use_page = mode != MODE_AGENT;
	struct host_welcome w;
	pthread_t a, b;
	unsigned int i;

	strcpy(sa.sun_path, sock);
	l->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	for (i = 0; i < 200 && connect(l->fd, (struct sockaddr *)&sa, sizeof(sa)); i++)
		usleep(10000);
	if (i == 200 || send(l->fd, &hm, sizeof(hm), 0) != sizeof(hm) ||
	    recv_welcome(l, &w, use_page) ||
	    ((mode == MODE_OFFER || mode == MODE_PARKED || mode == MODE_PINNED) && !l->offer)) {
		fprintf(stderr, "bench-host-latency: cannot join the daemon at %s\n", sock);
		return -1;
	}
	l->parked = mode == MODE_PARKED || mode == MODE_PINNED;
	l->pinned = mode == MODE_PINNED;
	send_ev(l, HOST_MSG_COMMIT);
	pthread_create(&a, NULL, agent, l);
	pthread_create(&b, NULL, l->page && mode != MODE_OFFER ? page_waiter : lat_waiter, l);
	pthread_setname_np(a, "lat-agent");	/* named in traces (bench/host_trace_lat.sh) */
	pthread_setname_np(b, "lat-waiter");
	if (l->pinned) {	/* B's TID, for the daemon's pins (checked against this process) */
		while (!__atomic_load_n(&l->b_tid, __ATOMIC_ACQUIRE))
			usleep(100);
		send_msg(l, HOST_MSG_TID, (uint64_t)l->b_tid, 0);
	}
	for (i = 0; i < l->rounds; i++) {
		lat_gap();
		if (mode == MODE_OFFER) {
			if (!offer_round(l, &vmm)) {
				if (++l->missed > l->rounds)
					break;
				i--;
				continue;
			}
		} else {
			l->t0 = time_mono_ns();
			send_ev(l, HOST_MSG_RUNNABLE);
		}
		lat_wait_done(l);
		send_ev(l, HOST_MSG_BLOCKED);
	}
	if (i < l->rounds) {
		fprintf(stderr, "bench-host-latency: the daemon stopped offering the lane\n");
		return -1;
	}
	pthread_join(b, NULL);
	shutdown(l->fd, SHUT_RDWR);
	pthread_join(a, NULL);
	close(l->fd);
	if (l->page)
		munmap((void *)l->page, 4096);
	if (l->offer)
		munmap(l->offer, sizeof(*l->offer));
	return 0;
}

int lat_run_daemon(struct lat *l, enum mode mode)
{
	char sock[64];
	pid_t pid = bench_daemon_start("host", sock, sizeof(sock));
	int ret = pid < 0 ? -1 : run_host(l, sock, mode);

	bench_daemon_stop(pid, sock);
	return ret;
}
