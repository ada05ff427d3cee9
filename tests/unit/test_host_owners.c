// SPDX-License-Identifier: GPL-2.0
/*
 * Owners and modes kept across a daemon's restart (host/host_owners.c, ctl/attr_rec.c): the
 * control directory's records read back as written and garbage refused; at and below a VM
 * group, given back to the VMM process they were saved for, within its group only, never to
 * another process; a tampered .host-tree refused line by line. Before, nothing below a VM group
 * was saved: a re-joined VM's groups were root's (t-host-deleg.sh). Within that process, only
 * to the group of the same id (GROUP's): one removed and made again under its path while no
 * daemon ran gets nothing (before ids, it got its predecessor's owners: t-host-remade.sh).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl/ctl.h"
#include "host_vmm_test.h"
#include "vs_test.h"
#include "util/registry.h"

static void test_attr_rec(void)
{
	struct ctl_attr_rec r = { .key = "/machine/w/d/cpu.max", .has_mode = true, .mode = 0664,
				  .owner = { true, 65534, 100 } }, back;
	char line[256];
	size_t i;
	static const char *const bad[] = {
		"/a\t0644\t-\t-",			/* four fields */
		"/a\t0644\t-\t-\t-\t-",			/* six */
		"/a\t\t-\t-\t-",			/* an empty one */
		"a\t0644\t-\t-\t-",			/* not absolute */
		"/a/../b\t0644\t-\t-\t-",
		"/a//b\t0644\t-\t-\t-",
		"/a/\t0644\t-\t-\t-",
		"/a\t10000\t-\t-\t-",			/* mode above 07777 */
		"/a\t0648\t-\t-\t-",			/* not octal */
		"/a\t-\t-1:0\t-\t-",			/* chown(2)'s "unchanged" */
		"/a\t-\t4294967295:0\t-\t-",
		"/a\t-\t0:4294967295\t-\t-",
		"/a\t-\t0x10:0\t-\t-",
		"/a\t-\t+5:0\t-\t-",
		"/a\t-\t 5:0\t-\t-",
		"/a\t-\t5\t-\t-",			/* no gid */
		"/a\t-\t5:\t-\t-",
		"/a\t-\t-\t99999999999:0\t-",
	};

	CU_ASSERT_TRUE(ctl_attr_rec_format(&r, line, sizeof(line)) > 0);
	CU_ASSERT_STRING_EQUAL(line, "/machine/w/d/cpu.max\t0664\t65534:100\t-\t-");
	CU_ASSERT_EQUAL(ctl_attr_rec_parse(line, &back), 0);
	CU_ASSERT_EQUAL(memcmp(&r, &back, sizeof(r)), 0);
	CU_ASSERT_EQUAL(ctl_attr_rec_parse("/\t-\t-\t0:0\t4294967294:7", &back), 0);
	CU_ASSERT_TRUE(back.files.set && !back.files.uid && back.cpu_files.uid == 4294967294u);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		CU_ASSERT_EQUAL(ctl_attr_rec_parse(bad[i], &back), -EINVAL);
	snprintf(r.key, sizeof(r.key), "/a/../b");
	CU_ASSERT_EQUAL(ctl_attr_rec_format(&r, line, sizeof(line)), -EINVAL);
}

/* A fake directory: save() gives its records, load() notes what it was given back. */
static char owners_loaded[1024];

static char *owners_save(void *arg)
{
	return strdup(arg);
}

static int owners_load(void *arg, const char *rec)
{
	(void)arg;
	strncat(owners_loaded, rec, sizeof(owners_loaded) - strlen(owners_loaded) - 2);
	strcat(owners_loaded, "\n");
	return 0;
}

