// SPDX-License-Identifier: GPL-2.0
/* The Linux path's devices without a VM: 8250 UART, i8042, CMOS RTC, legacy ports. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "vmm/i8042.h"
#include "vmm/legacy.h"
#include "vmm/rtc.h"
#include "vmm/serial.h"

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
	serial_exit(&s);
	close(p[0]);
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
	{ "i8042 self test, control byte, reset line", test_i8042 },
	{ "CMOS RTC clock and RAM", test_rtc },
	{ "legacy ports: A20, resets, power-off", test_legacy_ports },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("pc_devices", pc_devices_tests);
