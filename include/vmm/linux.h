/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Booting Linux: a bzImage (64-bit boot protocol) or an ELF vmlinux, with a zero page, an MP
 * table, per-vCPU CPUID and the PC devices a kernel needs (COM1 on stdio, i8042 reset, CMOS
 * RTC, PIT). Use: vm->boot = &linux_boot_ops, vm->boot_data = &opts (struct linux_opts).
 * docs/linux-boot.md describes the memory map and the boot sequence.
 */
#ifndef VSCHED_VMM_LINUX_H
#define VSCHED_VMM_LINUX_H

#include <stdbool.h>

struct linux_state;

#define LINUX_DEFAULT_CMDLINE                                                                  \
	"console=ttyS0 earlyprintk=serial,ttyS0 reboot=k panic=-1 acpi=off pci=off "            \
	"8250.nr_uarts=1 i8042.noaux i8042.nomux i8042.dumbkbd nokaslr"

struct linux_opts {
	const char *kernel;		/* bzImage or ELF vmlinux (required) */
	const char *initrd;		/* NULL: none */
	const char *cmdline;		/* NULL: LINUX_DEFAULT_CMDLINE */
	unsigned int cpuid_hide;	/* LX_CPUID_HIDE_* (include/vmm/linux/cpuid.h) */
	int console_in, console_out;	/* COM1's stdio: 0 and 1; console_in -1 = no input */

	/* Filled by the boot method. */
	char err[256];			/* why setup_vm failed, for the CLI to print */
	struct linux_state *state;
};

/* Sets the defaults above (console on stdin/stdout, default command line). */
void linux_opts_init(struct linux_opts *o);

extern const struct boot_ops linux_boot_ops;

#endif