/* VM w's groups d (cpu on) and d/u of those ids: the whole batch, as at every change. */
static void owners_batch_ids(struct host *h, struct vmm *m, uint64_t id_d, uint64_t id_u)
{
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .id = id_d,
		.set = { .quota_us = UINT64_MAX, .period_us = 100000, .threaded = true,
			 .subtree_cpu = true },
	};

	snprintf(gm.path, sizeof(gm.path), "d");
	CU_ASSERT_EQUAL(vmm_msg(h, m, &gm, sizeof(gm)), 0);
	gm.index = 1;
	gm.id = id_u;
	gm.set.subtree_cpu = false;
	snprintf(gm.path, sizeof(gm.path), "d/u");
	CU_ASSERT_EQUAL(vmm_msg(h, m, &gm, sizeof(gm)), 0);
	CU_ASSERT_EQUAL(vmm_ev(h, m, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
}

static void owners_batch(struct host *h, struct vmm *m)
{
	owners_batch_ids(h, m, 1, 2);
}

static void owners_join_ids(struct host *h, struct vmm *m, uint64_t id_d, uint64_t id_u)
{
	struct host_welcome w;

	vmm_join(h, m, "w", 1, &w);
	owners_batch_ids(h, m, id_d, id_u);
}

static void owners_join(struct host *h, struct vmm *m)
{
	owners_join_ids(h, m, 1, 2);
}

static uid_t owner_of(struct host *h, const char *path)
{
	uid_t uid = 4242;
	gid_t gid;

	CU_ASSERT_EQUAL(vsched_owner(host_vsched(h), path, &uid, &gid), 0);
	return uid;
}

/* Writes text to a new file; its name in file. */
static void owners_file(char *file, const char *text)
{
	int fd = mkstemp(file);

	CU_ASSERT_TRUE_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/*
 * h with the directory's records recs and VM w joined, w and w/d delegated to 65534 and w/d/u to
 * 65533: the state h saves then (a new string).
 */
static char *owners_delegated(struct host *h, char *recs, struct vmm *m)
{
	host_set_attrs(h, owners_save, NULL, recs);
	owners_join(h, m);
	CU_ASSERT_EQUAL(vsched_chown(host_vsched(h), "/machine/w", 65534, 65534), 0);
	CU_ASSERT_EQUAL(vsched_chown(host_vsched(h), "/machine/w/d", 65534, 65534), 0);
	CU_ASSERT_EQUAL(vsched_chown(host_vsched(h), "/machine/w/d/u", 65533, 65533), 0);
	return host_state_dump(h);
}

static void test_owners_rejoin(void)
{
	struct host *h = vmm_host_new(2, 4), *h2 = vmm_host_new(2, 4), *h3 = vmm_host_new(2, 4);
	char file[] = "/tmp/vsched-owners.XXXXXX", file3[] = "/tmp/vsched-owners.XXXXXX";
	char *d1, *text, me[64], other[64], line[256];
	unsigned long long start = registry_pid_start(getpid());
	unsigned int refused;
	struct vmm m;
	int ret;
	char recs[] = "/machine/w/d/u/cpu.weight\t0664\t-\t-\t-\n"
		      "/machine/w/gone\t0700\t-\t-\t-\n"	/* no such node: not saved */
		      "/machine/cpu.max\t0640\t7:7\t-\t-\n";

	CU_ASSERT_TRUE_FATAL(start > 0);
	snprintf(me, sizeof(me), "%d\t%llu", (int)getpid(), start);
	d1 = owners_delegated(h, recs, &m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d1);
	snprintf(line, sizeof(line), "vown\t%s\t/machine/w/d/u\t65533\t65533\t2\n", me);
	CU_ASSERT_PTR_NOT_NULL(strstr(d1, line));
	snprintf(line, sizeof(line), "vown\t%s\t/machine/w\t65534\t65534\t0\n", me);
	CU_ASSERT_PTR_NOT_NULL(strstr(d1, line));
	snprintf(line, sizeof(line), "vattr\t%s\t2\t/machine/w/d/u/cpu.weight\t0664\t-\t-\t-\n",
		 me);
	CU_ASSERT_PTR_NOT_NULL(strstr(d1, line));
	CU_ASSERT_PTR_NOT_NULL(strstr(d1, "\nattr\t/machine/cpu.max\t0640\t7:7\t-\t-\n"));
	CU_ASSERT_PTR_NULL(strstr(d1, "gone"));
	CU_ASSERT_PTR_NULL(strstr(d1, "mkdir\t/machine/w"));	/* the VMM re-sends its groups */
	vmm_leave(h, &m);
	/* The file with garbage added: each line refused alone, the rest restored. */
	ret = asprintf(&text, "%s"
		       "vown\t%d\t%llu\t/machine/w/d\t4242\t4242\n"	/* another process */
		       "vown\t%s\t/machine\t4242\t4242\n"		/* not its group: kept */
		       "vown\t%s\t/machine/w/d\t-1\t0\n"
		       "vown\t%s\t/machine/w/d\t4294967295\t0\n"
		       "vown\t%s\t/machine/w/../x\t1\t1\n"
		       "vown\t-5\t%llu\t/machine/w/d\t1\t1\n"
		       "vattr\t%s\t/machine/w/d\t0644\t-\t-\n"		/* four fields */
		       "attr\t/machine/../x\t0644\t-\t-\t-\n"
		       "chown\t/machine\t-1\t0\n",
		       d1, (int)getpid(), start + 1, me, me, me, me, start, me);
	CU_ASSERT_TRUE_FATAL(ret > 0);
	owners_file(file, text);
	free(text);
	CU_ASSERT_TRUE(host_state_restore(h2, file, &refused) > 0);
	CU_ASSERT_EQUAL(refused, 7);
	unlink(file);
	/* Above the VM groups, once the directory is there. */
	owners_loaded[0] = '\0';
	host_set_attrs(h2, owners_save, owners_load, "");
	CU_ASSERT_STRING_EQUAL(owners_loaded, "/machine/cpu.max\t0640\t7:7\t-\t-\n");
	/* The same process re-joins: its owners at its first COMMIT, its records after it. */
	owners_loaded[0] = '\0';
	owners_join(h2, &m);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w"), 65534);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w/d"), 65534);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w/d/u"), 65533);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine"), 0);
	CU_ASSERT_EQUAL(host_attrs_flush(h2), 1);
	CU_ASSERT_STRING_EQUAL(owners_loaded, "/machine/w/d/u/cpu.weight\t0664\t-\t-\t-\n");
	/* Once: a later batch leaves them as they are now. */
	CU_ASSERT_EQUAL(vsched_chown(host_vsched(h2), "/machine/w/d", 0, 0), 0);
	owners_batch(h2, &m);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w/d"), 0);
	vmm_leave(h2, &m);
	/*
	 * A new VM of the name, another process (the records of pid 1, alive): nothing, and the
	 * records stay for that process while it lives.
	 */
	snprintf(other, sizeof(other), "%d\t%llu", 1, registry_pid_start(1));
	ret = asprintf(&text, "vown\t%s\t/machine/w/d\t65534\t65534\t1\n"
		       "vattr\t%s\t1\t/machine/w/d/cgroup.procs\t-\t65534:65534\t-\t-\n",
		       other, other);
	CU_ASSERT_TRUE_FATAL(ret > 0);
	owners_file(file3, text);
	CU_ASSERT_EQUAL(host_state_restore(h3, file3, &refused), 2);
	CU_ASSERT_EQUAL(refused, 0);
	unlink(file3);
	owners_loaded[0] = '\0';
	host_set_attrs(h3, owners_save, owners_load, "");
	owners_join(h3, &m);
	CU_ASSERT_EQUAL(owner_of(h3, "/machine/w/d"), 0);
	CU_ASSERT_EQUAL(host_attrs_flush(h3), 0);
	CU_ASSERT_STRING_EQUAL(owners_loaded, "");
	free(d1);
	d1 = host_state_dump(h3);
	CU_ASSERT_PTR_NOT_NULL(d1 && strstr(d1, text));
	free(text);
	free(d1);
	vmm_leave(h3, &m);
	host_destroy(h);
	host_destroy(h2);
	host_destroy(h3);
}

