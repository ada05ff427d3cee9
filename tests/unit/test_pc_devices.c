// SPDX-License-Identifier: GPL-2.0
/* The Linux path's devices without a VM: 8250 UART, i8042, CMOS RTC, legacy ports. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "test.h"
#include "vmm/i8042.h"
#include "vmm/legacy.h"
#include "vmm/rtc.h"
#include "vmm/kick.h"
#include "vmm/serial.h"
#include "vmm/vm.h"

enum { THR = 0, IER = 1, IIR = 2, FCR = 2, LCR = 3, MCR = 4, LSR = 5, MSR = 6, SCR = 7 };

static int irq_level, irq_edges;

static void record_irq(struct serial *s __attribute__((unused)), int level)
{
	irq_level = level;
	irq_edges += level;
}

static uint8_t rd(struct serial *s, unsigned int off)
{
	uint8_t v = 0;

	serial_access(s, off, &v, false);
	return v;
}

static void wr(struct serial *s, unsigned int off, uint8_t v)
{
	serial_access(s, off, &v, true);
}

static void test_serial_transmit_and_thre_irq(void)
{
	struct serial s;
	int p[2];
	char buf[8] = { 0 };

	CU_ASSERT_EQUAL_FATAL(pipe2(p, O_NONBLOCK), 0);
	irq_level = irq_edges = 0;
	CU_ASSERT_EQUAL(serial_setup(&s, 0x3f8, 4, -1, p[1], record_irq), 0);
	CU_ASSERT_EQUAL(rd(&s, LSR), 0x60);		/* THRE | TEMT, no data */
	CU_ASSERT_EQUAL(rd(&s, IIR), 0x01);		/* no interrupt, FIFO off */
	wr(&s, THR, 'O');
	wr(&s, THR, 'K');
	CU_ASSERT_EQUAL(read(p[0], buf, sizeof(buf)), 2);
	CU_ASSERT_STRING_EQUAL(buf, "OK");

	/* THRE interrupt: raised when enabled, but only reaches the PIC with OUT2 set. */
	wr(&s, IER, 0x02);
	CU_ASSERT_EQUAL(irq_level, 0);
	wr(&s, MCR, 0x08);
	CU_ASSERT_EQUAL(irq_level, 1);
	wr(&s, FCR, 0x01);
	CU_ASSERT_EQUAL(rd(&s, IIR), 0xc2);		/* THRI, FIFOs on */
	CU_ASSERT_EQUAL(irq_level, 0);			/* acknowledged by the read */
	CU_ASSERT_EQUAL(rd(&s, IIR), 0xc1);
	wr(&s, THR, '!');				/* sent at once: THRE again */
	CU_ASSERT_EQUAL(irq_level, 1);
	CU_ASSERT_EQUAL(irq_edges, 2);
	wr(&s, IER, 0x00);
	CU_ASSERT_EQUAL(irq_level, 0);

	/* The reader goes away: output is dropped, the UART keeps working. */
	close(p[0]);
	signal(SIGPIPE, SIG_IGN);
	wr(&s, THR, 'x');
	CU_ASSERT_TRUE(s.out_dead);
	wr(&s, THR, 'y');
	CU_ASSERT_EQUAL(rd(&s, LSR), 0x60);
	serial_exit(&s);
	close(p[1]);
}

static void test_serial_receive(void)
{
	uint8_t many[100];
	struct serial s;

	irq_level = irq_edges = 0;
	CU_ASSERT_EQUAL(serial_setup(&s, 0x3f8, 4, -1, -1, record_irq), 0);
	wr(&s, MCR, 0x08);
	wr(&s, IER, 0x01);
	CU_ASSERT_EQUAL(serial_receive(&s, (const uint8_t *)"hi", 2), 2);
	CU_ASSERT_EQUAL(irq_level, 1);
	CU_ASSERT_EQUAL(rd(&s, LSR) & 0x01, 1);
	CU_ASSERT_EQUAL(rd(&s, IIR), 0x04);
	CU_ASSERT_EQUAL(rd(&s, THR), 'h');
	CU_ASSERT_EQUAL(irq_level, 1);
	CU_ASSERT_EQUAL(rd(&s, THR), 'i');
	CU_ASSERT_EQUAL(irq_level, 0);
	CU_ASSERT_EQUAL(rd(&s, LSR) & 0x01, 0);

	/* The FIFO holds 64 bytes; a FIFO reset empties it. */
	memset(many, 'x', sizeof(many));
	CU_ASSERT_EQUAL(serial_receive(&s, many, sizeof(many)), SERIAL_FIFO_SIZE);
	CU_ASSERT_EQUAL(serial_receive(&s, many, 1), 0);
	wr(&s, FCR, 0x03);
	CU_ASSERT_EQUAL(rd(&s, LSR) & 0x01, 0);
	CU_ASSERT_EQUAL(irq_level, 0);
	serial_exit(&s);
}

