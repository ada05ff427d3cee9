// SPDX-License-Identifier: GPL-2.0
/*
 * i8042 keyboard controller. No keys are ever pressed and there is no mouse; the point is a
 * controller Linux's driver accepts and the reset line a "reboot=k" kernel pulls.
 */
#include <string.h>

#include "util/compiler.h"
#include "vmm/i8042.h"
#include "vmm/vm.h"

#define STS_OBF 0x01
#define STS_SYS 0x04
#define STS_CMD 0x08
#define STS_KEYLOCK 0x10	/* set = not inhibited */

#define CTR_KBDINT 0x01
#define CTR_KBDDIS 0x10
#define CTR_AUXDIS 0x20
#define CTR_XLATE 0x40

enum {
	CMD_READ_CTR = 0x20,
	CMD_WRITE_CTR = 0x60,
	CMD_AUX_DISABLE = 0xa7,
	CMD_AUX_ENABLE = 0xa8,
	CMD_AUX_TEST = 0xa9,
	CMD_SELF_TEST = 0xaa,
	CMD_KBD_TEST = 0xab,
	CMD_KBD_DISABLE = 0xad,
	CMD_KBD_ENABLE = 0xae,
	CMD_READ_OUTPORT = 0xd0,
	CMD_WRITE_OUTPORT = 0xd1,
	CMD_KBD_ECHO = 0xd2,
	CMD_AUX_ECHO = 0xd3,
	CMD_AUX_WRITE = 0xd4,
	CMD_PULSE_BASE = 0xf0,
};

#define OUTPORT_RESET_HIGH 0x01	/* the CPU reset line is active low */
#define OUTPORT_A20 0x02

#define KBD_ACK 0xfa
#define KBD_RESEND 0xfe
#define KBD_ECHO 0xee
#define KBD_GET_ID 0xf2
#define KBD_RESET 0xff
#define KBD_BAT_OK 0xaa

static void i8042_queue(struct i8042 *k, uint8_t v)
{
	if (k->q_count == I8042_QUEUE)
		return;
	k->queue[(k->q_head + k->q_count) % I8042_QUEUE] = v;
	k->q_count++;
}

static void i8042_update_irq(struct i8042 *k)
{
	int level = k->q_count && (k->ctr & CTR_KBDINT);

	if (level == k->irq_level)
		return;
	k->irq_level = level;
	if (k->set_irq)
		k->set_irq(k, level);
}

static void i8042_do_reset(struct i8042 *k)
{
	k->nr_resets++;
	if (k->reset)
		k->reset(k);
}

static void i8042_command(struct i8042 *k, uint8_t cmd)
{
	switch (cmd) {
	case CMD_READ_CTR:
		i8042_queue(k, k->ctr);
		break;
	case CMD_WRITE_CTR:
	case CMD_WRITE_OUTPORT:
	case CMD_KBD_ECHO:
	case CMD_AUX_ECHO:
	case CMD_AUX_WRITE:
		k->pending_cmd = cmd;
		break;
	case CMD_AUX_DISABLE:
		k->ctr |= CTR_AUXDIS;
		break;
	case CMD_AUX_ENABLE:
		k->ctr &= ~CTR_AUXDIS;
		break;
	case CMD_AUX_TEST:
		i8042_queue(k, 0xff);	/* no auxiliary port: the test fails */
		break;
	case CMD_SELF_TEST:
		i8042_queue(k, 0x55);
		break;
	case CMD_KBD_TEST:
		i8042_queue(k, 0x00);
		break;
	case CMD_KBD_DISABLE:
		k->ctr |= CTR_KBDDIS;
		break;
	case CMD_KBD_ENABLE:
		k->ctr &= ~CTR_KBDDIS;
		break;
	case CMD_READ_OUTPORT:
		i8042_queue(k, k->outport);
		break;
	default:
		/* 0xf0-0xff pulse output-port lines low for a moment: bit 0 is the reset line. */
		if (cmd >= CMD_PULSE_BASE && !(cmd & 1))
			i8042_do_reset(k);
		break;
	}
}

