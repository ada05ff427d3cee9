/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The PC devices of a Linux VM, registered on its port bus in one place: COM1 (8250 UART),
 * the i8042, the CMOS RTC and the legacy ports (vmm/dev/). The guest_io fuzz target registers
 * the same set through this, so it drives the ports a Linux guest reaches.
 */
#ifndef VSCHED_VMM_PC_H
#define VSCHED_VMM_PC_H

#include <stdbool.h>

#include "vmm/i8042.h"
#include "vmm/rtc.h"
#include "vmm/serial.h"

struct vm;

struct pc_devices {
	struct serial com1;
	struct i8042 kbd;
	struct rtc rtc;
	bool com1_up, kbd_up;
};

/*
 * Registers every device on vm: COM1 reads in_fd (-1: no input, no thread) and writes out_fd.
 * 0, or -errno with *what naming the device that failed; pc_devices_exit() undoes what was done
 * either way, after the vCPU threads ended.
 */
int pc_devices_init(struct pc_devices *d, struct vm *vm, int in_fd, int out_fd, const char **what);
void pc_devices_exit(struct pc_devices *d);

#endif
