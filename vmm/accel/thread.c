// SPDX-License-Identifier: GPL-2.0
/*
 * The thread backend: each vCPU is its own host thread running the payload kinds as host code
 * (thread_cpu.c), for machines without /dev/kvm. What the layers above rely on is kept:
 *
 *  - exits go through vcpu->run as KVM writes them (port I/O for the payload ports), so the
 *    vCPU loop dispatches them to the same handlers;
 *  - kicks: the work loop polls run->immediate_exit (and vcpu->exit_word, which KVM cannot
 *    watch: host mode's grant page entry) after every work unit (about 1 us), and a
 *    halt waits in ppoll() with every signal blocked until the wait begins, so a kick (or the
 *    runtime's slice timer) ends it at once and none is lost in between;
 *  - a halted vCPU sleeps in the kernel with its CPU clock standing still, the state in which
 *    the runtime finds a halted KVM vCPU where KVM has no "blocking" statistic;
 *  - steal time: MSR_KVM_STEAL_TIME is accepted, and at every entry the area gets what KVM's
 *    record_steal_time() puts there (the thread's run-queue wait, the preempted flag cleared),
 *    so the runtime's filling for parked vCPUs (sched/runtime/rt_steal.c) works unchanged.
 *
 * No guest CPU state exists: boot methods that need one (Linux) and the kinds that test the
 * CPU (probe, fault, emufail) are refused at vm_create().
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/kvm_para.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "thread.h"
#include "util/time.h"
#include "vmm/accel.h"

bool thread_kicked(const struct thread_vcpu *t)
{
	const uint32_t *w = __atomic_load_n(&t->vcpu->exit_word, __ATOMIC_ACQUIRE);

	return __atomic_load_n(&t->run.immediate_exit, __ATOMIC_RELAXED) ||
	       (w && __atomic_load_n(w, __ATOMIC_RELAXED) != t->vcpu->exit_val);
}

int thread_wait(struct thread_vcpu *t, uint64_t deadline)
{
	struct timespec ts, *tp;
	sigset_t all, open;
	uint64_t now;
	int ret = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &open);
	for (;;) {
		if (thread_kicked(t)) {
			ret = -EINTR;
			break;
		}
		now = time_mono_ns();
		if (now >= deadline)
			break;
		tp = NULL;
		if (deadline != UINT64_MAX) {
			ts = time_ns_to_ts(deadline - now);
			tp = &ts;
		}
		/* The thread's own mask while asleep: a pending kick ends the wait at once. */
		if (ppoll(NULL, 0, tp, &open) < 0 && errno == EINTR) {
			ret = -EINTR;
			break;
		}
	}
	pthread_sigmask(SIG_SETMASK, &open, NULL);
	return ret;
}

int thread_out(struct thread_vcpu *t, uint16_t port, uint32_t value)
{
	struct kvm_run *run = &t->run;

	run->exit_reason = KVM_EXIT_IO;
	run->io.direction = KVM_EXIT_IO_OUT;
	run->io.size = sizeof(value);
	run->io.port = port;
	run->io.count = 1;
	run->io.data_offset = offsetof(struct thread_vcpu, io_data) - offsetof(struct thread_vcpu, run);
	memcpy(t->io_data, &value, sizeof(value));
	return 0;
}

/* The thread's run-queue wait so far (the second field of schedstat), as KVM reads it from
 * sched_info; the last value if the kernel does not say. */
static uint64_t thread_run_delay(struct thread_vcpu *t)
{
	unsigned long long run, wait;
	char buf[96];
	ssize_t n;

	if (t->schedstat_fd < 0)
		t->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	n = t->schedstat_fd < 0 ? -1 : pread(t->schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return t->last_run_delay;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? wait : t->last_run_delay;
}

/* What KVM's record_steal_time() does before an entry. */
static void thread_steal_update(struct thread_vcpu *t)
{
	struct kvm_steal_time *st;
	uint64_t delay;
	uint32_t v;

	if (!(t->steal_msr & KVM_MSR_ENABLED))
		return;
	st = vm_gpa(t->vcpu->vm, t->steal_msr & KVM_STEAL_VALID_BITS, sizeof(*st));
	if (!st)
		return;
	delay = thread_run_delay(t);
	__atomic_exchange_n(&st->preempted, 0, __ATOMIC_SEQ_CST);
	v = __atomic_load_n(&st->version, __ATOMIC_RELAXED);
	v += (v & 1) + 1;
	__atomic_store_n(&st->version, v, __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->steal, st->steal + (delay - t->last_run_delay), __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->version, v + 1, __ATOMIC_SEQ_CST);
	t->last_run_delay = delay;
}

static int thread_vm_init(struct vm *vm)
{
	/* The thread CPU knows the payload ABI only (work pages, ports). */
	return vm->boot == &payload_boot_ops ? 0 : -ENOTSUP;
}

static void thread_vm_exit(struct vm *vm __attribute__((unused)))
{
}

static int thread_vcpu_init(struct vcpu *vcpu)
{
	struct thread_vcpu *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	t->vcpu = vcpu;
	t->stage = TS_HELLO;
	t->schedstat_fd = -1;
	vcpu->accel_data = t;
	vcpu->run = &t->run;
	/* What the exit handler may read: the run and the port data after it (thread_out()). */
	vcpu->run_size = offsetof(struct thread_vcpu, io_data) + sizeof(t->io_data) -
			 offsetof(struct thread_vcpu, run);
	return 0;
}

static void thread_vcpu_exit(struct vcpu *vcpu)
{
	struct thread_vcpu *t = vcpu->accel_data;

	if (t && t->schedstat_fd >= 0)
		close(t->schedstat_fd);
	free(t);
	vcpu->accel_data = NULL;
	vcpu->run = NULL;
	vcpu->run_size = 0;
}

static int thread_vcpu_run(struct vcpu *vcpu)
{
	struct thread_vcpu *t = vcpu->accel_data;

	if (thread_kicked(t))
		return -EINTR;
	thread_steal_update(t);
	return thread_cpu_run(t);
}

static int thread_set_msr(struct vcpu *vcpu, uint32_t index, uint64_t data)
{
	struct thread_vcpu *t = vcpu->accel_data;

	/* As KVM: the area is 64-byte aligned (the reserved bits are the low ones). */
	if (index != MSR_KVM_STEAL_TIME || (data & KVM_STEAL_RESERVED_MASK))
		return -EINVAL;
	t->steal_msr = data;
	return 0;
}

static int thread_get_msr(struct vcpu *vcpu, uint32_t index, uint64_t *data)
{
	struct thread_vcpu *t = vcpu->accel_data;

	if (index != MSR_KVM_STEAL_TIME)
		return -EINVAL;
	*data = t->steal_msr;
	return 0;
}

const struct accel_ops accel_thread_ops = {
	.name = "thread",
	.cpu = false,
	.vm_init = thread_vm_init,
	.vm_exit = thread_vm_exit,
	.vcpu_init = thread_vcpu_init,
	.vcpu_exit = thread_vcpu_exit,
	.vcpu_run = thread_vcpu_run,
	.set_msr = thread_set_msr,
	.get_msr = thread_get_msr,
};
