/* SPDX-License-Identifier: GPL-2.0 */
/* `vsched run`: start a VM from flags and wait for it to end. */
#ifndef VSCHED_VMM_RUN_H
#define VSCHED_VMM_RUN_H

/* Process exit statuses of `vsched run` (also in man/vsched.1). */
#define RUN_EXIT_OK 0		/* guest powered off, or --duration elapsed */
#define RUN_EXIT_FAILURE 1	/* the VM could not be set up */
#define RUN_EXIT_USAGE 2	/* bad flags: nothing was started */
#define RUN_EXIT_RESET 3	/* guest reset: reboot or triple fault */
#define RUN_EXIT_GUEST_ERROR 4	/* emulation failure, failed entry, KVM internal error */
/* Stopped by SIGINT/SIGTERM: 128 + the signal number, as a shell reports it. */

int cmd_run(int argc, char **argv);

#endif
