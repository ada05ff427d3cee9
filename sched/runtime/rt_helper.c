// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's helper thread: the core's timers (period refills, unthrottling, due waiters),
 * idle detection of vCPUs halted inside KVM_RUN, and the liveness watchdog. It sleeps until the
 * earliest of these is due and is woken when an event moves that earlier; with no group
 * limits, nobody waiting and nobody halted it does not wake at all.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"
#include "vmm/vm.h"
#include "util/file.h"

/*
 * How often to look for halted lane holders while some vCPU waits (or is lent). A vCPU that
 * halted lately is watched (rt_watch.c), so polls only discover vCPUs that start halting, and
 * back the watch up: every 10 ms, every 50 ms after a second without a halt (hogs only: each
 * poll preempts a vCPU, 100 a second cost 0.4 % of a CPU; a vCPU that starts halting then
 * leaves its lane idle up to 50 ms once). Without watches they find every halt and every wake-up
 * of a lent vCPU: every millisecond while halts have been seen lately (or a lane is lent). (A
 * watch without KVM's "blocking" statistic is enough: the look it causes finds the holder asleep
 * and comes back to confirm, rt_halted().) Never while nobody waits.
 */
static uint64_t rt_idle_period(const struct runtime *rt, uint64_t now)
{
	if (!rt->nr_waiting && !rt->nr_lent)
		return RT_INF;
	if (rt->idle_polls &&
	    (rt->nr_lent || (rt->nr_waiting && now - rt->last_lend < RT_IDLE_QUIET_NS)))
		return RT_IDLE_POLL_NS;
	return now - rt->last_lend < RT_IDLE_RARE_NS ? RT_IDLE_POLL_SLOW_NS : RT_IDLE_POLL_RARE_NS;
}

