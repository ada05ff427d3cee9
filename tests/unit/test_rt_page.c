// SPDX-License-Identifier: GPL-2.0
/*
 * A lane holder watches its grant page entry (sched/runtime/rt_page.c, docs/host.md "Latency:
 * preemptions"): before each entry the runtime points vcpu->exit_word at the entry with the
 * seq applied; the thread backend leaves when the daemon writes past it (thread_kicked()); on
 * the way out the holder applies a PREEMPT found there itself (no kick), a garbage entry is
 * left to the socket's copy, and a lost daemon's page is taken away without a fault for a
 * thread still reading it.
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

/* host_page_write() as the daemon does it. */
static void rig_write(struct page_rig *g, uint32_t lane)
{
	rig_write_at(g, lane, 0);
}

/* vCPU 0 holds lane 0 from the page's latest grant and is in the guest. */
static void rig_holding(struct page_rig *g)
{
	rig_write(g, 0);
	g->v.seq_applied = g->page[0].seq;
	if (g->v.state == RT_OFF)
		rt_set_state(&g->v, RT_BLOCKED, rt_now());
	if (g->v.state == RT_BLOCKED)
		rt_set_state(&g->v, RT_WAITING, rt_now());
	if (g->v.state == RT_WAITING)
		rt_set_state(&g->v, RT_RUNNING, rt_now());
	rt_page_watch(&g->rt, &g->v);
	g->v.in_guest = true;
}

static void test_rt_page_preempt(void)
{
	struct page_rig g;

	rig_init(&g);
	rig_holding(&g);
	CU_ASSERT(g.vcpu.exit_word == &g.page[0].seq);
	CU_ASSERT_FALSE(thread_kicked(&g.t));
	/* The daemon preempts: the backend sees it without any kick. */
	rig_write(&g, HOST_LANE_NONE);
	CU_ASSERT(thread_kicked(&g.t));
	CU_ASSERT_EQUAL(g.t.run.immediate_exit, 0);
	/* Out of the guest: applied by the vCPU itself, the agent's copy now old. */
	g.v.in_guest = false;
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_WAITING);
	CU_ASSERT_EQUAL(g.v.seq_applied, g.page[0].seq);
	CU_ASSERT_FALSE(rt_page_newer(&g.v, g.page[0].seq));
	CU_ASSERT_EQUAL(g.rt.st.page_exits, 1);
	CU_ASSERT_EQUAL(g.rt.st.kicks, 0);
	mutex_unlock(&g.lock);
	munmap(g.page, 4096);
}

