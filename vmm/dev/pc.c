// SPDX-License-Identifier: GPL-2.0
/* The PC devices of a Linux VM on its port bus (include/vmm/pc.h). */
#include "vmm/legacy.h"
#include "vmm/pc.h"
#include "vmm/vm.h"

int pc_devices_init(struct pc_devices *d, struct vm *vm, int in_fd, int out_fd, const char **what)
{
	int err;

	*what = "COM1";
	err = serial_init(&d->com1, vm, SERIAL_COM1_BASE, SERIAL_COM1_IRQ, in_fd, out_fd);
	if (err)
		return err;
	d->com1_up = true;
	*what = "i8042";
	err = i8042_init(&d->kbd, vm);
	if (err)
		return err;
	d->kbd_up = true;
	*what = "legacy ports";
	err = rtc_init(&d->rtc, vm);
	return err ? err : legacy_init(vm);
}

void pc_devices_exit(struct pc_devices *d)
{
	if (d->com1_up)
		serial_exit(&d->com1);
	if (d->kbd_up)
		i8042_exit(&d->kbd);
	d->com1_up = d->kbd_up = false;
}
