// SPDX-License-Identifier: GPL-2.0
/*
 * The VM: /dev/kvm, KVM_CREATE_VM, guest RAM, the in-kernel irqchip, and the life cycle
 * around the vCPU threads (vm_create / vm_start / vm_join / vm_destroy).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "vmm/ioport.h"
#include "vmm/kick.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

/* RAM above this goes above 4 GiB, leaving the top of the 32-bit space for the LAPIC,
 * IOAPIC and MMIO devices, as on a PC. */
#define VM_32BIT_GAP_START 0xc0000000ULL
#define VM_32BIT_GAP_END 0x100000000ULL
/* Three pages for the real-mode TSS Intel needs, below the BIOS area, as kvmtool. */
#define VM_TSS_ADDR 0xfffbd000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

const char *vm_exit_reason_name(enum vm_exit_reason reason)
{
	static const char *const names[] = {
		[VM_EXIT_NONE] = "running",   [VM_EXIT_POWEROFF] = "poweroff",
		[VM_EXIT_RESET] = "reset",    [VM_EXIT_STOPPED] = "stopped",
		[VM_EXIT_ERROR] = "error",
	};

	if ((unsigned int)reason >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[reason];
}

void *vm_gpa(struct vm *vm, uint64_t gpa, uint64_t len)
{
	uint64_t end = gpa + len;

	if (end < gpa)
		return NULL;
	if (vm->mem_size <= VM_32BIT_GAP_START || end <= VM_32BIT_GAP_START)
		return end <= vm->mem_size ? (char *)vm->mem + gpa : NULL;
	/* RAM split around the gap: [0, gap start) and [4 GiB, 4 GiB + rest). */
	if (gpa >= VM_32BIT_GAP_END &&
	    end <= VM_32BIT_GAP_END + (vm->mem_size - VM_32BIT_GAP_START))
		return (char *)vm->mem + gpa;
	return NULL;
}

static int vm_set_region(struct vm *vm, unsigned int slot, uint64_t gpa, uint64_t size)
{
	struct kvm_userspace_memory_region r = {
		.slot = slot,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)vm->mem + gpa,
	};

	return ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &r) < 0 ? -errno : 0;
}

static int vm_init_ram(struct vm *vm)
{
	uint64_t low = vm->mem_size, high = 0;
	int ret;

	if (vm->mem_size > VM_32BIT_GAP_START) {
		low = VM_32BIT_GAP_START;
		high = vm->mem_size - low;
		vm->mem_map_size = VM_32BIT_GAP_END + high;
	} else {
		vm->mem_map_size = vm->mem_size;
	}
	/* One mapping whose offsets equal guest-physical addresses; the hole is never touched
	 * and, with MAP_NORESERVE, costs nothing. */
	vm->mem = mmap(NULL, vm->mem_map_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return -errno;
	}
	madvise(vm->mem, vm->mem_map_size, MADV_MERGEABLE);
	ret = vm_set_region(vm, 0, 0, low);
	if (!ret && high)
		ret = vm_set_region(vm, 1, VM_32BIT_GAP_END, high);
	return ret;
}

int vm_irq_line(struct vm *vm, unsigned int irq, int level)
{
	struct kvm_irq_level l = { .irq = irq, .level = level };

	return ioctl(vm->fd, KVM_IRQ_LINE, &l) < 0 ? -errno : 0;
}

int vm_set_halt_poll(struct vm *vm, uint32_t ns)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_HALT_POLL, .args = { ns } };

	if (ioctl(vm->fd, KVM_CHECK_EXTENSION, KVM_CAP_HALT_POLL) <= 0)
		return -ENOTSUP;
	return ioctl(vm->fd, KVM_ENABLE_CAP, &cap) < 0 ? -errno : 0;
}

static int vm_check_ext(struct vm *vm, long ext)
{
	return ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, ext) > 0;
}

