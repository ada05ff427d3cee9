// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-latency's wake rows: a vCPU thread back from its sleep asks for a lane itself, as
 * rt_enter() does (docs/host.md, "Latency: the grant page"), and gets the one idle lane. One VM
 * of one vCPU, one lane; per round (after the gap) the thread B:
 *
 *  in-process:       feeds the core its wake under the tree's lock and takes the RUN decision
 *                    on its own (no wake-up at all).
 *  host, wake:       sets its parked bit, sends RUNNABLE, parks its steal time (BENCH_LAT_PARK_US
 *                    of work, default 0: the thread backend without a steal-time area; KVM's MSR
 *                    read took ~9 us), then waits on its grant page entry: the runtime since
 *                    rt_page_park(). A grant the daemon decides meanwhile goes by the page alone.
 *  host, wake late:  the same with the bit set only at the wait, after the park (the runtime
 *                    before): a grant decided during the park goes as a GRANT datagram too and
 *                    wakes the agent, which drops it.
 *
 * Timed: from the RUNNABLE (the wake, in-process) to B holding the grant; then B blocks (not
 * timed). The agent counts the GRANT datagrams it received. BENCH_LAT_SPIN_US: B polls its
 * entry that long before it sleeps on the futex (default 0, as the runtime: a trial).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host_daemon.h"
#include "host_wake.h"
#include "host/proto.h"
#include "sched/core.h"
#include "util/time.h"
#include "vsched.h"

struct wake {
	int fd;
	const struct host_grant *page;
	struct host_offer *offer;
	unsigned int grant_msgs;	/* GRANT datagrams the agent received */
	uint64_t *samples;
	unsigned int n;
};

static uint64_t wake_q(struct wake *w, unsigned int pct)
{
	return w->samples[(size_t)w->n * pct / 100];
}

static void wake_report(const char *what, struct wake *w)
{
	bench_sort_u64(w->samples, w->n);
	printf("%-16s wake -> granted: median %6.1f us  p90 %6.1f us  p99 %6.1f us  (%u rounds)\n",
	       what, wake_q(w, 50) / 1e3, wake_q(w, 90) / 1e3, wake_q(w, 99) / 1e3, w->n);
}

static void wake_inprocess(struct wake *w, unsigned int rounds, unsigned int gap_us)
{
	struct vsched *vs = vsched_create(1, 1);
	struct sched_decision d[4];
	unsigned int i;
	size_t n, k;
	bool run;

	if (!vs)
		exit(1);
	vsched_lock(vs);
	sched_advance(vsched_sched(vs), time_mono_ns());
	vsched_unlock(vs);
	for (i = 0; i < rounds; i++) {
		uint64_t t0;

		usleep(gap_us);
		vsched_lock(vs);
		t0 = time_mono_ns();
		sched_vcpu_runnable(vsched_sched(vs), 0, t0);
		run = false;
		while ((n = sched_take_decisions(vsched_sched(vs), d, 4)))
			for (k = 0; k < n; k++)
				run |= d[k].type == SCHED_RUN;
		if (run)
			w->samples[w->n++] = time_mono_ns() - t0;
		sched_vcpu_blocked(vsched_sched(vs), 0, time_mono_ns());
		while (sched_take_decisions(vsched_sched(vs), d, 4))
			;
		vsched_unlock(vs);
	}
	vsched_destroy(vs);
}

