// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's directory below a VM group is the VMM's (host/host_fwd.c), without the event
 * loop: a VMM is one end of a socketpair and a thread of the test answers the CTL it gets as
 * the runtime would. What is forwarded (below a VM group; moves in the VM group itself) and
 * what stays (the VM group's settings, groups above VMs); the answer's errno returned; a
 * VM group's setting sent back as VMSET; and rt_remote_ctl() refusing malformed CTLs.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../sched/runtime/rt.h"
#include "host/host.h"
#include "host/proto.h"
#include "test.h"
#include "vsched.h"

struct fwd_vmm {
	struct host *h;
	int fd, dfd;		/* the VMM's end, the daemon's */
	struct host_client *c;
	bool answered;
	struct host_ctl_msg got;	/* the CTL the answering thread read */
	int answer;			/* the errno it answers with */
	const struct vsched_move_perm *perm;	/* the opener's, as ctl_forward() gives it */
};

static int fwd_msg(struct fwd_vmm *m, const void *buf, size_t len)
{
	int ret;

	vsched_lock(host_vsched(m->h));
	ret = host_client_msg(m->h, m->c, buf, len);
	vsched_unlock(host_vsched(m->h));
	return ret;
}

static void fwd_join(struct fwd_vmm *m, struct host *h)
{
	struct host_hello hm = { .type = HOST_MSG_HELLO, .version = HOST_PROTO_VERSION,
				 .pid = 4242, .nr_vcpus = 1, .name = "a",
				 .vm = { .quota_us = UINT64_MAX, .period_us = 100000 } };
	char buf[1024];
	int sv[2];

	m->h = h;
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	m->fd = sv[0];
	m->dfd = sv[1];
	CU_ASSERT_EQUAL_FATAL(host_client_add(h, sv[1], &m->c), 0);
	CU_ASSERT_EQUAL_FATAL(fwd_msg(m, &hm, sizeof(hm)), 0);
	while (recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* The VMM's side: the next CTL, answered with m->answer; a type 0 datagram ends it. */
static void *fwd_answer(void *arg)
{
	struct fwd_vmm *m = arg;
	struct host_ev done = { .type = HOST_MSG_CTL_DONE };

	while (recv(m->fd, &m->got, sizeof(m->got), 0) > 0 && m->got.type != HOST_MSG_CTL &&
	       m->got.type)
		;
	if (m->got.type != HOST_MSG_CTL)
		return NULL;
	m->answered = true;
	done.a = m->got.seq;
	done.b = (uint64_t)m->answer;
	fwd_msg(m, &done, sizeof(done));
	return NULL;
}

static int fwd(struct fwd_vmm *m, unsigned int op, const char *group, const char *file,
	       const char *val, int answer)
{
	pthread_t t;
	int ret;

	memset(&m->got, 0, sizeof(m->got));
	m->answer = answer;
	m->answered = false;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, fwd_answer, m), 0);
	ret = host_forward(m->h, op, group, file, val, val ? strlen(val) : 0, m->perm);
	/* host_forward() returns after the answer: not answered, not forwarded. */
	if (!m->answered)
		send(m->dfd, &(uint32_t){ 0 }, sizeof(uint32_t), 0);
	pthread_join(t, NULL);
	return ret;
}

static void test_host_fwd(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_group_msg vmset;
	struct host *h = NULL;
	struct fwd_vmm m = { .perm = NULL };
	char buf[1024];

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	fwd_join(&m, h);
	/* Below the VM group: sent, relative to it; the VMM's errno comes back. */
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_WRITE, "/machine/a/g", "cpu.weight", "50", 0), 0);
	CU_ASSERT_EQUAL(m.got.op, HOST_CTL_WRITE);
	CU_ASSERT_STRING_EQUAL(m.got.path, "g");
	CU_ASSERT_STRING_EQUAL(m.got.file, "cpu.weight");
	CU_ASSERT_EQUAL(m.got.len, 2);
	CU_ASSERT_EQUAL(memcmp(m.got.buf, "50", 2), 0);
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_MKDIR, "/machine/a/g/x", NULL, NULL, ERANGE), -ERANGE);
	CU_ASSERT_EQUAL(m.got.op, HOST_CTL_MKDIR);
	CU_ASSERT_STRING_EQUAL(m.got.path, "g/x");
	/* Moves in the VM group itself are the VMM's. */
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_WRITE, "/machine/a", "cgroup.threads", "77", 0), 0);
	CU_ASSERT_STRING_EQUAL(m.got.path, "");
	/* Unchecked (a privileged caller): every depth allowed. */
	CU_ASSERT_EQUAL(m.got.may[0], 0xff);
	CU_ASSERT_EQUAL(m.got.may[sizeof(m.got.may) - 1], 0xff);
	/*
	 * A writer's permissions, the root first ("/", "/machine", "/machine/a", "/machine/a/g"),
	 * go from the VM group down: the VMM's tree counts depth from there.
	 */
	m.perm = &(struct vsched_move_perm){ (const bool[]){ true, true, false, true }, 4 };
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_WRITE, "/machine/a/g", "cgroup.threads", "77", EACCES),
			-EACCES);
	CU_ASSERT_EQUAL(m.got.may[0], 0x2);
	CU_ASSERT_EQUAL(m.got.may[1], 0);
	m.perm = NULL;
	/* The VM group's settings, groups above VMs, another VM's name prefix: here. */
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_WRITE, "/machine/a", "cpu.weight", "5", 0), 1);
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_MKDIR, "/machine/ab", NULL, NULL, 0), 1);
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_WRITE, "/machine", "cpu.max", "max", 0), 1);
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_RMDIR, "/machine/a", NULL, NULL, 0), 1);
	/* Slot numbers are not the VM's vCPUs. */
	CU_ASSERT_EQUAL(fwd(&m, HOST_CTL_WRITE, "/machine/a/g", "vsched.vcpus", "0", 0),
			-EOPNOTSUPP);
	CU_ASSERT_EQUAL(fwd(&m, 0, "/machine/a/g", NULL, NULL, 0), -EINVAL);
	/* A VM group's own setting written here goes to its VMM as VMSET. */
	CU_ASSERT_EQUAL(vsched_write_str(host_vsched(h), "/machine/a", "cpu.weight", "400"), 0);
	memset(&vmset, 0, sizeof(vmset));
	while (recv(m.fd, buf, sizeof(buf), MSG_DONTWAIT) == sizeof(vmset)) {
		memcpy(&vmset, buf, sizeof(vmset));
		if (vmset.type == HOST_MSG_VMSET)
			break;
	}
	CU_ASSERT_EQUAL(vmset.type, HOST_MSG_VMSET);
	CU_ASSERT_EQUAL(vmset.set.shares, 4096);
	/* A malformed answer is garbage. */
	CU_ASSERT_EQUAL(fwd_msg(&m, &(struct host_ev){ .type = HOST_MSG_CTL_DONE, .a = 0 },
				sizeof(struct host_ev)), -EPROTO);
	CU_ASSERT_EQUAL(fwd_msg(&m, &(struct host_ev){ .type = HOST_MSG_CTL_DONE, .a = 1,
						       .b = 5000 }, sizeof(struct host_ev)), -EPROTO);
	close(m.fd);
	host_destroy(h);
}

