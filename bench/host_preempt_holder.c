// SPDX-License-Identifier: GPL-2.0
/* bench-host-preempt: the holder H, the round's flags, the statistics (host_preempt.h). */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host_preempt.h"
#include "host/proto.h"
#include "vmm/kick.h"
#include "util/time.h"

static uint64_t quant_of(struct pre *p, const uint64_t *x, unsigned int permille)
{
	return x[(size_t)p->n * permille / 1000];
}

static uint64_t quant(struct pre *p, unsigned int permille)
{
	return quant_of(p, p->samples, permille);
}

/* The deciding thread (A in-process, the agent in host mode): as rt_kick(). */
void pre_kick(struct pre *p)
{
	p->tk = time_mono_ns();
	spin_vcpu_kick(&p->v, p->h);
	/* From H's own CPU, H runs again only once the kicker sleeps (slice rows: the helper). */
	p->kicks_here += sched_getcpu() == (int)p->lane;
	p->kicks_all++;
}

/*
 * H's in-guest bit in the offer page (HOST_HELLO_GUEST, rows where the daemon kicks), as
 * rt_page_guest(): set before going in, cleared on the way out before the entry is read, so a
 * PREEMPT the daemon kicked comes by the page alone and wakes no agent.
 */
static void pre_guest(struct pre *p, bool on)
{
	if (!p->dkick || !p->offer)
		return;
	if (on)
		__atomic_fetch_or(&p->offer->guest[0], 1ULL, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&p->offer->guest[0], ~1ULL, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/*
 * H left for its entry, which holds a PREEMPT at a slice end to come (HOST_HELLO_AHEAD): as
 * rt_ahead_defer(), it goes back in, watching for anything newer; the helper applies it at the
 * end (slice_ahead()). Lock held.
 */
static bool pre_ahead_seen(struct pre *p)
{
	const struct host_grant *e = &p->page[0];
	uint32_t seq = __atomic_load_n(&e->seq, __ATOMIC_ACQUIRE);
	uint64_t at = __atomic_load_n(&e->at, __ATOMIC_RELAXED);

	if ((seq & 1) || seq == p->applied || at <= time_mono_ns() ||
	    __atomic_load_n(&e->lane, __ATOMIC_RELAXED) != HOST_LANE_NONE)
		return false;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&e->seq, __ATOMIC_RELAXED) != seq)
		return false;
	p->v.exit_val = seq;
	return true;
}

