/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An 8250/16550A UART (COM1 at 0x3f8, IRQ 4) on the VMM's stdio: what the guest transmits goes
 * to out_fd, bytes read from in_fd (non-blocking, by an input thread) arrive in the receive
 * FIFO and raise the IRQ line.
 */
#ifndef VSCHED_VMM_SERIAL_H
#define VSCHED_VMM_SERIAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <termios.h>

struct vm;

#define SERIAL_COM1_BASE 0x3f8
#define SERIAL_COM1_IRQ 4
#define SERIAL_NR_REGS 8
#define SERIAL_FIFO_SIZE 64

struct serial {
	struct vm *vm;			/* NULL in unit tests */
	uint16_t base;
	unsigned int irq;
	int in_fd, out_fd;
	/* Where the IRQ line goes: KVM_IRQ_LINE for a VM, a recorder in tests. */
	void (*set_irq)(struct serial *s, int level);

	pthread_mutex_t lock;
	uint8_t ier, lcr, mcr, scr, dll, dlm, fcr;
	bool thri;			/* transmitter-empty interrupt pending */
	uint8_t rx[SERIAL_FIFO_SIZE];
	unsigned int rx_head, rx_count;
	int irq_level;

	pthread_t input;
	bool input_running;
	int stop_pipe[2];
	bool tty_raw;
	struct termios tty_saved;
};

/* Power-on register state and the lock; no ports, no thread (serial_exit() undoes it). */
int serial_setup(struct serial *s, uint16_t base, unsigned int irq, int in_fd, int out_fd,
		 void (*set_irq)(struct serial *s, int level));

/* A guest access to register off (0-7), one byte. */
void serial_access(struct serial *s, unsigned int off, uint8_t *data, bool is_write);

/* Queues received bytes (what the input thread does); returns how many fit. */
unsigned int serial_receive(struct serial *s, const uint8_t *buf, unsigned int len);

/*
 * COM1 on vm: registers the ports, puts a terminal on in_fd into raw mode (signals kept),
 * starts the input thread. serial_exit() undoes all of it.
 */
int serial_init(struct serial *s, struct vm *vm, uint16_t base, unsigned int irq, int in_fd,
		int out_fd);
void serial_exit(struct serial *s);

#endif
