// SPDX-License-Identifier: GPL-2.0
/*
 * The KVM backend: /dev/kvm, KVM_CREATE_VM with guest RAM and the in-kernel irqchip, vCPUs
 * with their mmap'ed kvm_run, KVM_RUN, and the VM-wide KVM controls (irq lines, halt polling).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/compiler.h"
#include "vmm/accel.h"
#include "vmm/vm.h"

/* Three pages for the real-mode TSS Intel needs, below the BIOS area, as kvmtool. */
#define KVM_TSS_ADDR 0xfffbd000ULL

static int kvm_set_region(struct vm *vm, unsigned int slot, uint64_t gpa, uint64_t size)
{
	struct kvm_userspace_memory_region r = {
		.slot = slot,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)vm->mem + gpa,
	};

	return ioctl(vm->fd, KVM_SET_USER_MEMORY_REGION, &r) < 0 ? -errno : 0;
}

/* RAM below the 32-bit gap in slot 0, the rest above 4 GiB in slot 1 (vm_gpa()'s layout). */
static int kvm_init_ram(struct vm *vm)
{
	uint64_t low = vm->mem_size, high = 0;
	int ret;

	if (vm->mem_size > VM_32BIT_GAP_START) {
		low = VM_32BIT_GAP_START;
		high = vm->mem_size - low;
	}
	ret = kvm_set_region(vm, 0, 0, low);
	if (!ret && high)
		ret = kvm_set_region(vm, 1, VM_32BIT_GAP_END, high);
	return ret;
}

static int kvm_vm_init(struct vm *vm)
{
	static const long need[] = { KVM_CAP_USER_MEMORY, KVM_CAP_IRQCHIP, KVM_CAP_HLT,
				     KVM_CAP_IMMEDIATE_EXIT, KVM_CAP_EXT_CPUID,
				     KVM_CAP_SET_TSS_ADDR };
	unsigned int i;
	int ret;

	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		return -errno;
	if (ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0) != KVM_API_VERSION)
		return -ENOTSUP;
	vm->fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, 0);
	if (vm->fd < 0)
		return -errno;
	for (i = 0; i < ARRAY_SIZE(need); i++)
		if (ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, need[i]) <= 0)
			return -ENOTSUP;
	if (ioctl(vm->fd, KVM_SET_TSS_ADDR, KVM_TSS_ADDR) < 0)
		return -errno;
	ret = kvm_init_ram(vm);
	if (ret)
		return ret;
	/* PIC, IOAPIC and a LAPIC per vCPU in the kernel: HLT sleeps inside KVM_RUN, the
	 * LAPIC timer wakes it. Must precede every vCPU. */
	return ioctl(vm->fd, KVM_CREATE_IRQCHIP, 0) < 0 ? -errno : 0;
}

static void kvm_vm_exit(struct vm *vm)
{
	if (vm->fd >= 0)
		close(vm->fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	vm->fd = vm->kvm_fd = -1;
}

static int kvm_vcpu_init(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;
	int size;

	vcpu->fd = ioctl(vm->fd, KVM_CREATE_VCPU, vcpu->id);
	if (vcpu->fd < 0)
		return -errno;
	size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (size < (int)sizeof(struct kvm_run))
		return size < 0 ? -errno : -EINVAL;
	vcpu->run = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, vcpu->fd, 0);
	if (vcpu->run == MAP_FAILED) {
		vcpu->run = NULL;
		return -errno;
	}
	vcpu->run_size = size;
	return 0;
}

static void kvm_vcpu_exit(struct vcpu *vcpu)
{
	if (vcpu->run)
		munmap(vcpu->run, vcpu->run_size);
	vcpu->run = NULL;
	if (vcpu->fd >= 0)
		close(vcpu->fd);
	vcpu->fd = -1;
}

static int kvm_vcpu_run(struct vcpu *vcpu)
{
	return ioctl(vcpu->fd, KVM_RUN, 0) < 0 ? -errno : 0;
}

struct kvm_one_msr {
	struct kvm_msrs hdr;
	struct kvm_msr_entry e;
};

/* The ioctls return how many MSRs they did: 0 means KVM refused this one. */
static int kvm_msr_ioctl(struct vcpu *vcpu, unsigned long req, struct kvm_one_msr *m)
{
	int n = ioctl(vcpu->fd, req, m);

	return n == 1 ? 0 : n < 0 ? -errno : -EINVAL;
}

static int kvm_set_msr(struct vcpu *vcpu, uint32_t index, uint64_t data)
{
	struct kvm_one_msr m = { .hdr.nmsrs = 1, .e = { .index = index, .data = data } };

	return kvm_msr_ioctl(vcpu, KVM_SET_MSRS, &m);
}

static int kvm_get_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data)
{
	struct kvm_one_msr m = { .hdr.nmsrs = 1, .e.index = index };
	int ret = kvm_msr_ioctl(vcpu, KVM_GET_MSRS, &m);

	if (!ret)
		*data = m.e.data;
	return ret;
}

const struct accel_ops accel_kvm_ops = {
	.name = "kvm",
	.cpu = true,
	.vm_init = kvm_vm_init,
	.vm_exit = kvm_vm_exit,
	.vcpu_init = kvm_vcpu_init,
	.vcpu_exit = kvm_vcpu_exit,
	.vcpu_run = kvm_vcpu_run,
	.set_msr = kvm_set_msr,
	.get_msr = kvm_get_msr,
};

int vm_irq_line(struct vm *vm, unsigned int irq, int level)
{
	struct kvm_irq_level l = { .irq = irq, .level = level };

	if (vm->fd < 0)
		return -ENOTSUP;
	return ioctl(vm->fd, KVM_IRQ_LINE, &l) < 0 ? -errno : 0;
}

int vm_set_halt_poll(struct vm *vm, uint32_t ns)
{
	struct kvm_enable_cap cap = { .cap = KVM_CAP_HALT_POLL, .args = { ns } };

	if (vm->fd < 0 || ioctl(vm->fd, KVM_CHECK_EXTENSION, KVM_CAP_HALT_POLL) <= 0)
		return -ENOTSUP;
	return ioctl(vm->fd, KVM_ENABLE_CAP, &cap) < 0 ? -errno : 0;
}
