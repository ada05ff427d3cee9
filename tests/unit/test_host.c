// SPDX-License-Identifier: GPL-2.0
/*
 * The host scheduler daemon (host/) without its event loop: a VMM is one end of a socketpair,
 * the daemon's client the other (host_vmm_test.h). Joins and leaves on the core (slots, the VM
 * group, the mirrored subtree), pings, and the validation of every message: anything malformed
 * is refused and changes nothing. Decisions and revocation: test_host_lanes.c; who may
 * join and the tree kept across a restart: test_host_join.c.
 */
#include <errno.h>
#include <sched.h>
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

static void test_host_probe_and_version(void)
{
	struct host *h = vmm_host_new(3, 8);
	struct host_hello hm = vmm_hello("", 0);
	struct host_welcome w;
	char big[sizeof(hm) + 16];
	struct vmm m;
	int i;

	vmm_connect(h, &m);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);	/* answered, then hung up */
	CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.err, 0);
	CU_ASSERT_EQUAL(w.nr_lanes, 3);
	CU_ASSERT_EQUAL(w.pid, getpid());
	CU_ASSERT_EQUAL(w.nr_vms, 0);
	vmm_leave(h, &m);

	hm = vmm_hello("a", 1);
	hm.version = HOST_PROTO_VERSION + 1;
	vmm_connect(h, &m);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);
	CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.err, -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(host_free_slots(h), 8);
	vmm_leave(h, &m);
	/* A VMM of another build, its HELLO of another size: told, not hung up on as garbage. */
	for (i = 0; i < 2; i++) {
		memset(big, 0, sizeof(big));
		memcpy(big, &hm, sizeof(hm));
		vmm_connect(h, &m);
		CU_ASSERT_EQUAL(vmm_msg(h, &m, big, i ? sizeof(hm) + 16 : sizeof(hm) - 8), 1);
		CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
		CU_ASSERT_EQUAL(w.err, -EPROTONOSUPPORT);
		vmm_leave(h, &m);
	}
	host_destroy(h);
}

static void test_host_join_leave(void)
{
	struct host *h = vmm_host_new(2, 8);
	struct vsched *vs = host_vsched(h);
	struct host_hello hm = vmm_hello("a", 3);
	struct host_welcome w;
	struct vmm a, b;

	hm.vm.shares = sched_weight_from_cgroup(200);
	hm.vm.quota_us = 50000;
	vmm_connect(h, &a);
	CU_ASSERT_EQUAL(vmm_msg(h, &a, &hm, sizeof(hm)), 0);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.err, 0);
	CU_ASSERT_STRING_EQUAL(w.group, "/machine/a");
	CU_ASSERT_EQUAL(host_free_slots(h), 5);
	READ_IS(vs, "/", "cgroup.subtree_control", "cpu\n");
	READ_IS(vs, "/machine", "cgroup.subtree_control", "cpu\n");
	READ_IS(vs, "/machine/a", "cpu.weight", "200\n");
	READ_IS(vs, "/machine/a", "cpu.max", "50000 100000\n");
	READ_IS(vs, "/machine/a", "vsched.vcpus", "0-2\n");
	/* A second VM of that name in the same partition is refused (it got NAME-PID). */
	hm = vmm_hello("a", 2);
	vmm_connect(h, &b);
	CU_ASSERT_EQUAL(vmm_msg(h, &b, &hm, sizeof(hm)), 1);
	CU_ASSERT_TRUE(vmm_recv(&b, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.err, -EEXIST);
	vmm_leave(h, &b);
	vmm_join(h, &b, "b", 2, &w);
	CU_ASSERT_STRING_EQUAL(w.group, "/machine/b");
	READ_IS(vs, "/machine/b", "vsched.vcpus", "3-4\n");
	vmm_leave(h, &a);
	CU_ASSERT_EQUAL(host_free_slots(h), 6);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/machine/a", NULL, &(mode_t){ 0 }), -ENOENT);
	READ_IS(vs, "/", "vsched.vcpus", "0-2,5-7\n");	/* free slots wait in the root */
	vmm_leave(h, &b);
	CU_ASSERT_EQUAL(host_nr_clients(h), 0);
	CU_ASSERT_EQUAL(host_free_slots(h), 8);
	host_destroy(h);
}