static void test_serial_probe_registers(void)
{
	struct serial s;

	CU_ASSERT_EQUAL(serial_setup(&s, 0x3f8, 4, -1, -1, NULL), 0);
	/* Divisor latch: DLAB redirects registers 0 and 1. */
	wr(&s, LCR, 0x83);
	wr(&s, THR, 0x01);
	wr(&s, IER, 0x00);
	CU_ASSERT_EQUAL(rd(&s, THR), 0x01);
	CU_ASSERT_EQUAL(rd(&s, IER), 0x00);
	wr(&s, LCR, 0x03);
	CU_ASSERT_EQUAL(rd(&s, LCR), 0x03);
	wr(&s, SCR, 0xa5);
	CU_ASSERT_EQUAL(rd(&s, SCR), 0xa5);
	CU_ASSERT_EQUAL(rd(&s, MSR), 0xb0);		/* DCD, DSR, CTS */
	/* Loopback, as the 8250 driver's probe checks it: MCR outputs appear in MSR. */
	wr(&s, MCR, 0x1a);
	CU_ASSERT_EQUAL(rd(&s, MSR) & 0xf0, 0x90);
	wr(&s, MCR, 0x1f);
	CU_ASSERT_EQUAL(rd(&s, MSR) & 0xf0, 0xf0);
	wr(&s, THR, 'L');				/* looped back, not sent */
	CU_ASSERT_EQUAL(rd(&s, LSR) & 0x01, 1);
	CU_ASSERT_EQUAL(rd(&s, THR), 'L');
	serial_exit(&s);
}

static int kbd_irq, kbd_resets;

static void kbd_record_irq(struct i8042 *k __attribute__((unused)), int level)
{
	kbd_irq = level;
}

static void kbd_record_reset(struct i8042 *k __attribute__((unused)))
{
	kbd_resets++;
}

static uint8_t kio(struct i8042 *k, uint16_t port, int val)
{
	uint8_t v = val;

	i8042_access(k, port, &v, val >= 0);
	return v;
}

static void *transmit_a_byte(void *arg)
{
	wr(arg, THR, 'x');
	return NULL;
}

/*
 * A guest writing COM1 while the console's reader reads nothing blocks in write(): output is
 * bounded by the pipe, not buffered. A stopping VM must still get the vCPU out: vm_join()'s
 * kicks (EINTR) ended the write only to have it retried, and `vsched run | sleep 1000` with a
 * chatty guest never stopped at --duration or Ctrl-C.
 */
static void test_serial_stop_ends_blocked_write(void)
{
	struct vm vm = { .exit_reason = VM_EXIT_NONE };
	struct serial s;
	char buf[4096] = { 0 };
	bool ended = false;
	struct timespec ts;
	unsigned int i;
	pthread_t t;
	int p[2];

	CU_ASSERT_EQUAL_FATAL(kick_init(), 0);
	CU_ASSERT_EQUAL_FATAL(pipe2(p, O_NONBLOCK), 0);
	while (write(p[1], buf, sizeof(buf)) > 0)
		;
	CU_ASSERT_EQUAL_FATAL(fcntl(p[1], F_SETFL, 0), 0);	/* a full, blocking console */
	CU_ASSERT_EQUAL_FATAL(serial_setup(&s, 0x3f8, 4, -1, p[1], NULL), 0);
	s.vm = &vm;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, transmit_a_byte, &s), 0);
	usleep(20000);
	__atomic_store_n(&vm.exit_reason, VM_EXIT_STOPPED, __ATOMIC_SEQ_CST);
	/* What vm_join() does: kick every 50 ms until the thread ends (10 s: a loaded machine). */
	for (i = 0; i < 200 && !ended; i++) {
		pthread_kill(t, VCPU_KICK_SIGNAL);
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 50000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		ended = !pthread_timedjoin_np(t, NULL, &ts);
	}
	CU_ASSERT(ended);
	if (!ended) {
		CU_ASSERT(read(p[0], buf, sizeof(buf)) > 0);	/* let the write finish */
		pthread_join(t, NULL);
	}
	serial_exit(&s);
	close(p[0]);
	close(p[1]);
}