static void *wake_agent(void *arg)
{
	struct wake *w = arg;
	struct host_ev m;

	while (recv(w->fd, &m, sizeof(m), 0) == sizeof(m))
		if (m.type == HOST_MSG_GRANT)
			__atomic_fetch_add(&w->grant_msgs, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void wake_send(struct wake *w, uint32_t type)
{
	struct host_ev m = { .type = type };

	if (send(w->fd, &m, sizeof(m), 0) != sizeof(m))
		perror("bench-host-latency: send");
}

static int wake_host(struct wake *w, bool early, unsigned int rounds, unsigned int gap_us,
		     unsigned int park_us, unsigned int spin_us)
{
	struct host_hello hm = {
		.type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION, .pid = getpid(),
		.nr_vcpus = 1, .name = "wake", .flags = HOST_HELLO_PAGE | HOST_HELLO_OFFER,
		.vm = { .quota_us = UINT64_MAX, .period_us = 100000 },
	};
	char sock[64];
	pid_t pid = bench_daemon_start("wake", sock, sizeof(sock));
	const struct host_grant *g;
	uint32_t seen, seq;
	unsigned int i;
	pthread_t a;

	if (pid < 0 || bench_join(sock, &hm, &w->fd, &w->page, &w->offer)) {
		fprintf(stderr, "bench-host-latency: cannot join the daemon at %s\n", sock);
		bench_daemon_stop(pid, sock);
		return -1;
	}
	g = &w->page[0];
	seen = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
	wake_send(w, HOST_MSG_COMMIT);
	pthread_create(&a, NULL, wake_agent, w);
	for (i = 0; i < rounds; i++) {
		uint64_t t0;

		usleep(gap_us);
		t0 = time_mono_ns();
		if (early)
			bench_parked(w->offer, true);
		wake_send(w, HOST_MSG_RUNNABLE);
		while (park_us && time_mono_ns() - t0 < park_us * 1000ULL)
			;
		if (!early)
			bench_parked(w->offer, true);
		for (;;) {
			seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
			if (seq != seen && !(seq & 1) &&
			    __atomic_load_n(&g->lane, __ATOMIC_RELAXED) != HOST_LANE_NONE)
				break;
			if (spin_us && time_mono_ns() - t0 < (park_us + spin_us) * 1000ULL)
				continue;
			syscall(SYS_futex, &g->seq, FUTEX_WAIT, seq, NULL, NULL, 0);
		}
		bench_parked(w->offer, false);
		w->samples[w->n++] = time_mono_ns() - t0;
		seen = seq;
		wake_send(w, HOST_MSG_BLOCKED);
	}
	shutdown(w->fd, SHUT_RDWR);
	pthread_join(a, NULL);
	close(w->fd);
	munmap((void *)w->page, 4096);
	munmap(w->offer, sizeof(*w->offer));
	bench_daemon_stop(pid, sock);
	return 0;
}

static struct wake *wake_new(unsigned int rounds)
{
	struct wake *w = calloc(1, sizeof(*w));

	if (!w || !(w->samples = calloc(rounds, sizeof(uint64_t))))
		exit(1);
	return w;
}

static void wake_free(struct wake *w)
{
	free(w->samples);
	free(w);
}

int bench_wake_run(unsigned int rounds, unsigned int gap_us)
{
	const char *env = getenv("BENCH_LAT_PARK_US");
	const char *senv = getenv("BENCH_LAT_SPIN_US");
	unsigned int park_us = env ? (unsigned int)atoi(env) : 0;
	unsigned int spin_us = senv ? (unsigned int)atoi(senv) : 0;
	struct wake *in = wake_new(rounds), *early = wake_new(rounds), *late = wake_new(rounds);
	int ret = 0;

	wake_inprocess(in, rounds, gap_us);
	if (wake_host(early, true, rounds, gap_us, park_us, spin_us) ||
	    wake_host(late, false, rounds, gap_us, park_us, spin_us))
		ret = -1;
	if (!ret && in->n) {
		printf("wake rows: the waking thread asks itself, its steal-time park %u us, then it "
		       "polls %u us\n", park_us, spin_us);
		wake_report("in-process", in);
		wake_report("host, wake", early);
		wake_report("host, wake late", late);
		printf("GRANT datagrams to the agent: wake %u, wake late %u (of %u rounds each)\n",
		       early->grant_msgs, late->grant_msgs, rounds);
		printf("wake late / wake (median): %.2f, (p90): %.2f\n",
		       (double)wake_q(late, 50) / wake_q(early, 50),
		       (double)wake_q(late, 90) / wake_q(early, 90));
	}
	wake_free(in);
	wake_free(early);
	wake_free(late);
	return ret;
}
