/* SPDX-License-Identifier: GPL-2.0 */
#ifndef VSCHED_BENCH_HOST_WAKE_H
#define VSCHED_BENCH_HOST_WAKE_H

/*
 * bench-host-latency's wake rows (bench/host_wake.c): a vCPU thread back from its sleep asks
 * for the idle lane itself, in-process and through the daemon with its parked bit set before
 * its RUNNABLE (the runtime) or only at its wait (the runtime before); rounds each, gap_us
 * before each. Prints the rows and the GRANT datagrams the agent got; -1 if a host row failed.
 */
int bench_wake_run(unsigned int rounds, unsigned int gap_us);

#endif
