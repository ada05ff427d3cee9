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
#include "vsched.h"
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

static uint64_t lanes_now;

static uint64_t lanes_clock(void)
{
	return lanes_now;
}

/* What every VMM's threads do, as the stubs of /proc below show them. */
enum lanes_mode {
	LANES_STOPPED,	/* SIGSTOP: T */
	LANES_WAITING,	/* want a host CPU: R, waiting on a runqueue all along */
	LANES_FROZEN1,	/* a cgroup v1 freezer: D, no time on a CPU nor on a runqueue */
	LANES_FROZEN2,	/* cgroup v2's cgroup.freeze: S, the same */
	LANES_SPIN,	/* R, on a CPU all along, never answering */
	LANES_LOCK,	/* S on a lock whose holder, another thread of the VMM, waits for a CPU */
	LANES_SPIN_IO,	/* R on a CPU, its VMM's agent (no vCPU) waiting for one, its word with it */
	LANES_SPIN_VCPU, /* R on a CPU, another vCPU's thread waiting for one, sending the VMM's
			    queue (rt_outbox.c), its word in it */
};

static enum lanes_mode lanes_mode;

static char lanes_thread_state(const struct host_client *c, unsigned int vcpu)
{
	static const char st[] = { 'T', 'R', 'D', 'S', 'R', 'S', 'R', 'R' };

	(void)c;
	(void)vcpu;
	return st[lanes_mode];
}

/*
 * schedstat as the kernel keeps it: a thread's times move as it gets or leaves a CPU (and at
 * its ticks while it runs), not while it waits on a runqueue; a spinning thread's run time
 * grows with the driven clock. Three threads in each VMM.
 */
static int lanes_thread_times(const struct host_client *c, unsigned int vcpu,
			      struct host_times *t)
{
	(void)c;
	memset(t, 0, sizeof(*t));
	t->state = lanes_thread_state(c, vcpu);
	t->run_ns = lanes_mode == LANES_SPIN || lanes_mode == LANES_SPIN_IO ||
		    lanes_mode == LANES_SPIN_VCPU ? lanes_now : 1000000 + vcpu;
	t->wait_ns = 2000000;
	t->vm_threads = 3;
	/* Besides the holder: the lock's holder; the agent or the sender with its VMM's word. */
	t->vm_runnable = (t->state == 'R') + (lanes_mode == LANES_LOCK ||
					      lanes_mode == LANES_SPIN_IO ||
					      lanes_mode == LANES_SPIN_VCPU);
	return 0;
}

/*
 * A daemon of one lane on a driven clock, its VMMs' threads as mode says; its timer is
 * called every 100 us as timerfd would.
 */
static struct host *lanes_host(enum lanes_mode mode)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };	/* the default grace, answer */
	struct host *h = NULL;

	CU_ASSERT_FATAL(host_create(&o, &h) == 0);
	lanes_now = time_mono_ns() + NSEC_PER_SEC;	/* the core never goes back */
	host_set_clock(h, lanes_clock);
	lanes_mode = mode;
	host_set_thread_state(h, lanes_thread_state);
	host_set_thread_times(h, lanes_thread_times);
	return h;
}

/* The driven clock moved on by ns, the daemon's timer called at each 100 us. */
static void lanes_advance(struct host *h, uint64_t ns)
{
	uint64_t end = lanes_now + ns;

	while (lanes_now < end) {
		lanes_now += 100000;
		host_timer(h);
	}
}

static int lanes_holder(struct host *h, uint64_t *until)
{
	struct sched *s = vsched_sched(host_vsched(h));
	int v;

	vsched_lock(host_vsched(h));
	v = sched_lane_vcpu(s, 0);
	*until = sched_lane_until(s, 0);
	vsched_unlock(host_vsched(h));
	return v;
}

