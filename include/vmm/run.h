/* SPDX-License-Identifier: GPL-2.0 */
/* `vsched run`: start a VM from flags and wait for it to end. */
#ifndef VSCHED_VMM_RUN_H
#define VSCHED_VMM_RUN_H

#include <stdbool.h>

#include "vmm/accel.h"

/* Process exit statuses of `vsched run` (also in man/vsched.1). */
#define RUN_EXIT_OK 0		/* guest powered off, or --duration elapsed */
#define RUN_EXIT_FAILURE 1	/* the VM could not be set up */
#define RUN_EXIT_USAGE 2	/* bad flags: nothing was started */
#define RUN_EXIT_RESET 3	/* guest reset: reboot or triple fault */
#define RUN_EXIT_GUEST_ERROR 4	/* emulation failure, failed entry, KVM internal error */
/* Stopped by SIGINT/SIGTERM: 128 + the signal number, as a shell reports it. */

int cmd_run(int argc, char **argv);

struct payload_spec;

/* What decides the vCPU backend of `vsched run` (vmm/run_accel.c). */
struct run_accel_req {
	enum vm_accel accel;		/* --accel (AUTO when not given) */
	const char *domain;		/* --domain FILE, for messages */
	const char *domain_type;	/* its <domain type=...>: "kvm", "qemu", "" or NULL */
	bool kernel;			/* --kernel: needs a real CPU */
	const struct payload_spec *specs;	/* payload kinds per vCPU, or NULL */
	unsigned int nr_vcpus;
};

/*
 * The backend, or -RUN_EXIT_USAGE / -RUN_EXIT_FAILURE after one message: --accel against the
 * domain's type, KVM asked for where it is missing, or the thread backend asked to run what
 * needs a CPU (--kernel, probe, fault, emufail). "auto" that falls back to the thread backend
 * prints one line saying so and why.
 */
int run_accel_choose(const struct run_accel_req *req, enum vm_accel *out);

#endif
