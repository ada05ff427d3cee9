/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VSCHED_BENCH_HOST_HAND_H
#define VSCHED_BENCH_HOST_HAND_H

/*
 * bench-host-latency's release rows (bench/host_hand.c): a lane freed while another vCPU waits,
 * in-process, through the daemon (page) and by a handoff; rounds each, gap_us before each
 * timed release. Prints the rows and their ratios; -1 if a host row failed.
 */
int bench_hand_run(unsigned int rounds, unsigned int gap_us);

#endif
