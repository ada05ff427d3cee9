// SPDX-License-Identifier: GPL-2.0
/*
 * What wakes the helper: a poke (an eventfd), its own deadline, and the host kernel telling it
 * that a vCPU thread inside KVM_RUN changed state. Polls saw a halt, and a lent vCPU waking,
 * only at the next poll; two perf software events per vCPU thread report them as they happen:
 *
 *   WATCH_HALT  a "context-switches" sampler, period 1: the lane holder left its CPU (halted,
 *               or was preempted: the helper reads KVM's "blocking" statistic to tell which);
 *   WATCH_RUN   a "task-clock" sampler, period RT_WATCH_RAN_NS: the lent vCPU used CPU again.
 *
 * Not a switch recorder (PERF_RECORD_SWITCH) for the lent vCPU: its switch-in comes before KVM
 * leaves the halt loop ("blocking" still reads 1), and each look by the higher-priority helper
 * switched it out and in again, a new record each time: a livelock. The task clock counts only
 * the vCPU's own CPU time, so looks do not feed it. Both events write into one ring that is only
 * drained: the news is that something arrived. Without perf (no permission, no support) the
 * helper polls instead (rt_helper.c).
 */
#include <errno.h>
#include <sched.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

#define RT_WATCH_RING_PAGES	2	/* the header page and one data page */
#define RT_WATCH_POKE		UINT32_MAX	/* epoll tag of the poke eventfd */

int rt_watch_init(struct runtime *rt)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = RT_WATCH_POKE };

	rt->poke_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	rt->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (rt->poke_fd < 0 || rt->epoll_fd < 0 ||
	    epoll_ctl(rt->epoll_fd, EPOLL_CTL_ADD, rt->poke_fd, &ev) < 0)
		return -errno;
	return 0;
}

void rt_watch_exit(struct runtime *rt)
{
	if (rt->poke_fd >= 0)
		close(rt->poke_fd);
	if (rt->epoll_fd >= 0)
		close(rt->epoll_fd);
	rt->poke_fd = rt->epoll_fd = -1;
}

static int rt_perf_open(pid_t tid, uint32_t config, uint64_t period)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.sample_period = period;
	a.wakeup_events = 1;	/* every sample wakes the helper */
	a.disabled = 1;
	return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* On the vCPU thread at start. A failure only leaves this vCPU to the helper's polls. */
void rt_watch_open(struct rt_vcpu *rv)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = rv->id };
	size_t len = RT_WATCH_RING_PAGES * (size_t)sysconf(_SC_PAGESIZE);

	rv->watch_mode = WATCH_NONE;
	rv->switch_fd = rt_perf_open(rv->tid, PERF_COUNT_SW_CONTEXT_SWITCHES, 1);
	rv->run_fd = rt_perf_open(rv->tid, PERF_COUNT_SW_TASK_CLOCK, RT_WATCH_RAN_NS);
	if (rv->switch_fd < 0 || rv->run_fd < 0)
		goto fail;
	rv->ring = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, rv->run_fd, 0);
	if (rv->ring == MAP_FAILED) {
		rv->ring = NULL;
		goto fail;
	}
	if (ioctl(rv->switch_fd, PERF_EVENT_IOC_SET_OUTPUT, rv->run_fd) < 0 ||
	    epoll_ctl(rv->rt->epoll_fd, EPOLL_CTL_ADD, rv->run_fd, &ev) < 0)
		goto fail;
	return;
fail:
	rt_watch_close(rv);
}

void rt_watch_close(struct rt_vcpu *rv)
{
	if (rv->ring)
		munmap(rv->ring, RT_WATCH_RING_PAGES * (size_t)sysconf(_SC_PAGESIZE));
	rv->ring = NULL;
	if (rv->switch_fd >= 0)
		close(rv->switch_fd);
	if (rv->run_fd >= 0)
		close(rv->run_fd);	/* closing also leaves the epoll set */
	rv->switch_fd = rv->run_fd = -1;
	rv->watch_mode = WATCH_NONE;
}

bool rt_watched(const struct rt_vcpu *rv)
{
	return rv->ring != NULL;
}

static int rt_watch_fd(const struct rt_vcpu *rv, enum rt_watch_mode mode)
{
	return mode == WATCH_RUN ? rv->run_fd : rv->switch_fd;
}

/*
 * A lent vCPU runs SCHED_FIFO, just below the helper: as a normal thread, woken on a CPU where
 * a lane holder runs, it waited behind that holder for up to a few ms (the host's slice),
 * unseen because it used no CPU time, while its guest's work was due. Now it preempts at once,
 * and the helper hears of it RT_WATCH_RAN_NS of CPU later and takes the lane back (or, if it
 * halted again, nothing happens). A thread the host does not let us raise stays as it was.
 */
