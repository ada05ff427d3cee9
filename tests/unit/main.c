// SPDX-License-Identifier: GPL-2.0
/* CUnit runner: runs every registered suite and prints CUnit's summary. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <CUnit/Basic.h>

#include "test.h"
#include "util/file.h"

static struct test_suite *suites;
static unsigned nr_skipped;

void test_suite_register(struct test_suite *s)
{
	struct test_suite **p = &suites;

	/* Keep a stable, alphabetical order whatever the link order. */
	while (*p && strcmp((*p)->name, s->name) < 0)
		p = &(*p)->next;
	s->next = *p;
	*p = s;
}

void test_skip(const char *why)
{
	nr_skipped++;
	printf("\n  SKIP: %s\n", why);
}

pid_t test_thread_named(const char *comm)
{
	char path[300], buf[32];
	size_t len = strlen(comm);
	struct dirent *e;
	DIR *d = opendir("/proc/self/task");
	pid_t tid = 0;

	while (d && !tid && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		if (!file_read(path, buf, sizeof(buf)) && !strncmp(buf, comm, len) &&
		    buf[len] == '\n')
			tid = atoi(e->d_name);
	}
	if (d)
		closedir(d);
	return tid;
}

bool test_accel_usable(enum vm_accel accel)
{
	const char *only = getenv("VSCHED_TEST_ACCEL");
	struct diag why;

	diag_init(&why, NULL);
	if (only && *only && !strstr(only, accel_name(accel))) {
		diag_set(&why, -ENODEV, "VSCHED_TEST_ACCEL=%s leaves out %s", only,
			 accel_name(accel));
		test_skip(why.msg);
		return false;
	}
	if (accel == VM_ACCEL_KVM && accel_kvm_probe(&why)) {
		test_skip(why.msg);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	const char *only = argc > 1 ? argv[1] : NULL;
	struct test_suite *s;
	unsigned failed;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	for (s = suites; s; s = s->next) {
		CU_SuiteInfo info[2] = {
			{ (char *)s->name, s->init, s->clean, NULL, NULL, s->tests },
			CU_SUITE_INFO_NULL,
		};
		if (only && strcmp(only, s->name))
			continue;
		if (CU_register_suites(info) != CUE_SUCCESS) {
			fprintf(stderr, "cannot register suite %s: %s\n", s->name, CU_get_error_msg());
			return 2;
		}
	}
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	failed = CU_get_number_of_failures() + CU_get_number_of_suites_failed();
	if (nr_skipped)
		printf("skipped: %u test(s) (see SKIP lines)\n", nr_skipped);
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
