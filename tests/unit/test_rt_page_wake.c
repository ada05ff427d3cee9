// SPDX-License-Identifier: GPL-2.0
/*
 * A waking vCPU in host mode parks on its grant page entry before its RUNNABLE leaves
 * (sched/runtime/rt_page.c, docs/host.md "Latency: preemptions"), so that the daemon grants by
 * the page alone: after a sleep, at a lent exit, and as a sleeper another vCPU wakes.
 */
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../../sched/runtime/rt_remote.h"
#include "rt_page_rig.h"
#include "util/list.h"
#include "vmm/accel.h"

/*
 * A vCPU thread that wakes and asks for a lane (rt_enter()) in host mode: a runtime joined on a
 * socketpair whose other end the test reads as the daemon, and a backend whose MSR read (the
 * steal-time park, made with the lock dropped after the RUNNABLE was sent) is where the daemon
 * answers, as it can on another CPU.
 */
struct wake_rig {
	struct page_rig g;
	struct rt_remote r;
	struct vm vm;
	struct accel_ops ops;
	int fd[2];		/* [1]: the daemon's end */
	bool lose;		/* the daemon is lost instead of granting */
	unsigned int runnables;	/* RUNNABLEs the daemon read before the thread waited */
	unsigned int grant_msgs;	/* grants it had to send as datagrams (bit not set) */
};

/*
 * The daemon at the RUNNABLE, as host_decide() does it: the grant into the entry and its futex
 * woken, then the parked bit read (after a full fence): clear, the GRANT goes as a datagram and
 * wakes the agent. The grant stays in the entry either way: the thread takes it from there.
 */
static int wake_daemon(struct vcpu *vcpu, uint32_t index, uint64_t *data)
{
	struct wake_rig *w = container_of(vcpu->vm, struct wake_rig, vm);
	struct host_ev m;

	(void)index;
	*data = 0;	/* no steal-time area */
	if (recv(w->fd[1], &m, sizeof(m), MSG_DONTWAIT) != (ssize_t)sizeof(m) ||
	    m.type != HOST_MSG_RUNNABLE)
		return 0;
	w->runnables++;
	if (w->lose) {		/* as rt_remote_lost(): the host kernel schedules */
		mutex_lock(&w->g.lock);
		w->g.rt.fallback = true;
		mutex_unlock(&w->g.lock);
		return 0;
	}
	rig_write(&w->g, 0);
	syscall(SYS_futex, &w->g.page[0].seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (!rig_parked(&w->g))
		w->grant_msgs++;
	return 0;
}

/* vCPU 0 back from a sleep (blocked), in a VM joined with the page and the offer page. */
static struct wake_rig *wake_init(void)
{
	struct wake_rig *w = calloc(1, sizeof(*w));

	CU_ASSERT_FATAL(w != NULL);
	rig_init(&w->g);
	w->g.rt.offer = mmap(NULL, sizeof(struct host_offer), PROT_READ | PROT_WRITE,
			     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(w->g.rt.offer != MAP_FAILED);
	CU_ASSERT_EQUAL_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, w->fd), 0);
	w->g.rt.offer->word = host_offer_word(0, HOST_OFFER_NONE, HOST_OFFER_FREE);
	w->ops.get_msr = wake_daemon;
	w->vm.aops = &w->ops;
	w->g.vcpu.vm = &w->vm;
	w->g.vcpu.sched = &w->g.v;
	w->g.rt.vm = &w->vm;
	w->g.rt.poke_fd = -1;
	w->g.rt.report_at = RT_INF;
	w->g.v.stat_fd = w->g.v.blocking_fd = w->g.v.switch_fd = w->g.v.run_fd = -1;
	w->g.v.until = RT_INF;
	pthread_cond_init(&w->g.v.cond, NULL);
	w->g.rt.remote = &w->r;
	w->r.joined = true;
	w->r.fd = w->fd[0];
	rt_outbox_init(&w->r.ob, &w->g.lock);
	rt_outbox_open(&w->r.ob, w->fd[0]);
	rt_set_state(&w->g.v, RT_BLOCKED, rt_now());
	mutex_unlock(&w->g.lock);
	return w;
}