/* The VMM refuses a CTL that is not one before it touches anything. */
static void test_rt_remote_ctl_refused(void)
{
	struct vsched *vs = vsched_create(1, 1);
	struct host_ctl_msg ok = { .type = HOST_MSG_CTL, .op = HOST_CTL_WRITE, .seq = 1,
				   .len = 2, .path = "g", .file = "cpu.weight", .buf = "50" };
	struct host_ctl_msg m;
	static const char *const bad_paths[] = { "/g", "../g", "g/..", "a//b", "g/", "." };
	unsigned int i;

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &(struct host_ev){ .type = HOST_MSG_GRANT },
				      sizeof(struct host_ev)), 0);
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &ok, sizeof(ok) - 1), -EPROTO);
	for (i = 0; i < ARRAY_SIZE(bad_paths); i++) {
		m = ok;
		snprintf(m.path, sizeof(m.path), "%s", bad_paths[i]);
		CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	}
	m = ok;
	memset(m.path, 'a', sizeof(m.path));
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	m = ok;
	m.len = sizeof(m.buf) + 1;
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	m = ok;
	m.op = HOST_CTL_MAX;
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	m = ok;
	m.seq = 0;
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	m = ok;
	strcpy(m.file, "a/b");
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	m = ok;
	m.op = HOST_CTL_RMDIR;
	m.path[0] = '\0';	/* the VM's root is not removed */
	CU_ASSERT_EQUAL(rt_remote_ctl(NULL, vs, &m, sizeof(m)), -EPROTO);
	/* Nothing was applied. */
	CU_ASSERT_EQUAL(vsched_stat(vs, "g", NULL, &(mode_t){ 0 }), -ENOENT);
	vsched_destroy(vs);
}

