// SPDX-License-Identifier: GPL-2.0
/*
 * The public API (vsched.h): generic write rules, read sizes, paths, mkdir and rmdir, listings,
 * node identities. Its hooks (notification, clock, events, the lock) are test_api_hooks.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "vs_test.h"
#include "util/compiler.h"

static void test_api_create_and_ids(void)
{
	struct vsched *vs;

	errno = 0;
	CU_ASSERT_PTR_NULL(vsched_create(0, 4));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(vsched_create(2, 0));
	vs = vsched_create(2, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	READ_IS(vs, "/", "cgroup.procs", "");	/* no pid yet */
	READ_IS(vs, "/", "cgroup.threads", "");	/* threads not started */
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(vs, 2, 77), -ERANGE);
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(vs, 0, -1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_set_pid(vs, -1), -EINVAL);
	CU_ASSERT_EQUAL(vsched_set_vcpu_tid(vs, 1, 77), 0);
	CU_ASSERT_EQUAL(vsched_set_pid(vs, 70), 0);
	READ_IS(vs, "/", "cgroup.threads", "77\n");
	READ_IS(vs, "/", "cgroup.procs", "70\n");
	vsched_destroy(vs);
	vsched_destroy(NULL);
}

static void test_api_generic_write_rules(void)
{
	struct vsched *vs = vs_new(2);
	char big[4097];

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "g"), 0);
	/* 4096 bytes reach the parser (which finds an overflow); one more is E2BIG */
	memset(big, '1', sizeof(big));
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", big, 4096), -ERANGE);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", big, 4097), -E2BIG);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cgroup.subtree_control", big, 4097), -E2BIG);
	/* a successful write returns its length */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", "50\n", 3), 3);
	/* zero bytes: success, no effect, even where the content would be invalid */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", "", 0), 0);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cgroup.type", "", 0), 0);
	READ_IS(vs, "g", "cpu.weight", "50\n");
	READ_IS(vs, "g", "cgroup.type", "domain\n");
	/* the handler sees a NUL-terminated copy: it stops at an embedded NUL */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.weight", "70\0zz", 5), 5);
	READ_IS(vs, "g", "cpu.weight", "70\n");
	/* As the kernel here: the size first, an empty write does nothing, else EINVAL. */
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.stat", "", 0), 0);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.stat", big, 4097), -E2BIG);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.stat", "1", 1), -EINVAL);
	/* missing group or file */
	CU_ASSERT_EQUAL(vsched_write(vs, "h", "cpu.weight", "1", 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", "cpu.nothing", "1", 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_write(vs, "g", NULL, "1", 1), -ENOENT);
	vsched_destroy(vs);
}

static void test_api_read_sizes(void)
{
	struct vsched *vs = vsched_create(2, 1024);
	char small[8], *all = NULL;
	unsigned int i;
	ssize_t n;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	for (i = 0; i < 1024; i++)
		vsched_set_vcpu_tid(vs, i, 1000000 + (pid_t)i);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.max.depth", small, 4), -ENOSPC);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.max.depth", small, 0), -ENOSPC);
	CU_ASSERT_EQUAL(vsched_read(vs, "/", "cgroup.max.depth", small, 5), 4);
	CU_ASSERT_STRING_EQUAL(small, "max\n");
	/* 1024 lines of 8 bytes: more than the first buffer of vsched_read_alloc() */
	n = vsched_read_alloc(vs, "/", "cgroup.threads", &all);
	CU_ASSERT_EQUAL(n, 1024 * 8);
	if (n > 0) {
		CU_ASSERT_EQUAL(strncmp(all, "1000000\n1000001\n", 16), 0);
		CU_ASSERT_EQUAL(strcmp(all + n - 8, "1001023\n"), 0);
		free(all);
	}
	CU_ASSERT_EQUAL(vsched_read_alloc(vs, "/", "cpu.max", &all), -ENOENT);
	READ_IS(vs, "/", "vsched.vcpus", "0-1023\n");
	/*
	 * A file that cannot be read says so whatever the buffer (found by fuzz/api_files.c:
	 * with no room at all it said ENOSPC, retry larger, which could never succeed).
	 */
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "t"), 0);
	CU_ASSERT_EQUAL(vsched_read(vs, "t", "cgroup.procs", small, sizeof(small)), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_read(vs, "t", "cgroup.procs", small, 0), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_read(vs, "t", "cgroup.threads", small, 0), -ENOSPC);
	vsched_destroy(vs);
}

