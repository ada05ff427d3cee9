// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's waker (handoffs across VMs, docs/host.md): a SCHED_FIFO thread per VMM, as the
 * helper and the agent, that does for a vCPU what the vCPU's own thread did too late.
 *
 * A handoff across VMs needs the successor published before the holder of another VM releases
 * its lane, and taken as soon as that holder claims it. Both waited for the successor's own
 * thread, a normal thread: traced in t-host-xhand (two VMs of one vCPU, 1 ms runs and 0.5 ms
 * sleeps, one lane, load 7), a sleeper's thread ran a median 0.5-0.65 ms after its sleep's end,
 * behind the lane holder of the other VM on the CPU it woke on, so its RUNNABLE left only once
 * that holder had released the lane (two thirds of the releases that found no successor); and
 * of the releases claimed, a third were settled by the daemon before the successor's thread,
 * woken to wait on the releasing VM's word, was back there to take them.
 *
 * So, while another VM shares its offer page (HOST_HELLO_PEER):
 *  - a vCPU that sleeps (rt_sleep()) tells the waker its sleep's end; at that end the waker
 *    makes it runnable as its own thread's entry would (rt_core_runnable(): an idle lane
 *    offered is taken, else the RUNNABLE goes), whether that thread runs yet or not;
 *  - the waker waits on this VM's offer word (the daemon wakes its gen half when it publishes a
 *    successor's side here, protocol 10) and on the releasing VM's word, and takes the lane for
 *    the successor (rt_xhand_take(): the CAS of this VM's word, the grant, which pins the
 *    successor's thread to the lane's CPU and wakes it; no TOOK: the daemon settles the
 *    take from this VM's word at the releaser's TOOK, protocol 14).
 * The vCPU's own thread still does both when it comes first (under the lock, whoever finds the
 * vCPU still asleep, or the claim still free, acts once); a successor whose thread is parked on
 * its grant page entry waits on the releasing VM's word itself (rt_xhand_park()) and takes the
 * claim at one wake-up: the waker then leaves that word to it. What the waker reads in the pages is
 * checked as the vCPU thread checks it (rt_xhand.c, rt_page.c).
 */
#include <errno.h>
#include <linux/futex.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/proto.h"
#include "rt.h"
#include "vmm/vm.h"

/*
 * The sleep ends reach the waker by a POSIX timer of its own (SIGEV_THREAD_ID), armed by the
 * thread that goes to sleep: a system call, where a futex wake-up of the waker would cost it
 * a wake-up per sleep. The handler bumps the waker's futex word, so a signal that lands before
 * the waker's futex_waitv makes it return at once (the word changed) and one during it ends it
 * (EINTR: no SA_RESTART). Armed before the sleeper releases its lane: a releasing thread was
 * preempted right after its claim by the successor it woke, on the lane's CPU, for the whole
 * of the successor's run (traced), and its sleep's end reached the waker only then.
 */
#define RT_XWAIT_SIGNAL	(SIGRTMIN + 3)

static __thread uint32_t *rt_xwait_self;

static void rt_xwait_handler(int sig __attribute__((unused)))
{
	uint32_t *w = rt_xwait_self;

	if (w)
		__atomic_add_fetch(w, 1, __ATOMIC_RELEASE);
}

/* Whether a handoff across VMs can come: the pages, a peer, the daemon's scheduling. */
static bool rt_xwait_on(const struct runtime *rt)
{
	return rt->xw_started && rt->page && rt->offer && rt->nr_peers && !rt_hands_off(rt);
}

