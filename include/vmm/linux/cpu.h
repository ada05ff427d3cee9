/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vCPU state for the Linux 64-bit boot protocol: the BSP starts in long mode at the kernel's
 * entry with RSI = zero page, on identity page tables and a GDT with __BOOT_CS (0x10) and
 * __BOOT_DS (0x18). Secondary vCPUs wait for INIT/SIPI like real application processors.
 */
#ifndef VSCHED_VMM_LINUX_CPU_H
#define VSCHED_VMM_LINUX_CPU_H

#include <stdint.h>

struct vcpu;

#define LX_BOOT_CS 0x10
#define LX_BOOT_DS 0x18
#define LX_BOOT_TSS 0x20
#define LX_IDENTITY_GIB 4	/* the boot page tables map [0, 4 GiB) with 2 MiB pages */

/* Writes the GDT and the identity page tables into guest RAM (mem = guest-physical 0). */
void lx_boot_tables_write(void *mem);

/* A GDT descriptor from its base, limit and flags (access byte in bits 0-7, flags 12-15). */
uint64_t lx_gdt_entry(uint16_t flags, uint32_t base, uint32_t limit);

/* BSP: long mode at entry, RSI = zero_page. */
int lx_cpu_setup_bsp(struct vcpu *vcpu, uint64_t entry, uint64_t zero_page);
/* AP: left in wait-for-SIPI (KVM_MP_STATE_INIT_RECEIVED). */
int lx_cpu_setup_ap(struct vcpu *vcpu);
/* Both: LAPIC LINT0 = ExtINT (the 8259 pair), LINT1 = NMI, as a BIOS leaves them. */
int lx_cpu_setup_lapic(struct vcpu *vcpu);

/*
 * Emulates the few CPL0 instructions this machine's KVM cannot, when Linux uses them early: INT3
 * (the int3 self test in start_kernel: RIP past it, #BP injected), CLAC/STAC (entry code with
 * SMAP), register-to-register POPCNT (hweight) and FWAIT (an AP's FPU setup). Called on an
 * emulation failure; 0 when done, -ENOTSUP for any other instruction (the VM then ends with a
 * dump).
 */
int lx_cpu_emulate(struct vcpu *vcpu);

#endif
