// SPDX-License-Identifier: GPL-2.0
/* One model-specific register of a vCPU, set or read as the host (KVM_SET_MSRS/KVM_GET_MSRS). */
#include <errno.h>
#include <linux/kvm.h>
#include <sys/ioctl.h>

#include "vmm/vcpu.h"

struct vcpu_msr {
	struct kvm_msrs hdr;
	struct kvm_msr_entry e;
};

/* The ioctls return how many MSRs they did: 0 means KVM refused this one. */
static int vcpu_msr_ioctl(struct vcpu *vcpu, unsigned long req, struct vcpu_msr *m)
{
	int n = ioctl(vcpu->fd, req, m);

	return n == 1 ? 0 : n < 0 ? -errno : -EINVAL;
}

int vcpu_set_msr(struct vcpu *vcpu, uint32_t index, uint64_t data)
{
	struct vcpu_msr m = { .hdr.nmsrs = 1, .e = { .index = index, .data = data } };

	return vcpu_msr_ioctl(vcpu, KVM_SET_MSRS, &m);
}

int vcpu_get_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data)
{
	struct vcpu_msr m = { .hdr.nmsrs = 1, .e.index = index };
	int ret = vcpu_msr_ioctl(vcpu, KVM_GET_MSRS, &m);

	if (!ret)
		*data = m.e.data;
	return ret;
}