/* Whether the thread sleeps in the kernel ('S' in /proc/self/task/TID/stat). */
static bool rt_thread_sleeping(const struct rt_vcpu *rv)
{
	char buf[256], st;
	ssize_t n;

	if (rv->stat_fd < 0)
		return false;
	n = pread(rv->stat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	st = file_proc_state(buf);
	return st == 'S' || st == 'D';
}

enum rt_halt {
	HALT_NO,
	HALT_YES,
	HALT_UNSURE,	/* asleep, not long enough yet to tell: no judgement, the baseline stays */
};

static void rt_relook(struct runtime *rt, uint64_t at)
{
	if (at < rt->relook_at)
		rt->relook_at = at;
}

/*
 * Halted? Exactly from KVM's "blocking" statistic where the kernel has it. Else (kernels
 * without it, the thread backend) from the thread: found asleep, and still asleep
 * RT_IDLE_SETTLE_NS later with its CPU clock advanced by less than a quarter of that time. The
 * look that finds a lane holder asleep takes the baseline and has the helper come back then
 * (relook_at), rather than at the next poll: two polls in a row left lanes idle ~2 ms of every
 * 7 ms halt of the thread backend's halt-duty, and missed vCPUs that start halting at all when
 * polls were 50 ms apart (any 30 % duty cycle used more than a quarter of that).
 */
static enum rt_halt rt_halted(struct runtime *rt, struct rt_vcpu *rv, uint64_t cpu, uint64_t now)
{
	int b = rt_idle_blocking(rv);

	if (b >= 0)
		return b ? HALT_YES : HALT_NO;
	if (!rt_thread_sleeping(rv) ||
	    (rv->probe_asleep && cpu - rv->probe_cpu >= (now - rv->probe_t) / 4)) {
		rv->probe_asleep = false;
		return HALT_NO;
	}
	if (!rv->probe_asleep) {
		rv->probe_asleep = true;
		rv->probe_t = now;
		rv->probe_cpu = cpu;
	}
	if (now - rv->probe_t < RT_IDLE_SETTLE_NS) {
		/* A lent vCPU stays lent until it runs: nothing to confirm. */
		if (rv->state == RT_RUNNING)
			rt_relook(rt, rv->probe_t + RT_IDLE_SETTLE_NS);
		return HALT_UNSURE;
	}
	return HALT_YES;
}

/*
 * A lent vCPU may wake, work and halt again between two polls; its CPU clock still shows that it
 * ran without a lane, so it is taken back then too. The threshold stays above the few
 * microseconds an in-kernel wake-up costs.
 */
#define RT_LENT_RAN_NS 250000ULL

static bool rt_ran_while_lent(const struct rt_vcpu *rv, uint64_t cpu)
{
	return rv->probe_t && cpu - rv->probe_cpu >= RT_LENT_RAN_NS;
}

/*
 * A halted lane holder (its thread clock read at cpu) lends its lane: the core hears it
 * blocked. What it ran since it was last charged is charged first, while it is still runnable,
 * as every other path that blocks a vCPU does. Charged after the block, a busy phase with no
 * core event in it went unseen while it ran (its group's virtual time stood still, so it looked
 * owed and its siblings were forgiven that at its block) and then came off its saved lag: a
 * halt-duty vCPU woke in debt by about half its burst and waited for a lane
 * (docs/scheduler.md §10, "a lend charged late").
 */
void rt_lend(struct runtime *rt, struct rt_vcpu *rv, uint64_t cpu, uint64_t now)
{
	rt->st.lends++;
	rt->last_lend = rv->last_lend = now;
	rt_slice_fine(rt, now);
	rt_set_state(rv, RT_LENT, now);
	rv->until = RT_INF;
	rt_timer_arm(rv, RT_INF);
	rt_watch_set(rv, WATCH_RUN);
	rt_charge_upto(rt, rv, cpu, false, now);
	rt_core_blocked(rt, rv->id, now, true);
}

/*
 * A lane holder halted inside KVM_RUN lends its lane. A lent vCPU that runs again needs it back,
 * and is kicked out of KVM_RUN if the core does not grant one at once.
 */
static void rt_idle_detect(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];
		enum rt_halt h;
		uint64_t cpu;

		if (!rv->in_guest || (rv->state != RT_RUNNING && rv->state != RT_LENT) ||
		    (rv->state == RT_RUNNING && !rt->nr_waiting)) {
			rv->probe_t = 0;	/* nobody would take the lane */
			rv->probe_asleep = false;
			continue;
		}
		cpu = rt_vcpu_clock(rv);
		h = rt_halted(rt, rv, cpu, now);
		if (rv->state == RT_RUNNING && h == HALT_YES) {
			rt_lend(rt, rv, cpu, now);
		} else if (rv->state == RT_LENT && (h == HALT_NO || rt_ran_while_lent(rv, cpu))) {
			rt_reclaim(rt, rv, rt_halt_woke_est(rv, cpu, now), now);
			if (rv->state == RT_WAITING) {
				rt_watch_set(rv, WATCH_NONE);
				rt->st.kicks++;
				rt_trace_kick(rt, rv, now);
				rt_kick(rv);
			}
		}
		if (h != HALT_UNSURE) {
			rv->probe_t = now;
			rv->probe_cpu = cpu;
		}
	}
}

/*
 * Liveness. A runnable vCPU of an unthrottled group that waited more than 1 s is a stall when the
 * scheduler is not making progress: a lane sits free, or a slice end was overrun by 1 s. (A vCPU of
 * a cpu.idle or weight-1 group beside busy siblings may wait that long by design: its fluid share
 * is a few ms per second.) On a stall: log once and hand every vCPU to the host kernel's scheduler.
 */
static bool rt_stalled(struct runtime *rt, uint64_t now)
{
	unsigned int i, running = 0;

	for (i = 0; i < rt->nr_vcpus; i++) {
		const struct rt_vcpu *rv = &rt->v[i];

		if (rv->state != RT_RUNNING)
			continue;
		running++;
		if (rv->until != RT_INF && now > rv->until + RT_WATCHDOG_NS)
			return true;
	}
	return running < rt->nr_lanes;
}

