// SPDX-License-Identifier: GPL-2.0
/* Choosing a vCPU backend: names, the KVM probe, and what "auto" becomes. */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util/compiler.h"
#include "vmm/accel.h"

static const char *const accel_names[] = {
	[VM_ACCEL_AUTO] = "auto",
	[VM_ACCEL_KVM] = "kvm",
	[VM_ACCEL_THREAD] = "thread",
};

const char *accel_name(enum vm_accel accel)
{
	return (unsigned int)accel < ARRAY_SIZE(accel_names) ? accel_names[accel] : "?";
}

int accel_parse(const char *s, enum vm_accel *accel)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(accel_names); i++)
		if (!strcmp(s, accel_names[i])) {
			*accel = i;
			return 0;
		}
	return -EINVAL;
}

const struct accel_ops *accel_ops_of(enum vm_accel accel)
{
	switch (accel) {
	case VM_ACCEL_KVM:
		return &accel_kvm_ops;
	case VM_ACCEL_THREAD:
		return &accel_thread_ops;
	default:
		return NULL;
	}
}

/* Opening is not enough: a container may bind something else (/dev/null) over the node. */
int accel_kvm_probe(struct diag *d)
{
	int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC), ver, err = 0;

	if (fd < 0) {
		err = -errno;
		return diag_set(d, err, "/dev/kvm: %s", strerror(-err));
	}
	ver = ioctl(fd, KVM_GET_API_VERSION, 0);
	if (ver != KVM_API_VERSION) {
		err = ver < 0 ? -errno : -ENOTSUP;
		if (ver < 0)
			diag_set(d, err, "/dev/kvm is not KVM: KVM_GET_API_VERSION: %s",
				 strerror(-err));
		else
			diag_set(d, err, "/dev/kvm speaks KVM API %d, not %d", ver,
				 KVM_API_VERSION);
	}
	close(fd);
	return err;
}

enum vm_accel accel_resolve(enum vm_accel accel, struct diag *d)
{
	if (accel != VM_ACCEL_AUTO)
		return accel;
	return accel_kvm_probe(d) ? VM_ACCEL_THREAD : VM_ACCEL_KVM;
}
