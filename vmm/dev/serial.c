// SPDX-License-Identifier: GPL-2.0
/*
 * 8250/16550A UART. Transmission is instant (THR and the shift register are always empty),
 * so only the receive side keeps a FIFO. The IRQ line follows the interrupt identification
 * state and, as on a PC, only reaches the interrupt controller while MCR.OUT2 is set.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "util/compiler.h"
#include "vmm/serial.h"
#include "vmm/vm.h"

enum { UART_RX_TX, UART_IER, UART_IIR_FCR, UART_LCR, UART_MCR, UART_LSR, UART_MSR, UART_SCR };

#define IER_RDI 0x01
#define IER_THRI 0x02
#define IIR_NO_INT 0x01
#define IIR_THRI 0x02
#define IIR_RDI 0x04
#define IIR_FIFO 0xc0
#define FCR_ENABLE 0x01
#define FCR_CLEAR_RX 0x02
#define LCR_DLAB 0x80
#define MCR_DTR 0x01
#define MCR_RTS 0x02
#define MCR_OUT1 0x04
#define MCR_OUT2 0x08
#define MCR_LOOP 0x10
#define LSR_DR 0x01
#define LSR_THRE 0x20
#define LSR_TEMT 0x40
#define MSR_CTS 0x10
#define MSR_DSR 0x20
#define MSR_RI 0x40
#define MSR_DCD 0x80

int serial_setup(struct serial *s, uint16_t base, unsigned int irq, int in_fd, int out_fd,
		 void (*set_irq)(struct serial *s, int level))
{
	memset(s, 0, sizeof(*s));
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
	s->base = base;
	s->irq = irq;
	s->in_fd = in_fd;
	s->out_fd = out_fd;
	s->set_irq = set_irq;
	s->ier = s->lcr = s->mcr = s->scr = s->fcr = 0;
	s->dll = 12;	/* 9600 baud */
	s->dlm = 0;
	s->thri = false;
	s->rx_head = s->rx_count = 0;
	s->irq_level = 0;
	return -pthread_mutex_init(&s->lock, NULL);
}

static uint8_t serial_iir(struct serial *s)
{
	uint8_t fifo = (s->fcr & FCR_ENABLE) ? IIR_FIFO : 0;

	if ((s->ier & IER_RDI) && s->rx_count)
		return fifo | IIR_RDI;
	if ((s->ier & IER_THRI) && s->thri)
		return fifo | IIR_THRI;
	return fifo | IIR_NO_INT;
}

static void serial_update_irq(struct serial *s)
{
	int level = !(serial_iir(s) & IIR_NO_INT) && (s->mcr & MCR_OUT2);

	if (level == s->irq_level)
		return;
	s->irq_level = level;
	if (s->set_irq)
		s->set_irq(s, level);
}

static unsigned int serial_rx_push(struct serial *s, const uint8_t *buf, unsigned int len)
{
	unsigned int n = 0;

	while (n < len && s->rx_count < SERIAL_FIFO_SIZE) {
		s->rx[(s->rx_head + s->rx_count) % SERIAL_FIFO_SIZE] = buf[n++];
		s->rx_count++;
	}
	return n;
}

static uint8_t serial_rx_pop(struct serial *s)
{
	uint8_t c;

	if (!s->rx_count)
		return 0;
	c = s->rx[s->rx_head];
	s->rx_head = (s->rx_head + 1) % SERIAL_FIFO_SIZE;
	s->rx_count--;
	return c;
}

static void serial_transmit(struct serial *s, uint8_t c)
{
	ssize_t r;

	if (s->mcr & MCR_LOOP) {
		serial_rx_push(s, &c, 1);
		return;
	}
	/*
	 * A console whose reader reads nothing blocks the vCPU here (output is bounded by the
	 * pipe, never buffered); a kick (EINTR) retries, unless the VM is ending: then the byte
	 * is dropped and so is the rest, or vm_join() would wait for the reader forever.
	 */
	for (;;) {
		if (s->out_dead || (s->vm && vm_stopping(s->vm)))
			return;
		r = write(s->out_fd, &c, 1);
		if (r >= 0 || errno != EINTR)
			break;
	}
	/* The reader went away (`vsched run | head`): the guest goes on, its output is dropped. */
	if (r < 0 && (errno == EPIPE || errno == EBADF))
		s->out_dead = true;
}