static void test_rt_page_garbage(void)
{
	struct page_rig g;

	rig_init(&g);
	rig_holding(&g);
	/* A lane the VM does not have: left to the socket's copy (which hangs the daemon up). */
	rig_write(&g, 7);
	CU_ASSERT(thread_kicked(&g.t));
	g.v.in_guest = false;
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT(rt_page_newer(&g.v, g.page[0].seq));
	/* Mid-write (seq odd): nothing read, nothing applied. */
	rig_holding(&g);
	g.page[0].seq++;
	g.page[0].lane = HOST_LANE_NONE;
	g.v.in_guest = false;
	rt_page_exit(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	/* In the host kernel's hands (fallback): no watch. */
	g.page[0].seq++;
	g.rt.fallback = true;
	rt_page_watch(&g.rt, &g.v);
	CU_ASSERT_PTR_NULL(g.vcpu.exit_word);
	CU_ASSERT_FALSE(thread_kicked(&g.t));
	mutex_unlock(&g.lock);
	munmap(g.page, 4096);
}

static void test_rt_page_lost(void)
{
	struct page_rig g;
	const uint32_t *w;

	rig_init(&g);
	rig_holding(&g);
	w = g.vcpu.exit_word;
	/* The daemon is lost: the watch ends, and a read that loaded the pointer finds zeros. */
	rt_page_unmap(&g.rt);
	CU_ASSERT_PTR_NULL(g.vcpu.exit_word);
	CU_ASSERT_PTR_NULL(g.rt.page);
	CU_ASSERT_EQUAL(__atomic_load_n(w, __ATOMIC_RELAXED), 0);
	rt_page_free(&g.rt);
	CU_ASSERT_PTR_NULL(g.rt.page_old);
	mutex_unlock(&g.lock);
}

/* vCPU 0's bit in the offer page: set while its thread waits on its entry (rt_page_wait()). */
static bool rig_parked(struct page_rig *g)
{
	return __atomic_load_n(&g->rt.offer->parked[0], __ATOMIC_SEQ_CST) & 1;
}

static void rig_offer(struct page_rig *g)
{
	g->rt.offer = mmap(NULL, sizeof(struct host_offer), PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(g->rt.offer != MAP_FAILED);
	rt_set_state(&g->v, RT_BLOCKED, rt_now());
	rt_set_state(&g->v, RT_WAITING, rt_now());
}

/*
 * A thread waiting on its entry says so in its bit of the offer page, so that the daemon sends
 * its grant by the page alone; the grant written there (no datagram) is taken, the bit cleared.
 */
static void test_rt_page_parked(void)
{
	struct page_rig g;
	pthread_t t;
	int i;

	if (!rt_page_usable())
		return;		/* no futex_waitv: the VMM joins without a page */
	rig_init(&g);
	rig_offer(&g);
	mutex_unlock(&g.lock);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, rig_waiter, &g), 0);
	for (i = 0; i < 2000 && !rig_parked(&g); i++)
		usleep(1000);
	CU_ASSERT_TRUE(rig_parked(&g));
	/* The daemon's grant: the entry and its futex wake, nothing on the socket. */
	rig_write(&g, 0);
	syscall(SYS_futex, &g.page[0].seq, FUTEX_WAKE, 1, NULL, NULL, 0);
	pthread_join(t, NULL);
	mutex_lock(&g.lock);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.v.seq_applied, g.page[0].seq);
	CU_ASSERT_FALSE(rig_parked(&g));	/* running: its next grant comes with a datagram */
	/* A grant in the entry before the wait: taken at once, never parked past it. */
	rt_set_state(&g.v, RT_WAITING, rt_now());
	rig_write(&g, 0);
	rt_page_wait(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_FALSE(rig_parked(&g));
	rig_done(&g);
}

/*
 * A RETIME that reaches the agent before the thread took the grant it changes (which went by
 * the page alone) is applied when the thread takes it; one of another grant is not.
 */
static void test_rt_page_retime(void)
{
	struct page_rig g;

	rig_init(&g);
	rig_offer(&g);
	rig_write(&g, 0);
	rt_page_retime(&g.v, g.page[0].seq, 12345);
	rt_page_retime(&g.v, g.v.seq_applied, 999);	/* the grant applied: not kept */
	rt_page_wait(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.v.until, 12345);
	/* Preempted, granted again: the old RETIME's seq is not this grant's. */
	rt_set_state(&g.v, RT_WAITING, rt_now());
	rt_page_retime(&g.v, g.page[0].seq + 2, 777);
	rig_write(&g, HOST_LANE_NONE);
	rig_write(&g, 0);
	rt_page_wait(&g.rt, &g.v);
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.v.until, RT_INF);
	rig_done(&g);
}

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

/* A thread standing for the vCPU's: its mask is what the test looks at. */
struct pin_thread {
	pid_t tid;
	bool stop;
};

static void *pin_sleeper(void *arg)
{
	struct pin_thread *p = arg;

	__atomic_store_n(&p->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE))
		usleep(1000);
	return NULL;
}

/*
 * A grant whose entry says the daemon pinned the thread to the lane's CPU (HOST_CPU_PINNED,
 * protocol 15) is taken without the thread setting its mask again (a system call between the
 * wake-up and the guest, under the VMM's lock); one without the flag is pinned here as before.
 */
