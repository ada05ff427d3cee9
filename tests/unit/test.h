/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CUnit glue: each test file declares its suite with TEST_SUITE() and is picked up by the
 * runner without editing a shared list.
 */
#ifndef VSCHED_TESTS_TEST_H
#define VSCHED_TESTS_TEST_H

#include <sys/types.h>
#include <CUnit/CUnit.h>
#include <stdbool.h>

#include "vmm/accel.h"

struct test_suite {
	const char *name;
	CU_TestInfo *tests;
	CU_InitializeFunc init;
	CU_CleanupFunc clean;
	struct test_suite *next;
};

void test_suite_register(struct test_suite *s);

/* Counted, visible skip (CUnit has none): use when a device such as /dev/kvm is missing. */
void test_skip(const char *why);

/*
 * Whether tests may run VMs on this backend; a counted skip if not. The thread backend runs
 * anywhere; KVM where /dev/kvm works, unless VSCHED_TEST_ACCEL (as in the integration tests,
 * e.g. "thread") leaves it out.
 */
bool test_accel_usable(enum vm_accel accel);

/* The TID of this process's thread named comm (its /proc comm), 0 if none. */
pid_t test_thread_named(const char *comm);

/* A test body taking the backend, run once per backend: ACCEL_TWINS(fn) defines fn_kvm and
 * fn_thread, ACCEL_TESTS("name", fn) lists both in a CU_TestInfo table. */
#define ACCEL_TWINS(fn)                                                                     \
	static void fn##_kvm(void)                                                          \
	{                                                                                   \
		fn(VM_ACCEL_KVM);                                                           \
	}                                                                                   \
	static void fn##_thread(void)                                                       \
	{                                                                                   \
		fn(VM_ACCEL_THREAD);                                                        \
	}
#define ACCEL_TESTS(name, fn) { name " (kvm)", fn##_kvm }, { name " (thread)", fn##_thread }

#define TEST_SUITE_FULL(sname, tarray, finit, fclean)                                      \
	static struct test_suite __test_suite = { sname, tarray, finit, fclean, 0 };         \
	__attribute__((constructor)) static void __test_suite_register(void)                 \
	{                                                                                     \
		test_suite_register(&__test_suite);                                           \
	}

#define TEST_SUITE(sname, tarray) TEST_SUITE_FULL(sname, tarray, NULL, NULL)

#endif