/* VMs a and b join with one vCPU each, both runnable: a's takes the one lane, b's waits. */
static void lanes_two(struct host *h, struct host_client **a, int *fa, struct host_client **b,
		      int *fb)
{
	*fa = host_test_join(h, "a", 1, UINT64_MAX, a);
	*fb = host_test_join(h, "b", 1, UINT64_MAX, b);
	CU_ASSERT_EQUAL(host_test_ev(h, *a, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, *b, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
}

/*
 * a's holder's VMM stops (SIGSTOP) while b's vCPU waits: the lane goes to b within
 * HOST_ANSWER_NS of a's slice end, not HOST_GRACE_NS (100 ms) after a's grant; a, silent, gets
 * it back only once its VMM speaks. Before: b waited 100 ms past a's slice end.
 */
static void test_host_revoke_slice(void)
{
	struct host *h = lanes_host(LANES_STOPPED);
	struct host_client *a, *b;
	uint64_t until, u2, t0;
	int fa, fb;

	lanes_two(h, &a, &fa, &b, &fb);
	CU_ASSERT_EQUAL_FATAL(lanes_holder(h, &until), 0);
	CU_ASSERT_FATAL(until != SCHED_TIME_NONE);
	t0 = lanes_now;
	while (lanes_holder(h, &u2) == 0 && lanes_now < t0 + 2 * HOST_GRACE_NS)
		lanes_advance(h, 100000);
	CU_ASSERT_EQUAL(lanes_holder(h, &u2), 1);
	fprintf(stderr, "(b's lane %.1f ms after a's slice end) ", (lanes_now - until) / 1e6);
	CU_ASSERT(lanes_now <= until + HOST_ANSWER_NS + 100000);
	CU_ASSERT_EQUAL(host_client_revokes(a), 1);
	/* b reports and ticks: a, still silent, does not get the lane back. */
	lanes_advance(h, 10 * NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_RAN, 0, 0, lanes_now - t0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_TICK, 0, 0, 0, 0), 0);
	lanes_advance(h, 20 * NSEC_PER_MSEC);
	CU_ASSERT_EQUAL(lanes_holder(h, &u2), 1);
	CU_ASSERT_EQUAL(host_client_revokes(b), 0);
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
}

/*
 * a's holder's thread woke late (a loaded host: 5-15 ms past its slice end at load 12, its VMM
 * not yet aware it ran) and wants a host CPU: not revoked at its end + the answer time; the
 * core, run then, preempts it as at any slice end (charged its wall time), and it waits.
 */
static void test_host_revoke_slice_loaded(void)
{
	struct host *h = lanes_host(LANES_WAITING);
	struct sched *s = vsched_sched(host_vsched(h));
	struct host_client *a, *b;
	uint64_t until, u2;
	int fa, fb;

	lanes_two(h, &a, &fa, &b, &fb);
	CU_ASSERT_EQUAL_FATAL(lanes_holder(h, &until), 0);
	lanes_advance(h, until + 2 * HOST_ANSWER_NS - lanes_now);
	CU_ASSERT_EQUAL(lanes_holder(h, &u2), 1);
	CU_ASSERT_EQUAL(host_client_revokes(a), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_STRING_EQUAL(sched_vcpu_state(s, 0), "waiting");
	vsched_unlock(host_vsched(h));
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
}

/*
 * a's VMM does not answer and its holder's thread is not stopped (mode): frozen by a cgroup
 * freezer (D, S), or running without a word; b waits and answers each of its slice ends. In
 * 400 ms a holds the lane at most its slice (8 ms at most) and twice the answer time at once
 * (its times read at the first, judged at the second), then never again. Before: a looked
 * owed to the core (charged nothing past HOST_REPORT_NS), which kept it on the lane until the
 * grace, 100 ms after its grant. With an agent or another vCPU's thread in R (LANES_SPIN_IO,
 * LANES_SPIN_VCPU), a is late, not stuck: it keeps the lane past that, the grace at most.
 * Returns a's longest hold.
 */
static uint64_t lanes_stuck(enum lanes_mode mode)
{
	struct host *h = lanes_host(mode);
	bool late = mode == LANES_SPIN_IO || mode == LANES_SPIN_VCPU;
	struct host_client *a, *b;
	uint64_t until, t0, from = 0, longest = 0, last_a = 0;
	int fa, fb, v;

	lanes_two(h, &a, &fa, &b, &fb);
	CU_ASSERT_EQUAL_FATAL(lanes_holder(h, &until), 0);
	t0 = lanes_now;
	while (lanes_now < t0 + 4 * HOST_GRACE_NS) {
		v = lanes_holder(h, &until);
		if (v == 0) {
			from = from ? from : lanes_now;
			last_a = lanes_now;
			if (lanes_now - from > longest)
				longest = lanes_now - from;
		} else {
			from = 0;
		}
		if (v == 1) {	/* b's VMM reports its holder's CPU and ticks */
			CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_RAN, 0, 0, 100000, 0), 0);
			CU_ASSERT_EQUAL(host_test_ev(h, b, HOST_MSG_TICK, 0, 0, 0, 0), 0);
		}
		lanes_advance(h, 100000);
	}
	/* Stuck: its slice and twice the answer; late (an agent in R): the grace, not more. */
	if (late)
		CU_ASSERT(longest > 8 * NSEC_PER_MSEC + 2 * HOST_ANSWER_NS + NSEC_PER_MSEC);
	CU_ASSERT(longest <= (late ? HOST_GRACE_NS :
			      8 * NSEC_PER_MSEC + 2 * HOST_ANSWER_NS + NSEC_PER_MSEC));
	CU_ASSERT(last_a < t0 + 2 * HOST_GRACE_NS);
	CU_ASSERT(host_client_revokes(a) >= 1);
	CU_ASSERT_EQUAL(host_client_revokes(b), 0);
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
	return longest;
}

