// SPDX-License-Identifier: GPL-2.0
/* An in-process payload VM under the runtime (benchmarks, tests). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sched/runtime.h"
#include "sched/runvm.h"
#include "vsched.h"

int runvm_create(struct runvm *r, const char *name, unsigned int nr_vcpus, unsigned int lanes,
		 bool scheduled)
{
	unsigned int i;

	memset(r, 0, sizeof(*r));
	if (!nr_vcpus || nr_vcpus > VM_MAX_VCPUS || !lanes)
		return -EINVAL;
	r->po = calloc(1, sizeof(*r->po));
	r->vs = vsched_create(lanes, nr_vcpus);
	if (!r->po || !r->vs) {
		free(r->po);
		if (r->vs)
			vsched_destroy(r->vs);
		return -ENOMEM;
	}
	runtime_clock_init(r->vs);
	for (i = 0; i < nr_vcpus; i++)
		r->po->spec[i].kind = PAYLOAD_HOG;
	r->scheduled = scheduled;
	r->vm = (struct vm){ .name = name, .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = nr_vcpus,
			     .nr_lanes = lanes, .boot = &payload_boot_ops, .boot_data = r->po };
	return 0;
}

int runvm_start(struct runvm *r)
{
	int ret;

	r->created = true;
	ret = vm_create(&r->vm);
	if (ret)
		return ret;
	if (r->scheduled) {
		ret = runtime_create(&r->vm, vsched_sched(r->vs), vsched_mutex(r->vs), r->vm.nr_lanes,
				     0, &r->rt);
		if (ret)
			return ret;
		r->vm.sched = &runtime_vcpu_ops;
		runtime_bind(r->rt, r->vs);
		ret = runtime_start(r->rt);
		if (ret)
			return ret;
	}
	ret = vm_start(&r->vm);
	if (ret)
		return ret;
	r->started = true;
	/* The vCPU threads register their TIDs themselves (runtime thread_start). */
	vsched_set_pid(r->vs, getpid());
	return 0;
}

void runvm_stop(struct runvm *r)
{
	if (!r->started)
		return;
	vm_stop(&r->vm, VM_EXIT_STOPPED);
	vm_join(&r->vm);
	r->started = false;
}

void runvm_destroy(struct runvm *r)
{
	runvm_stop(r);
	runtime_unbind(r->vs);
	runtime_destroy(r->rt);
	r->rt = NULL;
	if (r->created)
		vm_destroy(&r->vm);
	vsched_destroy(r->vs);
	free(r->po);
	memset(r, 0, sizeof(*r));
}
