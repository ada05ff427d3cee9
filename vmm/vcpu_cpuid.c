// SPDX-License-Identifier: GPL-2.0
/* Guest CPUID: what KVM supports, with each vCPU's own APIC ID and the hypervisor bit. */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <sys/ioctl.h>

#include "vmm/vcpu.h"

#define CPUID_MAX_ENTRIES 256
#define CPUID_1_ECX_HYPERVISOR (1U << 31)

int vcpu_setup_cpuid(struct vcpu *vcpu)
{
	struct kvm_cpuid2 *cpuid;
	struct kvm_cpuid_entry2 *e;
	unsigned int i;
	int ret = 0;

	cpuid = calloc(1, sizeof(*cpuid) + CPUID_MAX_ENTRIES * sizeof(cpuid->entries[0]));
	if (!cpuid)
		return -ENOMEM;
	cpuid->nent = CPUID_MAX_ENTRIES;
	if (ioctl(vcpu->vm->kvm_fd, KVM_GET_SUPPORTED_CPUID, cpuid) < 0) {
		ret = -errno;
		goto out;
	}
	for (i = 0; i < cpuid->nent; i++) {
		e = &cpuid->entries[i];
		switch (e->function) {
		case 1:
			e->ebx = (e->ebx & 0x00ffffff) | (vcpu->id << 24);
			e->ecx |= CPUID_1_ECX_HYPERVISOR;
			break;
		case 0xb:
		case 0x1f:
			/* x2APIC ID of this logical processor, in every topology level. */
			e->edx = vcpu->id;
			break;
		}
	}
	if (ioctl(vcpu->fd, KVM_SET_CPUID2, cpuid) < 0)
		ret = -errno;
out:
	free(cpuid);
	return ret;
}
