// SPDX-License-Identifier: GPL-2.0
/*
 * The host scheduler daemon's decisions (host/host_lanes.c) without its event loop, each VMM
 * one end of a socketpair: decisions to the VMM that owns the vCPU, a grant's host CPU, and
 * the revocation of a silent holder, driven with explicit times.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "host_vmm_test.h"
#include "sched/core.h"
#include "sched/group.h"
#include "test.h"
#include "util/time.h"
#include "vs_test.h"

/* Decisions reach the VMM that owns the vCPU, in its own vCPU numbering. */
static void test_host_decisions(void)
{
	struct host *h = vmm_host_new(1, 8);
	struct host_welcome w;
	struct host_ev ev;
	struct vmm a, b;

	vmm_join(h, &a, "a", 1, &w);
	vmm_join(h, &b, "b", 2, &w);
	CU_ASSERT_EQUAL(vmm_ev(h, &b, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	CU_ASSERT_TRUE(vmm_recv(&b, HOST_MSG_GRANT, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(ev.vcpu, 1);
	CU_ASSERT_EQUAL(ev.arg, 0);
	CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_FALSE(vmm_recv(&a, HOST_MSG_GRANT, &ev, sizeof(ev)));	/* the lane is b's */
	/* b's vCPU blocks: a gets the lane. */
	CU_ASSERT_EQUAL(vmm_ev(h, &b, HOST_MSG_BLOCKED, 1, 0, 0, 0), 0);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_GRANT, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(ev.vcpu, 0);
	/* a leaves holding it: b's runnable vCPU gets it at once. */
	CU_ASSERT_EQUAL(vmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	vmm_leave(h, &a);
	CU_ASSERT_TRUE(vmm_recv(&b, HOST_MSG_GRANT, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(ev.vcpu, 0);
	vmm_leave(h, &b);
	host_destroy(h);
}

/* The first n CPUs of this thread's affinity mask (the daemon's lanes), n if it has as many. */
static unsigned int mask_cpus(int *cpu, unsigned int n)
{
	unsigned int i, k = 0;
	cpu_set_t set;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(set), &set), 0);
	for (i = 0; i < CPU_SETSIZE && k < n; i++)
		if (CPU_ISSET(i, &set))
			cpu[k++] = (int)i;
	return k;
}

/*
 * A GRANT names its lane's host CPU, lane i on the i-th CPU of the daemon's mask, for the VMM to
 * pin the vCPU there (floating holders shared a CPU while another idled); with more lanes than
 * CPUs the lanes float (HOST_CPU_NONE).
 */
static void test_host_grant_cpu(void)
{
	struct host_welcome w;
	struct host_ev ev;
	unsigned int lanes;
	cpu_set_t set;
	int cpu[2];
	struct host *h;
	struct vmm a;

	lanes = mask_cpus(cpu, 2);
	h = vmm_host_new(lanes, 8);
	vmm_join(h, &a, "a", 2, &w);
	CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_GRANT, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(ev.b, (uint64_t)cpu[ev.arg]);
	if (lanes == 2) {
		CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
		CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_GRANT, &ev, sizeof(ev)));
		CU_ASSERT_EQUAL(ev.b, (uint64_t)cpu[ev.arg]);
	}
	vmm_leave(h, &a);
	host_destroy(h);

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(set), &set), 0);
	h = vmm_host_new((unsigned int)CPU_COUNT(&set) + 1, 8);
	vmm_join(h, &a, "a", 1, &w);
	CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_GRANT, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(ev.b, HOST_CPU_NONE);
	vmm_leave(h, &a);
	host_destroy(h);
}

/* A holder silent for the grace while another waits loses its lane until its VMM speaks. */
static void test_host_revoke(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4, .grace_ns = 1000000 };
	struct vsched *vs;
	struct host_welcome w;
	struct host *h = NULL;
	struct host_ev ev;
	struct vmm a, b;
	uint64_t far;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	vs = host_vsched(h);
	vmm_join(h, &a, "a", 1, &w);
	vmm_join(h, &b, "b", 1, &w);
	CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_GRANT, &ev, sizeof(ev)));
	far = time_mono_ns() + 10 * NSEC_PER_SEC;
	/* Nobody waits: a silent holder keeps its lane. */
	vsched_lock(vs);
	host_revoke_due(h, far);
	vsched_unlock(vs);
	CU_ASSERT_FALSE(vmm_recv(&a, HOST_MSG_PREEMPT, &ev, sizeof(ev)));
	CU_ASSERT_EQUAL(vmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	vsched_lock(vs);
	host_revoke_due(h, far);
	vsched_unlock(vs);
	CU_ASSERT_TRUE(vmm_recv(&a, HOST_MSG_PREEMPT, &ev, sizeof(ev)));
	CU_ASSERT_TRUE(vmm_recv(&b, HOST_MSG_GRANT, &ev, sizeof(ev)));
	/* a speaks again: its vCPU is runnable (waiting) again, b keeps the lane for now. */
	CU_ASSERT_EQUAL(vmm_ev(h, &a, HOST_MSG_TID, 0, 0, 99, 0), 0);
	vsched_lock(vs);
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(vsched_sched(vs), 0), "waiting");
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(vsched_sched(vs), 1), "running");
	vsched_unlock(vs);
	vmm_leave(h, &a);
	vmm_leave(h, &b);
	host_destroy(h);
}

static CU_TestInfo host_lanes_tests[] = {
	{ "decisions go to the owning VMM in its numbering", test_host_decisions },
	{ "a silent lane holder is revoked while others wait", test_host_revoke },
	{ "a grant names its lane's host CPU", test_host_grant_cpu },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host lanes", host_lanes_tests);