/* CTL with the writer's permissions (bit d: depth d of the VM's tree); 0 or the VMM's -errno. */
static int fwd_move(struct vsched *vs, const char *group, const char *vcpus, uint8_t may)
{
	struct host_ctl_msg m = { .type = HOST_MSG_CTL, .op = HOST_CTL_WRITE, .seq = 1,
				  .file = "vsched.vcpus" };

	snprintf(m.path, sizeof(m.path), "%s", group);
	m.len = (uint32_t)snprintf(m.buf, sizeof(m.buf), "%s", vcpus);
	m.may[0] = may;
	return rt_remote_ctl_apply(vs, &m);
}

/*
 * A forwarded move is checked by cgroup v2 delegation's rule in the VM's tree: the writer must
 * may write cgroup.procs of the common ancestor of each vCPU's group and the destination
 * (EACCES, nothing moves); a move inside its delegated subtree is its to make.
 */
static void test_rt_remote_ctl_deleg(void)
{
	struct vsched *vs = vsched_create(1, 2);
	char buf[64];

	CU_ASSERT_PTR_NOT_NULL_FATAL(vs);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "a"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "a/x"), 0);
	CU_ASSERT_EQUAL(vsched_mkdir_threaded(vs, "b"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "0", "b"), 0);
	CU_ASSERT_EQUAL(vsched_assign(vs, "1", "a/x"), 0);
	/* Only a (depth 1) is the writer's: vCPU 0 in b meets a at the root. */
	CU_ASSERT_EQUAL(fwd_move(vs, "a", "0", 0x2), -EACCES);
	CU_ASSERT_EQUAL(vsched_read(vs, "b", "vsched.vcpus", buf, sizeof(buf)), 2);
	CU_ASSERT_EQUAL(memcmp(buf, "0\n", 2), 0);
	/* vCPU 1 in a/x meets a at a. */
	CU_ASSERT_EQUAL(fwd_move(vs, "a", "1", 0x2), 0);
	CU_ASSERT_EQUAL(vsched_read(vs, "a", "vsched.vcpus", buf, sizeof(buf)), 2);
	CU_ASSERT_EQUAL(memcmp(buf, "1\n", 2), 0);
	/* The root is the writer's too (a privileged writer: every bit). */
	CU_ASSERT_EQUAL(fwd_move(vs, "a", "0", 0x3), 0);
	CU_ASSERT_EQUAL(fwd_move(vs, "b", "0-1", 0xff), 0);
	vsched_destroy(vs);
}

static CU_TestInfo host_fwd_tests[] = {
	{ "below a VM group is the VMM's; the rest is the daemon's", test_host_fwd },
	{ "a malformed CTL is refused by the VMM", test_rt_remote_ctl_refused },
	{ "a forwarded move is checked by the delegation rule", test_rt_remote_ctl_deleg },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host/forward", host_fwd_tests);
