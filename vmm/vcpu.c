// SPDX-License-Identifier: GPL-2.0
/*
 * vCPU threads: creation, the run loop with the scheduler hook points, and the exit
 * dispatcher. The backend (include/vmm/accel.h) runs the vCPU until an exit; the loop does
 * not know which one. Every exit the VMM does not expect ends the VM with a message and a
 * register dump; nothing a guest does can take the VMM down with it.
 */
#include <errno.h>
#include <linux/kvm.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util/time.h"
#include "vmm/ioport.h"
#include "vmm/kick.h"
#include "vmm/vcpu.h"
#include "vmm/vcpu_sched.h"

uint64_t vcpu_cpu_ns(const struct vcpu *vcpu)
{
	clockid_t cid;
	uint64_t ns;

	if (!vcpu->thread_started || vcpu->ended)
		return vcpu->stats.cpu_ns;
	if (pthread_getcpuclockid(vcpu->thread, &cid) || time_clock_ns(cid, &ns))
		return vcpu->stats.cpu_ns;	/* the thread just ended */
	return ns;
}

int vcpu_create(struct vm *vm, struct vcpu *vcpu, unsigned int id)
{
	vcpu->vm = vm;
	vcpu->id = id;
	return vm->aops->vcpu_init(vcpu);
}

void vcpu_destroy(struct vcpu *vcpu)
{
	if (vcpu->vm)
		vcpu->vm->aops->vcpu_exit(vcpu);
}

int vcpu_set_msr(struct vcpu *vcpu, uint32_t index, uint64_t data)
{
	return vcpu->vm->aops->set_msr(vcpu, index, data);
}

int vcpu_get_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data)
{
	return vcpu->vm->aops->get_msr(vcpu, index, data);
}

void vcpu_sleep(struct vcpu *vcpu, uint64_t ns)
{
	struct vm *vm = vcpu->vm;
	struct timespec end;

	vcpu->stats.sleeps++;
	vcpu->stats.sleep_ns += ns;
	if (vm->sched && vm->sched->sleep) {
		vm->sched->sleep(vcpu, ns);
		return;
	}
	end = time_ns_to_ts(time_mono_ns() + ns);
	/* A condition wait, not nanosleep: vm_stop()/vm_pause() broadcast, so no wake-up is
	 * lost between the flag check and the sleep. */
	pthread_mutex_lock(&vm->lock);
	while (!vm_stopping(vm) && !vm->pause_req)
		if (pthread_cond_timedwait(&vm->cond, &vm->lock, &end) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&vm->lock);
}

static void vcpu_park(struct vcpu *vcpu)
{
	struct vm *vm = vcpu->vm;

	pthread_mutex_lock(&vm->lock);
	vm->nr_parked++;
	vcpu->paused = 1;
	pthread_cond_broadcast(&vm->cond);
	while (vm->pause_req && !vm_stopping(vm))
		pthread_cond_wait(&vm->cond, &vm->lock);
	vcpu->paused = 0;
	vm->nr_parked--;
	pthread_mutex_unlock(&vm->lock);
}

static void vcpu_fail(struct vcpu *vcpu, const char *what)
{
	fprintf(stderr, "vsched: vcpu%u: %s; stopping the VM\n", vcpu->id, what);
	if (vcpu->vm->aops->cpu)
		vcpu_dump(vcpu);
	vm_stop(vcpu->vm, VM_EXIT_ERROR);
}

/*
 * KVM puts the data of a port exit in the kvm_run mapping (the page after the struct) and
 * keeps count * size within it; the guest picks port, size and, with rep ins/outs, count.
 * Checked anyway, as every exit field is, so that no backend's slip reads or writes outside
 * the mapping: a malformed exit ends the VM.
 */
static bool vcpu_io_valid(const struct vcpu *vcpu)
{
	const struct kvm_run *run = vcpu->run;
	uint64_t len = (uint64_t)run->io.count * run->io.size;

	if (run->io.size != 1 && run->io.size != 2 && run->io.size != 4)
		return false;
	return run->io.data_offset >= sizeof(*run) && run->io.data_offset <= vcpu->run_size &&
	       len <= vcpu->run_size - run->io.data_offset;
}

static void vcpu_handle_io(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	uint8_t *data = (uint8_t *)run + run->io.data_offset;
	bool out = run->io.direction == KVM_EXIT_IO_OUT;
	char msg[96];
	uint32_t i;

	vcpu->stats.exits_io++;
	if (!vcpu_io_valid(vcpu)) {
		snprintf(msg, sizeof(msg), "malformed port exit: port %#x size %u count %u at %llu",
			 run->io.port, run->io.size, run->io.count,
			 (unsigned long long)run->io.data_offset);
		vcpu_fail(vcpu, msg);
		return;
	}
	/* String I/O (rep ins/outs) arrives as count back-to-back elements. */
	for (i = 0; i < run->io.count; i++)
		ioport_dispatch(vcpu, run->io.port, data + i * run->io.size, run->io.size, out);
}

static void vcpu_handle_mmio(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	char msg[96];

	vcpu->stats.exits_mmio++;
	/* KVM splits accesses into pieces of at most 8 bytes, the size of mmio.data. */
	if (!run->mmio.len || run->mmio.len > sizeof(run->mmio.data)) {
		snprintf(msg, sizeof(msg), "malformed MMIO exit: %#llx length %u",
			 (unsigned long long)run->mmio.phys_addr, run->mmio.len);
		vcpu_fail(vcpu, msg);
		return;
	}
	mmio_dispatch(vcpu, run->mmio.phys_addr, run->mmio.data, run->mmio.len,
		      run->mmio.is_write);
}

