/* SPDX-License-Identifier: GPL-2.0 */
/* Shared by test_ctl.c and test_ctl_registry.c: a scratch VSCHED_RUN_DIR per test. */
#ifndef VSCHED_TESTS_CTL_TEST_H
#define VSCHED_TESTS_CTL_TEST_H

#include <stdio.h>
#include <stdlib.h>

#include "test.h"

static char run_dir[64];

static inline void set_run_dir(void)
{
	snprintf(run_dir, sizeof(run_dir), "/tmp/vsched-ut-ctl.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(run_dir));
	setenv("VSCHED_RUN_DIR", run_dir, 1);
}

static inline void rm_run_dir(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", run_dir);
	CU_ASSERT_EQUAL(system(cmd), 0);
	unsetenv("VSCHED_RUN_DIR");
}

#endif