static void test_host_join_refused(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct host_hello hm;
	struct host_welcome w;
	struct vmm m;
	static const struct {
		const char *name, *partition;
		unsigned int vcpus;
		uint64_t shares, quota;
		int err;
	} cases[] = {
		{ "a/b", "", 1, 0, UINT64_MAX, -EINVAL },	/* not a VM name */
		{ ".a", "", 1, 0, UINT64_MAX, -EINVAL },
		{ "a", "machine", 1, 0, UINT64_MAX, -EINVAL },	/* partition not absolute */
		{ "a", "/m/../x", 1, 0, UINT64_MAX, -EINVAL },
		{ "a", "", 5, 0, UINT64_MAX, -ENOSPC },	/* more vCPUs than free slots */
		{ "a", "", 1, 1, UINT64_MAX, -ERANGE },	/* weight below 1 */
		{ "a", "", 1, 1UL << 20, UINT64_MAX, -ERANGE },
		{ "a", "", 1, 0, 10, -EINVAL },		/* cpu.max quota below 1 ms */
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		hm = vmm_hello(cases[i].name, cases[i].vcpus);
		snprintf(hm.partition, sizeof(hm.partition), "%s", cases[i].partition);
		hm.vm.shares = cases[i].shares;
		hm.vm.quota_us = cases[i].quota;
		vmm_connect(h, &m);
		CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);
		CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
		CU_ASSERT_EQUAL(w.err, cases[i].err);
		vmm_leave(h, &m);
		CU_ASSERT_EQUAL(host_free_slots(h), 4);
	}
	/* A name that fills the field without its NUL. */
	hm = vmm_hello("a", 1);
	memset(hm.name, 'x', sizeof(hm.name));
	vmm_connect(h, &m);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);
	CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.err, -ENAMETOOLONG);
	vmm_leave(h, &m);
	CU_ASSERT_EQUAL(vsched_stat(host_vsched(h), "/machine/a", NULL, &(mode_t){ 0 }), -ENOENT);
	host_destroy(h);
}

/* A join refused by the tree leaves it as it was: the groups it made go, "cpu" goes off. */
static void test_host_join_undone(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct vsched *vs = host_vsched(h);
	struct host_hello hm;
	struct host_welcome w;
	struct vmm m, a;
	static const char *const partitions[] = { "/p/q/r", "/p/q" };
	size_t i;

	CU_ASSERT_EQUAL_FATAL(vsched_mkdir(vs, "/p"), 0);
	CU_ASSERT_EQUAL(vsched_write_str(vs, "/p", "cgroup.max.descendants", "1"), 0);
	for (i = 0; i < ARRAY_SIZE(partitions); i++) {
		hm = vmm_hello("x", 1);
		snprintf(hm.partition, sizeof(hm.partition), "%s", partitions[i]);
		vmm_connect(h, &m);
		CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);
		CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
		CU_ASSERT_EQUAL(w.err, -EAGAIN);
		vmm_leave(h, &m);
		CU_ASSERT_EQUAL(vsched_stat(vs, "/p/q", NULL, &(mode_t){ 0 }), -ENOENT);
		READ_IS(vs, "/p", "cgroup.subtree_control", "");
		CU_ASSERT_EQUAL(host_free_slots(h), 4);
	}
	/* A partition inside a VM's group is refused as such, and makes nothing there. */
	vmm_join(h, &a, "a", 1, &w);
	hm = vmm_hello("x", 1);
	snprintf(hm.partition, sizeof(hm.partition), "/machine/a/sub");
	vmm_connect(h, &m);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), 1);
	CU_ASSERT_TRUE(vmm_recv(&m, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.err, -ENOTDIR);
	vmm_leave(h, &m);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/machine/a/sub", NULL, &(mode_t){ 0 }), -ENOENT);
	READ_IS(vs, "/machine/a", "cgroup.subtree_control", "cpu\n");
	vmm_leave(h, &a);
	host_destroy(h);
}

