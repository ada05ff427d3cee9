// SPDX-License-Identifier: GPL-2.0
/* Port/MMIO dispatch on a bare struct vm: no KVM needed. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "test.h"
#include "vmm/ioport.h"

struct seen {
	unsigned int calls;
	uint64_t addr;
	uint32_t val;
	bool write;
};

static int pio_record(struct vcpu *vcpu, uint16_t port, void *data, unsigned int size,
		      bool is_write, void *opaque)
{
	struct seen *s = opaque;

	(void)vcpu;
	s->calls++;
	s->addr = port;
	s->write = is_write;
	if (is_write)
		memcpy(&s->val, data, size);
	else
		memset(data, 0x42, size);
	return 0;
}

static int mmio_fail(struct vcpu *vcpu, uint64_t addr, void *data, unsigned int size,
		     bool is_write, void *opaque)
{
	(void)vcpu, (void)addr, (void)data, (void)size, (void)is_write, (void)opaque;
	return -EIO;
}

static void test_ioport_register_and_dispatch(void)
{
	struct vm vm = { 0 };
	struct vcpu v = { .vm = &vm };
	struct seen a = { 0 }, b = { 0 };
	uint32_t val = 0x1234;
	uint8_t byte = 0;

	CU_ASSERT_EQUAL(vm_pio_register(&vm, 0x3f8, 8, pio_record, &a), 0);
	CU_ASSERT_EQUAL(vm_pio_register(&vm, 0x60, 1, pio_record, &b), 0);
	CU_ASSERT_EQUAL(vm_pio_register(&vm, 0x3fc, 8, pio_record, &b), -EBUSY);
	CU_ASSERT_EQUAL(vm_pio_register(&vm, 0x3f0, 9, pio_record, &b), -EBUSY);
	CU_ASSERT_EQUAL(vm_pio_register(&vm, 0xfffe, 4, pio_record, &b), -EINVAL);
	CU_ASSERT_EQUAL(vm_pio_register(&vm, 0x70, 0, pio_record, &b), -EINVAL);
	CU_ASSERT_EQUAL(vm.nr_pio, 2);

	CU_ASSERT_EQUAL(ioport_dispatch(&v, 0x3ff, &val, 4, true), 0);
	CU_ASSERT_EQUAL(a.calls, 1);
	CU_ASSERT_EQUAL(a.addr, 0x3ff);
	CU_ASSERT_EQUAL(a.val, 0x1234);
	CU_ASSERT_EQUAL(ioport_dispatch(&v, 0x60, &byte, 1, false), 0);
	CU_ASSERT_EQUAL(byte, 0x42);
	CU_ASSERT_EQUAL(b.calls, 1);
	ioport_free(&vm);
	CU_ASSERT_EQUAL(vm.nr_pio, 0);
}

static void test_ioport_unhandled_reads_all_ones(void)
{
	struct vm vm = { 0 };
	struct vcpu v = { .vm = &vm };
	uint32_t val = 0;
	uint64_t q = 0;

	CU_ASSERT_EQUAL(ioport_dispatch(&v, 0x80, &val, 2, false), -ENOENT);
	CU_ASSERT_EQUAL(val, 0xffff);
	CU_ASSERT_EQUAL(mmio_dispatch(&v, 0xd0000000, &q, 8, false), -ENOENT);
	CU_ASSERT_EQUAL(q, ~0ULL);
	q = 5;
	CU_ASSERT_EQUAL(mmio_dispatch(&v, 0xd0000000, &q, 8, true), -ENOENT);
	CU_ASSERT_EQUAL(q, 5);
	CU_ASSERT_EQUAL(v.stats.unhandled, 3);

	/* A failing handler is reported, not fatal. */
	CU_ASSERT_EQUAL(vm_mmio_register(&vm, 0xfed00000, 0x1000, mmio_fail, NULL), 0);
	CU_ASSERT_EQUAL(mmio_dispatch(&v, 0xfed00010, &q, 4, false), -EIO);
	CU_ASSERT_EQUAL(v.stats.unhandled, 3);
	ioport_free(&vm);
}

static CU_TestInfo ioport_tests[] = {
	{ "register and dispatch", test_ioport_register_and_dispatch },
	{ "unhandled reads all-ones", test_ioport_unhandled_reads_all_ones },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("vmm/ioport", ioport_tests)
