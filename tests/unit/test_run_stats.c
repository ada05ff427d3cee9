// SPDX-License-Identifier: GPL-2.0
/* The --stats JSON writer on a VM that never ran: fields, labels, escaping, groups hook. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"
#include "vmm/payload.h"
#include "cmd/run.h"

static void write_groups(struct json *j, void *arg)
{
	json_key(j, "groups");
	json_array_begin(j, JSON_INLINE);
	json_object_begin(j, 0);
	json_kv_str(j, "path", arg);
	json_object_end(j);
	json_array_end(j);
}

static void test_stats_json_fields(void)
{
	static struct payload_opts opts;
	static struct payload_page pages[2];
	struct vcpu vcpus[2] = { 0 };
	struct vm vm = { .name = "a\"b\\c", .nr_vcpus = 2, .nr_lanes = 2, .mem_size = 1 << 25,
			 .boot = &payload_boot_ops, .boot_data = &opts, .vcpus = vcpus,
			 .exit_reason = VM_EXIT_STOPPED, .exit_signal = 15 };
	struct run_stats sr = { .cmd_start_ns = 1000, .end_ns = 5000, .exit_status = 143,
				.write_groups = write_groups, .groups_arg = "/batch" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;
	unsigned int i;

	memset(&opts, 0, sizeof(opts));
	CU_ASSERT_EQUAL(payload_parse_assign("0=hog,1=duty:30/70", 2, opts.spec), 0);
	for (i = 0; i < 2; i++) {
		vcpus[i] = (struct vcpu){ .vm = &vm, .id = i, .tid = 100 + i, .nr_exits = 7 + i,
					  .work_units = &pages[i].units, .boot = &opts.vcpu[i] };
		vcpus[i].stats.cpu_ns = 1000000 * (i + 1);
		opts.vcpu[i].page = &pages[i];
		pages[i].units = 42 + i;
	}
	opts.vcpu[0].hello_ns = 3000;
	f = open_memstream(&buf, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_EQUAL(run_stats_json(f, &vm, &sr), 0);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"name\": \"a\\\"b\\\\c\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"exit\": \"stopped\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"exit_status\": 143"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"signal\": 15"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"nr_lanes\": 2"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"wall_ns\": 4000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"startup_ns\": 2000"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"groups\": [{\"path\": \"/batch\"}]"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "{\"id\": 0, \"tid\": 100, \"payload\": \"hog\", "
					   "\"units\": 42, \"cpu_ns\": 1000000, \"exits\": 7"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\"payload\": \"duty:30/70\", \"units\": 43"));
	free(buf);

	/* Without the hook there is no "groups" key. */
	sr.write_groups = NULL;
	buf = NULL;
	f = open_memstream(&buf, &len);
	CU_ASSERT_EQUAL(run_stats_json(f, &vm, &sr), 0);
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(buf, "\"groups\""));
	free(buf);
}

static CU_TestInfo run_stats_tests[] = {
	{ "JSON fields", test_stats_json_fields },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("cmd/run-stats", run_stats_tests)
