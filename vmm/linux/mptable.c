// SPDX-License-Identifier: GPL-2.0
/*
 * MP table (MP spec 1.4): a floating pointer the kernel finds by scanning 0xf0000-0xfffff,
 * pointing at a config table listing processors, the ISA bus, the IOAPIC and interrupt routing.
 */
#include <errno.h>
#include <string.h>

#include "vmm/linux/mptable.h"

#define APIC_VERSION 0x14	/* integrated xAPIC */
#define IOAPIC_VERSION 0x11

uint8_t mp_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

size_t mptable_size(unsigned int nr_cpus)
{
	return sizeof(struct mpf_intel) + sizeof(struct mpc_table) +
	       nr_cpus * sizeof(struct mpc_cpu) + sizeof(struct mpc_bus) +
	       sizeof(struct mpc_ioapic) + (MP_ISA_IRQS + 2) * sizeof(struct mpc_intsrc);
}

static void mp_intsrc(struct mpc_intsrc *e, uint8_t type, uint8_t irqtype, uint8_t bus,
		      uint8_t busirq, uint8_t dstapic, uint8_t dstirq)
{
	e->type = type;
	e->irqtype = irqtype;
	e->irqflag = 0;
	e->srcbus = bus;
	e->srcbusirq = busirq;
	e->dstapic = dstapic;
	e->dstirq = dstirq;
}

int mptable_write(void *buf, size_t len, uint32_t gpa, unsigned int nr_cpus, uint32_t cpu_signature,
		  uint32_t cpu_features)
{
	const uint8_t bus_isa = 0, ioapic_id = nr_cpus;
	size_t size = mptable_size(nr_cpus);
	struct mpf_intel *mpf = buf;
	struct mpc_table *mpc = (struct mpc_table *)(mpf + 1);
	uint8_t *p = (uint8_t *)(mpc + 1);
	struct mpc_ioapic *ioapic;
	struct mpc_bus *bus;
	unsigned int i;

	if (!nr_cpus || nr_cpus > MP_MAX_CPUS)
		return -EINVAL;
	if (len < size)
		return -ENOSPC;
	memset(buf, 0, size);

	for (i = 0; i < nr_cpus; i++, p += sizeof(struct mpc_cpu)) {
		struct mpc_cpu *cpu = (struct mpc_cpu *)p;

		cpu->type = MP_PROCESSOR;
		cpu->apicid = i;
		cpu->apicver = APIC_VERSION;
		cpu->cpuflag = CPU_ENABLED | (i == 0 ? CPU_BOOTPROCESSOR : 0);
		cpu->cpufeature = cpu_signature;
		cpu->featureflag = cpu_features;
	}
	bus = (struct mpc_bus *)p;
	bus->type = MP_BUS;
	bus->busid = bus_isa;
	memcpy(bus->bustype, "ISA   ", 6);
	p += sizeof(*bus);

	ioapic = (struct mpc_ioapic *)p;
	ioapic->type = MP_IOAPIC;
	ioapic->apicid = ioapic_id;
	ioapic->apicver = IOAPIC_VERSION;
	ioapic->flags = 1;	/* enabled */
	ioapic->apicaddr = MP_IOAPIC_ADDR;
	p += sizeof(*ioapic);

	/* KVM's default routing sends GSI n to IOAPIC pin n (and to the PICs for n < 16). */
	for (i = 0; i < MP_ISA_IRQS; i++, p += sizeof(struct mpc_intsrc))
		mp_intsrc((struct mpc_intsrc *)p, MP_INTSRC, MP_INT, bus_isa, i, ioapic_id, i);
	/* Through-local interrupts: the PIC on LINT0 of every CPU, NMI on LINT1. */
	mp_intsrc((struct mpc_intsrc *)p, MP_LINTSRC, MP_EXTINT, bus_isa, 0, 0xff, 0);
	p += sizeof(struct mpc_intsrc);
	mp_intsrc((struct mpc_intsrc *)p, MP_LINTSRC, MP_NMI, bus_isa, 0, 0xff, 1);
	p += sizeof(struct mpc_intsrc);

	memcpy(mpc->signature, "PCMP", 4);
	mpc->length = p - (uint8_t *)mpc;
	mpc->spec = 4;
	memcpy(mpc->oem, "VSCHED  ", 8);
	memcpy(mpc->productid, "KVM VM      ", 12);
	mpc->lapic = MP_LAPIC_ADDR;
	mpc->checksum = -mp_checksum(mpc, mpc->length);

	memcpy(mpf->signature, "_MP_", 4);
	mpf->physptr = gpa + sizeof(*mpf);
	mpf->length = 1;
	mpf->specification = 4;
	mpf->checksum = -mp_checksum(mpf, sizeof(*mpf));
	return (int)size;
}