static void *wake_enter(void *arg)
{
	struct wake_rig *w = arg;

	return (void *)(intptr_t)runtime_vcpu_ops.enter(&w->g.vcpu);
}

/* The vCPU's enter() on a thread of its own; a thread still waiting after 10 s is a lost
 * grant: failed, then let go (the VM stops). Returns with the lock held. */
static void wake_run(struct wake_rig *w)
{
	struct timespec ts;
	void *ret = NULL;
	pthread_t t;
	int err;

	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, wake_enter, w), 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 10;
	err = pthread_timedjoin_np(t, &ret, &ts);
	CU_ASSERT_EQUAL(err, 0);
	if (err) {
		mutex_lock(&w->g.lock);
		w->vm.exit_reason = VM_EXIT_ERROR;
		rt_vcpu_wake(&w->g.v);
		mutex_unlock(&w->g.lock);
		pthread_join(t, &ret);
	}
	CU_ASSERT_PTR_NULL(ret);	/* 0: it runs (or the host kernel schedules it) */
	mutex_lock(&w->g.lock);
	CU_ASSERT_EQUAL(w->runnables, 1);
}

static void wake_done(struct wake_rig *w)
{
	rt_outbox_drop(&w->r.ob);
	rt_outbox_destroy(&w->r.ob);
	w->g.rt.remote = NULL;
	close(w->fd[0]);
	close(w->fd[1]);
	rig_done(&w->g);
	free(w);
}

/*
 * A vCPU back from a sleep sends its RUNNABLE and parks its steal time with the lock dropped
 * before it waits on its entry. A grant the daemon decides meanwhile must find its parked bit
 * set already (else the GRANT goes as a datagram and wakes the agent for nothing), and must be
 * taken all the same: the thread runs, its bit cleared. A daemon lost meanwhile leaves no bit
 * set either.
 */
