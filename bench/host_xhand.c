// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-latency's cross-VM release row (docs/host.md, "Handoffs across VMs"): two VMMs of
 * one vCPU each, joined to one one-lane daemon with their offer pages shared
 * (HOST_HELLO_PEER). Per round (not timed) VM a's vCPU gets the lane and VM b's waits for it
 * (both fenced by a PING; then the daemon's two offers are waited for: a's handoff to another
 * VM, b's successor side); then, timed, a's vCPU releases: the claim's CAS in a's word and its
 * FUTEX_WAKE, then its TOOK at once, as rt_hand_xvm(); b's vCPU thread, parked on b's grant-page
 * entry and a's word (futex_waitv, as rt_page_wait() with rt_xhand_park()), is woken by the claim,
 * takes the lane with a CAS of b's word (rt_xhand_take(); no TOOK of b's since protocol 14: the
 * daemon settles b's word at a's TOOK); timed to it running.
 * BENCH_XVM_WAKER=1 times the path before (protocol 11 to this change): b's waker (SCHED_FIFO
 * where allowed, as rt_xwait.c) parked on a's word takes and wakes b's vCPU thread parked on a
 * private word: two wake-ups. A round whose take fails (the daemon revoked first) still times
 * b's thread running, from the daemon's grant by the page, and is counted. BENCH_XVM_STAMPS=1
 * prints where each taken round's time went (steps after a's claim).
 */
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host_hand.h"
#include "host/proto.h"
#include "util/time.h"

/*
 * BENCH_XVM_STAMPS=1: each taken round's steps, in ns after the claim (t0), printed as medians
 * and p90s: where the row's time goes.
 */
enum {
	XS_AWAKE,	/* a's FUTEX_WAKE of its word returned */
	XS_ASENT,	/* a's TOOK sent (send() returned) */
	XS_AWAIT,	/* a about to sleep on the round's end (its CPU free for b) */
	XS_BWOKE,	/* b's thread back from the futex_waitv that ended in its take */
	XS_BTAKE,	/* b's CAS of its word done */
	XS_BSENT,	/* b counts as running: the sample's end */
	XS_NR
};
static const char *const xs_name[XS_NR] = {
	"a's futex wake returned", "a's TOOK sent", "a waits (its CPU free)",
	"b's thread woke", "b's CAS done", "b runs",
};

struct xvmm {
	int fd;
	const struct host_grant *page;
	struct host_offer *offer;
	uint64_t sent_state;
	pthread_t agent;
	bool pong;
};

struct xrel {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct xvmm a, b;
	bool armed, done, stop;
	uint32_t vwake;		/* b's vCPU thread's wake word (rt_vcpu_wake()) */
	bool vdone, wdone;	/* the round's vCPU thread ran; its waker sent its TOOK */
	uint32_t gen, seen;	/* the round's gen; b's entry seq when it was armed */
	uint64_t t0, *samples;
	unsigned int n, rounds, gap_us, taken;
	unsigned int missed;	/* rounds redone: no offer (a's slice ended first) */
	pid_t pid;
	char sock[64];
	bool waker;		/* BENCH_XVM_WAKER=1: the waker takes (the path before) */
	int varm;		/* the round's claim may be taken by b's vCPU thread */
	bool stamps;		/* BENCH_XVM_STAMPS=1 */
	uint64_t st[XS_NR];	/* this round's stamps (absolute) */
	uint64_t *stv[XS_NR];	/* the taken rounds' steps after t0 */
	unsigned int nst, bcpu_lane, acpu_lane;	/* stamped rounds; b's and a's on CPU 0 */
	unsigned int a_inside;	/* ... of them a's TOOK sent between b's CAS and b running */
	bool btook;		/* the round's take was b's */
	int bcpu;
};

struct xagent {
	struct xrel *r;
	struct xvmm *v;
};