static void rt_watch_boost(struct rt_vcpu *rv, bool on)
{
	struct sched_param sp = { .sched_priority = on ? RT_PRIO_LENT : 0 };

	if (!sched_setscheduler(rv->tid, on ? SCHED_FIFO | SCHED_RESET_ON_FORK : SCHED_OTHER, &sp))
		rv->boosted = on;
}

/*
 * A lent vCPU given back a lane while it runs on its own keeps SCHED_FIFO until it leaves
 * KVM_RUN (an exit, a kick, its slice end; it also stays raised while lent again). Lowered at
 * the grant, the running thread went back to the host's fair class (presumably with the lag
 * its last busy phase spent) and the host ran other threads first: measured on this
 * host under load, the thread backend's halt-duty vCPUs then stopped for 2-13 ms, out of a
 * wall-clock busy phase (docs/runtime.md). On its lane it only keeps off other host work, and
 * at most until its slice end: a lane without one (nobody waits) is lowered at once.
 */
static bool rt_watch_keeps_boost(const struct rt_vcpu *rv)
{
	return rv->boosted && rv->state == RT_RUNNING && rv->in_guest && rv->until != RT_INF &&
	       !rt_hands_off(rv->rt);
}

/* Which event reports on the vCPU: a few hundred ns per change, so only on a change. */
void rt_watch_set(struct rt_vcpu *rv, enum rt_watch_mode mode)
{
	bool boost;

	if (!rv->ring)
		return;
	boost = mode == WATCH_RUN || rt_watch_keeps_boost(rv);
	if (boost != rv->boosted)
		rt_watch_boost(rv, boost);
	if (rv->watch_mode == mode)
		return;
	if (rv->watch_mode != WATCH_NONE)
		ioctl(rt_watch_fd(rv, rv->watch_mode), PERF_EVENT_IOC_DISABLE, 0);
	if (mode != WATCH_NONE)
		ioctl(rt_watch_fd(rv, mode), PERF_EVENT_IOC_ENABLE, 0);
	rv->watch_mode = mode;
}

/*
 * A lane holder entering KVM_RUN is watched for halts only if it halted lately: a watched
 * thread's every switch-out wakes the helper (preemptions too), which hogs would pay on every
 * lane change for nothing. The helper's polls discover a vCPU that starts halting.
 */
void rt_watch_holder(struct rt_vcpu *rv, uint64_t now)
{
	bool lately = rv->last_lend && now - rv->last_lend < RT_IDLE_QUIET_NS;

	rt_watch_set(rv, lately ? WATCH_HALT : WATCH_NONE);
}

/* Samples only announce; drop them so the ring never fills (a full ring would fall silent). */
static void rt_watch_drain(struct rt_vcpu *rv)
{
	struct perf_event_mmap_page *pg = rv->ring;

	if (!pg)
		return;
	__atomic_store_n(&pg->data_tail, __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

void rt_watch_poke(struct runtime *rt)
{
	uint64_t one = 1;

	/* Failing only when the counter is full (EAGAIN): a poke is pending anyway. */
	if (write(rt->poke_fd, &one, sizeof(one)) < 0)
		return;
}

/*
 * Sleeps until a poke, a watch event or `until` (RT_INF: no deadline). Called and returns with
 * the lock held, drops it while asleep. A poke between the caller's planning and this wait is
 * not lost: the eventfd keeps it. Rings are drained under the lock: a vCPU thread that ends
 * unmaps its ring.
 */
void rt_watch_wait(struct runtime *rt, uint64_t until)
{
	struct epoll_event evs[16];
	struct timespec ts, *tp = NULL;
	uint64_t now = rt_now(), left, junk;
	int i, n;

	assert_held(rt->lock);
	if (until != RT_INF) {
		left = until > now ? until - now : 0;
		ts = time_ns_to_ts(left);
		tp = &ts;
	}
	rt_unlock(rt);
	n = epoll_pwait2(rt->epoll_fd, evs, 16, tp, NULL);
	mutex_lock(rt->lock);
	for (i = 0; i < n; i++) {
		if (evs[i].data.u32 == RT_WATCH_POKE) {
			if (read(rt->poke_fd, &junk, sizeof(junk)) < 0)
				continue;
		} else if (evs[i].data.u32 < rt->nr_vcpus) {
			rt->st.watch_events++;
			rt_watch_drain(&rt->v[evs[i].data.u32]);
		}
	}
}