static int collect_none(const char *name __unused, mode_t mode __unused, void *arg __unused)
{
	return 0;
}

static void test_api_mkdir_rmdir(void)
{
	struct vsched *vs = vs_new(2);
	char name[4200];

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/a/"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, ""), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "x/y"), -ENOENT);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b\nc"), -EINVAL);
	/* a directory may not shadow a file of its parent */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "cgroup.procs"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "vsched.vcpus"), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/cpu.weight"), -EEXIST);
	/* As cgroupfs (kernfs has no NAME_MAX): any name a path can hold, 4095 bytes. */
	memset(name, 'n', sizeof(name));
	name[256] = '\0';
	CU_ASSERT_EQUAL(vsched_mkdir(vs, name), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, name), 0);
	memset(name, 'n', sizeof(name));
	name[4095] = '\0';
	CU_ASSERT_EQUAL(vsched_mkdir(vs, name), 0);
	CU_ASSERT_EQUAL(vsched_stat(vs, name, "cpu.weight", &(mode_t){ 0 }), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, name), 0);
	name[4095] = 'n';
	name[4096] = '\0';
	CU_ASSERT_EQUAL(vsched_mkdir(vs, name), -ENAMETOOLONG);
	/* A path no group can have is ENAMETOOLONG for every call, as on cgroupfs (not ENOENT). */
	{
		char small[8];
		mode_t m;
		uid_t u;
		gid_t gi;

		CU_ASSERT_EQUAL(vsched_rmdir(vs, name), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_read(vs, name, "cpu.weight", small, sizeof(small)),
				-ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_write(vs, name, "cpu.weight", "1", 1), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_stat(vs, name, NULL, &m), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_assign(vs, "0", name), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_chown(vs, name, 1, 1), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_owner(vs, name, &u, &gi), -ENAMETOOLONG);
		CU_ASSERT_EQUAL(vsched_list_children(vs, name, collect_none, NULL), -ENAMETOOLONG);
	}
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a"), -EBUSY);	/* has a child */
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "/"), -EBUSY);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/zz"), -ENOENT);
	WRITE_OK(vs, "a", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/b"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a"), -EBUSY);	/* populated */
	WRITE_OK(vs, "/", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a"), -ENOENT);
	READ_IS(vs, "/", "cgroup.stat",
		"nr_descendants 0\nnr_subsys_cpu 1\nnr_dying_descendants 0\nnr_dying_subsys_cpu 0\n");
	/* mkdir_threaded undoes the mkdir when the type change is refused */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/d"), 0);
	WRITE_OK(vs, "p/d", "cgroup.procs", "4000");
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "p/t"), -EOPNOTSUPP);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p/t"), -ENOENT);
	vsched_destroy(vs);
}

/*
 * Paths resolve as the VFS resolves them on cgroupfs (the kernel's answers, measured on its
 * cgroup2 with the same tree): "." and ".." are the group and its parent (the root's is the
 * root), "//" and a trailing "/" do not matter, a component before ".." must exist, a file used
 * as a directory is ENOTDIR. Last components of mkdir and rmdir as filename_create() and
 * do_rmdir(). Before branch ctlcheck "." and ".." were looked up as names: ENOENT.
 */
