// SPDX-License-Identifier: GPL-2.0
/*
 * The payload guests' paravirtual ports. The sleep port is what makes a duty vCPU idle:
 * its thread blocks here (or in the scheduler's sleep hook) instead of spinning in KVM.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "util/time.h"
#include "vmm/payload.h"
#include "vmm/payload_ports.h"
#include "vmm/vcpu.h"

static uint32_t port_value(const void *data, unsigned int size)
{
	uint32_t v = 0;

	memcpy(&v, data, size < sizeof(v) ? size : sizeof(v));
	return v;
}

static int payload_port(struct vcpu *vcpu, uint16_t port, void *data, unsigned int size,
			bool is_write, void *opaque)
{
	struct payload_opts *opts = opaque;
	struct payload_vcpu *pv = vcpu->boot;
	bool done;

	if (!is_write) {
		/* Write-only ports: reads float high, like the unserved ones. */
		memset(data, 0xff, size);
		return 0;
	}
	switch (port) {
	case PAYLOAD_PORT_HELLO:
		if (!pv->hello_ns) {
			pv->hello_ns = time_mono_ns();
			pv->hello_realtime_ns = time_now_on(CLOCK_REALTIME);
		}
		return 0;
	case PAYLOAD_PORT_SLEEP:
		vcpu_sleep(vcpu, port_value(data, size) * 1000ULL);
		return 0;
	case PAYLOAD_PORT_IO:
		pv->io_exits++;
		return 0;
	case PAYLOAD_PORT_EXIT:
		/* This vCPU is done; the VM powers off when every vCPU is. The first nonzero
		 * status is kept. Until then the vCPU idles here, as a halted CPU would. */
		pthread_mutex_lock(&vcpu->vm->lock);
		if (!opts->exit_status)
			opts->exit_status = port_value(data, size);
		done = ++opts->nr_done == vcpu->vm->nr_vcpus;
		pthread_mutex_unlock(&vcpu->vm->lock);
		if (done)
			vm_stop(vcpu->vm, VM_EXIT_POWEROFF);
		while (!vm_stopping(vcpu->vm))
			vcpu_sleep(vcpu, 1000000000ULL);
		return 0;
	}
	return -EINVAL;
}

int payload_ports_register(struct vm *vm)
{
	return vm_pio_register(vm, PAYLOAD_PORT_HELLO, PAYLOAD_PORT_EXIT - PAYLOAD_PORT_HELLO + 1,
			       payload_port, vm->boot_data);
}
