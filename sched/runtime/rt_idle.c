// SPDX-License-Identifier: GPL-2.0
/*
 * Is a vCPU halted inside KVM_RUN? KVM's binary per-vCPU statistics (KVM_GET_STATS_FD) have an
 * instant "blocking" counter that is 1 exactly while the vCPU sleeps in kvm_vcpu_block() (after
 * halt polling): one 8-byte pread tells. Kernels without it, and the thread backend (whose halt
 * is a blocking wait inside its run), fall back to the thread's CPU clock standing still and
 * /proc/self/task/TID/stat saying it sleeps.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "rt.h"
#include "vmm/vm.h"

/* Finds "blocking" in the vCPU's stats file; rv->blocking_fd/off or -1. */
void rt_idle_open(struct rt_vcpu *rv)
{
	struct kvm_stats_header h;
	size_t dsz;
	char *descs;
	int fd;
	unsigned int i;

	rv->blocking_fd = -1;
	/* A backend without a KVM vCPU (the thread backend): no statistic, the fallback tells. */
	if (rv->vcpu->fd < 0)
		return;
	fd = ioctl(rv->vcpu->fd, KVM_GET_STATS_FD, NULL);
	if (fd < 0)
		return;
	if (pread(fd, &h, sizeof(h), 0) != sizeof(h))
		goto fail;
	dsz = sizeof(struct kvm_stats_desc) + h.name_size;
	descs = malloc(dsz * h.num_desc);
	if (!descs)
		goto fail;
	if (pread(fd, descs, dsz * h.num_desc, h.desc_offset) != (ssize_t)(dsz * h.num_desc)) {
		free(descs);
		goto fail;
	}
	for (i = 0; i < h.num_desc; i++) {
		struct kvm_stats_desc *d = (struct kvm_stats_desc *)(descs + i * dsz);

		if (!strncmp(d->name, "blocking", h.name_size) && d->size == 1) {
			rv->blocking_fd = fd;
			rv->blocking_off = h.data_offset + d->offset;
			break;
		}
	}
	free(descs);
	if (rv->blocking_fd >= 0)
		return;
fail:
	close(fd);
}

void rt_idle_close(struct rt_vcpu *rv)
{
	if (rv->blocking_fd >= 0)
		close(rv->blocking_fd);
	rv->blocking_fd = -1;
}

/* 1 halted, 0 not, -1 unknown (no "blocking" statistic). */
int rt_idle_blocking(const struct rt_vcpu *rv)
{
	uint64_t v;

	if (rv->blocking_fd < 0 ||
	    pread(rv->blocking_fd, &v, sizeof(v), rv->blocking_off) != sizeof(v))
		return -1;
	return v != 0;
}