static uint8_t serial_msr(struct serial *s)
{
	uint8_t m = 0;

	if (!(s->mcr & MCR_LOOP))
		return MSR_DCD | MSR_DSR | MSR_CTS;
	/* Loopback wires the modem outputs back to the inputs; drivers probe the UART this way. */
	if (s->mcr & MCR_RTS)
		m |= MSR_CTS;
	if (s->mcr & MCR_DTR)
		m |= MSR_DSR;
	if (s->mcr & MCR_OUT1)
		m |= MSR_RI;
	if (s->mcr & MCR_OUT2)
		m |= MSR_DCD;
	return m;
}

static void serial_write(struct serial *s, unsigned int off, uint8_t v)
{
	switch (off) {
	case UART_RX_TX:
		if (s->lcr & LCR_DLAB) {
			s->dll = v;
			break;
		}
		serial_transmit(s, v);
		s->thri = true;
		break;
	case UART_IER:
		if (s->lcr & LCR_DLAB) {
			s->dlm = v;
			break;
		}
		/* Enabling the THRE interrupt with an empty THR raises it at once. */
		if ((v & IER_THRI) && !(s->ier & IER_THRI))
			s->thri = true;
		s->ier = v & 0x0f;
		break;
	case UART_IIR_FCR:
		if (v & FCR_CLEAR_RX)
			s->rx_head = s->rx_count = 0;
		s->fcr = v & 0xc9;
		break;
	case UART_LCR:
		s->lcr = v;
		break;
	case UART_MCR:
		s->mcr = v & 0x1f;
		break;
	case UART_SCR:
		s->scr = v;
		break;
	default:		/* LSR and MSR are read-only */
		break;
	}
}

static uint8_t serial_read(struct serial *s, unsigned int off)
{
	uint8_t v;

	switch (off) {
	case UART_RX_TX:
		return (s->lcr & LCR_DLAB) ? s->dll : serial_rx_pop(s);
	case UART_IER:
		return (s->lcr & LCR_DLAB) ? s->dlm : s->ier;
	case UART_IIR_FCR:
		v = serial_iir(s);
		/* Reading IIR acknowledges a THRE interrupt it reports. */
		if ((v & 0x0f) == IIR_THRI)
			s->thri = false;
		return v;
	case UART_LCR:
		return s->lcr;
	case UART_MCR:
		return s->mcr;
	case UART_LSR:
		return LSR_THRE | LSR_TEMT | (s->rx_count ? LSR_DR : 0);
	case UART_MSR:
		return serial_msr(s);
	default:
		return s->scr;
	}
}

void serial_access(struct serial *s, unsigned int off, uint8_t *data, bool is_write)
{
	pthread_mutex_lock(&s->lock);
	if (is_write)
		serial_write(s, off, *data);
	else
		*data = serial_read(s, off);
	serial_update_irq(s);
	pthread_mutex_unlock(&s->lock);
}

unsigned int serial_receive(struct serial *s, const uint8_t *buf, unsigned int len)
{
	unsigned int n;

	pthread_mutex_lock(&s->lock);
	n = serial_rx_push(s, buf, len);
	serial_update_irq(s);
	pthread_mutex_unlock(&s->lock);
	return n;
}

static int serial_pio(struct vcpu *vcpu __unused, uint16_t port, void *data, unsigned int size,
		      bool is_write, void *opaque)
{
	struct serial *s = opaque;
	uint8_t *p = data;
	unsigned int i;

	/* Wider accesses (rep outsw of a byte register) act byte by byte on the same register. */
	for (i = 0; i < size; i++)
		serial_access(s, port - s->base, &p[i], is_write);
	return 0;
}

