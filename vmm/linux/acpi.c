// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware-reduced ACPI (ACPI 6.0 FADT with HW_REDUCED_ACPI): no PM1 blocks, no GPEs, no
 * FACS; the OS sleeps by writing the sleep control register, which the VMM traps.
 */
#include <errno.h>
#include <string.h>

#include "vmm/linux/acpi.h"
#include "vmm/linux/mptable.h"

#define FADT_SIZE 276
#define FADT_F_WBINVD (1U << 0)
#define FADT_F_RESET_REG_SUP (1U << 10)
#define FADT_F_HW_REDUCED (1U << 20)
#define BOOT_ARCH_LEGACY_DEVICES (1U << 0)
#define BOOT_ARCH_8042 (1U << 1)
#define BOOT_ARCH_NO_VGA (1U << 2)
#define GAS_SYSTEM_IO 1
#define GAS_ACCESS_BYTE 1

enum { MADT_LAPIC = 0, MADT_IOAPIC = 1, MADT_LAPIC_NMI = 4 };
#define MADT_PCAT_COMPAT 1

/* \_S5_: Name (_S5_, Package (2) { 5, 5 }) in AML. */
static const uint8_t dsdt_aml[] = {
	0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x02, 0x0a, ACPI_S5_TYP, 0x0a, ACPI_S5_TYP,
};

uint8_t acpi_checksum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint8_t sum = 0;

	while (len--)
		sum += *b++;
	return sum;
}

static size_t madt_size(unsigned int nr_cpus)
{
	return sizeof(struct acpi_sdt_hdr) + 8 + nr_cpus * 8 + 12 + 6;
}

/* Table offsets from the RSDP, each 16-byte aligned. */
#define XSDT_OFF 0x40
#define FADT_OFF 0x80
#define DSDT_OFF (FADT_OFF + 0x120)
#define MADT_OFF (DSDT_OFF + 0x40)

size_t acpi_tables_size(unsigned int nr_cpus)
{
	return MADT_OFF + madt_size(nr_cpus);
}

static void sdt_init(struct acpi_sdt_hdr *h, const char *sig, uint32_t len, uint8_t rev)
{
	memcpy(h->signature, sig, 4);
	h->length = len;
	h->revision = rev;
	memcpy(h->oem_id, "VSCHED", 6);
	memcpy(h->oem_table_id, "VSCHEDVM", 8);
	h->oem_revision = 1;
	memcpy(h->creator_id, "VSCH", 4);
	h->creator_revision = 1;
}

static void sdt_sum(struct acpi_sdt_hdr *h)
{
	h->checksum = 0;
	h->checksum = -acpi_checksum(h, h->length);
}

static void put8(uint8_t *t, unsigned int off, uint8_t v)
{
	t[off] = v;
}

static void put16(uint8_t *t, unsigned int off, uint16_t v)
{
	memcpy(t + off, &v, 2);
}

static void put32(uint8_t *t, unsigned int off, uint32_t v)
{
	memcpy(t + off, &v, 4);
}

static void put64(uint8_t *t, unsigned int off, uint64_t v)
{
	memcpy(t + off, &v, 8);
}

/* A Generic Address Structure for one byte-wide I/O port. */
static void put_gas_io(uint8_t *t, unsigned int off, uint16_t port)
{
	put8(t, off, GAS_SYSTEM_IO);
	put8(t, off + 1, 8);
	put8(t, off + 2, 0);
	put8(t, off + 3, GAS_ACCESS_BYTE);
	put64(t, off + 4, port);
}