static void test_rt_page_wake_parked(void)
{
	struct wake_rig *w;

	if (!rt_page_usable())
		return;
	w = wake_init();
	wake_run(w);
	CU_ASSERT_EQUAL(w->grant_msgs, 0);
	CU_ASSERT_EQUAL(w->g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(w->g.v.seq_applied, w->g.page[0].seq);
	CU_ASSERT_FALSE(rig_parked(&w->g));
	wake_done(w);

	w = wake_init();
	w->lose = true;
	wake_run(w);
	CU_ASSERT_EQUAL(w->g.v.state, RT_WAITING);
	CU_ASSERT_FALSE(rig_parked(&w->g));
	CU_ASSERT_FALSE(w->g.v.page_parked);
	wake_done(w);
}

/*
 * The daemon answering a RUNNABLE that left outside rt_enter() (a lent vCPU's exit, the waker):
 * its datagrams read until the RUNNABLE (2 s at most), then the grant as wake_daemon() makes it.
 */
static bool wake_answer(struct wake_rig *w)
{
	struct pollfd p = { .fd = w->fd[1], .events = POLLIN };
	struct host_ev m;

	while (poll(&p, 1, 2000) == 1 && recv(w->fd[1], &m, sizeof(m), 0) == (ssize_t)sizeof(m)) {
		if (m.type != HOST_MSG_RUNNABLE)
			continue;	/* the exit's RAN, a slice */
		w->runnables++;
		rig_write(&w->g, 0);
		syscall(SYS_futex, &w->g.page[0].seq, FUTEX_WAKE, 1, NULL, NULL, 0);
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (!rig_parked(&w->g))
			w->grant_msgs++;
		return true;
	}
	return false;
}

/* vCPU 0 lent its lane (halted inside KVM_RUN) and has just left KVM_RUN: its exit's charge. */
static void lent_exit(struct wake_rig *w)
{
	mutex_lock(&w->g.lock);
	rt_set_state(&w->g.v, RT_WAITING, rt_now());
	rt_set_state(&w->g.v, RT_RUNNING, rt_now());
	rt_set_state(&w->g.v, RT_LENT, rt_now());
	w->g.v.in_guest = true;
	w->g.v.clock_charged = UINT64_MAX;	/* no CPU report: this rig has no VM core */
	mutex_unlock(&w->g.lock);
	runtime_vcpu_ops.charge(&w->g.vcpu, 0);
}

/*
 * A lent vCPU that leaves KVM_RUN by itself asks for its lane at its exit (rt_reclaim() from
 * the charge), before its thread handles the exit and enters again. A grant decided in between
 * must find its bit set (else a GRANT datagram wakes the agent for nothing) and be taken at
 * the entry. If the exit was a sleep instead, the grant that went by the page alone is taken
 * before the thread blocks, so the daemon's view (the lane held, then released) is the
 * VMM's, and no bit stays set.
 */
static void test_rt_page_lent_parked(void)
{
	struct wake_rig *w;

	if (!rt_page_usable())
		return;
	w = wake_init();
	lent_exit(w);
	CU_ASSERT_TRUE(wake_answer(w));
	CU_ASSERT_EQUAL(w->grant_msgs, 0);
	wake_run(w);
	CU_ASSERT_EQUAL(w->g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(w->g.v.seq_applied, w->g.page[0].seq);
	CU_ASSERT_FALSE(rig_parked(&w->g));
	wake_done(w);

	w = wake_init();
	lent_exit(w);
	CU_ASSERT_TRUE(wake_answer(w));
	runtime_vcpu_ops.sleep(&w->g.vcpu, 1000);
	mutex_lock(&w->g.lock);
	CU_ASSERT_EQUAL(w->g.v.state, RT_BLOCKED);
	CU_ASSERT_EQUAL(w->g.v.seq_applied, w->g.page[0].seq);
	CU_ASSERT_FALSE(rig_parked(&w->g));
	CU_ASSERT_FALSE(w->g.v.page_parked);
	wake_done(w);
}

/*
 * A sleeper made runnable by the VMM's waker at its sleep's end (rt_xwait.c), its own thread
 * not back yet (late behind a busy CPU): a grant decided before that thread enters must find
 * its bit set, and be taken at the entry.
 */
static void test_rt_page_xwait_parked(void)
{
	struct wake_rig *w;
	int i;

	if (!rt_page_usable())
		return;
	w = wake_init();
	w->g.rt.nr_peers = 1;	/* another VM shares the page: the waker acts (no side here) */
	CU_ASSERT_EQUAL_FATAL(rt_xwait_start(&w->g.rt), 0);
	mutex_lock(&w->g.lock);
	for (i = 0; i < 2000 && !w->g.rt.xw_started; i++) {
		mutex_unlock(&w->g.lock);
		usleep(1000);
		mutex_lock(&w->g.lock);
	}
	CU_ASSERT_TRUE(w->g.rt.xw_started);
	rt_xwait_arm(&w->g.rt, &w->g.v, rt_now() + 1000000);
	mutex_unlock(&w->g.lock);
	CU_ASSERT_TRUE(wake_answer(w));
	CU_ASSERT_EQUAL(w->grant_msgs, 0);
	wake_run(w);
	CU_ASSERT_EQUAL(w->g.rt.st.xw_wakes, 1);
	CU_ASSERT_EQUAL(w->g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(w->g.v.seq_applied, w->g.page[0].seq);
	CU_ASSERT_FALSE(rig_parked(&w->g));
	mutex_unlock(&w->g.lock);
	rt_xwait_stop(&w->g.rt);
	mutex_lock(&w->g.lock);
	wake_done(w);
}

static CU_TestInfo rt_page_wake_tests[] = {
	{ "a waking vCPU is parked before its RUNNABLE leaves: the grant by the page alone",
	  test_rt_page_wake_parked },
	{ "a lent vCPU is parked at its exit's RUNNABLE; a sleep after it takes the grant first",
	  test_rt_page_lent_parked },
	{ "a sleeper the waker makes runnable is parked before its RUNNABLE leaves",
	  test_rt_page_xwait_parked },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/page wake", rt_page_wake_tests);
