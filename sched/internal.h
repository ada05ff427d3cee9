/* SPDX-License-Identifier: GPL-2.0 */
/*
 * State shared by the files of sched/: the scheduler instance. Not a public header: front ends
 * use sched/group.h.
 */
#ifndef VSCHED_SCHED_INTERNAL_H
#define VSCHED_SCHED_INTERNAL_H

#include "sched/group.h"

struct sched {
	struct group root;
	unsigned int nr_lanes;
	unsigned int nr_vcpus;
	struct sched_vcpu *vcpus;
	pid_t pid;
};

#endif