/*
 * The same process re-joins, its group d/u removed and made again meanwhile (a new id): d/u
 * and its file get nothing, d (the same id) and the VM group get theirs. Before ids, d/u was
 * given its predecessor's owner and its record.
 */
static void test_owners_remade(void)
{
	struct host *h = vmm_host_new(2, 4), *h2 = vmm_host_new(2, 4);
	char file[] = "/tmp/vsched-owners.XXXXXX", *d1, *d2, line[256], me[64];
	unsigned long long start = registry_pid_start(getpid());
	unsigned int refused;
	struct vmm m;
	char recs[] = "/machine/w/d/u/cpu.weight\t0664\t-\t-\t-\n"
		      "/machine/w/d/cgroup.procs\t-\t65534:65534\t-\t-\n";

	CU_ASSERT_TRUE_FATAL(start > 0);
	snprintf(me, sizeof(me), "%d\t%llu", (int)getpid(), start);
	d1 = owners_delegated(h, recs, &m);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d1);
	vmm_leave(h, &m);
	owners_file(file, d1);
	CU_ASSERT_TRUE(host_state_restore(h2, file, &refused) > 0);
	CU_ASSERT_EQUAL(refused, 0);
	unlink(file);
	owners_loaded[0] = '\0';
	host_set_attrs(h2, owners_save, owners_load, "");
	owners_join_ids(h2, &m, 1, 3);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w"), 65534);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w/d"), 65534);
	CU_ASSERT_EQUAL(owner_of(h2, "/machine/w/d/u"), 0);
	CU_ASSERT_EQUAL(host_attrs_flush(h2), 1);
	CU_ASSERT_STRING_EQUAL(owners_loaded, "/machine/w/d/cgroup.procs\t-\t65534:65534\t-\t-\n");
	/* The new d/u is saved with its own id; nothing of the old one is kept. */
	d2 = host_state_dump(h2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d2);
	snprintf(line, sizeof(line), "vown\t%s\t/machine/w/d/u\t0\t0\t3\n", me);
	CU_ASSERT_PTR_NOT_NULL(strstr(d2, line));
	CU_ASSERT_PTR_NULL(strstr(d2, "65533"));
	free(d1);
	free(d2);
	vmm_leave(h2, &m);
	host_destroy(h);
	host_destroy(h2);
}

