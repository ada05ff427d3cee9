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
 * The host rows are bench/host_grant.c's. One vCPU, one lane; per round: runnable -> granted
 * (B runs) -> blocked. Median, p90, p99.
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
#include "host_lat.h"
#include "host_wake.h"
#include "host/host.h"
#include "host/proto.h"
#include "sched/core.h"
#include "util/compiler.h"
#include "util/time.h"
#include "vsched.h"

static unsigned int gap_us = 50;

/* Between rounds, for every path alike. */
void lat_gap(void)
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
void *lat_waiter(void *arg)
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

void lat_wait_done(struct lat *l)
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

	pthread_create(&b, NULL, lat_waiter, l);
	pthread_setname_np(b, "lat-waiter");
	for (i = 0; i < l->rounds; i++) {
		lat_gap();
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
		lat_wait_done(l);
		vsched_lock(l->vs);
		sched_vcpu_blocked(s, 0, time_mono_ns());
		while (sched_take_decisions(s, d, 4))
			;
		vsched_unlock(l->vs);
	}
	pthread_join(b, NULL);
}

/* Which host-mode paths meet issue 17's goal (median <= 1.10x in-process), in words. */
static void lat_verdict(const struct lat *in, const struct lat *const *l, const char *const *name,
			unsigned int n)
{
	unsigned int i, pass, any;

	for (pass = 0; pass < 2; pass++) {
		printf(pass ? "; MISSED by:" : "  goal met by:");
		for (i = any = 0; i < n; i++)
			if (((double)l[i]->samples[l[i]->n / 2] / in->samples[in->n / 2] <= 1.10) ==
			    !pass) {
				printf(" %s", name[i]);
				any++;
			}
		if (!any)
			printf(" none");
	}
	printf("\n");
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
		if (lat_run_daemon(l, r[i].mode))
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
	if (lat_run_daemon(pg, MODE_PAGE) || lat_run_daemon(pk, MODE_PARKED) ||
	    lat_run_daemon(pn, MODE_PINNED) || lat_run_daemon(ag, MODE_AGENT) ||
	    lat_run_daemon(of, MODE_OFFER))
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
	lat_verdict(in, (const struct lat *[]){ of, pk, pn, pg, ag },
		    (const char *[]){ "offer", "parked", "pinned", "page", "agent" }, 5);
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
