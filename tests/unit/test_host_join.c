// SPDX-License-Identifier: GPL-2.0
/*
 * Who may join the host scheduler daemon (host/), and what survives it: a probe of a daemon of
 * another build, a VM whose group name is taken, a peer other than root, and the tree above the
 * VM groups dumped and restored across a restart. Joins and messages: test_host.c.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "host_test.h"
#include "host_vmm_test.h"
#include "sched/core.h"
#include "sched/group.h"
#include "sched/runtime.h"
#include "test.h"
#include "util/time.h"
#include "vs_test.h"

/* A daemon of another build answers a probe: its short WELCOME of another version. */
static void *old_daemon(void *arg)
{
	struct host_welcome w = { .type = HOST_MSG_WELCOME, .version = HOST_PROTO_VERSION + 1,
				  .err = -EPROTONOSUPPORT };
	char buf[2048];
	int fd = accept(*(int *)arg, NULL, NULL);

	if (fd >= 0 && recv(fd, buf, sizeof(buf), 0) > 0)
		send(fd, &w, 12, 0);
	if (fd >= 0)
		close(fd);
	return NULL;
}

static void test_host_probe_other_build(void)
{
	char dir[] = "/tmp/vsched-probe.XXXXXX", path[64];
	struct runtime_host_info info;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	pthread_t t;
	int lfd;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/host.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	lfd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	CU_ASSERT_EQUAL_FATAL(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	CU_ASSERT_EQUAL_FATAL(listen(lfd, 1), 0);
	pthread_create(&t, NULL, old_daemon, &lfd);
	/* It was EPROTO: "no host scheduler ...: Protocol error". */
	CU_ASSERT_EQUAL(runtime_host_probe(path, 1000, &info), -EPROTONOSUPPORT);
	pthread_join(t, NULL);
	close(lfd);
	unlink(path);
	rmdir(dir);
}

/*
 * A VM whose group name is taken in its partition (a group made in the directory, a partition)
 * is refused EEXIST, as mkdir is, and the group is left as it was. It joined as NAME-PID.
 */
static void test_host_join_taken(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct vsched *vs = host_vsched(h);
	struct host_hello hm;
	struct host_welcome w;
	struct vmm m, x;
	size_t i;
	static const struct { const char *name, *partition; } cases[] = {
		{ "z", "/machine" },	/* made by hand */
		{ "t1", "/tenant" },	/* a partition, x's */
	};

	hm = vmm_hello("x", 1);
	snprintf(hm.partition, sizeof(hm.partition), "/tenant/t1");
	vmm_connect(h, &x);
	CU_ASSERT_EQUAL(vmm_msg(h, &x, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE(vmm_recv(&x, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL_FATAL(w.err, 0);
	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/machine"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/machine", "cgroup.subtree_control", "+cpu"), 0);
	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/machine/z"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/machine/z", "cpu.weight", "42"), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		hm = vmm_hello(cases[i].name, 1);
		hm.vm.shares = 3072;
		snprintf(hm.partition, sizeof(hm.partition), "%s", cases[i].partition);
		vmm_connect(h, &m);
		CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);
		CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
		CU_ASSERT_EQUAL(w.err, -EEXIST);
		vmm_leave(h, &m);
		CU_ASSERT_EQUAL(host_free_slots(h), 3);
	}
	READ_IS(vs, "/machine/z", "cpu.weight", "42\n");
	READ_IS(vs, "/tenant/t1", "cpu.weight", "100\n");
	CU_ASSERT_EQUAL(vsched_stat(vs, "/machine/z-4242", NULL, &(mode_t){ 0 }), -ENOENT);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/tenant/t1-4242", NULL, &(mode_t){ 0 }), -ENOENT);
	vmm_leave(h, &x);
	host_destroy(h);
}

/*
 * A peer other than root joins only as a delegatee may mkdir on cgroupfs: below a group it
 * owns (chown), "cpu" already on above it. Anywhere else EACCES, and nothing is made. Any peer
 * joined anywhere.
 */
