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
