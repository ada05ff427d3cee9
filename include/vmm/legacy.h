/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PC odds and ends a Linux guest touches: the POST/delay port 0x80, System Control Port A
 * (0x92: A20, fast reset), the reset control register 0xcf9 inside an absent PCI conf1
 * window, absent COM2-4, and vsched's
 * ACPI-free power-off port.
 */
#ifndef VSCHED_VMM_LEGACY_H
#define VSCHED_VMM_LEGACY_H

#include <stdbool.h>
#include <stdint.h>

struct vm;

#define LEGACY_POST_PORT 0x80
#define LEGACY_SYSCTL_A 0x92
#define LEGACY_PCI_CONF 0xcf8	/* conf1 address/data: absent, reads all-ones */
#define LEGACY_RESET_CTL 0xcf9
/*
 * Power-off without ACPI: any byte written here ends the VM as VM_EXIT_POWEROFF (the port
 * QEMU's isa-debug-exit uses). From Linux userspace:
 *   printf '\0' | dd of=/dev/port bs=1 seek=1281 count=1
 */
#define LEGACY_POWEROFF_PORT 0x501

enum legacy_event {
	LEGACY_NONE,
	LEGACY_RESET,
	LEGACY_POWEROFF,
};

/* One access; returns what the machine should do. Reads fill *data. */
enum legacy_event legacy_access(uint16_t port, uint8_t *data, bool is_write);

int legacy_init(struct vm *vm);

#endif
