/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VSCHED_BENCH_HOST_HAND_H
#define VSCHED_BENCH_HOST_HAND_H

/*
 * bench-host-latency's release rows (bench/host_hand.c): a lane freed while another vCPU waits,
 * in-process, through the daemon (page) and by a handoff; rounds each, gap_us before each
 * timed release. Prints the rows and their ratios; -1 if a host row failed.
 */
int bench_hand_run(unsigned int rounds, unsigned int gap_us);
/* Pins the caller to the daemon's lane 0's CPU (the first of the affinity mask). */
void bench_pin_lane(void);

/*
 * The cross-VM release row (bench/host_xhand.c): two VMMs of one vCPU on one daemon, a's
 * release taken by b's parked thread from a's claim. start: NULL on failure; round: -1 if the
 * offers did not come; stop prints the row; q: a percentile (after stop).
 */
#include <pthread.h>
#include <stdint.h>
struct xrel;
struct xrel *bench_xhand_start(unsigned int rounds, unsigned int gap_us);
/* 0, 1: redo the round (no offer: the holder's slice ended first), or -1. */
int bench_xhand_round(struct xrel *r, pthread_mutex_t *vmm);
unsigned int bench_xhand_missed(const struct xrel *r);
void bench_xhand_stop(struct xrel *r);
uint64_t bench_xhand_q(struct xrel *r, unsigned int pct);

#endif
