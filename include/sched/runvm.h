/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A payload VM under the scheduler runtime, in-process: what the benchmark and the runtime's
 * tests need without going through the CLI. Groups are set with launch_group()/launch_assign()
 * (or any vsched.h call) on ->vs between runvm_create() and runvm_start(), and at any time after.
 */
#ifndef VSCHED_SCHED_RUNVM_H
#define VSCHED_SCHED_RUNVM_H

#include <stdbool.h>

#include "vmm/payload.h"
#include "vmm/vm.h"

struct vsched;
struct runtime;

struct runvm {
	struct vm vm;
	struct vsched *vs;
	struct runtime *rt;		/* NULL when unscheduled */
	struct payload_opts *po;	/* fill ->spec[] before runvm_start() */
	bool scheduled;
	bool created;
	bool started;
};

/* nr_vcpus vCPUs (hog unless told otherwise) on lanes lanes. 0 or -errno. */
int runvm_create(struct runvm *r, const char *name, unsigned int nr_vcpus, unsigned int lanes,
		 bool scheduled);
/* Creates the VM and its runtime and starts the vCPU threads. 0 or -errno. */
int runvm_start(struct runvm *r);
/* Stops the vCPUs and waits for them; the VM's exit reason stays readable. */
void runvm_stop(struct runvm *r);
void runvm_destroy(struct runvm *r);

#endif
