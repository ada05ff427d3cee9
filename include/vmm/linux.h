/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Linux boot path, implemented on the `linux` branch: `vsched run --kernel` sets
 * vm->boot = &linux_boot_ops and vm->boot_data to a struct linux_opts.
 */
#ifndef VSCHED_VMM_LINUX_H
#define VSCHED_VMM_LINUX_H

#include "vmm/vm.h"

/* Default RAM when --kernel is given without --memory: the Debian kernel's init_size is
 * about 64 MiB, and it wants room for the initrd beside it. */
#define LINUX_DEFAULT_MEM (256ULL << 20)

struct linux_opts {
	const char *kernel;	/* bzImage or uncompressed ELF vmlinux (required) */
	const char *initrd;	/* or NULL */
	const char *cmdline;	/* or NULL for the boot method's default */
};

/* Weak so that a build without the Linux path links and `run --kernel` says so. */
extern const struct boot_ops linux_boot_ops __attribute__((weak));

#endif