static void *x_agent(void *arg)
{
	struct xagent *x = arg;
	struct host_ev m;
	char buf[1024];
	ssize_t n;

	while ((n = recv(x->v->fd, buf, sizeof(buf), 0)) > 0) {
		if (n != sizeof(m))
			continue;
		memcpy(&m, buf, sizeof(m));
		if (m.type == HOST_MSG_PONG)
			bench_flag_set(&x->r->lock, &x->r->cond, &x->v->pong);
	}
	free(x);
	return NULL;
}

static void x_send(struct xvmm *v, uint32_t type, uint32_t vcpu, uint64_t a, uint64_t b)
{
	struct host_ev m = { .type = type, .vcpu = vcpu, .a = a, .b = b };

	if (send(v->fd, &m, sizeof(m), 0) != sizeof(m))
		perror("bench-host-latency: send");
	if (type != HOST_MSG_RAN)
		v->sent_state++;
}

static void x_fence(struct xrel *r, struct xvmm *v)
{
	x_send(v, HOST_MSG_PING, 0, 0, 0);
	bench_flag_wait(&r->lock, &r->cond, &v->pong);
}

static int x_join(struct xrel *r, struct xvmm *v, const char *name)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 1,
		.flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER | HOST_HELLO_HAND | HOST_HELLO_PEER,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	struct xagent *x;

	snprintf(hm.name, sizeof(hm.name), "%s", name);
	if (bench_join(r->sock, &hm, &v->fd, &v->page, &v->offer))
		return -1;
	x = malloc(sizeof(*x));
	if (!x)
		return -1;
	/* Mapped: the first datagram lets the daemon seal the page and share it (PEER, which
	 * this bench does not need: both VMMs are this process, b reads a's mapping). */
	x_send(v, HOST_MSG_COMMIT, 0, 0, 0);
	x->r = r;
	x->v = v;
	pthread_create(&v->agent, NULL, x_agent, x);
	return 0;
}

/* The daemon's two offers of this round, each VM's view current. */
static bool x_offered(struct xrel *r)
{
	unsigned int i;

	for (i = 0; i < 10000; i++) {
		uint64_t wa = __atomic_load_n(&r->a.offer->word, __ATOMIC_ACQUIRE);
		uint64_t wb = __atomic_load_n(&r->b.offer->word, __ATOMIC_ACQUIRE);

		if (host_offer_lane(wa) == HOST_OFFER_HAND && host_offer_vcpu(wa) == HOST_OFFER_FREE &&
		    host_offer_lane(wb) == HOST_OFFER_XSUCC &&
		    host_offer_gen(wa) == host_offer_gen(wb) &&
		    __atomic_load_n(&r->a.offer->hand_succ, __ATOMIC_ACQUIRE) == HOST_HAND_XVM &&
		    __atomic_load_n(&r->a.offer->hand_sent, __ATOMIC_ACQUIRE) == r->a.sent_state &&
		    __atomic_load_n(&r->b.offer->x_sent, __ATOMIC_ACQUIRE) == r->b.sent_state) {
			r->gen = host_offer_gen(wa);
			return true;
		}
		usleep(10);
	}
	return false;
}