/*
 * The id's field: any decimal u64 (0: the VM group), anything else refused; a line of a daemon
 * before ids (none) reads as 0, given back at the VM group only.
 */
static void test_owners_ids(void)
{
	struct host *h = vmm_host_new(2, 4);
	char file[] = "/tmp/vsched-owners.XXXXXX", me[64], *text;
	unsigned long long start = registry_pid_start(getpid());
	unsigned int refused;
	struct vmm m;
	int ret;

	CU_ASSERT_TRUE_FATAL(start > 0);
	snprintf(me, sizeof(me), "%d\t%llu", (int)getpid(), start);
	ret = asprintf(&text,
		       "vown\t%s\t/machine/w\t65534\t65534\n"		/* old: the VM group */
		       "vown\t%s\t/machine/w/d\t65534\t65534\n"		/* old: below it */
		       "vattr\t%s\t/machine/w/cgroup.procs\t-\t7:7\t-\t-\n"
		       "vattr\t%s\t/machine/w/d/cgroup.procs\t-\t8:8\t-\t-\n"
		       /* the largest id: read, matches nothing here */
		       "vown\t%s\t/machine/w/d/u\t5\t5\t18446744073709551615\n"
		       "vown\t%s\t/machine/w/d\t1\t1\t-1\n"
		       "vown\t%s\t/machine/w/d\t1\t1\t+1\n"
		       "vown\t%s\t/machine/w/d\t1\t1\t0x1\n"
		       "vown\t%s\t/machine/w/d\t1\t1\t\n"
		       "vown\t%s\t/machine/w/d\t1\t1\t18446744073709551616\n"
		       "vown\t%s\t/machine/w/d\t1\t1\t1\t1\n"
		       "vattr\t%s\t-1\t/machine/w/d/cgroup.procs\t-\t8:8\t-\t-\n"
		       "vattr\t%s\t\t/machine/w/d/cgroup.procs\t-\t8:8\t-\t-\n"
		       "vattr\t%s\t1\t1\t/machine/w/d/cgroup.procs\t-\t8:8\t-\t-\n",
		       me, me, me, me, me, me, me, me, me, me, me, me, me, me);
	CU_ASSERT_TRUE_FATAL(ret > 0);
	owners_file(file, text);
	free(text);
	CU_ASSERT_EQUAL(host_state_restore(h, file, &refused), 5);
	CU_ASSERT_EQUAL(refused, 9);
	unlink(file);
	owners_loaded[0] = '\0';
	host_set_attrs(h, owners_save, owners_load, "");
	owners_join(h, &m);
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w"), 65534);
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d"), 0);
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d/u"), 0);
	CU_ASSERT_EQUAL(host_attrs_flush(h), 1);
	CU_ASSERT_STRING_EQUAL(owners_loaded, "/machine/w/cgroup.procs\t-\t7:7\t-\t-\n");
	vmm_leave(h, &m);
	host_destroy(h);
}