static void vcpu_handle_system_event(struct vcpu *vcpu)
{
	switch (vcpu->run->system_event.type) {
	case KVM_SYSTEM_EVENT_SHUTDOWN:
		vm_stop(vcpu->vm, VM_EXIT_POWEROFF);
		break;
	case KVM_SYSTEM_EVENT_RESET:
		vm_stop(vcpu->vm, VM_EXIT_RESET);
		break;
	default:
		fprintf(stderr, "vsched: vcpu%u: system event %u\n", vcpu->id,
			vcpu->run->system_event.type);
		vm_stop(vcpu->vm, VM_EXIT_ERROR);
		break;
	}
}

static void vcpu_handle_internal_error(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	char msg[160];
	uint32_t i;
	int n;

	if (run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION)
		n = snprintf(msg, sizeof(msg), "emulation failure (KVM cannot emulate the instruction)");
	else
		n = snprintf(msg, sizeof(msg), "KVM internal error, suberror %u",
			     run->internal.suberror);
	for (i = 0; i < run->internal.ndata && i < 4 && n > 0 && n < (int)sizeof(msg); i++)
		n += snprintf(msg + n, sizeof(msg) - n, " %#llx",
			      (unsigned long long)run->internal.data[i]);
	vcpu_fail(vcpu, msg);
}

void vcpu_exit_dispatch(struct vcpu *vcpu)
{
	struct kvm_run *run = vcpu->run;
	char msg[96];

	switch (run->exit_reason) {
	case KVM_EXIT_IO:
		vcpu_handle_io(vcpu);
		return;
	case KVM_EXIT_MMIO:
		vcpu_handle_mmio(vcpu);
		return;
	case KVM_EXIT_INTR:
		vcpu->stats.exits_intr++;
		return;
	}
	vcpu->stats.exits_other++;
	switch (run->exit_reason) {
	case KVM_EXIT_HLT:
		/* Only without an in-kernel LAPIC, which every VM here has: nothing could wake
		 * this vCPU again, so the guest has stopped for good. */
		if (vcpu->vm->verbose)
			fprintf(stderr, "vsched: vcpu%u halted\n", vcpu->id);
		vm_stop(vcpu->vm, VM_EXIT_POWEROFF);
		break;
	case KVM_EXIT_SHUTDOWN:
		if (!vcpu->vm->boot->shutdown_is_reset) {
			fprintf(stderr, "vsched: vcpu%u: triple fault\n", vcpu->id);
			if (vcpu->vm->aops->cpu)	/* registers to dump: as vcpu_fail() */
				vcpu_dump(vcpu);
		}
		vm_stop(vcpu->vm, VM_EXIT_RESET);
		break;
	case KVM_EXIT_SYSTEM_EVENT:
		vcpu_handle_system_event(vcpu);
		break;
	case KVM_EXIT_INTERNAL_ERROR:
		if (run->internal.suberror == KVM_INTERNAL_ERROR_EMULATION &&
		    vcpu->vm->boot->emulation_failure && !vcpu->vm->boot->emulation_failure(vcpu))
			break;
		vcpu_handle_internal_error(vcpu);
		break;
	case KVM_EXIT_FAIL_ENTRY:
		snprintf(msg, sizeof(msg), "VM entry failed, hardware reason %#llx",
			 (unsigned long long)run->fail_entry.hardware_entry_failure_reason);
		vcpu_fail(vcpu, msg);
		break;
	default:
		snprintf(msg, sizeof(msg), "unexpected exit reason %u", run->exit_reason);
		vcpu_fail(vcpu, msg);
		break;
	}
}

void *vcpu_thread(void *arg)
{
	struct vcpu *vcpu = arg;
	struct vm *vm = vcpu->vm;
	const struct vcpu_sched_ops *sched = vm->sched;
	uint64_t last_cpu = 0, now;
	char name[16];
	sigset_t set;
	int ret;

	snprintf(name, sizeof(name), "vcpu%u", vcpu->id);
	pthread_setname_np(pthread_self(), name);
	__atomic_store_n(&vcpu->tid, gettid(), __ATOMIC_SEQ_CST);
	vcpu_kick_thread(vcpu);
	sigemptyset(&set);
	sigaddset(&set, VCPU_KICK_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	if (sched && sched->thread_start)
		sched->thread_start(vcpu);
	if (sched)
		last_cpu = time_thread_ns();

	while (!vm_stopping(vm)) {
		if (vm_pausing(vm)) {
			vcpu_park(vcpu);
			continue;
		}
		/* Hook: wait for a lane. */
		if (sched && sched->enter && sched->enter(vcpu))
			continue;
		if (!vcpu->stats.first_entry_ns)
			vcpu->stats.first_entry_ns = time_mono_ns();
		ret = vm->aops->vcpu_run(vcpu);
		vcpu_kick_clear(vcpu);
		vcpu->nr_exits++;
		/* Hook: charge what the thread really got. */
		if (sched && sched->charge) {
			now = time_thread_ns();
			sched->charge(vcpu, now - last_cpu);
			last_cpu = now;
		}
		if (ret == -EINTR || ret == -EAGAIN) {
			vcpu->stats.exits_intr++;
			continue;
		}
		if (ret < 0) {
			fprintf(stderr, "vsched: vcpu%u: %s backend: %s\n", vcpu->id,
				vm->aops->name, strerror(-ret));
			vm_stop(vm, VM_EXIT_ERROR);
			break;
		}
		vcpu_exit_dispatch(vcpu);
	}

	vcpu->stats.cpu_ns = time_thread_ns();
	__atomic_store_n(&vcpu->ended, 1, __ATOMIC_SEQ_CST);
	if (sched && sched->thread_exit)
		sched->thread_exit(vcpu);
	return NULL;
}