/* Lock held: the waker looks again (a page mapped or lost, a peer added, the stop). */
static void rt_xwait_kick(struct runtime *rt)
{
	__atomic_add_fetch(&rt->xw_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &rt->xw_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* The waker's timer at t (RT_INF: disarmed). Lock held. */
static void rt_xwait_set(struct runtime *rt, uint64_t t)
{
	struct itimerspec its = { 0 };

	if (t == rt->xw_at)
		return;
	rt->xw_at = t;
	if (t != RT_INF)
		its.it_value = time_ns_to_ts(t ? t : 1);
	timer_settime(rt->xw_timer, TIMER_ABSTIME, &its, NULL);
}

void rt_xwait_arm(struct runtime *rt, struct rt_vcpu *rv, uint64_t end)
{
	assert_held(rt->lock);
	rv->sleep_end = 0;
	if (!rt_xwait_on(rt))
		return;
	rv->sleep_end = end;
	if (end < rt->xw_at)
		rt_xwait_set(rt, end);
}

/* Sleepers whose sleep ended are runnable; the next sleep's end (RT_INF: none). Lock held. */
static uint64_t rt_xwait_due(struct runtime *rt, uint64_t now)
{
	uint64_t next = RT_INF;
	bool woke = false;
	unsigned int i;

	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if (!rv->sleep_end || rv->state != RT_BLOCKED)
			continue;
		if (rv->sleep_end > now) {
			if (rv->sleep_end < next)
				next = rv->sleep_end;
			continue;
		}
		/* A VM that pauses or stops: its threads leave; the daemon hears it from them. */
		if (vm_stopping(rt->vm) || vm_pausing(rt->vm))
			continue;
		rv->sleep_end = 0;
		rt->st.xw_wakes++;
		/* Parked for its thread, which waits on its entry next (rt_enter()): a grant
		 * before that thread is back comes by the page alone, no agent woken. */
		rt_page_park(rt, rv);
		rt_set_state(rv, RT_WAITING, now);
		rt_core_runnable(rt, rv->id, now);
		woke = true;
	}
	if (woke)
		rt_poke_helper(rt, now);
	return next;
}

/*
 * The successor published here: its entry applied (the daemon's view of it must be this
 * VMM's), the claim taken if made, else the releasing VM's word to wait on (*fw). Lock held.
 */
static bool rt_xwait_succ(struct runtime *rt, struct futex_waitv *fw)
{
	struct rt_vcpu *rv = rt_xhand_succ(rt);
	uint32_t seq;

	if (!rv)
		return false;
	rt_page_apply(rt, rv, &seq);
	if (rv->state != RT_WAITING)
		return false;
	/*
	 * Its thread parked on its entry waits on the peer's word itself (rt_xhand_park(); parked
	 * before this side was published, it is woken here to park again on it): the claim's
	 * wake-up reaches it directly, one wake-up where the waker's take and its wake of the
	 * thread made two. The waker takes only a claim made already, and watches only for a
	 * successor that is not parked (in the guest, behind a CPU, between two waits).
	 */
	if (rv->page_waiting) {
		if (!rt_xhand_take(rt, rv) && !rv->xwatch)
			rt_vcpu_wake(rv);
		return false;
	}
	/* Its word read before the take is tried: a claim after that read ends the wait. */
	if (!rt_xhand_watch(rt, fw))
		return false;
	return !rt_xhand_take(rt, rv);
}

bool rt_xwait_watch_ok(struct runtime *rt)
{
	uint32_t gen = host_offer_gen(__atomic_load_n(&rt->offer->word, __ATOMIC_ACQUIRE));

	if (gen != rt->xw_gen) {
		rt->xw_gen = gen;
		rt->xw_watches = 0;
	}
	return ++rt->xw_watches <= RT_XWAIT_WATCH_MAX;
}

static void rt_xwait_loop(struct runtime *rt)
{
	while (!rt->xw_stop) {
		struct futex_waitv w[3] = {
			{ .uaddr = (uintptr_t)&rt->xw_word,
			  .val = __atomic_load_n(&rt->xw_word, __ATOMIC_ACQUIRE),
			  .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
		};
		uint64_t next = RT_INF;
		unsigned int n = 1;

		if (rt_xwait_on(rt)) {
			/* The gen read first: a side published after this ends the wait at once. */
			w[1].uaddr = (uintptr_t)host_offer_gen_futex(rt->offer);
			w[1].val = __atomic_load_n(host_offer_gen_futex(rt->offer), __ATOMIC_ACQUIRE);
			w[1].flags = FUTEX_32;	/* shared: the daemon maps it too */
			n = 2;
			next = rt_xwait_due(rt, rt_now());
			if (rt_xwait_succ(rt, &w[2]) && rt_xwait_watch_ok(rt))
				n = 3;
		}
		rt_xwait_set(rt, next);
		rt->xw_peer = n == 3;
		rt_unlock(rt);	/* a RUNNABLE queued above leaves here */
		/* A page unmapped meanwhile (the daemon lost) fails at once: looked at again. */
		syscall(SYS_futex_waitv, w, n, 0, NULL, CLOCK_MONOTONIC);
		mutex_lock(rt->lock);
		rt->xw_peer = false;
	}
}

static void *rt_xwait(void *arg)
{
	struct runtime *rt = arg;
	struct sigevent sev;
	sigset_t set;

	pthread_setname_np(pthread_self(), "vsched-xw");
	rt_thread_boost();	/* as the helper: it acts where a vCPU's thread waits for a CPU */
	rt_place_join(rt, RT_PLACE_WAKER);
	rt_xwait_self = &rt->xw_word;
	memset(&sev, 0, sizeof(sev));
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = RT_XWAIT_SIGNAL;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	sigemptyset(&set);
	sigaddset(&set, RT_XWAIT_SIGNAL);
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	mutex_lock(rt->lock);
	if (!timer_create(CLOCK_MONOTONIC, &sev, &rt->xw_timer)) {
		rt->xw_at = RT_INF;
		rt->xw_started = true;
		rt_xwait_loop(rt);
		rt->xw_started = false;
		timer_delete(rt->xw_timer);
	}
	rt->place_tid[RT_PLACE_WAKER] = 0;
	rt_unlock(rt);
	rt_xwait_self = NULL;
	return NULL;
}

int rt_xwait_start(struct runtime *rt)
{
	struct sigaction sa;
	int err;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = rt_xwait_handler;
	sigemptyset(&sa.sa_mask);
	/* No SA_RESTART: the waker's futex_waitv ends with EINTR. */
	if (sigaction(RT_XWAIT_SIGNAL, &sa, NULL) < 0)
		return -errno;
	rt->xw_stop = false;
	err = pthread_create(&rt->xw, NULL, rt_xwait, rt);
	if (err)
		return -err;
	rt->xw_thread = true;
	return 0;
}

void rt_xwait_stop(struct runtime *rt)
{
	unsigned int i;

	if (!rt->xw_thread)
		return;
	mutex_lock(rt->lock);
	rt->xw_stop = true;
	for (i = 0; i < rt->nr_vcpus; i++)
		rt->v[i].sleep_end = 0;
	rt_xwait_kick(rt);
	rt_unlock(rt);
	pthread_join(rt->xw, NULL);
	rt->xw_thread = false;
}

/* The pages or peers changed (rt_remote.c, rt_peer.c): the waker looks again. Lock held. */
void rt_xwait_changed(struct runtime *rt)
{
	if (rt->xw_started)
		rt_xwait_kick(rt);
}