static void rt_watchdog(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		/* wait_since may be a little later than now: set while this pass ran. */
		if (rv->state != RT_WAITING || now < rv->wait_since ||
		    now - rv->wait_since <= RT_WATCHDOG_NS || rt_core_throttled(rt, i) ||
		    !rt_stalled(rt, now))
			continue;
		rt->st.watchdog_trips++;
		fprintf(stderr, "vsched: watchdog: vcpu%u runnable and unthrottled but waited %llu ms "
				"for a lane; falling back to host scheduling of all vCPUs\n",
			i, (unsigned long long)((now - rv->wait_since) / 1000000));
		rt_fallback(rt);
		return;
	}
}

void rt_fallback(struct runtime *rt)
{
	unsigned int i;

	assert_held(rt->lock);
	rt->fallback = true;
	rt_pin_release(rt);
	for (i = 0; i < rt->nr_vcpus; i++) {
		rt_watch_set(&rt->v[i], WATCH_NONE);	/* no lent vCPU stays SCHED_FIFO */
		rt_timer_arm(&rt->v[i], RT_INF);
		rt_vcpu_wake(&rt->v[i]);
	}
}

/*
 * The earliest core timer the helper must run: group timers (period refills, unthrottling) and
 * slice ends that no lane holder's own timer takes care of. A holder's timer owns its slice end
 * while it is armed inside KVM_RUN or about to be armed (a holder outside KVM_RUN arms it in
 * enter()); the helper then only stands behind it, RT_BACKSTOP_NS late. (Standing behind it by
 * a short grace woke the helper uselessly once per slice, because the holder had long moved the
 * slice end by then; by 10 ms, 100 times a second while lanes rotate, each wake-up preempting a
 * vCPU.)
 */
static uint64_t rt_helper_timer(struct runtime *rt)
{
	uint64_t t = rt_core_next_group_timer(rt), any = rt_core_next_timer(rt);
	unsigned int i;

	if (any != RT_INF && any + RT_BACKSTOP_NS < t)
		t = any + RT_BACKSTOP_NS;
	for (i = 0; i < rt->nr_vcpus; i++) {
		const struct rt_vcpu *rv = &rt->v[i];

		if (rv->state == RT_RUNNING && rv->until < t && rv->in_guest && rv->armed != rv->until)
			t = rv->until;
	}
	return t;
}

/* When the helper must next wake: its timers, idle polls and a halt to confirm. */
static uint64_t rt_helper_due(struct runtime *rt, uint64_t now)
{
	uint64_t next = rt_helper_timer(rt), idle = rt_idle_period(rt, now);

	if (idle != RT_INF && next > now + idle)
		next = now + idle;
	if (rt->remote && rt->report_at < next)
		next = rt->report_at;
	return next < rt->relook_at ? next : rt->relook_at;
}

/*
 * Host mode: the daemon's cpu.stat and bandwidth only know what the VMM reports, and a lane
 * holder nobody waits for may not leave KVM_RUN for seconds. Its CPU time is reported every
 * RT_REPORT_NS while some vCPU is inside KVM_RUN (the VM's own directory charges it on read).
 */
static void rt_report(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	rt->report_at = RT_INF;
	for (i = 0; i < rt->nr_vcpus; i++)
		if (rt->v[i].in_guest)
			rt->report_at = now + RT_REPORT_NS;
	if (rt->report_at != RT_INF)
		rt_charge_running(rt, now);
	rt_other_report(rt, now);	/* every RT_OTHER_NS, with these */
	rt_offer_flush(rt);	/* an offer taken, nothing sent since */
}

/*
 * After an event: wake the helper only if it must act earlier than it planned. Most events
 * (a grant, an exit) move a slice end that the vCPU's own timer handles; waking the helper for
 * those cost two host context switches per lane change.
 */