static void test_host_garbage(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct host_hello hm = vmm_hello("a", 2);
	struct host_group_msg gm = { .type = HOST_MSG_GROUP, .path = "g", .id = 1 };
	struct host_welcome w;
	struct host_ev ev = { .type = HOST_MSG_RUNNABLE };
	char big[2048] = { 0 };
	uint32_t type = 999;
	struct vmm m;

	vmm_connect(h, &m);
	/* Before a HELLO: no event is taken. */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &ev, sizeof(ev)), -EPROTO);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &ev, 2), -EPROTO);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &type, sizeof(type)), -EPROTO);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm) - 1), -EPROTO);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, big, sizeof(big)), -EPROTO);
	vmm_leave(h, &m);
	vmm_join(h, &m, "a", 2, &w);
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &hm, sizeof(hm)), -EPROTO);	/* a second HELLO */
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_RUNNABLE, 2, 0, 0, 0), -ERANGE);
	/* More CPU than the vCPU could have run since the join (with HOST_RAN_MAX_NS of slack). */
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_RAN, 0, 0, 10 * HOST_RAN_MAX_NS, 0), -ERANGE);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_TID, 0, 0, 1ULL << 40, 0), -ERANGE);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_GRANT, 0, 0, 0, 0), -EPROTO);	/* daemon's own */
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_VCPU, 0, 1, 0, 0), -ERANGE);	/* no group 1 */
	gm.index = 1;							/* not the next index */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EPROTO);
	gm.index = 0;
	memset(gm.path, 'x', sizeof(gm.path));				/* no NUL */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -ENAMETOOLONG);
	strcpy(gm.path, "../x");
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	strcpy(gm.path, "/x");
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	strcpy(gm.path, "x//y");
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	strcpy(gm.path, "x/y");						/* parent not sent */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	strcpy(gm.path, "x");
	gm.set.idle = 2;
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	gm.set.idle = 0;
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), 0);
	gm.index = 1;
	strcpy(gm.path, "y");
	gm.id = 0;							/* no id */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	gm.id = 1;							/* x's */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	strcpy(gm.path, "x");
	gm.id = 2;							/* the same path again */
	CU_ASSERT_EQUAL(vmm_msg(h, &m, &gm, sizeof(gm)), -EINVAL);
	/* Nothing of the refused batch reached the tree. */
	CU_ASSERT_EQUAL(vsched_stat(host_vsched(h), "/machine/a/x", NULL, &(mode_t){ 0 }), -ENOENT);
	READ_IS(host_vsched(h), "/machine/a", "vsched.vcpus", "0-1\n");
	vmm_leave(h, &m);
	host_destroy(h);
}

static void send_group(struct host *h, struct vmm *m, unsigned int index, const char *path,
		       unsigned int weight, bool threaded, bool subtree_cpu)
{
	struct host_group_msg gm = {
		.type = HOST_MSG_GROUP, .index = index, .id = index + 1,
		.set = { .shares = sched_weight_from_cgroup(weight), .quota_us = UINT64_MAX,
			 .period_us = 100000, .threaded = threaded, .subtree_cpu = subtree_cpu },
	};

	snprintf(gm.path, sizeof(gm.path), "%s", path);
	CU_ASSERT_EQUAL(vmm_msg(h, m, &gm, sizeof(gm)), 0);
}

static void test_host_mirror(void)
{
	struct host *h = vmm_host_new(2, 8);
	struct vsched *vs = host_vsched(h);
	struct host_welcome w;
	struct vmm m;

	vmm_join(h, &m, "a", 3, &w);
	send_group(h, &m, 0, "g", 300, true, true);
	send_group(h, &m, 1, "g/h", 50, true, false);
	send_group(h, &m, 2, "k", 100, true, false);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_VCPU, 0, 2, 0, 0), 0);	/* g/h */
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_VCPU, 1, 3, 0, 0), 0);	/* k */
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
	READ_IS(vs, "/machine/a/g", "cpu.weight", "300\n");
	READ_IS(vs, "/machine/a/g", "cgroup.type", "threaded\n");
	READ_IS(vs, "/machine/a/g/h", "cpu.weight", "50\n");
	READ_IS(vs, "/machine/a/g/h", "vsched.vcpus", "0\n");
	READ_IS(vs, "/machine/a/k", "vsched.vcpus", "1\n");
	READ_IS(vs, "/machine/a", "vsched.vcpus", "2\n");
	/* The next batch is the whole subtree: g/h went, vCPU 0 is back in the VM group. */
	send_group(h, &m, 0, "g", 300, true, false);
	send_group(h, &m, 1, "k", 400, true, false);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_VCPU, 1, 2, 0, 0), 0);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/machine/a/g/h", NULL, &(mode_t){ 0 }), -ENOENT);
	READ_IS(vs, "/machine/a/k", "cpu.weight", "400\n");
	READ_IS(vs, "/machine/a", "vsched.vcpus", "0,2\n");
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_TID, 1, 0, 777, 0), 0);
	READ_IS(vs, "/machine/a/k", "cgroup.threads", "777\n");
	vmm_leave(h, &m);
	CU_ASSERT_EQUAL(vsched_stat(vs, "/machine/a", NULL, &(mode_t){ 0 }), -ENOENT);
	host_destroy(h);
}