static void test_host_revoke_frozen(void)
{
	fprintf(stderr, "(a held the lane %.1f ms at most, v1 freezer; ",
		lanes_stuck(LANES_FROZEN1) / 1e6);
	fprintf(stderr, "%.1f ms, v2) ", lanes_stuck(LANES_FROZEN2) / 1e6);
}

static void test_host_revoke_spin(void)
{
	fprintf(stderr, "(a held the lane %.1f ms at most) ", lanes_stuck(LANES_SPIN) / 1e6);
}

/*
 * a's holder runs past its end while a thread of its VMM that is no vCPU (its agent) waits for
 * a CPU: the word may be with it, or the holder's new end unread (load 27: t-host.sh's live VM
 * lost a holder as "ran without a word" so). Late, not stuck: revoked at the grace only.
 */
static void test_host_revoke_spin_io(void)
{
	fprintf(stderr, "(a held the lane %.1f ms at most) ", lanes_stuck(LANES_SPIN_IO) / 1e6);
}

/*
 * a's holder runs past its end while another vCPU thread of its VMM waits for a CPU: the
 * outbox's sender, preempted, with the VMM's queued words (its helper's report, its TICKs),
 * which every other thread leaves to it (t-host-freeze.sh at load ~14: the daemon read nothing
 * from the live VM c for 19-32 ms and revoked its holder as "ran without a word", 1 run in 8).
 * Late, not stuck: revoked at the grace only.
 */
static void test_host_revoke_spin_vcpu(void)
{
	fprintf(stderr, "(a held the lane %.1f ms at most) ", lanes_stuck(LANES_SPIN_VCPU) / 1e6);
}

/*
 * a's holder's thread sleeps on a lock held by another thread of its VMM that waits for a
 * host CPU (a loaded host): its VMM is late, not stuck. Not revoked while the grace lasts;
 * the core, run at its end, preempts it as any holder (b gets the lane, a waits).
 */