static void test_api_path_walk(void)
{
	struct vsched *vs = vs_new(2);
	const char *same[] = { "a/b", "a//b/", "./a/b", "a/./b", "a/b/.", "a/b/c/..", "a/../a/b",
			       "../a/b", "/../../a/b", "a/b/c/../../b", NULL };
	const char *root[] = { ".", "./", "..", "/..", "a/..", "a/b/../..", "a/b/../../..", NULL };
	uint64_t ab, r, id;
	char buf[64];
	int i;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/./b"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b/../b/c"), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "a/b", NULL, &ab), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "/", NULL, &r), 0);
	for (i = 0; same[i]; i++) {
		id = 0;
		CU_ASSERT_EQUAL(vsched_node_id(vs, same[i], NULL, &id), 0);
		CU_ASSERT_EQUAL(id, ab);
		CU_ASSERT_EQUAL(vsched_read(vs, same[i], "cgroup.type", buf, sizeof(buf)), 7);
	}
	for (i = 0; root[i]; i++) {
		id = 0;
		CU_ASSERT_EQUAL(vsched_node_id(vs, root[i], NULL, &id), 0);
		CU_ASSERT_EQUAL(id, r);
		CU_ASSERT_EQUAL(vsched_read(vs, root[i], "vsched.lanes", buf, sizeof(buf)), 2);
	}
	/* A component before ".." must exist; a file is not a directory. */
	CU_ASSERT_EQUAL(vsched_node_id(vs, "x/../a", NULL, &id), -ENOENT);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "a/cgroup.procs", NULL, &id), -ENOTDIR);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "a/cgroup.procs/..", NULL, &id), -ENOTDIR);
	CU_ASSERT_EQUAL(vsched_read(vs, "a/cpu.max", "x", buf, sizeof(buf)), -ENOTDIR);
	CU_ASSERT_EQUAL(vsched_write(vs, "a/cgroup.procs/", "cpu.max", "max", 3), -ENOTDIR);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "a/...", NULL, &id), -ENOENT);
	/* mkdir: ".", ".." and the root exist (EEXIST); the rest resolves. */
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/."), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/.."), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, ".."), -EEXIST);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "x/../d"), -ENOENT);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/cgroup.procs/d"), -ENOTDIR);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a/b/../../d"), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "d", NULL, &id), 0);
	/* rmdir: "." EINVAL, ".." ENOTEMPTY, the root EBUSY, a file ENOTDIR. */
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "d/."), -EINVAL);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/b/c/.."), -ENOTEMPTY);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "/"), -EBUSY);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/cgroup.procs"), -ENOTDIR);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "x/../d"), -ENOENT);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/../d/"), 0);
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "a/b/./c"), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "a/b/c", NULL, &id), -ENOENT);
	/* Moves and listings take the same paths. */
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "./t"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "a/../t/."), 0);
	READ_IS(vs, "t", "vsched.vcpus", "1\n");
	CU_ASSERT_EQUAL(vsched_list_children(vs, "a/b/..", collect_none, NULL), 0);
	vsched_destroy(vs);
}

struct names {
	char buf[1024];
	int stop_at;
	int n;
};

static int collect(const char *name, mode_t mode, void *arg)
{
	struct names *nm = arg;
	size_t len = strlen(nm->buf);

	snprintf(nm->buf + len, sizeof(nm->buf) - len, "%s:%o ", name, (unsigned int)mode & 07777);
	return ++nm->n == nm->stop_at ? 42 : 0;
}