/*
 * A group the VMM made threaded after the daemon mirrored it (mkdir, then `echo threaded >
 * cgroup.type`, in either directory) becomes threaded in the daemon's copy too, and takes the
 * vCPU moved into it: before, only a group the batch created got its type, so the copy stayed
 * "domain invalid", the slot stayed in the VM group and the group's cpu.max did not count.
 */
static void test_host_mirror_type(void)
{
	struct host *h = vmm_host_new(2, 8);
	struct vsched *vs = host_vsched(h);
	struct host_welcome w;
	struct vmm m;

	vmm_join(h, &m, "a", 2, &w);
	send_group(h, &m, 0, "n", 100, false, false);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
	READ_IS(vs, "/machine/a/n", "cgroup.type", "domain invalid\n");
	send_group(h, &m, 0, "n", 100, true, false);
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_VCPU, 1, 1, 0, 0), 0);	/* n */
	CU_ASSERT_EQUAL(vmm_ev(h, &m, HOST_MSG_COMMIT, 0, 0, 0, 0), 0);
	READ_IS(vs, "/machine/a/n", "cgroup.type", "threaded\n");
	READ_IS(vs, "/machine/a/n", "vsched.vcpus", "1\n");
	READ_IS(vs, "/machine/a", "vsched.vcpus", "0\n");
	vmm_leave(h, &m);
	host_destroy(h);
}

/* PING is answered at once with PONG and the VMM's time; a joined VM counts in a probe. */
static void test_host_ping(void)
{
	struct host *h = vmm_host_new(2, 4);
	struct host_hello hm = vmm_hello("", 0);
	struct host_welcome w;
	struct host_ev ev;
	struct vmm a, p;

	vmm_join(h, &a, "a", 1, &w);
	CU_ASSERT_EQUAL(w.nr_vms, 1);
	CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_PING, 0, 0, 123456789, 0), 0);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_PONG, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(ev.a, 123456789);
	vmm_connect(h, &p);
	CU_ASSERT_EQUAL(vmm_msg(h, &p, &hm, sizeof(hm)), 1);
	CU_ASSERT_TRUE(vmm_recv(&p, HOST_MSG_WELCOME, &w, sizeof(w)));
	CU_ASSERT_EQUAL(w.nr_vms, 1);
	vmm_leave(h, &p);
	/* Before joining, a PING is garbage like any other event. */
	vmm_connect(h, &p);
	CU_ASSERT_EQUAL(vmm_ev(h, &p, HOST_MSG_PING, 0, 0, 0, 0), -EPROTO);
	vmm_leave(h, &p);
	vmm_leave(h, &a);
	host_destroy(h);
}

static CU_TestInfo host_tests[] = {
	{ "a probe gets the lanes; another version is refused", test_host_probe_and_version },
	{ "join takes slots and makes the VM group; leave undoes it", test_host_join_leave },
	{ "a join with bad name, partition or settings changes nothing", test_host_join_refused },
	{ "a join the tree refuses undoes its groups; no partition in a VM", test_host_join_undone },
	{ "malformed messages are refused", test_host_garbage },
	{ "the VM's subtree is mirrored batch by batch", test_host_mirror },
	{ "a mirrored group made threaded later is threaded in the daemon", test_host_mirror_type },
	{ "PING gets PONG; a probe counts joined VMs", test_host_ping },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host", host_tests);
