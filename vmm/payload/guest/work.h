/* SPDX-License-Identifier: GPL-2.0 */
/* One work unit, shared by the payload guest and the native bench (bench/vmm_native.c). */
#ifndef VSCHED_PAYLOAD_WORK_H
#define VSCHED_PAYLOAD_WORK_H

#include "vmm/payload_abi.h"

/* A dependent xorshift chain the compiler cannot fold, then a visible count. */
static inline void work_unit(struct payload_page *p)
{
	uint64_t x = p->sink | 1;
	int i;

	for (i = 0; i < PAYLOAD_UNIT_ITERS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		__asm__ volatile("" : "+r"(x));
	}
	p->sink = x;
	p->units = p->units + 1;
}

#endif