static void test_rt_page_host_pinned(void)
{
	struct pin_thread p = { 0 };
	struct page_rig g;
	cpu_set_t all, got;
	uint32_t seq;
	pthread_t t;
	int cpu, i;

	CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof(all), &all), 0);
	if (CPU_COUNT(&all) < 2) {
		printf("(needs 2 CPUs: a mask of one cannot show a pin) ");
		return;
	}
	for (cpu = 0; !CPU_ISSET(cpu, &all); cpu++)
		;
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, pin_sleeper, &p), 0);
	for (i = 0; i < 2000 && !__atomic_load_n(&p.tid, __ATOMIC_ACQUIRE); i++)
		usleep(1000);
	rig_init(&g);
	rig_offer(&g);
	g.v.tid = p.tid;
	g.v.cpu = -1;
	rig_write_cpu_at(&g, 0, (uint64_t)cpu | HOST_CPU_PINNED, 0);
	CU_ASSERT_TRUE(rt_page_apply(&g.rt, &g.v, &seq));
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	if (g.v.state != RT_RUNNING)
		goto out;	/* not taken (before protocol 15: a CPU out of range) */
	CU_ASSERT_EQUAL(g.v.cpu, cpu);
	CU_ASSERT_EQUAL(g.v.host_pinned, 0);
	CU_ASSERT_EQUAL(g.rt.st.host_pins, 1);
	CU_ASSERT_EQUAL(sched_getaffinity(p.tid, sizeof(got), &got), 0);
	CU_ASSERT_EQUAL(CPU_COUNT(&got), CPU_COUNT(&all));	/* left as it was */
	/* Without the flag (the daemon did not pin it): the thread's mask set here. */
	rt_set_state(&g.v, RT_WAITING, rt_now());
	g.v.cpu = -1;
	rig_write_cpu_at(&g, 0, (uint64_t)cpu, 0);
	CU_ASSERT_TRUE(rt_page_apply(&g.rt, &g.v, &seq));
	CU_ASSERT_EQUAL(g.v.state, RT_RUNNING);
	CU_ASSERT_EQUAL(g.rt.st.host_pins, 1);
	CU_ASSERT_EQUAL(sched_getaffinity(p.tid, sizeof(got), &got), 0);
	CU_ASSERT(CPU_COUNT(&got) == 1 && CPU_ISSET(cpu, &got));
	/* A flagged CPU out of range is garbage as any. */
	rt_set_state(&g.v, RT_WAITING, rt_now());
	rig_write_cpu_at(&g, 0, (uint64_t)CPU_SETSIZE | HOST_CPU_PINNED, 0);
	CU_ASSERT_TRUE(rt_page_apply(&g.rt, &g.v, &seq));
	CU_ASSERT_EQUAL(g.v.state, RT_WAITING);
out:
	__atomic_store_n(&p.stop, true, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	rig_done(&g);
}

static CU_TestInfo rt_page_tests[] = {
	{ "a thread waiting on its entry is parked in the offer page, and takes a page-only grant",
	  test_rt_page_parked },
	{ "a waking vCPU is parked before its RUNNABLE leaves: the grant by the page alone",
	  test_rt_page_wake_parked },
	{ "a lent vCPU is parked at its exit's RUNNABLE; a sleep after it takes the grant first",
	  test_rt_page_lent_parked },
	{ "a sleeper the waker makes runnable is parked before its RUNNABLE leaves",
	  test_rt_page_xwait_parked },
	{ "a RETIME ahead of its page-only grant is applied when the grant is taken",
	  test_rt_page_retime },
	{ "a holder leaves for a PREEMPT in its page entry and applies it, unkicked",
	  test_rt_page_preempt },
	{ "garbage, a write in progress and the fallback are not applied", test_rt_page_garbage },
	{ "a grant the daemon pinned is not pinned again by its thread (HOST_CPU_PINNED)",
	  test_rt_page_host_pinned },
	{ "a lost daemon's page goes without a fault for a late reader", test_rt_page_lost },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("runtime/page", rt_page_tests);
