/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Linux boot path: a bzImage (64-bit boot protocol) or an ELF vmlinux, with a zero page, an MP
 * table, hardware-reduced ACPI tables, per-vCPU CPUID and the PC devices a kernel needs (COM1 on
 * stdio, i8042 reset, CMOS RTC, PIT). `vsched run --kernel` sets vm->boot = &linux_boot_ops and
 * vm->boot_data to a struct linux_opts; a zero-initialised struct with .kernel set is a valid
 * configuration. docs/linux-boot.md describes the memory map and the boot sequence.
 */
#ifndef VSCHED_VMM_LINUX_H
#define VSCHED_VMM_LINUX_H

#include "util/diag.h"
#include "vmm/vm.h"

/* Default RAM when --kernel is given without --memory: the Debian kernel's init_size is
 * about 64 MiB, and it wants room for the initrd beside it. */
#define LINUX_DEFAULT_MEM (256ULL << 20)

/* Used when cmdline is NULL: serial console, ACPI (our tables), no PCI, reset via i8042. */
#define LINUX_DEFAULT_CMDLINE                                                                  \
	"console=ttyS0 earlyprintk=serial,ttyS0,115200 reboot=k panic=-1 pci=off "              \
	"8250.nr_uarts=1 i8042.noaux i8042.nomux i8042.dumbkbd i8042.nopnp"

struct linux_state;

struct linux_opts {
	const char *kernel;	/* bzImage or uncompressed ELF vmlinux (required) */
	const char *initrd;	/* or NULL */
	const char *cmdline;	/* or NULL for LINUX_DEFAULT_CMDLINE */
	unsigned int cpuid_hide; /* LX_CPUID_HIDE_* (vmm/linux/cpuid.h): features to deny */
	int console_in;		/* COM1 input fd: 0 = stdin, -1 = none */
	int console_out;	/* COM1 output fd: 0 (unset) = stdout */

	/* Filled by the boot method. */
	struct diag diag;	/* why setup failed, for the CLI to print (empty if no detail) */
	struct linux_state *state;
};

/*
 * Before anything starts: the kernel is a bzImage or ELF vmlinux this boot path takes, the
 * initrd a readable regular file. 0, or -errno with o->err naming the file.
 */
int linux_check(struct linux_opts *o);

/* Defined in vmm/linux/boot.c. Not weak: a weak reference does not pull a member out of
 * the static libvsched.a, so the Linux path would silently be left out of the binary. */
extern const struct boot_ops linux_boot_ops;

#endif
