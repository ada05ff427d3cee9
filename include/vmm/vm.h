/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A virtual machine: memory, vCPU threads, the exit loop and port/MMIO dispatch.
 * A vCPU backend (include/vmm/accel.h: KVM, or host threads where /dev/kvm is missing) runs
 * the vCPUs; boot methods (built-in payload guests, Linux) plug in through struct boot_ops;
 * the scheduler runtime plugs into the vCPU loop through struct vcpu_sched_ops.
 *
 * Life cycle (the caller fills the configuration fields of struct vm first):
 *	vm_create()  RAM, the backend (KVM: /dev/kvm, VM, TSS, in-kernel irqchip),
 *	             boot->setup_vm(), then every vCPU (backend vcpu_init, boot->setup_vcpu())
 *	vm_start()   one thread per vCPU, named vcpuN
 *	vm_stop()    from any thread (or a vCPU) when the VM should end
 *	vm_join()    waits for the vCPU threads
 *	vm_destroy() boot->teardown(), closes and unmaps everything
 */
#ifndef VSCHED_VMM_VM_H
#define VSCHED_VMM_VM_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "vmm/accel.h"
#include "vmm/vcpu_sched.h"

/* The payload layout keeps one TSS descriptor per vCPU in a one-page GDT. */
#define VM_MAX_VCPUS 128
/* RAM above this goes above 4 GiB, leaving the top of the 32-bit space for the LAPIC,
 * IOAPIC and MMIO devices, as on a PC. */
#define VM_32BIT_GAP_START 0xc0000000ULL
#define VM_32BIT_GAP_END 0x100000000ULL

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
	VM_EXIT_STOPPED,	/* --duration elapsed, vm_stop() by the VMM, or SIGINT/SIGTERM */
	VM_EXIT_ERROR,		/* emulation failure, failed entry, internal error */
};

/* Per-vCPU counters; written only by the vCPU thread, read by anyone (torn reads are fine). */
struct vcpu_stats {
	uint64_t exits_io;	/* KVM_EXIT_IO */
	uint64_t exits_mmio;	/* KVM_EXIT_MMIO */
	uint64_t exits_intr;	/* the run returned EINTR: a kick or another signal */
	uint64_t exits_other;	/* everything else */
	uint64_t unhandled;	/* port/MMIO accesses nobody registered */
	uint64_t sleeps;	/* paravirtual sleeps */
	uint64_t sleep_ns;	/* time asked for by those sleeps */
	uint64_t cpu_ns;	/* the thread's own CPU clock when it ended */
	uint64_t steal_ns;	/* time parked by the scheduler, added to the guest's steal time */
	uint64_t first_entry_ns; /* CLOCK_MONOTONIC of the first entry, 0 before */
};

struct vcpu {
	struct vm *vm;
	unsigned int id;
	int fd;			/* KVM's vCPU fd, -1 on other backends */
	struct kvm_run *run;	/* the exit and immediate_exit, on every backend (accel.h) */
	size_t run_size;
	void *accel_data;	/* the backend's per-vCPU state */
	pthread_t thread;
	bool thread_started;
	volatile int ended;	/* the thread left its loop; stats.cpu_ns is final */
	pid_t tid;		/* the thread's kernel TID, 0 until the thread runs */
	uint64_t nr_exits;	/* every return from the backend's run */
	struct vcpu_stats stats;
	/* Guest work counter (payload guests) the VMM reads while the guest runs, or NULL. */
	volatile uint64_t *work_units;
	/*
	 * A word whose change also takes the vCPU out, as immediate_exit does, for a backend that
	 * looks between work units (thread); KVM cannot watch memory inside KVM_RUN and needs the
	 * kick. The scheduler runtime sets it before each entry (host mode: the vCPU's grant page
	 * entry, so a preemption the daemon writes there needs no kick); NULL: none.
	 */
	const uint32_t *exit_word;
	uint32_t exit_val;
	/* Requests from other threads, see vcpu_kick(). */
	volatile int paused;	/* the thread sits parked in vm_pause() */
	void *boot;		/* per-vCPU state of the boot method */
	void *sched;		/* per-vCPU state of the scheduler runtime */
};

