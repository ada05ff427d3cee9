// SPDX-License-Identifier: GPL-2.0
/*
 * The thread backend's "CPU": the payload kinds of vmm/payload/guest/payload.c as host code,
 * driven by the same work page (the VMM fills kind and arguments, the vCPU counts units with
 * the same work_unit()) and leaving through the same ports. Unlike the guest, host code cannot
 * be stopped at any instruction and resumed later, so the program counter is explicit: a stage
 * and, within a kind, how far it got (the busy phase's deadline, io's units since its last
 * exit). A kick is noticed after the current work unit.
 *
 *	hog		work units until kicked
 *	duty:B/S	B us of units (wall clock), then the sleep port with S
 *	halt-duty:B/S	B us of units, then S us blocked in the kernel, as HLT inside KVM_RUN
 *	io:N		N units, then the io port with the unit count
 *	count:N		units up to N, then the exit port with status 0
 *	steal		a hog that reads its steal time and the next vCPU's preempted flag
 *
 * An unknown kind ends with status 2, as payload_main() does. The kinds that test the CPU
 * (probe, fault, emufail) never get here: vm_create() refuses them.
 */
#include <errno.h>
#include <linux/kvm_para.h>

#include "../payload/guest/work.h"
#include "thread.h"
#include "util/time.h"

/* Units for us microseconds of wall-clock time; -EINTR if kicked before the end. */
static int thread_busy(struct thread_vcpu *t, uint64_t us)
{
	if (!t->deadline)
		t->deadline = time_mono_ns() + us * 1000;
	do {
		work_unit(t->page);
		if (thread_kicked(t))
			return -EINTR;
	} while (time_mono_ns() < t->deadline);
	t->deadline = 0;
	return 0;
}

/* As Linux's kvm_steal_clock(): an odd or changed version means a write was under way. */
static uint64_t thread_steal_read(const struct kvm_steal_time *st)
{
	uint32_t v;
	uint64_t s;

	do {
		v = __atomic_load_n(&st->version, __ATOMIC_ACQUIRE);
		s = __atomic_load_n(&st->steal, __ATOMIC_ACQUIRE);
	} while ((v & 1) || v != __atomic_load_n(&st->version, __ATOMIC_ACQUIRE));
	return s;
}

static int thread_steal_loop(struct thread_vcpu *t)
{
	struct payload_page *p = t->page;
	struct vm *vm = t->vcpu->vm;
	const struct kvm_steal_time *self = p->steal_gpa ?
		vm_gpa(vm, p->steal_gpa, sizeof(*self)) : NULL;
	const struct kvm_steal_time *peer = p->peer_steal_gpa ?
		vm_gpa(vm, p->peer_steal_gpa, sizeof(*peer)) : NULL;

	do {
		work_unit(p);
		if (self)
			p->steal_seen = thread_steal_read(self);
		if (peer && (__atomic_load_n(&peer->preempted, __ATOMIC_RELAXED) & 1))
			p->peer_preempted = p->peer_preempted + 1;
	} while (!thread_kicked(t));
	return -EINTR;
}

/* The kind's loop from where it stopped: 0 or -errno to return from the run, 1 to go on. */
static int thread_work(struct thread_vcpu *t)
{
	struct payload_page *p = t->page;
	int ret;

	switch (p->kind) {
	case PAYLOAD_HOG:
		do
			work_unit(p);
		while (!thread_kicked(t));
		return -EINTR;
	case PAYLOAD_DUTY:
		ret = thread_busy(t, p->arg[0]);
		return ret ? ret : thread_out(t, PAYLOAD_PORT_SLEEP, (uint32_t)p->arg[1]);
	case PAYLOAD_HALT_DUTY:
		ret = thread_busy(t, p->arg[0]);
		if (ret)
			return ret;
		t->deadline = time_mono_ns() + p->arg[1] * 1000;
		t->stage = TS_HALT;
		return 1;
	case PAYLOAD_IO:
		while (t->units < p->arg[0]) {
			work_unit(p);
			t->units++;
			if (thread_kicked(t))
				return -EINTR;
		}
		t->units = 0;
		return thread_out(t, PAYLOAD_PORT_IO, (uint32_t)p->units);
	case PAYLOAD_COUNT:
		while (p->units < p->arg[0]) {
			work_unit(p);
			if (thread_kicked(t))
				return -EINTR;
		}
		t->status = 0;
		break;
	case PAYLOAD_STEAL:
		return thread_steal_loop(t);
	default:
		t->status = 2;
		break;
	}
	t->stage = TS_EXIT;
	return 1;
}

int thread_cpu_run(struct thread_vcpu *t)
{
	struct vcpu *vcpu = t->vcpu;
	int ret;

	for (;;) {
		switch (t->stage) {
		case TS_HELLO:
			/* The work page the guest would get in rdi. */
			t->page = vm_gpa(vcpu->vm, PAYLOAD_VCPU_AREA +
					 (uint64_t)vcpu->id * PAYLOAD_VCPU_STRIDE, sizeof(*t->page));
			if (!t->page || t->page->magic != PAYLOAD_PAGE_MAGIC)
				return -ENOEXEC;
			t->stage = TS_WORK;
			return thread_out(t, PAYLOAD_PORT_HELLO, 0);
		case TS_WORK:
			ret = thread_work(t);
			if (ret <= 0)
				return ret;
			break;
		case TS_HALT:
			ret = thread_wait(t, t->deadline);
			if (ret)
				return ret;
			t->deadline = 0;
			t->stage = TS_WORK;
			break;
		case TS_EXIT:
			t->stage = TS_DONE;
			return thread_out(t, PAYLOAD_PORT_EXIT, t->status);
		case TS_DONE:
			return thread_wait(t, UINT64_MAX);
		}
	}
}
