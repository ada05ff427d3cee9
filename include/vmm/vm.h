/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A KVM virtual machine: memory, vCPU threads, the exit loop and port/MMIO dispatch.
 * Boot methods (built-in payload guests, Linux) plug in through struct boot_ops.
 */
#ifndef VSCHED_VMM_VM_H
#define VSCHED_VMM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct kvm_run;
struct vm;
struct vcpu;

/* Port I/O and MMIO handlers: data is size bytes; return 0 or -errno (logged, VM goes on). */
typedef int (*pio_fn)(struct vcpu *vcpu, uint16_t port, void *data, unsigned int size,
		      bool is_write, void *opaque);
typedef int (*mmio_fn)(struct vcpu *vcpu, uint64_t addr, void *data, unsigned int size,
		       bool is_write, void *opaque);

enum vm_exit_reason {
	VM_EXIT_NONE,		/* still running */
	VM_EXIT_POWEROFF,	/* guest asked to power off (payload done, ACPI-free off path) */
	VM_EXIT_RESET,		/* i8042 reset or triple fault */
	VM_EXIT_STOPPED,	/* --duration elapsed, or SIGINT/SIGTERM */
	VM_EXIT_ERROR,		/* emulation failure, failed entry, internal error */
};

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;
	struct kvm_run *run;
	pthread_t thread;
	pid_t tid;
	uint64_t nr_exits;
	void *boot;		/* per-vCPU state of the boot method */
};

struct boot_ops {
	const char *name;
	/* Before vCPUs exist: load images into memory, create irqchip/PIT, register devices. */
	int (*setup_vm)(struct vm *vm);
	/* After KVM_CREATE_VCPU: CPUID, registers, segments, page tables for this vCPU. */
	int (*setup_vcpu)(struct vcpu *vcpu);
	void (*teardown)(struct vm *vm);
};

struct vm {
	const char *name;
	int kvm_fd;
	int fd;
	void *mem;
	uint64_t mem_size;
	unsigned int nr_vcpus;
	struct vcpu *vcpus;
	const struct boot_ops *boot;
	void *boot_data;
	volatile int exit_reason;	/* enum vm_exit_reason, first one wins */
};

/* Guest-physical to host pointer for [gpa, gpa + len), or NULL if outside RAM. */
void *vm_gpa(struct vm *vm, uint64_t gpa, uint64_t len);
int vm_pio_register(struct vm *vm, uint16_t base, uint16_t len, pio_fn fn, void *opaque);
int vm_mmio_register(struct vm *vm, uint64_t base, uint64_t len, mmio_fn fn, void *opaque);
/* Ends the VM with reason (the first caller wins) and kicks every vCPU out of KVM_RUN. */
void vm_stop(struct vm *vm, enum vm_exit_reason reason);

#endif
