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

#include "cmd/run.h"
#include "ctl/ctl.h"
#include "util/registry.h"
#include "vmm/vm.h"
#include "vsched.h"

#define TID_WAIT_NS	2000000000ULL	/* vCPU threads publish their TID as they start */

static int run_ctl_tids(struct vm *vm, struct vsched *vs)
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

/*
 * Claims the name and mounts the directory. If the default directory cannot be mounted (no
 * FUSE), the VM is registered without one and rc->mount_err says why; an explicit --ctl-dir
 * must mount. -EEXIST name taken by a live VMM, -ETIMEDOUT vCPU threads did not start,
 * -ECANCELED the VM stopped meanwhile, or a mount error.
 */
static int run_ctl_claim(const struct run_cfg *cfg, struct vm *vm, struct vsched *vs,
			 struct run_ctl *rc)
{
	const char *dir = cfg->no_ctl ? "" : cfg->ctl_dir;
	int ret;

	vsched_set_pid(vs, getpid());
	ret = run_ctl_tids(vm, vs);
	if (ret)
		return ret;
	snprintf(rc->name, sizeof(rc->name), "%s", cfg->name);
	ret = ctl_vm_start(vs, rc->name, dir, &rc->ctl);
	/* An unnamed VM does not compete for the default name: it takes a unique one. */
	if (ret == -EEXIST && !cfg->name_given) {
		snprintf(rc->name, sizeof(rc->name), "%s-%d", cfg->name, (int)getpid());
		ret = ctl_vm_start(vs, rc->name, dir, &rc->ctl);
	}
	/* The default directory is a convenience: without FUSE the VM runs without it. */
	if (ret && ret != -EEXIST && !cfg->ctl_dir && !cfg->no_ctl) {
		rc->mount_err = ret;
		ret = ctl_vm_start(vs, rc->name, "", &rc->ctl);
	}
	if (ret)
		return ret;
	rc->started = true;
	return 0;
}

int run_ctl_check_name(const struct run_cfg *cfg)
{
	if (!cfg->name_given || registry_check_free(cfg->name) != -EEXIST)
		return 0;
	fprintf(stderr, "vsched run: a VM named '%s' is already running (vsched list)\n",
		cfg->name);
	return -EEXIST;
}

int run_ctl_start(const struct run_cfg *cfg, struct vm *vm, struct vsched *vs,
		  struct run_ctl *rc)
{
	int ret;

	memset(rc, 0, sizeof(*rc));
	ret = run_ctl_claim(cfg, vm, vs, rc);
	/* A VM that ended already (e.g. an emulation failure at once) reports its own status. */
	if (ret == -ECANCELED)
		return 0;
	if (ret == -EEXIST)
		fprintf(stderr, "vsched run: a VM named '%s' is already running (vsched list)\n",
			cfg->name);
	else if (ret)
		fprintf(stderr, "vsched run: control directory %s: %s\n",
			cfg->ctl_dir ? cfg->ctl_dir : cfg->name, strerror(-ret));
	else if (rc->mount_err)
		fprintf(stderr, "vsched run: no control directory (%s); running without one\n",
			strerror(-rc->mount_err));
	else if (cfg->verbose && rc->ctl)
		fprintf(stderr, "vsched: control directory %s\n", ctl_dir(rc->ctl));
	return ret;
}

void run_ctl_stop(struct run_ctl *rc)
{
	if (!rc->started)
		return;
	ctl_vm_stop(rc->name, rc->ctl);
	rc->ctl = NULL;
	rc->started = false;
}
