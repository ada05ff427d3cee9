/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The contract between the VMM and the built-in payload guests (vmm/payload/guest/): the
 * image header, the paravirtual ports and the per-vCPU work page. Freestanding: the guest
 * includes it too, so only <stdint.h> types here.
 */
#ifndef VSCHED_VMM_PAYLOAD_ABI_H
#define VSCHED_VMM_PAYLOAD_ABI_H

#ifndef __ASSEMBLER__
#include <stdint.h>
#endif

#define PAYLOAD_LOAD_ADDR 0x10000	/* the image runs where it is linked */
#define PAYLOAD_MAX_SIZE 0x10000
#define PAYLOAD_MAGIC 0x64616f6c79617076ULL	/* "vpayload" */
#define PAYLOAD_PAGE_MAGIC 0x6567617079617076ULL	/* "vpaypage" */

/* Ports (CPL3 reaches them through IOPL 3). All are 32-bit writes unless said otherwise. */
#define PAYLOAD_PORT_HELLO 0x510	/* the guest's first instruction: entry time stamp */
#define PAYLOAD_PORT_SLEEP 0x511	/* value: microseconds; the vCPU thread blocks (idle) */
#define PAYLOAD_PORT_IO 0x512		/* value ignored: the io kind's exit */
#define PAYLOAD_PORT_EXIT 0x513		/* value: status; this vCPU is done, the VM powers off
					 * once every vCPU is */
#define PAYLOAD_PORT_PROBE 0x5f0	/* nobody serves it: reads must give all-ones */
#define PAYLOAD_MMIO_PROBE 0xd0000000ULL	/* not RAM, no device: reads give all-ones */

/* The in-kernel LAPIC, identity mapped; the VMM enables it and programs the LVT timer. */
#define PAYLOAD_LAPIC_BASE 0xfee00000ULL
#define PAYLOAD_LAPIC_EOI 0xb0
#define PAYLOAD_LAPIC_TMICT 0x380	/* timer initial count: writing it arms the one-shot */
#define PAYLOAD_VEC_TIMER 0x40
#define PAYLOAD_VEC_HALT 6		/* #UD: ud2 from CPL3 with rdi = LAPIC ticks to halt for */

#ifndef __ASSEMBLER__
enum payload_kind {
	PAYLOAD_HOG = 1,	/* work units forever */
	PAYLOAD_DUTY,		/* arg0 us busy (rdtsc), arg1 us asleep through PAYLOAD_PORT_SLEEP */
	PAYLOAD_HALT_DUTY,	/* arg0 us busy, arg1 us in HLT woken by the LAPIC timer */
	PAYLOAD_IO,		/* a PAYLOAD_PORT_IO exit every arg0 units */
	PAYLOAD_PROBE,		/* unserved port and MMIO accesses; errors counts wrong values */
	PAYLOAD_FAULT,		/* touches unmapped memory with no IDT entry: triple fault */
	PAYLOAD_COUNT,		/* arg0 units, then done (PAYLOAD_PORT_EXIT, status 0) */
	PAYLOAD_EMUFAIL,	/* an SSE add from MMIO, which KVM's emulator cannot do */
	PAYLOAD_STEAL,		/* a hog that reads its steal time and the next vCPU's
				 * preempted flag, as a guest kernel's scheduler and spinlocks do */
};

/* The KVM steal-time area (struct kvm_steal_time, MSR_KVM_STEAL_TIME) of each vCPU sits in its
 * work page at this offset; the VMM enables it as a guest kernel would at boot. */
#define PAYLOAD_STEAL_OFFSET 0x800
#define PAYLOAD_STEAL_PREEMPTED_OFFSET 16	/* the u8 flag; steal (u64) at 0, version (u32) at 8 */

/* At PAYLOAD_LOAD_ADDR: where the VMM finds the entry points. */
struct payload_header {
	uint64_t magic;
	uint64_t user_entry;	/* CPL3: rdi = this vCPU's struct payload_page, rsp = stack */
	uint64_t isr_halt;	/* CPL0 interrupt gate for PAYLOAD_VEC_HALT (#UD) */
	uint64_t isr_timer;	/* CPL0 interrupt gate for PAYLOAD_VEC_TIMER */
};

/* One page per vCPU. The VMM fills the inputs before the first entry; the guest writes
 * units/errors, and the VMM reads them while the guest runs. */
struct payload_page {
	uint64_t magic;
	uint32_t vcpu_id;
	uint32_t kind;		/* enum payload_kind */
	uint64_t arg[2];
	uint64_t tsc_khz;	/* guest TSC ticks per millisecond */
	uint64_t lapic_khz;	/* LAPIC timer ticks per millisecond (divide by 1) */
	volatile uint64_t units;	/* work units done */
	volatile uint64_t errors;	/* probe: accesses that did not read all-ones */
	volatile uint64_t sink;	/* keeps the work loop's result alive */
	uint64_t steal_gpa;	/* this vCPU's steal-time area, 0: none */
	uint64_t peer_steal_gpa;	/* the next vCPU's (id + 1 mod count), 0: none */
	volatile uint64_t steal_seen;	/* steal: the steal time it last read, ns */
	volatile uint64_t peer_preempted;	/* steal: units done while the peer was flagged */
};

#endif /* __ASSEMBLER__ */

/* Iterations of the work loop in one unit (a dependent xorshift chain, ~1 us here). */
#define PAYLOAD_UNIT_ITERS 256

#endif
