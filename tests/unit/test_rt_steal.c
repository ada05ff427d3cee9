// SPDX-License-Identifier: GPL-2.0
/*
 * Steal time for parked vCPUs (sched/runtime/rt_steal.c): which MSR values name an area the
 * runtime may write, and how a parked interval is added. White-box, on a fake VM's memory;
 * t-runtime-steal checks what a real guest reads.
 */
#include <linux/kvm_para.h>
#include <stdlib.h>
#include <string.h>

#include "../../sched/runtime/rt.h"
#include "test.h"
#include "vmm/vm.h"

#define RAM 0x10000ULL

static void test_steal_area_checked(void)
{
	struct vm vm;
	char *ram = aligned_alloc(4096, RAM);

	CU_ASSERT_PTR_NOT_NULL_FATAL(ram);
	memset(&vm, 0, sizeof(vm));
	vm.mem = ram;
	vm.mem_size = RAM;
	CU_ASSERT_PTR_EQUAL(rt_steal_area(&vm, 0x1000 | KVM_MSR_ENABLED), ram + 0x1000);
	CU_ASSERT_PTR_NULL(rt_steal_area(&vm, 0x1000));	/* disabled */
	CU_ASSERT_PTR_NULL(rt_steal_area(&vm, 0x1000 | KVM_MSR_ENABLED | 0x2));	/* reserved */
	/* The last 64 bytes of RAM fit; one more line does not; nor does an address that wraps. */
	CU_ASSERT_PTR_EQUAL(rt_steal_area(&vm, (RAM - 64) | KVM_MSR_ENABLED), ram + RAM - 64);
	CU_ASSERT_PTR_NULL(rt_steal_area(&vm, RAM | KVM_MSR_ENABLED));
	CU_ASSERT_PTR_NULL(rt_steal_area(&vm, 0xffffffffffffffc1ULL));
	free(ram);
}

static void test_steal_unpark_adds_wait(void)
{
	struct kvm_steal_time st = { .steal = 100, .version = 4 };
	struct vcpu vcpu = { 0 };
	struct rt_vcpu rv = { .vcpu = &vcpu };

	rv.steal_area = &st;
	rv.parked_at = 1000;
	rt_steal_unpark(&rv, 1500);
	CU_ASSERT_EQUAL(st.steal, 600);
	CU_ASSERT_EQUAL(st.version, 6);	/* odd during the write, even after */
	CU_ASSERT_EQUAL(vcpu.stats.steal_ns, 500);
	CU_ASSERT_PTR_NULL(rv.steal_area);
	rt_steal_unpark(&rv, 9000);	/* not parked: nothing */
	CU_ASSERT_EQUAL(st.steal, 600);
	CU_ASSERT_EQUAL(st.version, 6);

	/* An odd version is junk (as KVM treats it); the end before the start adds nothing. */
	st.version = 7;
	rv.steal_area = &st;
	rv.parked_at = 2000;
	rt_steal_unpark(&rv, 1999);
	CU_ASSERT_EQUAL(st.steal, 600);
	CU_ASSERT_EQUAL(st.version, 10);
}

static CU_TestInfo rt_steal_tests[] = {
	{ "only an enabled, valid steal-time area in RAM is used", test_steal_area_checked },
	{ "a parked interval is added to steal, version odd around it", test_steal_unpark_adds_wait },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/steal", rt_steal_tests);
