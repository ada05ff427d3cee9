/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal hardware-reduced ACPI tables: RSDP, XSDT, FADT (HW_REDUCED_ACPI, a sleep control
 * register for S5 power-off, the 0xcf9 reset register), a DSDT holding only \_S5_, and a MADT
 * listing every vCPU's LAPIC and the IOAPIC. This is how kernels without CONFIG_X86_MPPARSE
 * (Debian's cloud kernel) find the secondary CPUs, and how `poweroff` reaches the VMM.
 */
#ifndef VSCHED_VMM_LINUX_ACPI_H
#define VSCHED_VMM_LINUX_ACPI_H

#include <stddef.h>
#include <stdint.h>

/* Sleep control register: a write with SLP_EN and SLP_TYP = ACPI_S5_TYP powers off. */
#define ACPI_SLEEP_CTL_PORT 0x504
#define ACPI_SLEEP_STS_PORT 0x505
#define ACPI_SLP_EN 0x20
#define ACPI_SLP_TYP_SHIFT 2
#define ACPI_SLP_TYP_MASK 0x1c
#define ACPI_S5_TYP 5
#define ACPI_SCI_IRQ 9

struct acpi_sdt_hdr {
	char signature[4];
	uint32_t length;
	uint8_t revision;
	uint8_t checksum;
	char oem_id[6];
	char oem_table_id[8];
	uint32_t oem_revision;
	char creator_id[4];
	uint32_t creator_revision;
} __attribute__((packed));

struct acpi_rsdp {
	char signature[8];		/* "RSD PTR " */
	uint8_t checksum;		/* first 20 bytes */
	char oem_id[6];
	uint8_t revision;		/* 2: XSDT */
	uint32_t rsdt_address;
	uint32_t length;
	uint64_t xsdt_address;
	uint8_t ext_checksum;		/* all 36 bytes */
	uint8_t reserved[3];
} __attribute__((packed));

_Static_assert(sizeof(struct acpi_sdt_hdr) == 36, "ACPI table header");
_Static_assert(sizeof(struct acpi_rsdp) == 36, "RSDP");

/* Bytes acpi_tables_write() needs for nr_cpus. */
size_t acpi_tables_size(unsigned int nr_cpus);

/*
 * Writes all tables into buf, which the guest sees at gpa (16-byte aligned, inside the BIOS
 * area 0xe0000-0xfffff where the kernel scans for the RSDP). The RSDP is at gpa.
 * Returns the bytes written, -EINVAL for 0 or more than 254 CPUs, -ENOSPC if len is short.
 */
int acpi_tables_write(void *buf, size_t len, uint32_t gpa, unsigned int nr_cpus);

/* Byte sum (mod 256): 0 over a table with a correct checksum. */
uint8_t acpi_checksum(const void *p, size_t len);

#endif
