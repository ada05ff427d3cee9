/* SPDX-License-Identifier: GPL-2.0 */
/* Guest throughput, scheduled vs unscheduled (bench-fair's last part). */
#ifndef VSCHED_BENCH_TPUT_H
#define VSCHED_BENCH_TPUT_H

#include "vmm/accel.h"

/* Prints the uncontended and contended ratios on accel, secs per side in all. */
void tput_run(enum vm_accel accel, unsigned int lanes, double secs);

#endif
