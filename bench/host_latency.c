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
 *              receives the GRANT datagram (a VMM without the parked bits) and drops it.
 *  host, parked: the same with B's parked bit set in the offer page while it waits, as
 *              rt_page_wait() does (protocol 10): the daemon sends no GRANT, the agent stays
 *              asleep. The offer page comes with HOST_HELLO_OFFER, so the daemon offers the
 *              idle lane between rounds; A does not take it (RUNNABLE settles it).
 *  host, agent: the same without the page (before it, or a daemon that cannot make one): the
 *              agent thread receives the GRANT and signals B under the lock.
 *  host, offer: the daemon offered the idle lane to the VM (host/host_offer.c); A takes it with
 *              a CAS under its lock and signals B's condition variable as in-process; TOOK goes
 *              before A's next datagram (the BLOCKED), as rt_offer.c defers it. Between rounds
 *              A waits for the daemon to offer the lane again (not timed).
 * One vCPU, one lane; per round: runnable -> granted (B runs) -> blocked. Median, p90, p99.
 * Then the release rows (bench/host_hand.c): a lane freed while a second vCPU waits, in-process,
 * through the daemon's page, and handed on by its holder (HOST_HELLO_HAND); BENCH_LAT_HAND=0
 * leaves them out, BENCH_LAT_HAND=only runs them alone. Then the wake rows (bench/host_wake.c):
 * the waking thread asks for the lane itself, its parked bit set before or after its RUNNABLE;
 * BENCH_LAT_WAKE=0 leaves them out, BENCH_LAT_WAKE=only runs them alone.
 * BENCH_LAT_ROWS=parked (or a comma list of in,page,parked,pinned,agent,offer) runs those
 * grant rows alone, then no release or wake rows (a trace of one path: bench/host_trace_lat.sh).
 * BENCH_LAT_ROUNDS overrides the number of rounds (default 20000). Every path's A sleeps
 * BENCH_LAT_GAP_US (default 50) before each round, not timed: the offer path waits for the next
 * offer there, and a thread just back from a sleep (or a CPU kept out of deep idle states by
 * the polling) must not favour one path (without it: offer 6.5 us against in-process 21 us,
 * whose A came straight from its last round).
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host_hand.h"
#include "host_wake.h"
#include "host/host.h"
#include "host/proto.h"
#include "sched/core.h"
#include "util/compiler.h"
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
	bool parked;			/* B sets its parked bit while it waits (MODE_PARKED) */
	bool pinned;			/* the daemon pins B, B floats after each grant */
	pid_t b_tid;
	unsigned int grant_msgs;	/* GRANT datagrams the agent received */
	struct host_offer *offer;	/* offer mode: A takes the lane itself */
	uint64_t sent;			/* datagrams sent since the HELLO */
	unsigned int missed;		/* offer mode: rounds with no offer in time (not counted) */
	uint64_t took_gen;		/* offer mode: the TOOK to send before the next datagram */
};

static unsigned int gap_us = 50;

/* Between rounds, for every path alike. */
static void gap(void)
{
	if (gap_us)
		usleep(gap_us);
}