static void test_api_listings(void)
{
	struct vsched *vs = vs_new(2);
	struct names nm = { "", 0, 0 };
	mode_t mode = 0;
	uid_t uid;
	gid_t gid;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "b"), 0);
	CU_ASSERT_EQUAL(vsched_list_children(vs, "/", collect, &nm), 0);
	CU_ASSERT_STRING_EQUAL(nm.buf, "a:755 b:755 ");
	nm = (struct names){ "", 0, 0 };
	CU_ASSERT_EQUAL(vsched_list_files(vs, "/", collect, &nm), 0);
	CU_ASSERT_STRING_EQUAL(nm.buf,
			       "cgroup.procs:644 cgroup.threads:644 cgroup.controllers:444 "
			       "cgroup.subtree_control:644 cgroup.max.descendants:644 "
			       "cgroup.max.depth:644 cgroup.stat:444 cpu.stat:444 "
			       "cpu.stat.local:444 vsched.vcpus:644 vsched.vcpu.stat:444 vsched.lanes:444 ");
	nm = (struct names){ "", 0, 0 };
	CU_ASSERT_EQUAL(vsched_list_files(vs, "a", collect, &nm), 0);
	CU_ASSERT_STRING_EQUAL(nm.buf,
			       "cgroup.type:644 cgroup.procs:644 cgroup.threads:644 "
			       "cgroup.controllers:444 cgroup.subtree_control:644 cgroup.events:444 "
			       "cgroup.max.descendants:644 cgroup.max.depth:644 cgroup.stat:444 "
			       "cpu.stat:444 cpu.stat.local:444 cpu.weight:644 cpu.weight.nice:644 "
			       "cpu.idle:644 "
			       "cpu.max:644 cpu.max.burst:644 vsched.vcpus:644 "
			       "vsched.vcpu.stat:444 ");
	nm = (struct names){ "", 2, 0 };
	CU_ASSERT_EQUAL(vsched_list_files(vs, "a", collect, &nm), 42);	/* stopped */
	CU_ASSERT_EQUAL(nm.n, 2);
	CU_ASSERT_EQUAL(vsched_list_files(vs, "zz", collect, &nm), -ENOENT);
	CU_ASSERT_EQUAL(vsched_list_children(vs, "zz", collect, &nm), -ENOENT);

	CU_ASSERT_EQUAL(vsched_stat(vs, "a", NULL, &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFDIR | 0755);
	CU_ASSERT_EQUAL(vsched_stat(vs, "a", "cgroup.events", &mode), 0);
	CU_ASSERT_EQUAL(mode, S_IFREG | 0444);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/", "cgroup.events", &mode), -ENOENT);
	CU_ASSERT_EQUAL(vsched_stat(vs, "zz", NULL, &mode), -ENOENT);

	CU_ASSERT_EQUAL(vsched_owner(vs, "a", &uid, &gid), 0);
	CU_ASSERT_EQUAL(uid, 0);
	CU_ASSERT_EQUAL(vsched_chown(vs, "a", 1000, 100), 0);
	CU_ASSERT_EQUAL(vsched_owner(vs, "a", &uid, &gid), 0);
	CU_ASSERT_EQUAL(uid, 1000);
	CU_ASSERT_EQUAL(gid, 100);
	CU_ASSERT_EQUAL(vsched_chown(vs, "zz", 1, 1), -ENOENT);
	CU_ASSERT_EQUAL(vsched_owner(vs, "zz", &uid, &gid), -ENOENT);
	vsched_destroy(vs);
}

/* Node identities: one per kernfs node, never reused (a name made again is a new node). */
static void test_api_node_id(void)
{
	struct vsched *vs = vs_new(2);
	uint64_t dir, procs, weight, id;

	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a"), 0);
	WRITE_OK(vs, "p", "cgroup.subtree_control", "+cpu");
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", NULL, &dir), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cgroup.procs", &procs), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.weight", &weight), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "/p/a/", "cpu.weight", &id), 0);
	CU_ASSERT_EQUAL(id, weight);
	CU_ASSERT_NOT_EQUAL(weight, dir);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.bogus", &id), -ENOENT);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/none", NULL, &id), -ENOENT);
	/* -cpu, +cpu: new cpu.* files, the same directory and core files */
	WRITE_OK(vs, "p", "cgroup.subtree_control", "-cpu");
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.weight", &id), -ENOENT);
	WRITE_OK(vs, "p", "cgroup.subtree_control", "+cpu");
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cpu.weight", &id), 0);
	CU_ASSERT_NOT_EQUAL(id, weight);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cgroup.procs", &id), 0);
	CU_ASSERT_EQUAL(id, procs);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", NULL, &id), 0);
	CU_ASSERT_EQUAL(id, dir);
	/* removed and made again: everything new */
	CU_ASSERT_EQUAL(vsched_rmdir(vs, "p/a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "p/a"), 0);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", NULL, &id), 0);
	CU_ASSERT_NOT_EQUAL(id, dir);
	CU_ASSERT_EQUAL(vsched_node_id(vs, "p/a", "cgroup.procs", &id), 0);
	CU_ASSERT_NOT_EQUAL(id, procs);
	vsched_destroy(vs);
}

static CU_TestInfo api_tests[] = {
	{ "create, pid and TIDs", test_api_create_and_ids },
	{ "generic write rules (E2BIG, 0 bytes, NUL, read-only)", test_api_generic_write_rules },
	{ "read buffer sizes and read_alloc", test_api_read_sizes },
	{ "mkdir and rmdir errnos", test_api_mkdir_rmdir },
	{ "listings, stat, ownership", test_api_listings },
	{ "node identities", test_api_node_id },
	{ "paths: \".\", \"..\", \"//\", files as directories (the VFS's walk)", test_api_path_walk },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("sched/api", api_tests)