/* d (id_d) and d/u (id_u) with vCPU 0 in d/u, a batch as rt_remote_config() sends it. */
static void owners_live_batch(struct host *h, struct vmm *m, uint64_t id_d, uint64_t id_u)
{
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .path = "d", .id = id_d,
		.set = { .quota_us = UINT64_MAX, .period_us = 100000, .threaded = true,
			 .subtree_cpu = true },
	};

	CU_ASSERT_EQUAL(vmm_msg(h, m, &gm, sizeof(gm)), 0);
	gm.index = 1;
	gm.id = id_u;
	gm.set.subtree_cpu = false;
	snprintf(gm.path, sizeof(gm.path), "d/u");
	CU_ASSERT_EQUAL(vmm_msg(h, m, &gm, sizeof(gm)), 0);
	CU_ASSERT_EQUAL(vmm_ev(h, m, HOST_MSG_VCPU, 0, 2, 0, 0), 0);
	CU_ASSERT_EQUAL(vmm_ev(h, m, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
}

/*
 * While the daemon runs: d/u removed and made again in the VMM between two batches (both
 * changes' callbacks after both), so no batch lacks it: the next batch names d/u with a new
 * id, and the daemon's d/u is made anew (d's owner, as any group a batch makes below d), its
 * vCPU in it again. Before, the new d/u kept the old one's owner (65533).
 */
static void test_owners_remade_live(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct vsched *vs = host_vsched(h);
	struct host_welcome w;
	struct vmm m;

	vmm_join(h, &m, "w", 1, &w);
	owners_live_batch(h, &m, 1, 2);
	CU_ASSERT_EQUAL(vsched_chown(vs, "/machine/w/d", 65534, 65534), 0);
	CU_ASSERT_EQUAL(vsched_chown(vs, "/machine/w/d/u", 65533, 65533), 0);
	owners_live_batch(h, &m, 1, 2);		/* the same groups: kept as they are */
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d/u"), 65533);
	owners_live_batch(h, &m, 1, 3);
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d"), 65534);
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d/u"), 65534);
	READ_IS(vs, "/machine/w/d/u", "vsched.vcpus", "0\n");
	owners_live_batch(h, &m, 4, 5);		/* d made again, d/u with it */
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d"), 0);
	CU_ASSERT_EQUAL(owner_of(h, "/machine/w/d/u"), 0);
	READ_IS(vs, "/machine/w/d/u", "vsched.vcpus", "0\n");
	vmm_leave(h, &m);
	host_destroy(h);
}

static CU_TestInfo host_owners_tests[] = {
	{ "a directory's record is read back as written, garbage refused", test_attr_rec },
	{ "owners below a VM group go back to the VMM process that saved them",
	  test_owners_rejoin },
	{ "a group made again under its path (a new id) gets nothing of the old one",
	  test_owners_remade },
	{ "a group made again between two batches (a new id) is made anew in the daemon",
	  test_owners_remade_live },
	{ "a kept record's id: any u64, garbage refused, none (old) the VM group's only",
	  test_owners_ids },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host owners", host_owners_tests);