static void fadt_write(uint8_t *t, uint32_t dsdt)
{
	sdt_init((struct acpi_sdt_hdr *)t, "FACP", FADT_SIZE, 6);
	put32(t, 40, dsdt);
	put16(t, 46, ACPI_SCI_IRQ);
	put16(t, 109, BOOT_ARCH_LEGACY_DEVICES | BOOT_ARCH_8042 | BOOT_ARCH_NO_VGA);
	put32(t, 112, FADT_F_WBINVD | FADT_F_RESET_REG_SUP | FADT_F_HW_REDUCED);
	put_gas_io(t, 116, 0xcf9);	/* RESET_REG: the reset control register */
	put8(t, 128, 0x06);		/* RESET_VALUE: full CPU reset */
	put8(t, 131, 0);		/* FADT minor version: 6.0 */
	put64(t, 140, dsdt);		/* X_DSDT */
	put_gas_io(t, 244, ACPI_SLEEP_CTL_PORT);
	put_gas_io(t, 256, ACPI_SLEEP_STS_PORT);
	memcpy(t + 268, "VSCHEDVM", 8);	/* hypervisor vendor identity */
	sdt_sum((struct acpi_sdt_hdr *)t);
}

static void madt_write(uint8_t *t, unsigned int nr_cpus)
{
	uint32_t len = madt_size(nr_cpus);
	unsigned int i, off = sizeof(struct acpi_sdt_hdr);

	sdt_init((struct acpi_sdt_hdr *)t, "APIC", len, 3);
	put32(t, off, MP_LAPIC_ADDR);
	put32(t, off + 4, MADT_PCAT_COMPAT);	/* 8259s present: the kernel masks them */
	off += 8;
	for (i = 0; i < nr_cpus; i++, off += 8) {
		put8(t, off, MADT_LAPIC);
		put8(t, off + 1, 8);
		put8(t, off + 2, i);		/* ACPI processor UID */
		put8(t, off + 3, i);		/* APIC ID, as CPUID reports it */
		put32(t, off + 4, 1);		/* enabled */
	}
	put8(t, off, MADT_IOAPIC);
	put8(t, off + 1, 12);
	put8(t, off + 2, nr_cpus);		/* IOAPIC ID, after the CPUs' */
	put32(t, off + 4, MP_IOAPIC_ADDR);
	put32(t, off + 8, 0);			/* GSI base: ISA IRQ n = GSI n = pin n */
	off += 12;
	put8(t, off, MADT_LAPIC_NMI);
	put8(t, off + 1, 6);
	put8(t, off + 2, 0xff);			/* all processors */
	put16(t, off + 3, 0);
	put8(t, off + 5, 1);			/* LINT1 */
	sdt_sum((struct acpi_sdt_hdr *)t);
}

int acpi_tables_write(void *buf, size_t len, uint32_t gpa, unsigned int nr_cpus)
{
	uint8_t *b = buf;
	struct acpi_rsdp *rsdp = buf;
	struct acpi_sdt_hdr *xsdt = (struct acpi_sdt_hdr *)(b + XSDT_OFF);
	struct acpi_sdt_hdr *dsdt = (struct acpi_sdt_hdr *)(b + DSDT_OFF);
	size_t size = acpi_tables_size(nr_cpus);

	if (!nr_cpus || nr_cpus > MP_MAX_CPUS)
		return -EINVAL;
	if (len < size)
		return -ENOSPC;
	memset(buf, 0, size);

	sdt_init(dsdt, "DSDT", sizeof(*dsdt) + sizeof(dsdt_aml), 2);
	memcpy(dsdt + 1, dsdt_aml, sizeof(dsdt_aml));
	sdt_sum(dsdt);
	fadt_write(b + FADT_OFF, gpa + DSDT_OFF);
	madt_write(b + MADT_OFF, nr_cpus);

	sdt_init(xsdt, "XSDT", sizeof(*xsdt) + 2 * 8, 1);
	put64(b, XSDT_OFF + sizeof(*xsdt), gpa + FADT_OFF);
	put64(b, XSDT_OFF + sizeof(*xsdt) + 8, gpa + MADT_OFF);
	sdt_sum(xsdt);

	memcpy(rsdp->signature, "RSD PTR ", 8);
	memcpy(rsdp->oem_id, "VSCHED", 6);
	rsdp->revision = 2;
	rsdp->length = sizeof(*rsdp);
	rsdp->xsdt_address = gpa + XSDT_OFF;
	rsdp->checksum = -acpi_checksum(rsdp, 20);
	rsdp->ext_checksum = -acpi_checksum(rsdp, sizeof(*rsdp));
	return (int)size;
}
