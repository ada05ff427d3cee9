// SPDX-License-Identifier: GPL-2.0
/*
 * The interface-file table itself: typed rows (range, "max", format) driven row by row, the one
 * list of file names the tree checks mkdir against, and the membership writes' one parser as
 * vsched_write_move() uses it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "vs_test.h"
#include "sched/cftype.h"
#include "sched/group.h"

static bool row_typed(const struct cftype *cft)
{
	return cft->write_u64 || cft->write_s64;
}

static int row_errno(const struct cftype *cft)
{
	return cft->flags & CFTYPE_RANGE_EINVAL ? -EINVAL : -ERANGE;
}

/* The text a typed row shows for v: "max" at the row's max if it has the word. */
static void row_text(const struct cftype *cft, int64_t s, uint64_t u, char *buf, size_t size)
{
	bool at_max = cft->write_u64 ? u >= cft->u64.max : s >= cft->s64.max;

	if ((cft->flags & CFTYPE_MAX_WORD) && at_max)
		snprintf(buf, size, "max\n");
	else if (cft->write_u64)
		snprintf(buf, size, "%" PRIu64 "\n", u);
	else
		snprintf(buf, size, "%" PRId64 "\n", s);
}

/* Every typed row on a +cpu child: both ends of its range read back, one past each end fails. */
static void test_cftype_typed_rows(void)
{
	struct vsched *vs = vs_new(2);
	const struct cftype *cft;
	char val[32], want[32];
	unsigned int nr = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	for (cft = cgroup_files; cft->name; cft++) {
		if (!row_typed(cft))
			continue;
		nr++;
		CU_ASSERT_TRUE(cftype_readable(cft) && cftype_writable(cft));
		if (cft->write_u64) {
			snprintf(val, sizeof(val), "%" PRIu64, cft->u64.min);
			WRITE_OK(vs, "g", cft->name, val);
			row_text(cft, 0, cft->u64.min, want, sizeof(want));
			READ_IS(vs, "g", cft->name, want);
			snprintf(val, sizeof(val), "%" PRIu64, cft->u64.max);
			WRITE_OK(vs, "g", cft->name, val);
			row_text(cft, 0, cft->u64.max, want, sizeof(want));
			READ_IS(vs, "g", cft->name, want);
			snprintf(val, sizeof(val), "%" PRIu64, cft->u64.max + 1);
			WRITE_IS(vs, "g", cft->name, val, row_errno(cft));
			if (cft->u64.min) {
				snprintf(val, sizeof(val), "%" PRIu64, cft->u64.min - 1);
				WRITE_IS(vs, "g", cft->name, val, row_errno(cft));
			}
		} else {
			snprintf(val, sizeof(val), "%" PRId64, cft->s64.min);
			WRITE_OK(vs, "g", cft->name, val);
			row_text(cft, cft->s64.min, 0, want, sizeof(want));
			READ_IS(vs, "g", cft->name, want);
			snprintf(val, sizeof(val), "%" PRId64, cft->s64.max);
			WRITE_OK(vs, "g", cft->name, val);
			row_text(cft, cft->s64.max, 0, want, sizeof(want));
			READ_IS(vs, "g", cft->name, want);
			snprintf(val, sizeof(val), "%" PRId64, cft->s64.max + 1);
			WRITE_IS(vs, "g", cft->name, val, row_errno(cft));
			snprintf(val, sizeof(val), "%" PRId64, cft->s64.min - 1);
			WRITE_IS(vs, "g", cft->name, val, row_errno(cft));
		}
		/* "max" is a word only where the row says so; padding likewise */
		WRITE_IS(vs, "g", cft->name, " max\n", cft->flags & CFTYPE_MAX_WORD ? 0 : -EINVAL);
	}
	/* cgroup.max.{depth,descendants}, cpu.weight{,.nice}, cpu.idle, cpu.max.burst */
	CU_ASSERT_EQUAL(nr, 6);
	vsched_destroy(vs);
}

/* The tree refuses a name the table has, with or without the public API around it. */
static void test_cftype_names_in_tree(void)
{
	struct sched *s = sched_create(1, 1);
	struct group *root, *g;

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	root = sched_root(s);
	CU_ASSERT_EQUAL(group_create(s, root, "vsched.vcpus", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "vsched.vcpu.stat", &g), -EEXIST);
	CU_ASSERT_EQUAL(group_create(s, root, "cgroup.max.depth", &g), -EEXIST);
	/* cgroup.type is not on the root: a directory may take the name there */
	CU_ASSERT_EQUAL(group_create(s, root, "cgroup.type", &g), 0);
	CU_ASSERT_EQUAL(group_create(s, g, "cgroup.type", &g), -EEXIST);
	sched_destroy(s);
}