static void serial_kvm_irq(struct serial *s, int level)
{
	vm_irq_line(s->vm, s->irq, level);
}

static unsigned int serial_rx_space(struct serial *s)
{
	unsigned int space;

	pthread_mutex_lock(&s->lock);
	space = SERIAL_FIFO_SIZE - s->rx_count;
	pthread_mutex_unlock(&s->lock);
	return space;
}

static void *serial_input_thread(void *arg)
{
	struct serial *s = arg;
	struct pollfd pfd[2] = {
		{ .fd = s->stop_pipe[0], .events = POLLIN },
		{ .fd = s->in_fd, .events = POLLIN },
	};
	uint8_t buf[SERIAL_FIFO_SIZE];
	bool eof = false;

	for (;;) {
		unsigned int space = serial_rx_space(s);
		/* A full FIFO: wait for the guest to drain it, polling only for the stop pipe. */
		int nfds = (eof || !space) ? 1 : 2;
		ssize_t n;

		if (poll(pfd, nfds, nfds == 1 && !eof ? 10 : -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[0].revents)
			break;
		if (nfds < 2 || !pfd[1].revents)
			continue;
		n = read(s->in_fd, buf, space);
		if (n > 0)
			serial_receive(s, buf, n);
		else if (n == 0 || (errno != EINTR && errno != EAGAIN))
			eof = true;	/* stdin closed: the guest just gets no more input */
	}
	return NULL;
}

int serial_init(struct serial *s, struct vm *vm, uint16_t base, unsigned int irq, int in_fd,
		int out_fd)
{
	struct sigaction sa;
	int err;

	err = serial_setup(s, base, irq, in_fd, out_fd, serial_kvm_irq);
	if (err)
		return err;
	s->vm = vm;
	/* A closed console pipe must end the output, not the VMM: SIGPIPE off unless handled. */
	if (!sigaction(SIGPIPE, NULL, &sa) && sa.sa_handler == SIG_DFL)
		signal(SIGPIPE, SIG_IGN);
	err = vm_pio_register(vm, base, SERIAL_NR_REGS, serial_pio, s);
	if (err)
		goto out_mutex;
	if (in_fd < 0)
		return 0;
	if (pipe2(s->stop_pipe, O_CLOEXEC) < 0) {
		err = -errno;
		goto out_mutex;
	}
	if (isatty(in_fd) && !tcgetattr(in_fd, &s->tty_saved)) {
		struct termios t = s->tty_saved;

		/* Raw keys for the guest, but Ctrl-C still stops the VMM. */
		cfmakeraw(&t);
		t.c_lflag |= ISIG;
		if (!tcsetattr(in_fd, TCSANOW, &t))
			s->tty_raw = true;
	}
	err = pthread_create(&s->input, NULL, serial_input_thread, s);
	if (err) {
		err = -err;
		goto out_tty;
	}
	s->input_running = true;
	return 0;

out_tty:
	if (s->tty_raw)
		tcsetattr(in_fd, TCSANOW, &s->tty_saved);
	s->tty_raw = false;
	close(s->stop_pipe[0]);
	close(s->stop_pipe[1]);
	s->stop_pipe[0] = s->stop_pipe[1] = -1;
out_mutex:
	pthread_mutex_destroy(&s->lock);
	return err;
}

void serial_exit(struct serial *s)
{
	ssize_t r;

	if (s->input_running) {
		do
			r = write(s->stop_pipe[1], "", 1);
		while (r < 0 && errno == EINTR);
		pthread_join(s->input, NULL);
		s->input_running = false;
	}
	if (s->tty_raw)
		tcsetattr(s->in_fd, TCSANOW, &s->tty_saved);
	s->tty_raw = false;
	if (s->stop_pipe[0] >= 0) {
		close(s->stop_pipe[0]);
		close(s->stop_pipe[1]);
		s->stop_pipe[0] = s->stop_pipe[1] = -1;
	}
	pthread_mutex_destroy(&s->lock);
}