struct boot_ops {
	const char *name;
	/* Runs guest machine code of its own: only a backend with a CPU (accel_ops.cpu) boots it. */
	bool needs_cpu;
	/* Before vCPUs exist (irqchip already created): load images, create the PIT, register
	 * devices. Returns 0 or -errno; the VM is then torn down. */
	int (*setup_vm)(struct vm *vm);
	/* After KVM_CREATE_VCPU: CPUID, registers, segments, MP state for this vCPU. */
	int (*setup_vcpu)(struct vcpu *vcpu);
	/* Optional: after the vCPU threads ended, before memory goes. */
	void (*teardown)(struct vm *vm);
	/* A triple fault is the guest's ordinary way to reboot (Linux reboot=t): no dump. */
	bool shutdown_is_reset;
	/* Optional: KVM could not emulate an instruction (KVM_EXIT_INTERNAL_ERROR, emulation
	 * suberror). Return 0 if the boot method emulated it itself and the vCPU may go on;
	 * anything else ends the VM with the usual dump. */
	int (*emulation_failure)(struct vcpu *vcpu);
};

struct vm_io_range;

struct vm {
	/* Configuration, filled by the caller before vm_create(). */
	const char *name;
	uint64_t mem_size;
	unsigned int nr_vcpus;
	unsigned int nr_lanes;	/* --cpus: host CPUs the scheduler may use (0: unset) */
	enum vm_accel accel;	/* the vCPU backend; AUTO becomes what vm_create() chose */
	const struct boot_ops *boot;
	void *boot_data;
	const struct vcpu_sched_ops *sched;	/* NULL: unscheduled */
	void *sched_data;
	bool verbose;

	/* State. */
	const struct accel_ops *aops;	/* the backend's operations */
	int kvm_fd;		/* KVM backend: /dev/kvm and the VM, -1 on others */
	int fd;
	void *mem;
	uint64_t mem_map_size;	/* mmap length (RAM plus the hole when RAM crosses 3 GiB) */
	struct vcpu *vcpus;
	volatile int exit_reason;	/* enum vm_exit_reason, first one wins */
	int exit_signal;	/* the signal that stopped the VM, or 0 */
	int stop_fd;		/* eventfd, readable once vm_stop() ran */
	volatile int pause_req;
	pthread_mutex_t lock;	/* pause/resume and paravirtual sleep */
	pthread_cond_t cond;
	unsigned int nr_parked;
	struct vm_io_range *pio, *mmio;
	unsigned int nr_pio, nr_mmio;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at vm_create() */
};

int vm_create(struct vm *vm);
int vm_start(struct vm *vm);
void vm_join(struct vm *vm);
void vm_destroy(struct vm *vm);

/* Guest-physical to host pointer for [gpa, gpa + len), or NULL if outside RAM. */
void *vm_gpa(struct vm *vm, uint64_t gpa, uint64_t len);
/* Registration happens before vm_start(); ranges may not overlap (-EBUSY). */
int vm_pio_register(struct vm *vm, uint16_t base, uint16_t len, pio_fn fn, void *opaque);
int vm_mmio_register(struct vm *vm, uint64_t base, uint64_t len, mmio_fn fn, void *opaque);
/* Maximum KVM halt polling per halt, in ns, for every vCPU (KVM_CAP_HALT_POLL); 0 turns it
 * off, so a halted vCPU thread stops using CPU at once. Any time after vm_create(); KVM
 * backend only (-ENOTSUP). */
int vm_set_halt_poll(struct vm *vm, uint32_t ns);
/* Raises or lowers an in-kernel irqchip line (KVM_IRQ_LINE); KVM backend only. */
int vm_irq_line(struct vm *vm, unsigned int irq, int level);
/* Ends the VM with reason (the first caller wins) and kicks every vCPU out of its run.
 * Safe from any thread; not from a signal handler. */
void vm_stop(struct vm *vm, enum vm_exit_reason reason);
/* Parks every vCPU outside its run and returns when all are parked; resume lets them go. */
void vm_pause(struct vm *vm);
void vm_resume(struct vm *vm);

static inline bool vm_stopping(const struct vm *vm)
{
	return __atomic_load_n(&vm->exit_reason, __ATOMIC_SEQ_CST) != VM_EXIT_NONE;
}

/*
 * A vm_pause() holds the VM: the vCPU loop parks its vCPU, and the scheduler hooks (which read
 * the flags through vm_stopping() and this) let it go there.
 */
static inline bool vm_pausing(const struct vm *vm)
{
	return __atomic_load_n(&vm->pause_req, __ATOMIC_SEQ_CST);
}

const char *vm_exit_reason_name(enum vm_exit_reason reason);

#endif