struct move_log {
	unsigned int depth[8], nr;
	int ret;
};

static int move_record(unsigned int depth, void *arg)
{
	struct move_log *l = arg;

	if (l->nr < 8)
		l->depth[l->nr++] = depth;
	return l->ret;
}

/* The membership files' one parser, as the control directory's delegation check uses it. */
static void test_cftype_write_move(void)
{
	struct vsched *vs = vs_new(3);
	struct move_log l = { .ret = 0 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_TRUE(vsched_file_moves_vcpus("cgroup.procs"));
	CU_ASSERT_TRUE(vsched_file_moves_vcpus("cgroup.threads"));
	CU_ASSERT_TRUE(vsched_file_moves_vcpus("vsched.vcpus"));
	CU_ASSERT_FALSE(vsched_file_moves_vcpus("cpu.weight"));
	CU_ASSERT_FALSE(vsched_file_moves_vcpus("cgroup.type"));
	CU_ASSERT_FALSE(vsched_file_moves_vcpus("nonesuch"));
	/* the cpu controller's files, as the control directory tells whose they are */
	CU_ASSERT_TRUE(vsched_file_is_cpu("cpu.weight"));
	CU_ASSERT_TRUE(vsched_file_is_cpu("cpu.max.burst"));
	CU_ASSERT_FALSE(vsched_file_is_cpu("cpu.stat"));
	CU_ASSERT_FALSE(vsched_file_is_cpu("cgroup.procs"));
	CU_ASSERT_FALSE(vsched_file_is_cpu("cpu.nonesuch"));
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "a/b"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "a/c"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "a/b"), 0);

	/* vCPU 0 from a/b and 1 from the root into a/c: ancestors a (1) and the root (0) */
	l.ret = -EACCES;
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a/c", "vsched.vcpus", "0-1", 3, move_record, &l),
			-EACCES);
	CU_ASSERT_EQUAL(l.nr, 1);	/* the first refusal stops the walk */
	CU_ASSERT_EQUAL(l.depth[0], 1);
	READ_IS(vs, "a/b", "vsched.vcpus", "0\n");	/* nothing moved */
	l.nr = 0;
	l.ret = 0;
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a/c", "vsched.vcpus", "0-1", 3, move_record, &l), 3);
	CU_ASSERT_EQUAL(l.nr, 2);
	CU_ASSERT_EQUAL(l.depth[0], 1);
	CU_ASSERT_EQUAL(l.depth[1], 0);
	READ_IS(vs, "a/c", "vsched.vcpus", "0-1\n");

	/*
	 * A vCPU already there is asked about at the destination itself (depth 2), as the kernel
	 * checks a task moved where it is (branch ctlcheck: it was not asked, so a writer without
	 * the destination's cgroup.procs "moved" it); a thread ID names one vCPU.
	 */
	l.nr = 0;
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a/c", "cgroup.threads", "4001", 4, move_record, &l),
			4);
	CU_ASSERT_EQUAL(l.nr, 1);
	CU_ASSERT_EQUAL(l.depth[0], 2);
	l.nr = 0;
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a/b", "cgroup.threads", "4001\n", 5, move_record,
					  &l), 5);
	CU_ASSERT_EQUAL(l.nr, 1);
	CU_ASSERT_EQUAL(l.depth[0], 1);

	/* writes the file refuses anyway get its own errno, unchecked */
	l.nr = 0;
	l.ret = -EACCES;
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a/b", "cgroup.threads", "x", 1, move_record, &l),
			-EINVAL);
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a/b", "cgroup.threads", "9999", 4, move_record, &l),
			-ESRCH);
	CU_ASSERT_EQUAL(vsched_write_move(vs, "/", "cgroup.procs", "0", 1, move_record, &l),
			-ESRCH);
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a", "vsched.vcpus", "7", 1, move_record, &l),
			-ERANGE);
	/* other files are plain writes */
	CU_ASSERT_EQUAL(vsched_write_move(vs, "a", "cpu.weight", "7", 1, move_record, &l), 1);
	CU_ASSERT_EQUAL(l.nr, 0);
	vsched_destroy(vs);
}

static CU_TestInfo cftype_tests[] = {
	{ "typed rows: range, errno, max word, format", test_cftype_typed_rows },
	{ "the tree checks names against the table", test_cftype_names_in_tree },
	{ "membership writes: one parser, moves checked", test_cftype_write_move },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/cftype", cftype_tests)
