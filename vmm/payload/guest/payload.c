// SPDX-License-Identifier: GPL-2.0
/*
 * Payload guests, freestanding, at CPL3 in 64-bit mode. payload_main() runs the kind the
 * VMM wrote into this vCPU's work page and counts work units there.
 */
#include "vmm/payload_abi.h"
#include "work.h"

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port) : "memory");
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;

	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;

	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port) : "memory");
	return v;
}

static void busy_for(struct payload_page *p, uint64_t us)
{
	uint64_t end = rdtsc() + us * p->tsc_khz / 1000;

	do
		work_unit(p);
	while (rdtsc() < end);
}

static void halt_for(struct payload_page *p, uint64_t us)
{
	uint64_t ticks = us * p->lapic_khz / 1000;

	if (ticks > 0xffffffffULL)
		ticks = 0xffffffffULL;
	if (!ticks)
		ticks = 1;
	/* ud2 is the gate to the CPL0 halt stub (see entry.S); it resumes after the ud2. */
	__asm__ volatile("ud2" : : "D"(ticks) : "rax", "memory");
}

static void probe_once(struct payload_page *p)
{
	volatile uint32_t *mmio = (volatile uint32_t *)PAYLOAD_MMIO_PROBE;
	uint32_t l = inl(PAYLOAD_PORT_PROBE), m;
	uint8_t b = inb(PAYLOAD_PORT_PROBE);

	outb(PAYLOAD_PORT_PROBE, 0x5a);
	m = *mmio;
	*mmio = 0x12345678;
	if (l != 0xffffffffU || b != 0xff || m != 0xffffffffU)
		p->errors = p->errors + 1;
	work_unit(p);
}

/* As Linux's kvm_steal_clock(): an odd or changed version means a write was under way. */
static uint64_t steal_read(uint64_t gpa)
{
	volatile uint32_t *version = (volatile uint32_t *)(gpa + 8);
	volatile uint64_t *steal = (volatile uint64_t *)gpa;
	uint32_t v;
	uint64_t t;

	do {
		v = *version;
		__asm__ volatile("" ::: "memory");
		t = *steal;
		__asm__ volatile("" ::: "memory");
	} while ((v & 1) || v != *version);
	return t;
}

static void steal_once(struct payload_page *p)
{
	volatile uint8_t *peer = (volatile uint8_t *)(p->peer_steal_gpa +
						       PAYLOAD_STEAL_PREEMPTED_OFFSET);

	work_unit(p);
	if (p->steal_gpa)
		p->steal_seen = steal_read(p->steal_gpa);
	if (p->peer_steal_gpa && (*peer & 1))
		p->peer_preempted = p->peer_preempted + 1;
}

int payload_main(struct payload_page *p)
{
	uint64_t n;

	for (;;) {
		switch (p->kind) {
		case PAYLOAD_HOG:
			work_unit(p);
			break;
		case PAYLOAD_DUTY:
			busy_for(p, p->arg[0]);
			outl(PAYLOAD_PORT_SLEEP, (uint32_t)p->arg[1]);
			break;
		case PAYLOAD_HALT_DUTY:
			busy_for(p, p->arg[0]);
			halt_for(p, p->arg[1]);
			break;
		case PAYLOAD_IO:
			for (n = 0; n < p->arg[0]; n++)
				work_unit(p);
			outl(PAYLOAD_PORT_IO, (uint32_t)p->units);
			break;
		case PAYLOAD_PROBE:
			probe_once(p);
			break;
		case PAYLOAD_STEAL:
			steal_once(p);
			break;
		case PAYLOAD_FAULT:
			*(volatile uint64_t *)0x8000000000ULL = p->units;
			return 1;
		case PAYLOAD_EMUFAIL:
			/* The MMIO read traps to KVM, whose instruction emulator has no addps. */
			__asm__ volatile("addps (%0), %%xmm0" : : "r"(PAYLOAD_MMIO_PROBE) : "memory");
			return 1;
		case PAYLOAD_COUNT:
			while (p->units < p->arg[0])
				work_unit(p);
			return 0;
		default:
			return 2;
		}
	}
}
