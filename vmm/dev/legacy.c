// SPDX-License-Identifier: GPL-2.0
/*
 * Legacy ports with fixed behaviour. A multi-byte access acts byte by byte on its first port (so a
 * dword at 0xcf8 never reaches the byte-wide reset register at 0xcf9). Serving them here keeps the
 * VMM's "unhandled port" log for accesses that really are unexpected.
 */
#include "util/compiler.h"
#include "vmm/legacy.h"
#include "vmm/linux/acpi.h"
#include "vmm/vm.h"

#define SYSCTL_A_RESET 0x01
#define SYSCTL_A_A20 0x02
#define RESET_CTL_RST_CPU 0x04

static const uint16_t absent_uarts[] = { 0x2f8, 0x3e8, 0x2e8 };

enum legacy_event legacy_access(uint16_t port, uint8_t *data, bool is_write)
{
	switch (port) {
	case LEGACY_POST_PORT:
		if (!is_write)
			*data = 0xff;
		return LEGACY_NONE;
	case LEGACY_SYSCTL_A:
		/* A20 is always on; writing bit 0 is the "fast reset". */
		if (!is_write)
			*data = SYSCTL_A_A20;
		else if (*data & SYSCTL_A_RESET)
			return LEGACY_RESET;
		return LEGACY_NONE;
	case LEGACY_RESET_CTL:
		if (!is_write)
			*data = 0;
		else if (*data & RESET_CTL_RST_CPU)
			return LEGACY_RESET;
		return LEGACY_NONE;
	case ACPI_SLEEP_CTL_PORT:
		/* SLP_EN with SLP_TYP = \_S5_ is soft-off; other sleep states are not offered. */
		if (!is_write) {
			*data = 0;
			return LEGACY_NONE;
		}
		if ((*data & ACPI_SLP_EN) &&
		    ((*data & ACPI_SLP_TYP_MASK) >> ACPI_SLP_TYP_SHIFT) == ACPI_S5_TYP)
			return LEGACY_POWEROFF;
		return LEGACY_NONE;
	case ACPI_SLEEP_STS_PORT:
		if (!is_write)
			*data = 0;	/* never woken: no wake status */
		return LEGACY_NONE;
	case LEGACY_POWEROFF_PORT:
		if (!is_write) {
			*data = 0xff;
			return LEGACY_NONE;
		}
		return LEGACY_POWEROFF;
	default:
		/* An absent UART: all-ones, so the 8250 probe finds nothing. */
		if (!is_write)
			*data = 0xff;
		return LEGACY_NONE;
	}
}

static int legacy_pio(struct vcpu *vcpu, uint16_t port, void *data, unsigned int size,
		      bool is_write, void *opaque __unused)
{
	uint8_t *p = data;
	unsigned int i;

	for (i = 0; i < size; i++) {
		switch (legacy_access(port, &p[i], is_write)) {
		case LEGACY_RESET:
			vm_stop(vcpu->vm, VM_EXIT_RESET);
			break;
		case LEGACY_POWEROFF:
			vm_stop(vcpu->vm, VM_EXIT_POWEROFF);
			break;
		case LEGACY_NONE:
			break;
		}
	}
	return 0;
}

int legacy_init(struct vm *vm)
{
	static const uint16_t ports[] = { LEGACY_POST_PORT, LEGACY_SYSCTL_A, LEGACY_POWEROFF_PORT };
	unsigned int i;
	int err;

	for (i = 0; i < ARRAY_SIZE(ports); i++) {
		err = vm_pio_register(vm, ports[i], 1, legacy_pio, NULL);
		if (err)
			return err;
	}
	err = vm_pio_register(vm, ACPI_SLEEP_CTL_PORT, 2, legacy_pio, NULL);
	if (err)
		return err;
	/* 0xcf8-0xcff: no PCI host bridge (conf1 reads all-ones), but 0xcf9 resets. */
	err = vm_pio_register(vm, LEGACY_PCI_CONF, 8, legacy_pio, NULL);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(absent_uarts); i++) {
		err = vm_pio_register(vm, absent_uarts[i], 8, legacy_pio, NULL);
		if (err)
			return err;
	}
	return 0;
}