static void test_i8042(void)
{
	struct i8042 k;

	kbd_irq = kbd_resets = 0;
	CU_ASSERT_EQUAL(i8042_setup(&k, kbd_record_irq, kbd_record_reset), 0);
	CU_ASSERT_EQUAL(kio(&k, 0x64, -1) & 0x01, 0);
	kio(&k, 0x64, 0xaa);				/* controller self test */
	CU_ASSERT_EQUAL(kio(&k, 0x64, -1) & 0x01, 1);
	CU_ASSERT_EQUAL(kbd_irq, 1);
	CU_ASSERT_EQUAL(kio(&k, 0x60, -1), 0x55);
	CU_ASSERT_EQUAL(kbd_irq, 0);
	CU_ASSERT_EQUAL(kio(&k, 0x64, -1) & 0x01, 0);

	kio(&k, 0x64, 0x60);				/* write the control byte */
	kio(&k, 0x60, 0x44);				/* keyboard IRQ off */
	kio(&k, 0x64, 0x20);
	CU_ASSERT_EQUAL(kbd_irq, 0);
	CU_ASSERT_EQUAL(kio(&k, 0x60, -1), 0x44);

	kio(&k, 0x60, 0xff);				/* keyboard reset: ack, then BAT ok */
	CU_ASSERT_EQUAL(kio(&k, 0x60, -1), 0xfa);
	CU_ASSERT_EQUAL(kio(&k, 0x60, -1), 0xaa);
	kio(&k, 0x64, 0xa9);				/* no mouse */
	CU_ASSERT_EQUAL(kio(&k, 0x60, -1), 0xff);

	CU_ASSERT_EQUAL(kbd_resets, 0);
	kio(&k, 0x64, 0xff);				/* pulse nothing */
	CU_ASSERT_EQUAL(kbd_resets, 0);
	kio(&k, 0x64, 0xfe);				/* pulse the reset line */
	CU_ASSERT_EQUAL(kbd_resets, 1);
	kio(&k, 0x64, 0xd1);				/* output port with reset low */
	kio(&k, 0x60, 0x02);
	CU_ASSERT_EQUAL(kbd_resets, 2);
	CU_ASSERT_EQUAL(k.nr_resets, 2);
	i8042_exit(&k);
}

static time_t fixed_now(void)
{
	return 1796290507;	/* 2026-12-03 09:35:07 UTC, a Thursday */
}

static uint8_t cmos(struct rtc *r, uint8_t reg)
{
	uint8_t v = reg;

	rtc_access(r, 0x70, &v, true);
	rtc_access(r, 0x71, &v, false);
	return v;
}