static void test_host_revoke_lock(void)
{
	struct host *h = lanes_host(LANES_LOCK);
	struct sched *s = vsched_sched(host_vsched(h));
	struct host_client *a, *b;
	uint64_t until;
	int fa, fb;

	lanes_two(h, &a, &fa, &b, &fb);
	CU_ASSERT_EQUAL_FATAL(lanes_holder(h, &until), 0);
	lanes_advance(h, until + 6 * HOST_ANSWER_NS - lanes_now);
	CU_ASSERT_EQUAL(host_client_revokes(a), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_STRING_NOT_EQUAL(sched_vcpu_state(s, 0), "blocked");
	vsched_unlock(host_vsched(h));
	host_test_leave(h, a, fa);
	host_test_leave(h, b, fb);
	host_destroy(h);
}


/*
 * Two live VMs answering each slice end (RAN, TICK) 1 ms late, as a loaded host's SCHED_FIFO
 * helper might, and each PREEMPT (the last part's RAN) 1 ms after it: in 1 s of lane changes,
 * no vCPU is revoked.
 */
static void test_host_revoke_live(void)
{
	struct host *h = lanes_host(LANES_WAITING);
	struct host_client *c[2];
	uint64_t until, last = 0, t0;
	int f[2], v, changes = 0;

	f[0] = host_test_join(h, "a", 1, UINT64_MAX, &c[0]);
	f[1] = host_test_join(h, "b", 1, UINT64_MAX, &c[1]);
	CU_ASSERT_EQUAL(host_test_ev(h, c[0], HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c[1], HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	t0 = lanes_now;
	while (lanes_now < t0 + NSEC_PER_SEC) {
		v = lanes_holder(h, &until);
		CU_ASSERT_FATAL(v == 0 || v == 1);
		CU_ASSERT_FATAL(until != SCHED_TIME_NONE && until >= lanes_now);
		lanes_advance(h, until + NSEC_PER_MSEC - lanes_now);
		CU_ASSERT_EQUAL(host_test_ev(h, c[v], HOST_MSG_RAN, 0, 0,
					     lanes_now - (last ? last : t0), 0), 0);
		CU_ASSERT_EQUAL(host_test_ev(h, c[v], HOST_MSG_TICK, 0, 0, 0, 0), 0);
		last = lanes_now;
		if (lanes_holder(h, &until) == v)
			continue;
		/* Preempted (kicked): its report of its last part, 1 ms later. */
		changes++;
		lanes_advance(h, NSEC_PER_MSEC);
		CU_ASSERT_EQUAL(host_test_ev(h, c[v], HOST_MSG_RAN, 0, 0, NSEC_PER_MSEC, 0), 0);
	}
	CU_ASSERT(changes > 50);
	CU_ASSERT_EQUAL(host_client_revokes(c[0]), 0);
	CU_ASSERT_EQUAL(host_client_revokes(c[1]), 0);
	host_test_leave(h, c[0], f[0]);
	host_test_leave(h, c[1], f[1]);
	host_destroy(h);
}

static CU_TestInfo host_lanes_tests[] = {
	{ "a stopped holder loses its lane at its slice end + the answer time",
	  test_host_revoke_slice },
	{ "live holders answering their slice ends are not revoked", test_host_revoke_live },
	{ "a silent holder whose thread wants a CPU is not revoked",
	  test_host_revoke_slice_loaded },
	{ "a frozen holder (cgroup freezer: D, S) loses its lane at its end + twice the answer",
	  test_host_revoke_frozen },
	{ "a holder running past its end without a word loses its lane", test_host_revoke_spin },
	{ "a silent holder asleep on a lock whose holder waits for a CPU is not revoked",
	  test_host_revoke_lock },
	{ "a holder running past its end while its VMM's agent waits for a CPU keeps the grace",
	  test_host_revoke_spin_io },
	{ "a holder running past its end while another vCPU thread waits for a CPU keeps the grace",
	  test_host_revoke_spin_vcpu },
	{ "decisions go to the owning VMM in its numbering", test_host_decisions },
	{ "a silent lane holder is revoked while others wait", test_host_revoke },
	{ "a grant names its lane's host CPU", test_host_grant_cpu },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host lanes", host_lanes_tests);
