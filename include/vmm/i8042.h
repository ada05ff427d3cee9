/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal i8042 keyboard controller at 0x60/0x64: enough for Linux's probe (self test, the
 * control byte, a keyboard that acks) and, above all, the reset line: command 0xFE (or any
 * output-port write clearing bit 0) reboots the machine, which ends the VM as VM_EXIT_RESET.
 */
#ifndef VSCHED_VMM_I8042_H
#define VSCHED_VMM_I8042_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct vm;

#define I8042_DATA_PORT 0x60
#define I8042_CMD_PORT 0x64
#define I8042_KBD_IRQ 1
#define I8042_QUEUE 16

struct i8042 {
	struct vm *vm;			/* NULL in unit tests */
	void (*set_irq)(struct i8042 *k, int level);
	void (*reset)(struct i8042 *k);

	pthread_mutex_t lock;
	uint8_t ctr;			/* controller command byte */
	uint8_t outport;
	uint8_t pending_cmd;		/* command waiting for its data byte, or 0 */
	bool last_was_cmd;
	uint8_t queue[I8042_QUEUE];
	unsigned int q_head, q_count;
	int irq_level;
	unsigned int nr_resets;
};

int i8042_setup(struct i8042 *k, void (*set_irq)(struct i8042 *k, int level),
		void (*reset)(struct i8042 *k));
void i8042_access(struct i8042 *k, uint16_t port, uint8_t *data, bool is_write);

/* Registers 0x60 and 0x64 on vm: IRQ 1 through KVM_IRQ_LINE, reset = vm_stop(VM_EXIT_RESET). */
int i8042_init(struct i8042 *k, struct vm *vm);
void i8042_exit(struct i8042 *k);

#endif
