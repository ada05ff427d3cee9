/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VSCHED_BENCH_HOST_DAEMON_H
#define VSCHED_BENCH_HOST_DAEMON_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <sys/types.h>

/*
 * A one-lane `vsched host` daemon in a child process for the host-mode latency benches: its
 * socket path (from tag and our pid) into sock; the child's pid, or -1.
 */
pid_t bench_daemon_start(const char *tag, char *sock, size_t len);
/* The lanes of the daemons started from then on (1 unless a bench sets it). */
extern unsigned int bench_daemon_lanes;
/* Whether those daemons pin their thread off the lanes' CPUs, as `vsched host` does (false). */
extern bool bench_daemon_pin;
/* With bench_daemon_pin, the mask such a daemon starts from (the bench's before it pinned
 * itself to the lane's CPU), when bench_daemon_has_mask. */
extern cpu_set_t bench_daemon_mask;
extern bool bench_daemon_has_mask;
/* Stops it (SIGTERM) and removes its socket. */
void bench_daemon_stop(pid_t pid, const char *sock);

struct host_grant;
struct host_hello;
struct host_offer;
/*
 * Joins the daemon at sock with hm as a VMM with a grant page and an offer page: the socket
 * into *fd, both pages mapped. 0, or -1.
 */
int bench_join(const char *sock, const struct host_hello *hm, int *fd,
	       const struct host_grant **page, struct host_offer **offer);
/*
 * Waits on a grant-page entry, as a parked vCPU does, for a decision past *seen that gives a
 * lane; *seen becomes its seq. false when stop() says so on a wake-up.
 */
bool bench_page_next(const struct host_grant *g, uint32_t *seen, bool (*stop)(void *), void *arg);

/* B's parked bit (vCPU 0) in the offer page, with rt_page_bit()'s full fences. */
void bench_parked(struct host_offer *offer, bool on);

/* Samples in increasing order, for their quantiles. */
void bench_sort_u64(uint64_t *v, size_t n);

/* A flag between the benches' threads: set it and wake the waiters; wait for it and clear it. */
void bench_flag_set(pthread_mutex_t *lock, pthread_cond_t *cond, bool *flag);
void bench_flag_wait(pthread_mutex_t *lock, pthread_cond_t *cond, bool *flag);

#endif