static void i8042_kbd_write(struct i8042 *k, uint8_t v)
{
	switch (v) {
	case KBD_RESET:
		i8042_queue(k, KBD_ACK);
		i8042_queue(k, KBD_BAT_OK);
		break;
	case KBD_GET_ID:
		i8042_queue(k, KBD_ACK);
		i8042_queue(k, 0xab);
		i8042_queue(k, 0x83);
		break;
	case KBD_ECHO:
		i8042_queue(k, KBD_ECHO);
		break;
	default:
		i8042_queue(k, KBD_ACK);
		break;
	}
}

static void i8042_data_write(struct i8042 *k, uint8_t v)
{
	uint8_t cmd = k->pending_cmd;

	k->pending_cmd = 0;
	switch (cmd) {
	case CMD_WRITE_CTR:
		k->ctr = v;
		break;
	case CMD_WRITE_OUTPORT:
		k->outport = v | OUTPORT_RESET_HIGH;
		if (!(v & OUTPORT_RESET_HIGH))
			i8042_do_reset(k);
		break;
	case CMD_KBD_ECHO:
		i8042_queue(k, v);
		break;
	case CMD_AUX_ECHO:
	case CMD_AUX_WRITE:
		break;		/* no mouse behind the auxiliary port */
	default:
		i8042_kbd_write(k, v);
		break;
	}
}

static uint8_t i8042_data_read(struct i8042 *k)
{
	uint8_t v;

	if (!k->q_count)
		return 0;
	v = k->queue[k->q_head];
	k->q_head = (k->q_head + 1) % I8042_QUEUE;
	k->q_count--;
	return v;
}

void i8042_access(struct i8042 *k, uint16_t port, uint8_t *data, bool is_write)
{
	pthread_mutex_lock(&k->lock);
	if (port == I8042_CMD_PORT && is_write) {
		k->last_was_cmd = true;
		i8042_command(k, *data);
	} else if (port == I8042_CMD_PORT) {
		*data = STS_SYS | STS_KEYLOCK | (k->q_count ? STS_OBF : 0) |
			(k->last_was_cmd ? STS_CMD : 0);
	} else if (is_write) {
		k->last_was_cmd = false;
		i8042_data_write(k, *data);
	} else {
		*data = i8042_data_read(k);
	}
	i8042_update_irq(k);
	pthread_mutex_unlock(&k->lock);
}

int i8042_setup(struct i8042 *k, void (*set_irq)(struct i8042 *k, int level),
		void (*reset)(struct i8042 *k))
{
	memset(k, 0, sizeof(*k));
	k->set_irq = set_irq;
	k->reset = reset;
	k->ctr = CTR_KBDINT | CTR_XLATE | 0x04;	/* 0x04: system flag, POST passed */
	k->outport = OUTPORT_RESET_HIGH | OUTPORT_A20;
	return -pthread_mutex_init(&k->lock, NULL);
}

static int i8042_pio(struct vcpu *vcpu __unused, uint16_t port, void *data, unsigned int size,
		     bool is_write, void *opaque)
{
	uint8_t *p = data;
	unsigned int i;

	for (i = 0; i < size; i++)
		i8042_access(opaque, port, &p[i], is_write);
	return 0;
}

static void i8042_kvm_irq(struct i8042 *k, int level)
{
	vm_irq_line(k->vm, I8042_KBD_IRQ, level);
}

static void i8042_vm_reset(struct i8042 *k)
{
	vm_stop(k->vm, VM_EXIT_RESET);
}

int i8042_init(struct i8042 *k, struct vm *vm)
{
	int err;

	err = i8042_setup(k, i8042_kvm_irq, i8042_vm_reset);
	if (err)
		return err;
	k->vm = vm;
	err = vm_pio_register(vm, I8042_DATA_PORT, 1, i8042_pio, k);
	if (!err)
		err = vm_pio_register(vm, I8042_CMD_PORT, 1, i8042_pio, k);
	if (err)
		pthread_mutex_destroy(&k->lock);
	return err;
}

void i8042_exit(struct i8042 *k)
{
	pthread_mutex_destroy(&k->lock);
}