static void test_rtc(void)
{
	struct rtc r;
	uint8_t v;

	rtc_setup(&r, fixed_now);
	CU_ASSERT_EQUAL(cmos(&r, 0x00), 0x07);
	CU_ASSERT_EQUAL(cmos(&r, 0x02), 0x35);
	CU_ASSERT_EQUAL(cmos(&r, 0x04), 0x09);
	CU_ASSERT_EQUAL(cmos(&r, 0x06), 0x05);
	CU_ASSERT_EQUAL(cmos(&r, 0x07), 0x03);
	CU_ASSERT_EQUAL(cmos(&r, 0x08), 0x12);
	CU_ASSERT_EQUAL(cmos(&r, 0x09), 0x26);
	CU_ASSERT_EQUAL(cmos(&r, 0x32), 0x20);
	CU_ASSERT_EQUAL(cmos(&r, 0x0a) & 0x80, 0);	/* no update in progress */
	CU_ASSERT_EQUAL(cmos(&r, 0x0d), 0x80);
	CU_ASSERT_EQUAL(cmos(&r, 0x80 | 0x00), 0x07);	/* bit 7 of the index is the NMI mask */

	/* Binary mode once the guest asks for it. */
	v = 0x0b;
	rtc_access(&r, 0x70, &v, true);
	v = 0x06;
	rtc_access(&r, 0x71, &v, true);
	CU_ASSERT_EQUAL(cmos(&r, 0x00), 7);
	CU_ASSERT_EQUAL(cmos(&r, 0x08), 12);

	/* Plain CMOS bytes keep what is written; the clock ignores writes. */
	v = 0x40;
	rtc_access(&r, 0x70, &v, true);
	v = 0x5a;
	rtc_access(&r, 0x71, &v, true);
	CU_ASSERT_EQUAL(cmos(&r, 0x40), 0x5a);
	v = 0x00;
	rtc_access(&r, 0x70, &v, true);
	v = 0x59;
	rtc_access(&r, 0x71, &v, true);
	CU_ASSERT_EQUAL(cmos(&r, 0x00), 7);
}

static void test_legacy_ports(void)
{
	uint8_t v;

	v = 0;
	CU_ASSERT_EQUAL(legacy_access(0x92, &v, false), LEGACY_NONE);
	CU_ASSERT_EQUAL(v, 0x02);			/* A20 on */
	v = 0x02;
	CU_ASSERT_EQUAL(legacy_access(0x92, &v, true), LEGACY_NONE);
	v = 0x03;
	CU_ASSERT_EQUAL(legacy_access(0x92, &v, true), LEGACY_RESET);
	v = 0x02;
	CU_ASSERT_EQUAL(legacy_access(0xcf9, &v, true), LEGACY_NONE);
	v = 0x06;
	CU_ASSERT_EQUAL(legacy_access(0xcf9, &v, true), LEGACY_RESET);
	v = 0x00;
	CU_ASSERT_EQUAL(legacy_access(LEGACY_POWEROFF_PORT, &v, true), LEGACY_POWEROFF);
	CU_ASSERT_EQUAL(legacy_access(LEGACY_POWEROFF_PORT, &v, false), LEGACY_NONE);
	/* ACPI sleep control: only SLP_EN with SLP_TYP 5 (S5) is power-off. */
	v = (5 << 2) | 0x20;
	CU_ASSERT_EQUAL(legacy_access(0x504, &v, true), LEGACY_POWEROFF);
	v = 5 << 2;
	CU_ASSERT_EQUAL(legacy_access(0x504, &v, true), LEGACY_NONE);
	v = (3 << 2) | 0x20;
	CU_ASSERT_EQUAL(legacy_access(0x504, &v, true), LEGACY_NONE);
	v = 0x80;
	CU_ASSERT_EQUAL(legacy_access(0x505, &v, true), LEGACY_NONE);
	CU_ASSERT_EQUAL(legacy_access(0x505, &v, false), LEGACY_NONE);
	CU_ASSERT_EQUAL(v, 0);
	v = 0x12;
	CU_ASSERT_EQUAL(legacy_access(0x80, &v, true), LEGACY_NONE);
	v = 0;
	CU_ASSERT_EQUAL(legacy_access(0x2fd, &v, false), LEGACY_NONE);
	CU_ASSERT_EQUAL(v, 0xff);			/* absent COM2 */
	v = 0;
	CU_ASSERT_EQUAL(legacy_access(0xcfc, &v, false), LEGACY_NONE);
	CU_ASSERT_EQUAL(v, 0xff);			/* no PCI host bridge */
}

static CU_TestInfo pc_devices_tests[] = {
	{ "8250 transmit and THRE interrupt", test_serial_transmit_and_thre_irq },
	{ "8250 receive FIFO and RDI", test_serial_receive },
	{ "8250 divisor latch, scratch, loopback", test_serial_probe_registers },
	{ "8250 output blocked on the console ends with the VM", test_serial_stop_ends_blocked_write },
	{ "i8042 self test, control byte, reset line", test_i8042 },
	{ "CMOS RTC clock and RAM", test_rtc },
	{ "legacy ports: A20, resets, power-off", test_legacy_ports },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("pc_devices", pc_devices_tests);
