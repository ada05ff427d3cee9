/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Intel MultiProcessor Specification 1.4 tables: how a kernel without ACPI (CONFIG_X86_MPPARSE)
 * learns the CPUs (APIC IDs), the IOAPIC and how ISA IRQs reach it.
 */
#ifndef VSCHED_VMM_LINUX_MPTABLE_H
#define VSCHED_VMM_LINUX_MPTABLE_H

#include <stddef.h>
#include <stdint.h>

#define MP_MAX_CPUS 254			/* xAPIC IDs 0..253, the IOAPIC takes the next one */
#define MP_LAPIC_ADDR 0xfee00000U
#define MP_IOAPIC_ADDR 0xfec00000U
#define MP_IOAPIC_PINS 24
#define MP_ISA_IRQS 16

struct mpf_intel {
	char signature[4];		/* "_MP_" */
	uint32_t physptr;
	uint8_t length;			/* in 16-byte units: 1 */
	uint8_t specification;		/* 4 = MP 1.4 */
	uint8_t checksum;
	uint8_t feature1;		/* 0: a config table follows, no default config */
	uint8_t feature2;
	uint8_t feature3, feature4, feature5;
} __attribute__((packed));

struct mpc_table {
	char signature[4];		/* "PCMP" */
	uint16_t length;
	uint8_t spec;
	uint8_t checksum;
	char oem[8];
	char productid[12];
	uint32_t oemptr;
	uint16_t oemsize;
	uint16_t oemcount;
	uint32_t lapic;
	uint16_t ext_length;
	uint8_t ext_checksum;
	uint8_t reserved;
} __attribute__((packed));

enum { MP_PROCESSOR, MP_BUS, MP_IOAPIC, MP_INTSRC, MP_LINTSRC };
enum { MP_INT, MP_NMI, MP_SMI, MP_EXTINT };

#define CPU_ENABLED 1
#define CPU_BOOTPROCESSOR 2

struct mpc_cpu {
	uint8_t type;
	uint8_t apicid;
	uint8_t apicver;
	uint8_t cpuflag;
	uint32_t cpufeature;		/* CPUID 1 EAX: family, model, stepping */
	uint32_t featureflag;		/* CPUID 1 EDX */
	uint32_t reserved[2];
} __attribute__((packed));

struct mpc_bus {
	uint8_t type;
	uint8_t busid;
	char bustype[6];
} __attribute__((packed));

struct mpc_ioapic {
	uint8_t type;
	uint8_t apicid;
	uint8_t apicver;
	uint8_t flags;
	uint32_t apicaddr;
} __attribute__((packed));

struct mpc_intsrc {
	uint8_t type;
	uint8_t irqtype;
	uint16_t irqflag;		/* 0: polarity and trigger conform to the bus */
	uint8_t srcbus;
	uint8_t srcbusirq;
	uint8_t dstapic;
	uint8_t dstirq;
} __attribute__((packed));

_Static_assert(sizeof(struct mpf_intel) == 16, "MP floating pointer");
_Static_assert(sizeof(struct mpc_table) == 44, "MP config header");
_Static_assert(sizeof(struct mpc_cpu) == 20, "MP processor entry");

/* Bytes mptable_write() needs for nr_cpus processors. */
size_t mptable_size(unsigned int nr_cpus);

/*
 * Writes the floating pointer at buf (guest-physical gpa) with the config table right after
 * it: one processor per vCPU (APIC ID = index, vCPU 0 the BSP), an ISA bus, one IOAPIC (ID
 * nr_cpus), ISA IRQ n -> IOAPIC pin n as KVM's default GSI routing does, LINT0 ExtINT and LINT1
 * NMI. Returns the bytes written, -EINVAL for 0 or too many CPUs, -ENOSPC if len is short.
 */
int mptable_write(void *buf, size_t len, uint32_t gpa, unsigned int nr_cpus, uint32_t cpu_signature,
		  uint32_t cpu_features);

/* Byte sum (mod 256) of [p, p + len): 0 for a table with a correct checksum. */
uint8_t mp_checksum(const void *p, size_t len);

#endif
