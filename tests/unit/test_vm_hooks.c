// SPDX-License-Identifier: GPL-2.0
/*
 * The VM core on each backend: scheduler hooks are called where vm.h says, pause parks every
 * vCPU, resume lets them go, a kick takes one vCPU out of its run. The KVM twins skip visibly
 * without /dev/kvm. What the thread backend refuses, and its one MSR.
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/kvm_para.h>

#include "test.h"
#include "vmm/kick.h"
#include "vmm/linux.h"
#include "vmm/payload.h"
#include "vmm/vcpu.h"

struct hook_counts {
	atomic_uint starts, exits;
	atomic_ulong enters, charges, charged_ns, sleeps, wakes;
};

static struct hook_counts hc;

static void h_start(struct vcpu *v)
{
	CU_ASSERT_NOT_EQUAL(v->tid, 0);
	hc.starts++;
}

static int h_enter(struct vcpu *v)
{
	(void)v;
	hc.enters++;
	return 0;
}

static void h_charge(struct vcpu *v, uint64_t ns)
{
	(void)v;
	hc.charges++;
	hc.charged_ns += ns;
}

static void h_sleep(struct vcpu *v, uint64_t ns)
{
	struct timespec ts = { 0, (long)(ns < 1000000 ? ns : 1000000) };

	(void)v;
	hc.sleeps++;
	nanosleep(&ts, NULL);
}

static void h_wake(struct vcpu *v)
{
	(void)v;
	hc.wakes++;
}

static void h_exit(struct vcpu *v)
{
	(void)v;
	hc.exits++;
}

static const struct vcpu_sched_ops hooks = {
	.thread_start = h_start, .enter = h_enter, .charge = h_charge,
	.sleep = h_sleep, .wake = h_wake, .thread_exit = h_exit,
};

static void msleep(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

static void test_vm_hooks_pause_kick(enum vm_accel accel)
{
	static struct payload_opts opts;
	struct vm vm = { .name = "t", .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = 2,
			 .accel = accel, .boot = &payload_boot_ops, .boot_data = &opts,
			 .sched = &hooks };
	uint64_t u0, u1, intr, cpu;

	if (!test_accel_usable(accel))
		return;
	memset(&opts, 0, sizeof(opts));
	memset(&hc, 0, sizeof(hc));
	CU_ASSERT_EQUAL(payload_parse_assign("0=hog,1=duty:500/500", 2, opts.spec), 0);
	CU_ASSERT_EQUAL_FATAL(vm_create(&vm), 0);
	CU_ASSERT_EQUAL(vm.accel, accel);
	CU_ASSERT_EQUAL(vm_set_halt_poll(&vm, 0), accel == VM_ACCEL_KVM ? 0 : -ENOTSUP);
	CU_ASSERT_EQUAL_FATAL(vm_start(&vm), 0);
	msleep(200);
	CU_ASSERT(*vm.vcpus[0].work_units > 0);
	CU_ASSERT(*vm.vcpus[1].work_units > 0);

	/* Paused: both vCPUs parked outside KVM_RUN, no work is done. */
	vm_pause(&vm);
	CU_ASSERT_EQUAL(vm.nr_parked, 2);
	CU_ASSERT(vm.vcpus[0].paused && vm.vcpus[1].paused);
	u0 = *vm.vcpus[0].work_units;
	msleep(50);
	CU_ASSERT_EQUAL(*vm.vcpus[0].work_units, u0);
	vm_resume(&vm);
	msleep(150);
	CU_ASSERT(*vm.vcpus[0].work_units > u0);

	/* A kick takes the hog out of its run (EINTR) and it goes back in through enter(). */
	intr = vm.vcpus[0].stats.exits_intr;
	u1 = hc.enters;
	vcpu_kick(&vm.vcpus[0]);
	msleep(150);
	CU_ASSERT(vm.vcpus[0].stats.exits_intr > intr);
	CU_ASSERT(hc.enters > u1);

	vm_stop(&vm, VM_EXIT_STOPPED);
	vm_join(&vm);
	CU_ASSERT_EQUAL(vm.exit_reason, VM_EXIT_STOPPED);
	CU_ASSERT_EQUAL(hc.starts, 2);
	CU_ASSERT_EQUAL(hc.exits, 2);
	CU_ASSERT(hc.wakes >= 2);
	/* The duty vCPU slept through the hook, not the core's timed wait. */
	CU_ASSERT(hc.sleeps > 0);
	CU_ASSERT_EQUAL(hc.sleeps, vm.vcpus[1].stats.sleeps);
	/* One charge per KVM_RUN return; charged time never exceeds the threads' CPU time. */
	CU_ASSERT_EQUAL(hc.charges, vm.vcpus[0].nr_exits + vm.vcpus[1].nr_exits);
	cpu = vm.vcpus[0].stats.cpu_ns + vm.vcpus[1].stats.cpu_ns;
	CU_ASSERT(hc.charged_ns > 0 && hc.charged_ns <= cpu);
	vm_destroy(&vm);
}