/* b's waker, as rt_xwait.c and rt_xhand_take(): a's claim taken, or the page's grant. */
static bool x_take(struct xrel *r)
{
	const uint32_t *aw = host_offer_futex(r->a.offer);
	const struct host_grant *g = &r->b.page[0];

	for (;;) {
		struct futex_waitv w[2] = {
			{ .uaddr = (uintptr_t)&g->seq, .flags = FUTEX_32 },
			{ .uaddr = (uintptr_t)aw, .flags = FUTEX_32 },
		};
		uint64_t pw, bw;
		uint32_t seq;

		w[1].val = __atomic_load_n(aw, __ATOMIC_ACQUIRE);
		pw = __atomic_load_n(&r->a.offer->word, __ATOMIC_ACQUIRE);
		bw = host_offer_word(r->gen, HOST_OFFER_XSUCC, HOST_OFFER_FREE);
		if (host_offer_gen(pw) == r->gen && host_offer_lane(pw) == 0 &&
		    host_offer_vcpu(pw) == 0 &&
		    __atomic_compare_exchange_n(&r->b.offer->word, &bw,
						host_offer_word(r->gen, 0, 0), false,
						__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			return true;
		seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
		if (seq != r->seen && !(seq & 1) &&
		    __atomic_load_n(&g->lane, __ATOMIC_RELAXED) != HOST_LANE_NONE) {
			r->seen = seq;
			return false;
		}
		w[0].val = seq;
		syscall(SYS_futex_waitv, w, 2, 0, NULL, CLOCK_MONOTONIC);
	}
}

/*
 * b's vCPU thread, on the lane's CPU, parked on its entry and a's word (rt_page_wait() with
 * rt_xhand_park()): a's claim wakes it, it takes with the CAS of b's word and sends b's TOOK
 * (rt_xhand_take()); or the daemon's grant by the page. BENCH_XVM_WAKER=1: parked on a private
 * word, woken by the waker that took (the path before). Timed to here.
 */
static void *x_vcpu(void *arg)
{
	struct xrel *r = arg;
	const uint32_t *aw = host_offer_futex(r->a.offer);
	const struct host_grant *g = &r->b.page[0];
	uint32_t seen = 0;
	bool took;

	bench_pin_lane();
	for (;;) {
		took = false;
		if (!r->waker) {
			for (;;) {
				struct futex_waitv w[3] = {
					{ .uaddr = (uintptr_t)&g->seq, .flags = FUTEX_32 },
					{ .uaddr = (uintptr_t)aw, .flags = FUTEX_32 },
					{ .uaddr = (uintptr_t)&r->vwake,
					  .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
				};
				uint64_t pw, bw;
				uint32_t seq, gen;

				w[2].val = __atomic_load_n(&r->vwake, __ATOMIC_ACQUIRE);
				if (w[2].val != seen) {
					seen = w[2].val;
					if (r->stop)
						return NULL;
				}
				w[1].val = __atomic_load_n(aw, __ATOMIC_ACQUIRE);
				if (__atomic_load_n(&r->varm, __ATOMIC_ACQUIRE)) {
					gen = r->gen;
					pw = __atomic_load_n(&r->a.offer->word, __ATOMIC_ACQUIRE);
					bw = host_offer_word(gen, HOST_OFFER_XSUCC, HOST_OFFER_FREE);
					if (host_offer_gen(pw) == gen && host_offer_lane(pw) == 0 &&
					    host_offer_vcpu(pw) == 0 &&
					    __atomic_compare_exchange_n(&r->b.offer->word, &bw,
									host_offer_word(gen, 0, 0), false,
									__ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
						took = true;
						break;
					}
					seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
					if (seq != r->seen && !(seq & 1) &&
					    __atomic_load_n(&g->lane, __ATOMIC_RELAXED) != HOST_LANE_NONE) {
						r->seen = seq;
						break;
					}
				} else {
					seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
				}
				w[0].val = seq;
				syscall(SYS_futex_waitv, w, 3, 0, NULL, CLOCK_MONOTONIC);
				r->st[XS_BWOKE] = time_mono_ns();
			}
			r->st[XS_BTAKE] = time_mono_ns();
			__atomic_store_n(&r->varm, 0, __ATOMIC_RELEASE);
			/* No TOOK of b's (protocol 14): the daemon settles b's word at a's. */
		} else {
			while (__atomic_load_n(&r->vwake, __ATOMIC_ACQUIRE) == seen)
				syscall(SYS_futex, &r->vwake, FUTEX_WAIT_PRIVATE, seen, NULL, NULL, 0);
			seen = __atomic_load_n(&r->vwake, __ATOMIC_ACQUIRE);
		}
		pthread_mutex_lock(&r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		r->st[XS_BSENT] = time_mono_ns();
		r->samples[r->n++] = r->st[XS_BSENT] - r->t0;
		if (took)
			r->taken++;
		r->btook = took;
		r->bcpu = sched_getcpu();
		r->vdone = true;
		r->done = r->wdone;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
}

static void x_vcpu_wake(struct xrel *r)
{
	__atomic_add_fetch(&r->vwake, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &r->vwake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* b's waker: floats, SCHED_FIFO where the host lets it (rt_thread_boost()). */
static void *x_waiter(void *arg)
{
	struct sched_param sp = { .sched_priority = 2 };
	struct xrel *r = arg;
	bool took;

	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
	for (;;) {
		pthread_mutex_lock(&r->lock);
		while (!r->armed && !r->stop)
			pthread_cond_wait(&r->cond, &r->lock);
		r->armed = false;
		pthread_mutex_unlock(&r->lock);
		if (r->stop) {
			x_vcpu_wake(r);
			return NULL;
		}
		took = x_take(r);
		x_vcpu_wake(r);	/* the grant's wake-up (rt_grant()); no TOOK (protocol 14) */
		pthread_mutex_lock(&r->lock);
		if (took)
			r->taken++;
		r->wdone = true;
		r->done = r->vdone;
		pthread_cond_broadcast(&r->cond);
		pthread_mutex_unlock(&r->lock);
	}
}

struct xrel *bench_xhand_start(unsigned int rounds, unsigned int gap_us)
{
	struct xrel *r = calloc(1, sizeof(*r));
	pthread_t b;

	if (!r || !(r->samples = calloc(rounds, sizeof(uint64_t))))
		exit(1);
	r->rounds = rounds;
	r->gap_us = gap_us;
	r->waker = getenv("BENCH_XVM_WAKER") && atoi(getenv("BENCH_XVM_WAKER"));
	r->stamps = !r->waker && getenv("BENCH_XVM_STAMPS") && atoi(getenv("BENCH_XVM_STAMPS"));
	for (unsigned int k = 0; r->stamps && k < XS_NR; k++)
		if (!(r->stv[k] = calloc(rounds, sizeof(uint64_t))))
			exit(1);
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->cond, NULL);
	r->pid = bench_daemon_start("xhand", r->sock, sizeof(r->sock));
	if (r->pid < 0 || x_join(r, &r->a, "xa") || x_join(r, &r->b, "xb")) {
		fprintf(stderr, "bench-host-latency: cannot join the daemon at %s\n", r->sock);
		return NULL;
	}
	pthread_create(&b, NULL, x_waiter, r);
	pthread_detach(b);
	pthread_create(&b, NULL, x_vcpu, r);
	pthread_detach(b);
	return r;
}

int bench_xhand_round(struct xrel *r, pthread_mutex_t *vmm)
{
	uint64_t w;

	x_send(&r->a, HOST_MSG_RUNNABLE, 0, 0, 0);
	x_fence(r, &r->a);
	x_send(&r->b, HOST_MSG_RUNNABLE, 0, 0, 0);
	x_fence(r, &r->b);
	if (!x_offered(r)) {
		/* a's slice ended before the timed part (a loaded host): the lane went on and
		   nothing was offered. Both blocked and fenced, the round is redone. */
		r->missed++;
		x_send(&r->a, HOST_MSG_BLOCKED, 0, 0, 0);
		x_fence(r, &r->a);
		x_send(&r->b, HOST_MSG_BLOCKED, 0, 0, 0);
		x_fence(r, &r->b);
		return 1;
	}
	r->seen = __atomic_load_n(&r->b.page[0].seq, __ATOMIC_ACQUIRE);
	pthread_mutex_lock(&r->lock);
	r->vdone = r->wdone = false;
	r->wdone = !r->waker;	/* no waker in the round */
	pthread_mutex_unlock(&r->lock);
	if (!r->waker)
		__atomic_store_n(&r->varm, 1, __ATOMIC_RELEASE);
	else
		bench_flag_set(&r->lock, &r->cond, &r->armed);
	if (r->gap_us)
		usleep(r->gap_us);
	pthread_mutex_lock(vmm);
	r->t0 = time_mono_ns();
	w = host_offer_word(r->gen, HOST_OFFER_HAND, HOST_OFFER_FREE);
	if (__atomic_compare_exchange_n(&r->a.offer->word, &w, host_offer_word(r->gen, 0, 0),
					false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		syscall(SYS_futex, host_offer_futex(r->a.offer), FUTEX_WAKE, INT_MAX, NULL, NULL,
			0);
		r->st[XS_AWAKE] = time_mono_ns();
		pthread_mutex_unlock(vmm);
		x_send(&r->a, HOST_MSG_TOOK, 0, r->gen, 0);	/* at once, after the lock */
		r->st[XS_ASENT] = time_mono_ns();
		r->acpu_lane += sched_getcpu() == 0;
	} else {
		pthread_mutex_unlock(vmm);
		x_send(&r->a, HOST_MSG_BLOCKED, 0, 0, 0);
	}
	r->st[XS_AWAIT] = time_mono_ns();
	bench_flag_wait(&r->lock, &r->cond, &r->done);
	if (r->btook && r->stamps && r->nst < r->rounds) {
		unsigned int k;

		for (k = 0; k < XS_NR; k++)
			r->stv[k][r->nst] = r->st[k] > r->t0 ? r->st[k] - r->t0 : 0;
		r->nst++;
		r->bcpu_lane += r->bcpu == 0;
		r->a_inside += r->st[XS_ASENT] > r->st[XS_BTAKE] && r->st[XS_ASENT] < r->st[XS_BSENT];
	}
	x_send(&r->b, HOST_MSG_BLOCKED, 0, 0, 0);
	x_fence(r, &r->b);
	return 0;
}

static int x_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

unsigned int bench_xhand_missed(const struct xrel *r)
{
	return r ? r->missed : 0;
}

uint64_t bench_xhand_q(struct xrel *r, unsigned int pct)
{
	return r->samples[(uint64_t)r->n * pct / 100];
}

void bench_xhand_stop(struct xrel *r)
{
	pthread_mutex_lock(&r->lock);
	r->stop = true;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->lock);
	__atomic_add_fetch(&r->vwake, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &r->vwake, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
	shutdown(r->a.fd, SHUT_RDWR);
	shutdown(r->b.fd, SHUT_RDWR);
	pthread_join(r->a.agent, NULL);
	pthread_join(r->b.agent, NULL);
	bench_daemon_stop(r->pid, r->sock);
	qsort(r->samples, r->n, sizeof(*r->samples), x_cmp);
	printf("%-12s release -> waiter runs: median %6.1f us  p90 %6.1f us  p99 %6.1f us"
	       "  (%u rounds, %u taken from the other VM's claim)\n", "host, xvm",
	       bench_xhand_q(r, 50) / 1e3, bench_xhand_q(r, 90) / 1e3, bench_xhand_q(r, 99) / 1e3,
	       r->n, r->taken);
	for (unsigned int k = 0; r->stamps && r->nst && k < XS_NR; k++) {
		qsort(r->stv[k], r->nst, sizeof(uint64_t), x_cmp);
		printf("  xvm step %-26s median %6.1f us  p90 %6.1f us  (%u taken rounds)\n",
		       xs_name[k], r->stv[k][r->nst / 2] / 1e3, r->stv[k][r->nst * 9 / 10] / 1e3,
		       r->nst);
	}
	if (r->stamps)
		printf("  xvm: b's thread ran on CPU 0 (the lane's) in %u of %u, a in %u; a's TOOK"
		       " sent inside b's send in %u\n", r->bcpu_lane, r->nst, r->acpu_lane,
		       r->a_inside);
}
