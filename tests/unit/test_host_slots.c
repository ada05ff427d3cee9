// SPDX-License-Identifier: GPL-2.0
/*
 * vsched.vcpus in the daemon's directory above VM groups (docs/host.md): its numbers are slots.
 * A free slot has no thread, as a TID that does not exist (ESRCH); a VM's slot stays in its VM
 * group (EOPNOTSUPP, as the kernel's cgroup.threads across domains); all or none. A write is
 * driven as ctl_write() does: host_forward() first, then the tree when it answers 1.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "host_test.h"

/* ctl_write() on the daemon's directory, without FUSE. */
static int slots_write(struct host *h, const char *group, const char *file, const char *val)
{
	int ret = host_forward(h, HOST_CTL_WRITE, group, file, val, strlen(val), NULL);

	return ret <= 0 ? ret : vsched_write_str(host_vsched(h), group, file, val);
}

static void slots_expect(struct host *h, const char *group, const char *want)
{
	char buf[64];
	ssize_t n = vsched_read(host_vsched(h), group, "vsched.vcpus", buf, sizeof(buf) - 1);

	CU_ASSERT_FATAL(n >= 0);
	buf[n] = '\0';
	CU_ASSERT_STRING_EQUAL(buf, want);
}

static void test_host_slots(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_client *c, *c2;
	struct host *h = NULL;
	struct vsched *vs;
	int fd, fd2;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	vs = host_vsched(h);
	fd = host_test_join(h, "a", 2, UINT64_MAX, &c);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_TID, 0, 0, 5000, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_TID, 1, 0, 5001, 0), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/part"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/thr"), 0);
	/* Threaded: the root's domain, where the free slots are. */
	CU_ASSERT_EQUAL(slots_write(h, "/thr", "cgroup.type", "threaded"), 0);
	slots_expect(h, "/", "2-3\n");
	slots_expect(h, "/machine/a", "0-1\n");
	/* Free slots: no thread to move. */
	CU_ASSERT_EQUAL(slots_write(h, "/thr", "vsched.vcpus", "2-3"), -ESRCH);
	CU_ASSERT_EQUAL(slots_write(h, "/part", "vsched.vcpus", "2-3"), -ESRCH);
	CU_ASSERT_EQUAL(slots_write(h, "/machine", "vsched.vcpus", "3"), -ESRCH);
	/* A VM's slot: out of its VM group, refused; with a free one, nothing moves. */
	CU_ASSERT_EQUAL(slots_write(h, "/part", "vsched.vcpus", "0"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/machine", "vsched.vcpus", "0-3"), -ESRCH);
	CU_ASSERT_EQUAL(slots_write(h, "/", "vsched.vcpus", "1"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/thr", "vsched.vcpus", "0"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/thr", "vsched.vcpus", "0,2"), -ESRCH);
	/* By the vCPU's thread: the same. */
	CU_ASSERT_EQUAL(slots_write(h, "/thr", "cgroup.threads", "5000"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/part", "cgroup.procs", "5001"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/thr", "cgroup.threads", "0"), -ESRCH);
	/* Parsed as before: no such slot is ERANGE; nothing at all is no move. */
	CU_ASSERT_EQUAL(slots_write(h, "/part", "vsched.vcpus", "9"), -ERANGE);
	CU_ASSERT_EQUAL(slots_write(h, "/part", "vsched.vcpus", ""), 0);
	slots_expect(h, "/", "2-3\n");
	slots_expect(h, "/part", "\n");
	slots_expect(h, "/machine", "\n");
	slots_expect(h, "/thr", "\n");
	slots_expect(h, "/machine/a", "0-1\n");
	/* Nor into another VM's group, which its VMM answered ESRCH (it does not know the TID). */
	fd2 = host_test_join(h, "b", 1, UINT64_MAX, &c2);
	CU_ASSERT_EQUAL(host_test_ev(h, c2, HOST_MSG_TID, 0, 0, 6000, 0), 0);
	CU_ASSERT_EQUAL(slots_write(h, "/machine/b", "cgroup.threads", "5000"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/machine/b", "cgroup.procs", "5001"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(slots_write(h, "/machine/a", "cgroup.threads", "6000"), -EOPNOTSUPP);
	slots_expect(h, "/machine/a", "0-1\n");
	slots_expect(h, "/machine/b", "2\n");
	close(fd2);
	/* The tree is not wedged: the partition's type and its removal. */
	CU_ASSERT_EQUAL(slots_write(h, "/part", "cgroup.type", "threaded"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "/part"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "/thr"), 0);
	close(fd);
	host_destroy(h);
}

static CU_TestInfo host_slots_tests[] = {
	{ "a move above VM groups takes no free slot and no VM's vCPU, nor one of another VM",
	  test_host_slots },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host/slots", host_slots_tests);