static void test_vm_create_rejects_bad_config(enum vm_accel accel)
{
	static struct payload_opts opts;
	struct vm vm = { .name = "t", .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = 0,
			 .accel = accel, .boot = &payload_boot_ops, .boot_data = &opts };

	if (!test_accel_usable(accel))
		return;
	CU_ASSERT_EQUAL(vm_create(&vm), -EINVAL);
	vm_destroy(&vm);
	/* A vCPU without a payload is refused before anything runs. */
	memset(&opts, 0, sizeof(opts));
	vm = (struct vm){ .name = "t", .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = 1,
			  .accel = accel, .boot = &payload_boot_ops, .boot_data = &opts };
	CU_ASSERT_EQUAL(vm_create(&vm), -EINVAL);
	vm_destroy(&vm);
	/* RAM whose mapping (the 32-bit gap added) passes 2^64 is refused, not wrapped. */
	memset(&opts, 0, sizeof(opts));
	CU_ASSERT_EQUAL(payload_parse_assign("hog", 1, opts.spec), 0);
	vm = (struct vm){ .name = "t", .mem_size = UINT64_MAX - 1023, .nr_vcpus = 1,
			  .accel = accel, .boot = &payload_boot_ops, .boot_data = &opts };
	CU_ASSERT_EQUAL(vm_create(&vm), -ENOMEM);
	vm_destroy(&vm);
}

/* No guest CPU: Linux and the kinds that test the CPU are refused before anything runs. */
static void test_thread_refuses_cpu_work(void)
{
	static const char *const kinds[] = { "probe", "fault", "emufail" };
	static struct payload_opts opts;
	struct linux_opts lx = { .kernel = "/nonexistent" };
	struct vm vm = { .name = "t", .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = 1,
			 .accel = VM_ACCEL_THREAD, .boot = &linux_boot_ops, .boot_data = &lx };
	unsigned int i;

	CU_ASSERT_EQUAL(vm_create(&vm), -ENOTSUP);
	vm_destroy(&vm);
	for (i = 0; i < 3; i++) {
		memset(&opts, 0, sizeof(opts));
		CU_ASSERT_EQUAL(payload_parse_assign("hog", 2, opts.spec), 0);
		CU_ASSERT_EQUAL(payload_parse_kind(kinds[i], &opts.spec[1]), 0);
		CU_ASSERT_TRUE(payload_kind_needs_cpu(opts.spec[1].kind));
		vm = (struct vm){ .name = "t", .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = 2,
				  .accel = VM_ACCEL_THREAD, .boot = &payload_boot_ops,
				  .boot_data = &opts };
		CU_ASSERT_EQUAL(vm_create(&vm), -ENOTSUP);
		CU_ASSERT_PTR_NULL(vm.vcpus);
		vm_destroy(&vm);
	}
	CU_ASSERT_FALSE(payload_kind_needs_cpu(PAYLOAD_HALT_DUTY));
}

/* The thread backend keeps MSR_KVM_STEAL_TIME as KVM checks it, and knows no other MSR. */
static void test_thread_steal_msr(void)
{
	static struct payload_opts opts;
	struct vm vm = { .name = "t", .mem_size = PAYLOAD_DEFAULT_MEM, .nr_vcpus = 1,
			 .accel = VM_ACCEL_THREAD, .boot = &payload_boot_ops, .boot_data = &opts };
	uint64_t v = 7;

	memset(&opts, 0, sizeof(opts));
	CU_ASSERT_EQUAL(payload_parse_assign("steal", 1, opts.spec), 0);
	CU_ASSERT_EQUAL_FATAL(vm_create(&vm), 0);
	/* The payload boot enabled the area in the work page, as a guest kernel would. */
	CU_ASSERT_EQUAL(vcpu_get_msr(&vm.vcpus[0], MSR_KVM_STEAL_TIME, &v), 0);
	CU_ASSERT_EQUAL(v, (PAYLOAD_VCPU_AREA + PAYLOAD_STEAL_OFFSET) | KVM_MSR_ENABLED);
	CU_ASSERT_EQUAL(vcpu_set_msr(&vm.vcpus[0], MSR_KVM_STEAL_TIME, 0x2020 | KVM_MSR_ENABLED),
			-EINVAL);
	CU_ASSERT_EQUAL(vcpu_set_msr(&vm.vcpus[0], MSR_KVM_SYSTEM_TIME_NEW, 0x2001), -EINVAL);
	CU_ASSERT_EQUAL(vcpu_get_msr(&vm.vcpus[0], MSR_KVM_SYSTEM_TIME_NEW, &v), -EINVAL);
	CU_ASSERT_EQUAL(vcpu_get_msr(&vm.vcpus[0], MSR_KVM_STEAL_TIME, &v), 0);
	CU_ASSERT_EQUAL(v, (PAYLOAD_VCPU_AREA + PAYLOAD_STEAL_OFFSET) | KVM_MSR_ENABLED);
	CU_ASSERT_EQUAL(vcpu_set_msr(&vm.vcpus[0], MSR_KVM_STEAL_TIME, 0), 0);
	vm_destroy(&vm);
}

ACCEL_TWINS(test_vm_hooks_pause_kick)
ACCEL_TWINS(test_vm_create_rejects_bad_config)

static CU_TestInfo vm_hook_tests[] = {
	ACCEL_TESTS("scheduler hooks, pause/resume, kick", test_vm_hooks_pause_kick),
	ACCEL_TESTS("bad configuration refused", test_vm_create_rejects_bad_config),
	{ "thread backend: no Linux, no CPU-testing kinds", test_thread_refuses_cpu_work },
	{ "thread backend: MSR_KVM_STEAL_TIME only", test_thread_steal_msr },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("vmm/vm", vm_hook_tests)
