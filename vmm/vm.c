// SPDX-License-Identifier: GPL-2.0
/*
 * The VM: guest RAM, the vCPU backend (include/vmm/accel.h), and the life cycle around the
 * vCPU threads (vm_create / vm_start / vm_join / vm_destroy).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "util/time.h"
#include "vmm/ioport.h"
#include "vmm/kick.h"
#include "vmm/vcpu.h"
#include "vmm/vm.h"

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

static int vm_init_ram(struct vm *vm)
{
	/* RAM above the gap moves up by its size: 16 EiB - 1 KiB wrapped to a 1 GiB mapping. */
	if (vm->mem_size > UINT64_MAX - (VM_32BIT_GAP_END - VM_32BIT_GAP_START))
		return -ENOMEM;
	if (vm->mem_size > VM_32BIT_GAP_START)
		vm->mem_map_size = VM_32BIT_GAP_END + (vm->mem_size - VM_32BIT_GAP_START);
	else
		vm->mem_map_size = vm->mem_size;
	/* One mapping whose offsets equal guest-physical addresses; the hole is never touched
	 * and, with MAP_NORESERVE, costs nothing. */
	vm->mem = mmap(NULL, vm->mem_map_size, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (vm->mem == MAP_FAILED) {
		vm->mem = NULL;
		return -errno;
	}
	madvise(vm->mem, vm->mem_map_size, MADV_MERGEABLE);
	return 0;
}

int vm_create(struct vm *vm)
{
	pthread_condattr_t ca;
	unsigned int i;
	int ret;

	vm->kvm_fd = vm->fd = vm->stop_fd = -1;
	vm->start_ns = time_mono_ns();
	vm->exit_reason = VM_EXIT_NONE;
	pthread_mutex_init(&vm->lock, NULL);
	/* vcpu_sleep() waits against CLOCK_MONOTONIC deadlines. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&vm->cond, &ca);
	pthread_condattr_destroy(&ca);
	if (!vm->nr_vcpus || vm->nr_vcpus > VM_MAX_VCPUS || !vm->mem_size || !vm->boot)
		return -EINVAL;
	vm->accel = accel_resolve(vm->accel, NULL);
	vm->aops = accel_ops_of(vm->accel);
	if (!vm->aops)
		return -EINVAL;
	if (vm->boot->needs_cpu && !vm->aops->cpu)
		return -ENOTSUP;
	ret = kick_init();
	if (ret)
		return ret;
	vm->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vm->stop_fd < 0)
		return -errno;
	ret = vm_init_ram(vm);
	if (!ret)
		ret = vm->aops->vm_init(vm);
	if (!ret && vm->boot->setup_vm)
		ret = vm->boot->setup_vm(vm);
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

static int join_timed(struct vcpu *vcpu, unsigned int ms)
{
	struct timespec ts = time_ns_to_ts(time_now_on(CLOCK_REALTIME) + ms * NSEC_PER_MSEC);

	return pthread_timedjoin_np(vcpu->thread, NULL, &ts);
}

void vm_join(struct vm *vm)
{
	unsigned int i;

	for (i = 0; vm->vcpus && i < vm->nr_vcpus; i++) {
		if (!vm->vcpus[i].thread_started)
			continue;
		/*
		 * A stopped VM's vCPU must come out of KVM_RUN; a kick can still be lost (seen
		 * once here with an AP blocked in wait-for-SIPI under load), so repeat it.
		 */
		while (join_timed(&vm->vcpus[i], 50) == ETIMEDOUT)
			if (vm_stopping(vm))
				vcpu_kick(&vm->vcpus[i]);
		vm->vcpus[i].thread_started = false;
	}
}

void vm_destroy(struct vm *vm)
{
	unsigned int i;

	vm_join(vm);
	if (vm->boot && vm->boot->teardown && vm->aops)
		vm->boot->teardown(vm);
	for (i = 0; vm->vcpus && i < vm->nr_vcpus; i++)
		vcpu_destroy(&vm->vcpus[i]);
	free(vm->vcpus);
	vm->vcpus = NULL;
	ioport_free(vm);
	if (vm->aops)
		vm->aops->vm_exit(vm);
	vm->aops = NULL;
	if (vm->mem)
		munmap(vm->mem, vm->mem_map_size);
	vm->mem = NULL;
	if (vm->stop_fd >= 0)
		close(vm->stop_fd);
	vm->stop_fd = -1;
	pthread_cond_destroy(&vm->cond);
	pthread_mutex_destroy(&vm->lock);
}