static void report(const char *what, struct lat *l)
{
	bench_sort_u64(l->samples, l->n);
	printf("%-12s grant -> thread runs: median %6.1f us  p90 %6.1f us  p99 %6.1f us"
	       "  (%u rounds; p10 %.1f us)\n",
	       what, l->samples[l->n / 2] / 1e3, l->samples[l->n * 9 / 10] / 1e3,
	       l->samples[l->n * 99 / 100] / 1e3, l->n, l->samples[l->n / 10] / 1e3);
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
	pthread_setname_np(b, "lat-waiter");
	for (i = 0; i < l->rounds; i++) {
		gap();
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

enum mode { MODE_AGENT, MODE_PAGE, MODE_OFFER, MODE_PARKED, MODE_PINNED };

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
	pthread_create(&b, NULL, l->page && mode != MODE_OFFER ? page_waiter : waiter, l);
	pthread_setname_np(a, "lat-agent");	/* named in traces (bench/host_trace_lat.sh) */
	pthread_setname_np(b, "lat-waiter");
	if (l->pinned) {	/* B's TID, for the daemon's pins (checked against this process) */
		while (!__atomic_load_n(&l->b_tid, __ATOMIC_ACQUIRE))
			usleep(100);
		send_msg(l, HOST_MSG_TID, (uint64_t)l->b_tid, 0);
	}
	for (i = 0; i < l->rounds; i++) {
		gap();
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
		wait_done(l);
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

static int run_daemon(struct lat *l, enum mode mode)
{
	char sock[64];
	pid_t pid = bench_daemon_start("host", sock, sizeof(sock));
	int ret = pid < 0 ? -1 : run_host(l, sock, mode);

	bench_daemon_stop(pid, sock);
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

/* Whether BENCH_LAT_ROWS (unset: all) names row. */
static bool lat_row(const char *rows, const char *row)
{
	size_t n = strlen(row);
	const char *p;

	if (!rows)
		return true;
	for (p = rows; (p = strstr(p, row)); p += n)
		if ((p == rows || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* The rows BENCH_LAT_ROWS names, each alone with its median (no ratios, no later rows). */
static int lat_rows(const char *rows, unsigned int rounds)
{
	static const struct { const char *name, *label; enum mode mode; } r[] = {
		{ "page", "host, page", MODE_PAGE }, { "parked", "host, parked", MODE_PARKED },
		{ "pinned", "host, pinned", MODE_PINNED },
		{ "agent", "host, agent", MODE_AGENT }, { "offer", "host, offer", MODE_OFFER },
	};
	struct lat *l;
	unsigned int i;

	if (lat_row(rows, "in")) {
		l = lat_new(rounds);
		l->vs = vsched_create(1, 1);
		if (!l->vs)
			return 1;
		vsched_lock(l->vs);
		sched_advance(vsched_sched(l->vs), time_mono_ns());
		vsched_unlock(l->vs);
		run_inprocess(l);
		report("in-process", l);
	}
	for (i = 0; i < ARRAY_SIZE(r); i++) {
		if (!lat_row(rows, r[i].name))
			continue;
		l = lat_new(rounds);
		if (run_daemon(l, r[i].mode))
			return 1;
		report(r[i].label, l);
	}
	return 0;
}

int main(void)
{
	const char *env = getenv("BENCH_LAT_ROUNDS"), *genv = getenv("BENCH_LAT_GAP_US");
	const char *hand = getenv("BENCH_LAT_HAND"), *wake = getenv("BENCH_LAT_WAKE");
	unsigned int rounds = env ? (unsigned int)atoi(env) : 20000;
	struct lat *in, *ag, *pg, *of, *pk, *pn;

	if (!rounds)
		return 2;
	if (genv)
		gap_us = (unsigned int)atoi(genv);
	if (hand && !strcmp(hand, "only"))
		return bench_hand_run(rounds, gap_us) ? 1 : 0;
	if (wake && !strcmp(wake, "only"))
		return bench_wake_run(rounds, gap_us) ? 1 : 0;
	pthread_setname_np(pthread_self(), "lat-main");
	if (getenv("BENCH_LAT_ROWS"))
		return lat_rows(getenv("BENCH_LAT_ROWS"), rounds);
	in = lat_new(rounds);
	ag = lat_new(rounds);
	pg = lat_new(rounds);
	pk = lat_new(rounds);
	pn = lat_new(rounds);
	of = lat_new(rounds);
	in->vs = vsched_create(1, 1);
	if (!in->vs)
		return 1;
	vsched_lock(in->vs);
	sched_advance(vsched_sched(in->vs), time_mono_ns());
	vsched_unlock(in->vs);
	run_inprocess(in);
	report("in-process", in);
	if (run_daemon(pg, MODE_PAGE) || run_daemon(pk, MODE_PARKED) || run_daemon(pn, MODE_PINNED) ||
	    run_daemon(ag, MODE_AGENT) || run_daemon(of, MODE_OFFER))
		return 1;
	report("host, page", pg);
	report("host, parked", pk);
	report("host, pinned", pn);
	printf("GRANT datagrams to the agent: page %u, parked %u (of %u rounds each)\n",
	       pg->grant_msgs, pk->grant_msgs, rounds);
	report("host, agent", ag);
	report("host, offer", of);
	printf("offer rounds redone (no offer in time or CAS lost): %u\n", of->missed);
	printf("host mode / in-process (median): offer %.2f, parked %.2f, pinned %.2f, page %.2f, "
	       "agent %.2f (issue 17's goal: <= 1.10)\n",
	       (double)of->samples[of->n / 2] / in->samples[in->n / 2],
	       (double)pk->samples[pk->n / 2] / in->samples[in->n / 2],
	       (double)pn->samples[pn->n / 2] / in->samples[in->n / 2],
	       (double)pg->samples[pg->n / 2] / in->samples[in->n / 2],
	       (double)ag->samples[ag->n / 2] / in->samples[in->n / 2]);
	printf("host mode / in-process (p90): offer %.2f, parked %.2f, pinned %.2f, page %.2f, "
	       "agent %.2f\n",
	       (double)of->samples[of->n * 9 / 10] / in->samples[in->n * 9 / 10],
	       (double)pk->samples[pk->n * 9 / 10] / in->samples[in->n * 9 / 10],
	       (double)pn->samples[pn->n * 9 / 10] / in->samples[in->n * 9 / 10],
	       (double)pg->samples[pg->n * 9 / 10] / in->samples[in->n * 9 / 10],
	       (double)ag->samples[ag->n * 9 / 10] / in->samples[in->n * 9 / 10]);
	printf("host mode / in-process (p99): offer %.2f, parked %.2f, pinned %.2f, page %.2f, "
	       "agent %.2f\n",
	       (double)of->samples[of->n * 99 / 100] / in->samples[in->n * 99 / 100],
	       (double)pk->samples[pk->n * 99 / 100] / in->samples[in->n * 99 / 100],
	       (double)pn->samples[pn->n * 99 / 100] / in->samples[in->n * 99 / 100],
	       (double)pg->samples[pg->n * 99 / 100] / in->samples[in->n * 99 / 100],
	       (double)ag->samples[ag->n * 99 / 100] / in->samples[in->n * 99 / 100]);
	vsched_destroy(in->vs);
	if (!(hand && !strcmp(hand, "0")) && bench_hand_run(rounds, gap_us))
		return 1;
	if (!(wake && !strcmp(wake, "0")) && bench_wake_run(rounds, gap_us))
		return 1;
	free(in->samples);
	free(ag->samples);
	free(pg->samples);
	free(pk->samples);
	free(pn->samples);
	free(of->samples);
	free(of);
	free(in);
	free(ag);
	free(pg);
	free(pk);
	free(pn);
	return 0;
}
