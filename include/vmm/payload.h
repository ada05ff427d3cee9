/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Built-in payload guests: each vCPU starts in 64-bit long mode at CPL3 (IOPL 3, identity
 * page tables) and runs one kind of work, counting units in its work page. The guest side
 * and the ABI are in include/vmm/payload_abi.h; docs/vmm.md has the layout.
 */
#ifndef VSCHED_VMM_PAYLOAD_H
#define VSCHED_VMM_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/cpuset.h"
#include "vmm/payload_abi.h"
#include "vmm/vm.h"

/* Guest-physical layout of a payload VM. */
#define PAYLOAD_GDT 0x1000
#define PAYLOAD_IDT 0x2000
#define PAYLOAD_TSS 0x3000		/* PAYLOAD_TSS_STRIDE bytes per vCPU */
#define PAYLOAD_TSS_STRIDE 128
#define PAYLOAD_IOBITMAP 0x7000	/* 8 KiB of zeros + 0xff: every port open at CPL3 */
#define PAYLOAD_IOBITMAP_SIZE (8192 + 1)
#define PAYLOAD_PML4 0xa000
#define PAYLOAD_PDPT 0xb000
#define PAYLOAD_PD 0xc000		/* four page directories: 0-4 GiB in 2 MiB pages */
#define PAYLOAD_VCPU_AREA 0x100000	/* PAYLOAD_VCPU_STRIDE bytes per vCPU: */
#define PAYLOAD_VCPU_STRIDE 0x4000	/*  work page, 8 KiB user stack, 4 KiB CPL0 stack */
#define PAYLOAD_MIN_MEM (PAYLOAD_VCPU_AREA + VM_MAX_VCPUS * PAYLOAD_VCPU_STRIDE)
#define PAYLOAD_DEFAULT_MEM (32ULL << 20)

/* Segment selectors in the GDT (user ones with RPL 3). */
#define PAYLOAD_SEL_KCODE 0x08
#define PAYLOAD_SEL_KDATA 0x10
#define PAYLOAD_SEL_UDATA 0x1b
#define PAYLOAD_SEL_UCODE 0x23
#define PAYLOAD_SEL_TSS(i) (0x28 + 16 * (i))

struct payload_spec {
	enum payload_kind kind;	/* 0: not assigned */
	uint64_t arg[2];
};

/* What the payload ports saw on one vCPU (vcpu->boot). */
struct payload_vcpu {
	uint64_t hello_ns;	/* CLOCK_MONOTONIC at the guest's first instruction, 0 before */
	uint64_t hello_realtime_ns;	/* the same moment in CLOCK_REALTIME */
	uint64_t io_exits;	/* PAYLOAD_PORT_IO writes */
	const struct payload_page *page;	/* this vCPU's work page in guest RAM */
};

/* vm->boot_data of a payload VM: one spec per vCPU in, port observations out. */
struct payload_opts {
	struct payload_spec spec[VM_MAX_VCPUS];
	struct payload_vcpu vcpu[VM_MAX_VCPUS];
	uint32_t exit_status;	/* the first nonzero value written to PAYLOAD_PORT_EXIT */
	unsigned int nr_done;	/* vCPUs that wrote PAYLOAD_PORT_EXIT */
	uint64_t lapic_khz;	/* measured LAPIC timer rate, 0 until a halt-duty vCPU needs it */
};

extern const struct boot_ops payload_boot_ops;

/* "hog", "duty:BUSY_US/SLEEP_US", "halt-duty:BUSY_US/SLEEP_US", "io:N", "probe", "fault",
 * "count:N", "emufail", "steal". 0 or -EINVAL (spec untouched). */
int payload_parse_kind(const char *s, struct payload_spec *spec);
/* One --payload value: "KIND[:ARGS]" for every vCPU not yet given one, or
 * "LIST=KIND[:ARGS][,LIST=KIND[:ARGS]...]" with LIST in libvirt cpuset syntax. A vCPU
 * named twice is -EEXIST, a vCPU >= nr_vcpus -ERANGE, bad syntax -EINVAL; on error specs
 * are untouched. */
int payload_parse_assign(const char *s, unsigned int nr_vcpus, struct payload_spec *specs);
/* Kinds that test the CPU itself (probe, fault, emufail): only a backend that runs machine
 * code (KVM) can run them. */
bool payload_kind_needs_cpu(enum payload_kind kind);
/* "duty:3000/7000" back from a spec. Returns the length or -ENOSPC. */
int payload_format(const struct payload_spec *spec, char *buf, size_t len);
/* The embedded guest image. */
const void *payload_image_data(size_t *size);

#endif
