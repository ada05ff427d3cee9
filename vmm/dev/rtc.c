// SPDX-License-Identifier: GPL-2.0
/* CMOS RTC: the clock registers follow the host clock; the rest is plain CMOS bytes. */
#include <string.h>

#include "util/compiler.h"
#include "vmm/rtc.h"
#include "vmm/vm.h"

enum {
	RTC_SECONDS = 0x00,
	RTC_MINUTES = 0x02,
	RTC_HOURS = 0x04,
	RTC_DAY_OF_WEEK = 0x06,
	RTC_DAY_OF_MONTH = 0x07,
	RTC_MONTH = 0x08,
	RTC_YEAR = 0x09,
	RTC_REG_A = 0x0a,
	RTC_REG_B = 0x0b,
	RTC_REG_C = 0x0c,
	RTC_REG_D = 0x0d,
	RTC_CENTURY = 0x32,
};

#define REG_B_24H 0x02
#define REG_D_VRT 0x80		/* valid RAM and time: the battery is fine */

#define REG_B_BINARY 0x04

static uint8_t rtc_enc(struct rtc *r, unsigned int v)
{
	if (r->cmos[RTC_REG_B] & REG_B_BINARY)
		return v;
	return ((v / 10) << 4) | (v % 10);
}

void rtc_setup(struct rtc *r, time_t (*now)(void))
{
	memset(r, 0, sizeof(*r));
	r->now = now;
	r->cmos[RTC_REG_A] = 0x26;	/* 32.768 kHz base, 1024 Hz rate, no update in progress */
	r->cmos[RTC_REG_B] = REG_B_24H;
	r->cmos[RTC_REG_D] = REG_D_VRT;
}

static uint8_t rtc_read(struct rtc *r, unsigned int reg)
{
	time_t t = r->now();
	struct tm tm;

	if (reg > RTC_YEAR && reg != RTC_CENTURY)
		return reg == RTC_REG_C ? 0 : r->cmos[reg];
	gmtime_r(&t, &tm);
	switch (reg) {
	case RTC_SECONDS:
		return rtc_enc(r, tm.tm_sec);
	case RTC_MINUTES:
		return rtc_enc(r, tm.tm_min);
	case RTC_HOURS:
		return rtc_enc(r, tm.tm_hour);
	case RTC_DAY_OF_WEEK:
		return rtc_enc(r, tm.tm_wday + 1);
	case RTC_DAY_OF_MONTH:
		return rtc_enc(r, tm.tm_mday);
	case RTC_MONTH:
		return rtc_enc(r, tm.tm_mon + 1);
	case RTC_YEAR:
		return rtc_enc(r, tm.tm_year % 100);
	case RTC_CENTURY:
		return rtc_enc(r, (tm.tm_year + 1900) / 100);
	default:
		return 0;	/* alarm registers: no alarm set */
	}
}

void rtc_access(struct rtc *r, uint16_t port, uint8_t *data, bool is_write)
{
	unsigned int reg = r->index;

	if (port == RTC_INDEX_PORT) {
		if (is_write)
			r->index = *data & 0x7f;	/* bit 7 is the NMI mask */
		else
			*data = 0xff;
		return;
	}
	if (!is_write) {
		*data = rtc_read(r, reg);
		return;
	}
	/* The clock is the host's: writes to time, C and D are dropped, the rest is CMOS RAM. */
	if (reg > RTC_REG_D || reg == RTC_REG_A || reg == RTC_REG_B)
		r->cmos[reg] = *data;
}

static int rtc_pio(struct vcpu *vcpu __unused, uint16_t port, void *data, unsigned int size,
		   bool is_write, void *opaque)
{
	uint8_t *p = data;
	unsigned int i;

	for (i = 0; i < size; i++)
		rtc_access(opaque, port, &p[i], is_write);
	return 0;
}

static time_t rtc_host_now(void)
{
	return time(NULL);
}

int rtc_init(struct rtc *r, struct vm *vm)
{
	rtc_setup(r, rtc_host_now);
	return vm_pio_register(vm, RTC_INDEX_PORT, 2, rtc_pio, r);
}