int vm_create(struct vm *vm)
{
	static const long need[] = { KVM_CAP_USER_MEMORY, KVM_CAP_IRQCHIP, KVM_CAP_HLT,
				     KVM_CAP_IMMEDIATE_EXIT, KVM_CAP_EXT_CPUID,
				     KVM_CAP_SET_TSS_ADDR };
	pthread_condattr_t ca;
	unsigned int i;
	int ret;

	vm->kvm_fd = vm->fd = vm->stop_fd = -1;
	vm->start_ns = now_ns();
	vm->exit_reason = VM_EXIT_NONE;
	pthread_mutex_init(&vm->lock, NULL);
	/* vcpu_sleep() waits against CLOCK_MONOTONIC deadlines. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&vm->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (!vm->nr_vcpus || vm->nr_vcpus > VM_MAX_VCPUS || !vm->mem_size || !vm->boot)
		return -EINVAL;
	ret = kick_init();
	if (ret)
		return ret;
	vm->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vm->stop_fd < 0)
		return -errno;
	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		return -errno;
	if (ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return -ENOTSUP;
	vm->fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return -errno;
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!vm_check_ext(vm, need[i]))
			return -ENOTSUP;
	if (ioctl(vm->fd, KVM_SET_TSS_ADDR, VM_TSS_ADDR) < 0)
		return -errno;
	ret = vm_init_ram(vm);
	if (ret)
		return ret;
	/* PIC, IOAPIC and a LAPIC per vCPU in the kernel: HLT sleeps inside KVM_RUN, the
	 * LAPIC timer wakes it. Must precede every vCPU. */
	if (ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0) < 0)
		return -errno;
	ret = vm->boot->setup_vm ? vm->boot->setup_vm(vm) : 0;
	if (ret)
		return ret;
	vm->vcpus = calloc(vm->nr_vcpus, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		return -ENOMEM;
	for (i = 0; i < vm->nr_vcpus; i++)
		vm->vcpus[i].fd = -1;
	for (i = 0; i < vm->nr_vcpus; i++) {
		ret = vcpu_create(vm, &vm->vcpus[i], i);
		if (ret)
			return ret;
		ret = vm->boot->setup_vcpu ? vm->boot->setup_vcpu(&vm->vcpus[i]) : 0;
		if (ret)
			return ret;
	}
	return 0;
}

int vm_start(struct vm *vm)
{
	unsigned int i;
	int ret;

	for (i = 0; i < vm->nr_vcpus; i++) {
		ret = pthread_create(&vm->vcpus[i].thread, NULL, vcpu_thread, &vm->vcpus[i]);
		if (ret) {
			vm_stop(vm, VM_EXIT_ERROR);
			return -ret;
		}
		vm->vcpus[i].thread_started = true;
	}
	return 0;
}

void vm_join(struct vm *vm)
{
	unsigned int i;

	for (i = 0; vm->vcpus && i < vm->nr_vcpus; i++) {
		if (!vm->vcpus[i].thread_started)
			continue;
		pthread_join(vm->vcpus[i].thread, NULL);
		vm->vcpus[i].thread_started = false;
	}
}

void vm_destroy(struct vm *vm)
{
	unsigned int i;

	vm_join(vm);
	if (vm->boot && vm->boot->teardown && vm->fd >= 0)
		vm->boot->teardown(vm);
	for (i = 0; vm->vcpus && i < vm->nr_vcpus; i++)
		vcpu_destroy(&vm->vcpus[i]);
	free(vm->vcpus);
	vm->vcpus = NULL;
	ioport_free(vm);
	if (vm->mem)
		munmap(vm->mem, vm->mem_map_size);
	vm->mem = NULL;
	if (vm->fd >= 0)
		close(vm->fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	if (vm->stop_fd >= 0)
		close(vm->stop_fd);
	vm->fd = vm->kvm_fd = vm->stop_fd = -1;
	pthread_cond_destroy(&vm->cond);
	pthread_mutex_destroy(&vm->lock);
}