/* H: waits for its grant, runs its vCPU until kicked out, records the latency. */
void *holder(void *arg)
{
	struct pre *p = arg;
	cpu_set_t lane;
	uint64_t t;

	/* On the lane's CPU, as both runtimes pin a holder (rt_pin.c; the daemon's lane 0). */
	CPU_ZERO(&lane);
	CPU_SET(p->lane, &lane);
	sched_setaffinity(0, sizeof(lane), &lane);
	kick_thread_run(p->v.run);	/* as vcpu_thread(): vcpu_kick_thread() */
	__atomic_store_n(&p->tid, gettid(), __ATOMIC_RELEASE);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->granted && !p->stop)
			pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop)
			break;
		p->granted = false;
		p->applied = p->grant_seq;
		if (p->watch) {		/* rt_page_watch() */
			p->v.exit_val = p->grant_seq;
			p->v.exit_word = &p->page[0].seq;
		}
		p->in_guest = true;
		pre_guest(p, true);
		/* Told under the lock: the helper waits for it asleep (wait_inside()). */
		__atomic_store_n(&p->inside, true, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
		for (;;) {
			if (spin_vcpu_run(&p->v))
				abort();
			t = time_mono_ns();
			pre_guest(p, false);
			pthread_mutex_lock(&p->lock);
			if (p->ahead && p->watch && pre_ahead_seen(p)) {
				pre_guest(p, true);
				pthread_mutex_unlock(&p->lock);
				continue;
			}
			if ((p->watch || p->dkick) && p->page[0].seq != p->applied) {
				/* rt_page_exit() */
				p->applied = p->page[0].seq;
				p->tk = t;	/* no kick: left by itself */
				break;
			}
			if (p->applied != p->grant_seq)	/* the agent applied a PREEMPT */
				break;
			/*
			 * A kick left over from the last round: the agent applied its PREEMPT
			 * after the holder had left by the page and before it took the lock. The
			 * runtime's vCPU loop goes back in on such an exit; so does the bench
			 * (counted as a round, it hung the next one: main waited for `inside`).
			 */
			pre_guest(p, true);
			pthread_mutex_unlock(&p->lock);
		}
		__atomic_store_n(&p->inside, false, __ATOMIC_RELEASE);
		p->in_guest = false;
		/* Out before the timed wake (the daemon gave the lane to a vt round's first wake,
		 * under load): no sample; the round goes on when H is granted again. */
		if (!p->timing || p->n >= p->rounds) {
			p->stray++;
			continue;
		}
		p->timing = false;
		/* A slice round's H out before the end it is timed from (t0 is the end read
		 * ahead, not a moment passed): counted, not a sample (it wrapped to 2^64 ns). */
		if (t < p->t0) {
			p->early++;
		} else if (p->slice && p->until && __atomic_load_n(&p->until, __ATOMIC_ACQUIRE) != p->t0) {
			/*
			 * Host mode: the daemon's core kept H on (a RETIME moved the end while this
			 * round was timed from it, at times after the helper's wake: it then sent a
			 * TICK for an end that no longer was). The in-process row samples no round
			 * its core re-times at the end (not preempted there); nor does this one. Each
			 * took 3 ms to 100 ms (the new end; the grace) and was sampled until now.
			 */
			p->retimed++;
		} else {
			p->kicks[p->n] = p->tk > p->t0 ? p->tk - p->t0 : 0;
			p->agents[p->n] = p->ta > p->t0 ? p->ta - p->t0 : 0;
			p->aheads[p->n] = p->round_ahead;
			p->samples[p->n++] = t - p->t0;
		}
		p->done = true;
		pthread_cond_broadcast(&p->cond);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

void signal_flag(struct pre *p, bool *flag)
{
	pthread_mutex_lock(&p->lock);
	*flag = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/*
 * A round whose preemption never comes ends the bench with what it waited for, not a hang: in
 * make bench at load 17-24 (2026-12-07 00:00) the "host, vt held" row's round 3432 waited 19
 * minutes, holding the machine's lock, vCPU 1 runnable and vCPU 0 on lane 0 with no end in its
 * grant page, the daemon's timer disarmed (docs/bench/README.md, "Check of 2026-12-06/07").
 */
#define WAIT_FLAG_S	30

void wait_flag(struct pre *p, bool *flag)
{
	struct timespec end;

	clock_gettime(CLOCK_REALTIME, &end);	/* the condition variable's clock */
	end.tv_sec += WAIT_FLAG_S;
	pthread_mutex_lock(&p->lock);
	while (!*flag)
		if (pthread_cond_timedwait(&p->cond, &p->lock, &end) == ETIMEDOUT && !*flag) {
			bool in = __atomic_load_n(&p->inside, __ATOMIC_ACQUIRE);

			fprintf(stderr, "bench-host-preempt: no preemption in %d s (holder "
				"inside %d, granted %d; the daemon's log above)\n", WAIT_FLAG_S,
				in, p->granted);
			_exit(1);	/* H spins in its vCPU: nothing else ends it */
		}
	*flag = false;
	pthread_mutex_unlock(&p->lock);
}

/* As wait_flag(), for ms at most: false, the flag not set by then (left as it is). */
bool wait_flag_ms(struct pre *p, bool *flag, unsigned int ms)
{
	struct timespec end;
	bool set;

	clock_gettime(CLOCK_REALTIME, &end);
	end.tv_sec += ms / 1000;
	end.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (end.tv_nsec >= 1000000000L) {
		end.tv_sec++;
		end.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&p->lock);
	while (!*flag && pthread_cond_timedwait(&p->cond, &p->lock, &end) != ETIMEDOUT)
		;
	set = *flag;
	*flag = false;
	pthread_mutex_unlock(&p->lock);
	return set;
}

/* H's timed exits so far (samples, and those not sampled: early, re-timed). */
unsigned int pre_exits(struct pre *p)
{
	unsigned int n;

	pthread_mutex_lock(&p->lock);
	n = p->n + p->early + p->retimed;
	pthread_mutex_unlock(&p->lock);
	return n;
}

/*
 * A timed slice round's end: H's exit (`done`), which must be this round's: `before` is
 * pre_exits() at the round's start. A `done` left from an earlier round let the bench's main
 * thread (SCHED_FIFO, the helper) go on to the next round's datagrams before H was out, on H's
 * CPU in the runs where it ran there, ahead of H: 1679-4888 rounds of ~4900 in every run until
 * 2026-12-07, the row's slow mode (docs/host.md). Counted (the row fails on any).
 */
void pre_wait_out(struct pre *p, unsigned int before)
{
	wait_flag(p, &p->done);
	if (pre_exits(p) == before)
		p->unpaired++;
}

/*
 * The holder granted and inside its vCPU for a while, as a vCPU in KVM_RUN is when preempted.
 * Asleep until H is in: until 2026-12-07 the helper (SCHED_FIFO, pinned off the lane's CPU,
 * where the daemon is pinned too) polled with 10 us sleeps, ~22000 wake-ups a second that
 * preempted the daemon while it decided that very grant; on a loaded machine its thread got
 * 7-32 % of that CPU, nearly all of it spent coming back from those preemptions, and a grant
 * took up to 23 s: the host row's stalls (docs/host.md, Limits).
 */
void wait_inside(struct pre *p)
{
	struct timespec end;

	clock_gettime(CLOCK_REALTIME, &end);	/* the condition variable's clock */
	end.tv_sec += WAIT_FLAG_S;
	pthread_mutex_lock(&p->lock);
	while (!__atomic_load_n(&p->inside, __ATOMIC_ACQUIRE))
		if (pthread_cond_timedwait(&p->cond, &p->lock, &end) == ETIMEDOUT &&
		    !__atomic_load_n(&p->inside, __ATOMIC_ACQUIRE)) {
			fprintf(stderr, "bench-host-preempt: no grant in %d s (granted %d; the "
				"daemon's log above)\n", WAIT_FLAG_S, p->granted);
			_exit(1);
		}
	pthread_mutex_unlock(&p->lock);
	usleep(50);
}

struct pre *pre_new(unsigned int rounds, bool kvm)
{
	struct pre *p = calloc(1, sizeof(*p));

	if (!p || !(p->samples = calloc(rounds, sizeof(uint64_t))) ||
	    !(p->kicks = calloc(rounds, sizeof(uint64_t))) ||
	    !(p->agents = calloc(rounds, sizeof(uint64_t))) ||
	    !(p->aheads = calloc(rounds, sizeof(bool))))
		exit(1);
	if (spin_vcpu_init(&p->v, kvm)) {
		spin_vcpu_exit(&p->v);
		free(p->samples);
		free(p->kicks);
		free(p->agents);
		free(p->aheads);
		free(p);
		return NULL;
	}
	p->rounds = rounds;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	return p;
}

void pre_free(struct pre *p)
{
	spin_vcpu_exit(&p->v);
	free(p->samples);
	free(p->kicks);
	free(p->agents);
	free(p->aheads);
	free(p);
}

/*
 * A host slice row's two modes: the end applied from the entry the daemon published ahead, or
 * asked by TICK (nothing published by the end: the daemon's timer woke after it).
 */
static void report_modes(const char *accel, const char *what, struct pre *p)
{
	uint64_t *v[2];
	unsigned int n[2] = { 0, 0 }, i;

	for (i = 0; i < 2; i++)
		if (!(v[i] = malloc((p->n + 1) * sizeof(uint64_t))))
			exit(1);
	for (i = 0; i < p->n; i++) {
		unsigned int k = !p->aheads[i];

		v[k][n[k]++] = p->samples[i];
	}
	for (i = 0; i < 2; i++)
		bench_sort_u64(v[i], n[i]);
	printf("%-6s %-10s applied ahead: %u rounds, median %6.1f us; by TICK: %u, median %6.1f us;"
	       " the end re-timed while timed (not sampled): %u\n", accel, what,
	       n[0], n[0] ? v[0][n[0] / 2] / 1e3 : 0.0, n[1], n[1] ? v[1][n[1] / 2] / 1e3 : 0.0,
	       p->retimed);
	for (i = 0; i < 2; i++)
		free(v[i]);
}

void report(const char *accel, const char *what, struct pre *p)
{
	if (p->slice && p->ahead)
		report_modes(accel, what, p);
	bench_sort_u64(p->samples, p->n);
	uint64_t *in = malloc(p->n * sizeof(uint64_t)), *out = malloc(p->n * sizeof(uint64_t));
	unsigned int i, k = 0;

	/*
	 * Per hop, over the rounds the agent had the PREEMPT before the vCPU was out: event -> the
	 * agent has it (the daemon's wake-up and decision, the agent's wake-up), then -> vCPU out
	 * (the lock, the kick's signal, the exit).
	 */
	for (i = 0; in && out && i < p->n; i++)
		if (p->agents[i] && p->agents[i] < p->samples[i]) {
			in[k] = p->agents[i];
			out[k++] = p->samples[i] - p->agents[i];
		}
	if (k) {
		bench_sort_u64(in, k);
		bench_sort_u64(out, k);
		printf("%-6s %-10s per hop: event -> agent has the PREEMPT median %5.1f us;"
		       " agent -> vCPU out median %5.1f us (%u rounds)\n", accel, what,
		       in[k / 2] / 1e3, out[k / 2] / 1e3, k);
	}
	free(in);
	free(out);
	bench_sort_u64(p->kicks, p->n);
	printf("%-6s %-10s event -> vCPU out: median %6.1f us  p90 %6.1f us  p99 %6.1f us"
	       "  (kick issued: median %5.1f  p99 %5.1f us; %u rounds)\n", accel, what,
	       quant(p, 500) / 1e3, quant(p, 900) / 1e3, quant(p, 990) / 1e3,
	       quant_of(p, p->kicks, 500) / 1e3, quant_of(p, p->kicks, 990) / 1e3, p->n);
	if (p->early)
		printf("%-6s %-10s out before the slice end it was timed from: %u rounds (not sampled)\n",
		       accel, what, p->early);
}

void ratio(const char *accel, const char *what, struct pre *ho, struct pre *in)
{
	printf("%-6s %s / in-process, vCPU out (median): %.2f; (p90): %.2f; (p99): %.2f;"
	       " kick issued (median): %.1f\n", accel, what,
	       (double)quant(ho, 500) / quant(in, 500), (double)quant(ho, 900) / quant(in, 900),
	       (double)quant(ho, 990) / quant(in, 990),
	       (double)quant_of(ho, ho->kicks, 500) / quant_of(in, in->kicks, 500));
}