static void test_host_join_uid(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct vsched *vs = host_vsched(h);
	struct host_hello hm;
	struct host_welcome w;
	struct vmm m;
	uid_t uid;
	gid_t gid;
	size_t i;
	static const struct { const char *partition; int err; } cases[] = {
		{ "/tenant/t1", 0 },		/* its own */
		{ "/tenant/t1/sub", 0 },	/* made below its own */
		{ "/tenant", -EACCES },		/* root's */
		{ "/tenant/t2", -EACCES },	/* made in root's */
		{ "/machine", -EACCES },
		{ "/x/y", -EACCES },		/* its own, but "cpu" off in root's /x */
	};

	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/tenant"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/tenant", "cgroup.subtree_control", "+cpu"), 0);
	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/tenant/t1"), 0);
	CU_ASSERT_EQUAL(vsched_chown(vs, "/tenant/t1", 65534, 65534), 0);
	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/x"), 0);
	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/x/y"), 0);
	CU_ASSERT_EQUAL(vsched_chown(vs, "/x/y", 65534, 65534), 0);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		hm = vmm_hello("u", 1);
		hm.vm.shares = sched_weight_from_cgroup(10000);
		snprintf(hm.partition, sizeof(hm.partition), "%s", cases[i].partition);
		vmm_connect(h, &m);
		host_client_set_uid(m.c, 65534);
		vmm_msg(h, &m, &hm, sizeof(hm));
		CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
		CU_ASSERT_EQUAL(w.err, cases[i].err);
		if (!w.err) {
			CU_ASSERT_EQUAL(vsched_owner(vs, w.group, &uid, &gid), 0);
			CU_ASSERT_EQUAL(uid, 65534);
		}
		vmm_leave(h, &m);
		CU_ASSERT_EQUAL(host_free_slots(h), 4);
	}
	CU_ASSERT_EQUAL(vsched_stat(vs, "/tenant/t2", NULL, &(mode_t){ 0 }), -ENOENT);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/machine", NULL, &(mode_t){ 0 }), -ENOENT);
	READ_IS(vs, "/x", "cgroup.subtree_control", "");
	/* Root joins anywhere, as before. */
	vmm_join(h, &m, "r", 1, &w);
	CU_ASSERT_STRING_EQUAL(w.group, "/machine/r");
	vmm_leave(h, &m);
	host_destroy(h);
}

/*
 * The tree above the VM groups survives a restart (host_state.c): a partition's cap, a
 * weight, a group made by hand and its owner are dumped without the VM groups, and a new
 * daemon restored from the file dumps the same. A restarted daemon had none of them.
 */
static void test_host_state(void)
{
	struct host *h = vmm_host_new(2, 4), *h2 = vmm_host_new(2, 4);
	struct vsched *vs = host_vsched(h), *vs2 = host_vsched(h2);
	char file[] = "/tmp/vsched-host-tree.XXXXXX", *d1, *d2;
	struct host_hello hm = vmm_hello("a", 1);
	struct host_welcome w;
	unsigned int refused;
	uid_t uid;
	gid_t gid;
	struct vmm m;
	int fd;

	snprintf(hm.partition, sizeof(hm.partition), "/tenant/t1");
	vmm_connect(h, &m);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL_FATAL(w.err, 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/tenant/t1", "cpu.max", "50000 100000"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/tenant", "cpu.weight", "300"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/tenant/t1/a", "cpu.weight", "20"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir(vs, "/spare"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/spare", "cpu.max", "max 50000"), 0);
	CU_ASSERT_EQUAL(vsched_chown(vs, "/spare", 65534, 65533), 0);
	/* Below what it holds (as the kernel allows): restored after its children. */
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/", "cgroup.max.descendants", "1"), 0);
	d1 = host_state_dump(h);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d1);
	CU_ASSERT_PTR_NOT_NULL(strstr(d1, "write\t/tenant/t1\tcpu.max\t50000 100000\n"));
	/* Its VMM's to re-send; only its owners are kept, for that VMM (host_owners.c). */
	CU_ASSERT_PTR_NULL(strstr(d1, "mkdir\t/tenant/t1/a"));
	CU_ASSERT_PTR_NULL(strstr(d1, "write\t/tenant/t1/a"));
	fd = mkstemp(file);
	CU_ASSERT_TRUE_FATAL(fd >= 0);
	CU_ASSERT_EQUAL(write(fd, d1, strlen(d1)), (ssize_t)strlen(d1));
	close(fd);
	CU_ASSERT_TRUE(host_state_restore(h2, file, &refused) > 0);
	CU_ASSERT_EQUAL(refused, 0);
	unlink(file);
	d2 = host_state_dump(h2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d2);
	CU_ASSERT_STRING_EQUAL(d1, d2);
	READ_IS(vs2, "/tenant/t1", "cpu.max", "50000 100000\n");
	READ_IS(vs2, "/tenant", "cpu.weight", "300\n");
	READ_IS(vs2, "/spare", "cpu.max", "max 50000\n");
	READ_IS(vs2, "/", "cgroup.max.descendants", "1\n");
	CU_ASSERT_EQUAL(vsched_owner(vs2, "/spare", &uid, &gid), 0);
	CU_ASSERT_EQUAL(uid, 65534);
	CU_ASSERT_EQUAL(gid, 65533);
	CU_ASSERT_EQUAL(vsched_stat(vs2, "/tenant/t1/a", NULL, &(mode_t){ 0 }), -ENOENT);
	/* No file: nothing restored, no error. */
	CU_ASSERT_EQUAL(host_state_restore(h2, file, &refused), 0);
	free(d1);
	free(d2);
	vmm_leave(h, &m);
	host_destroy(h);
	host_destroy(h2);
}

static CU_TestInfo host_join_tests[] = {
	{ "a daemon of another build is told apart at a probe", test_host_probe_other_build },
	{ "a join whose group name is taken is refused EEXIST", test_host_join_taken },
	{ "the tree above the VM groups is dumped and restored", test_host_state },
	{ "a peer other than root joins only below a group it owns", test_host_join_uid },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host join", host_join_tests);