void rt_poke_helper(struct runtime *rt, uint64_t now)
{
	uint64_t due;

	assert_held(rt->lock);
	due = rt_helper_due(rt, now);
	if (due < rt->helper_at) {
		rt_watch_poke(rt);
		rt->helper_at = due;	/* signalled: no second signal before it replans */
	}
}

/*
 * The helper runs SCHED_FIFO when the host lets it. As a normal thread, woken while every CPU
 * runs a lane holder (and a lent vCPU that just woke), it waited for the host's scheduler to
 * give it a turn: measured up to 6 ms, the whole busy phase of a halt-duty vCPU running without
 * a lane. It runs microseconds per wake-up; RT throttling still bounds it. The host agent too
 * (rt_remote.c): the runtime's lock is a PI mutex, whose unlock hands it to the waiter, so an
 * agent woken to take it on a CPU where another VM's holder runs held it there, not running,
 * while this VM's vCPU just granted the other lane slept on it (up to 4 ms, docs/host.md).
 */
void rt_thread_boost(void)
{
	struct sched_param sp = { .sched_priority = RT_PRIO_HELPER };

	/* Without permission it stays a normal thread, only slower to react. */
	sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp);
}

static void *rt_helper(void *arg)
{
	struct runtime *rt = arg;
	uint64_t now, next;

	pthread_setname_np(pthread_self(), "vsched-rt");
	rt_thread_boost();
	rt_place_join(rt, RT_PLACE_HELPER);
	mutex_lock(rt->lock);
	while (!rt->helper_stop) {
		now = rt_now();
		rt->st.helper_wakes++;
		rt->relook_at = RT_INF;
		if (!rt->fallback) {
			if (rt_helper_timer(rt) <= now) {
				uint64_t end = rt_core_next_timer(rt);

				if (end != RT_INF && end + RT_BACKSTOP_NS <= now)
					rt->st.backstops++;
				rt_core_tick(rt, now);
			}
			if (rt->nr_waiting || rt->nr_lent)
				rt_idle_detect(rt, now);
			rt_pin_rotate(rt, now);
			if (rt->remote && now >= rt->report_at)
				rt_report(rt, now);
			/* A paused VM waits on purpose; in host mode the daemon owns liveness. */
			if (rt->nr_waiting && now >= rt->watchdog_at && !vm_pausing(rt->vm) &&
			    !rt->remote) {
				rt_watchdog(rt, now);
				rt->watchdog_at = now + RT_WATCHDOG_CHECK_NS;
			}
		}
		next = rt->fallback ? RT_INF : rt_helper_due(rt, now);
		rt->helper_at = next;
		if (next > now)
			rt_watch_wait(rt, next);
		rt->helper_at = RT_INF;
	}
	rt->st.helper_cpu_ns = time_thread_ns();
	rt->place_tid[RT_PLACE_HELPER] = 0;
	rt_unlock(rt);
	return NULL;
}

int rt_helper_start(struct runtime *rt)
{
	int err = pthread_create(&rt->helper, NULL, rt_helper, rt);

	if (err)
		return -err;
	rt->helper_started = true;
	pthread_getcpuclockid(rt->helper, &rt->helper_clock);
	return 0;
}

/* The helper's CPU time so far. Lock held. */
uint64_t rt_helper_cpu_ns(const struct runtime *rt)
{
	uint64_t ns;

	assert_held(rt->lock);
	if (!rt->helper_started || rt->helper_stop || time_clock_ns(rt->helper_clock, &ns))
		return rt->st.helper_cpu_ns;
	return ns;
}

void rt_helper_stop(struct runtime *rt)
{
	if (!rt->helper_started)
		return;
	mutex_lock(rt->lock);
	rt->helper_stop = true;
	rt_watch_poke(rt);
	rt_unlock(rt);
	pthread_join(rt->helper, NULL);
	rt->helper_started = false;
}
