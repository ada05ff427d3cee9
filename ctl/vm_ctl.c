// SPDX-License-Identifier: GPL-2.0
/*
 * The control directory of a VM started by `vsched run`: once its vCPU threads exist, publish
 * their TIDs in the group tree, claim the VM's name and mount the directory; at exit undo it.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "vmm/vm.h"
#include "vsched.h"

#define TID_WAIT_NS	2000000000ULL	/* vCPU threads publish their TID as they start */

static int vm_ctl_tids(struct vm *vm, struct vsched *vs)
{
	struct timespec nap = { 0, 1000000 };
	uint64_t waited = 0;
	unsigned int i;
	pid_t tid;

	for (i = 0; i < vm->nr_vcpus; i++) {
		while (!(tid = __atomic_load_n(&vm->vcpus[i].tid, __ATOMIC_SEQ_CST))) {
			if (vm_stopping(vm))
				return -ECANCELED;
			if (waited >= TID_WAIT_NS)
				return -ETIMEDOUT;
			nanosleep(&nap, NULL);
			waited += nap.tv_nsec;
		}
		vsched_set_vcpu_tid(vs, i, tid);
	}
	return 0;
}

int vm_ctl_start(struct vm *vm, struct vsched *vs, const struct vm_ctl_opts *o, struct vm_ctl *vc)
{
	const char *dir = o->no_ctl ? "" : o->dir;
	int ret;

	memset(vc, 0, sizeof(*vc));
	if (ctl_name_valid(o->name))
		return -EINVAL;
	vsched_set_pid(vs, getpid());
	ret = vm_ctl_tids(vm, vs);
	if (ret)
		return ret;
	snprintf(vc->name, sizeof(vc->name), "%s", o->name);
	ret = ctl_vm_start(vs, vc->name, dir, &vc->ctl);
	/* An unnamed VM does not compete for the default name: it takes a unique one. */
	if (ret == -EEXIST && !o->name_given) {
		snprintf(vc->name, sizeof(vc->name), "%s-%d", o->name, (int)getpid());
		ret = ctl_vm_start(vs, vc->name, dir, &vc->ctl);
	}
	/* The default directory is a convenience: without FUSE the VM runs without it. */
	if (ret && ret != -EEXIST && !o->dir && !o->no_ctl) {
		vc->mount_err = ret;
		ret = ctl_vm_start(vs, vc->name, "", &vc->ctl);
	}
	if (ret)
		return ret;
	vc->started = true;
	return 0;
}

void vm_ctl_stop(struct vm_ctl *vc)
{
	if (!vc->started)
		return;
	ctl_vm_stop(vc->name, vc->ctl);
	vc->ctl = NULL;
	vc->started = false;
}
