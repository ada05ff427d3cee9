/* SPDX-License-Identifier: GPL-2.0 */
/*
 * MC146818 CMOS RTC at 0x70/0x71, read-only clock: the time registers give the host's UTC
 * time in BCD, 24-hour mode, so rtc_cmos and the early wall clock read something sane.
 */
#ifndef VSCHED_VMM_RTC_H
#define VSCHED_VMM_RTC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

struct vm;

#define RTC_INDEX_PORT 0x70
#define RTC_DATA_PORT 0x71
#define RTC_NR_REGS 128

struct rtc {
	uint8_t index;
	uint8_t cmos[RTC_NR_REGS];	/* non-clock bytes the guest wrote */
	time_t (*now)(void);		/* time source, replaced in tests */
};

void rtc_setup(struct rtc *r, time_t (*now)(void));
void rtc_access(struct rtc *r, uint16_t port, uint8_t *data, bool is_write);
int rtc_init(struct rtc *r, struct vm *vm);

#endif
