// SPDX-License-Identifier: GPL-2.0
/* bench-host-preempt: the in-process runs, the embedded core fed and drained by thread A. */
#include <errno.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "host_preempt.h"
#include "sched/core.h"
#include "util/time.h"
#include "vsched.h"

/* The core's decisions applied as the runtime applies them; whether vCPU 0 was preempted. */
static bool drain(struct pre *p, struct sched *s)
{
	struct sched_decision d[8];
	bool pre = false;
	size_t n, k;

	while ((n = sched_take_decisions(s, d, 8)))
		for (k = 0; k < n; k++) {
			if (d[k].type == SCHED_RUN && d[k].vcpu == 0)
				signal_flag(p, &p->granted);
			if (d[k].type == SCHED_PREEMPT && d[k].vcpu == 0) {
				pre = true;
				/* Applied, as the agent applies a PREEMPT (the holder tells it
				 * from a kick left over from an earlier round). */
				pthread_mutex_lock(&p->lock);
				p->applied++;
				pre_kick(p);
				pthread_mutex_unlock(&p->lock);
			}
		}
	return pre;
}

/* The vt round's groups: lo (weight 100) for vCPU 0, hi (weight 400) for vCPU 1. */
static int vt_groups(struct vsched *vs)
{
	return vsched_mkdir_threaded(vs, "/lo") || vsched_mkdir_threaded(vs, "/hi") ||
	       vsched_write_str(vs, "/lo", "cpu.weight", "100") ||
	       vsched_write_str(vs, "/hi", "cpu.weight", "400") ||
	       vsched_assign(vs, "0", "/lo") || vsched_assign(vs, "1", "/hi");
}

/*
 * vCPU 0's run time from its grant at g to g + at, reported as its VMM's reports would (vt round).
 * The in-process core is given the round's times as planned (g + 50 us, g + 2.05 ms, g + 2.25 ms:
 * host_preempt.h), not as the sleeps came out under load: its decisions are the same every round (a
 * late first wake, past vCPU 0's min_run, would take the lane there at once), and the daemon's are
 * those of the same plan.
 */
static uint64_t vt_report(struct sched *s, uint64_t g, uint64_t at, uint64_t *charged)
{
	sched_vcpu_ran(s, 0, at - *charged, 0, g + at);
	*charged = at;
	return g + at;
}

/* Two lanes: the VM's groups below /vm, vCPU 2 in /other holding lane 0 throughout. */
static int vt_groups2(struct vsched *vs)
{
	return vsched_mkdir_threaded(vs, "/vm") ||
	       vsched_write_str(vs, "/vm", "cgroup.subtree_control", "+cpu") ||
	       vsched_mkdir_threaded(vs, "/vm/lo") || vsched_mkdir_threaded(vs, "/vm/hi") ||
	       vsched_write_str(vs, "/vm/lo", "cpu.weight", "100") ||
	       vsched_write_str(vs, "/vm/hi", "cpu.weight", "400") ||
	       vsched_assign(vs, "0", "/vm/lo") || vsched_assign(vs, "1", "/vm/hi") ||
	       vsched_mkdir_threaded(vs, "/other") || vsched_assign(vs, "2", "/other");
}

/*
 * The slice round's event, lock held: vCPU 1 wakes level with the holder and waits; at the
 * lane's slice end the runtime's helper (this thread) wakes, charges the holder as
 * rt_charge_running() and runs the core's timer as rt_core_tick(). The event is the slice end
 * itself. Whether vCPU 0 was preempted there (not: taken at the wake, or no end; unsampled).
 */
static bool slice_tick(struct pre *p, struct vsched *vs, struct sched *s, uint64_t g)
{
	struct timespec ts;
	uint64_t until, now;

	sched_vcpu_runnable(s, 1, time_mono_ns());
	until = sched_lane_until(s, p->lane);
	if (drain(p, s) || until == SCHED_TIME_NONE)
		return false;
	pthread_mutex_lock(&p->lock);
	p->done = false;	/* an earlier round's exit: not this one's (host_preempt_host.c) */
	p->timing = true;
	p->t0 = until;
	pthread_mutex_unlock(&p->lock);
	vsched_unlock(vs);
	ts = time_ns_to_ts(until);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	vsched_lock(vs);
	now = time_mono_ns();
	sched_vcpu_ran(s, 0, now - g, 0, now);
	sched_timer(s, now);
	return drain(p, s);
}

int run_inprocess(struct pre *p)
{
	struct vsched *vs = vsched_create(p->lane + 1, p->lane ? 3 : 2);
	struct sched *s;
	unsigned int i;

	if (!vs || vsched_write_str(vs, "/", "cgroup.subtree_control", "+cpu") ||
	    (p->slice ? 0 : p->vt && p->lane ? vt_groups2(vs) : p->vt ? vt_groups(vs) :
	     vsched_mkdir_threaded(vs, "/idle") || vsched_write_str(vs, "/idle", "cpu.idle", "1") ||
	     vsched_assign(vs, "0", "/idle"))) {
		fprintf(stderr, "bench-host-preempt: cannot make the groups\n");
		return -1;
	}
	s = vsched_sched(vs);
	if (p->lane) {
		vsched_lock(vs);
		sched_vcpu_runnable(s, 2, time_mono_ns());
		drain(p, s);
		vsched_unlock(vs);
	}
	pthread_create(&p->h, NULL, holder, p);
	for (i = 0; i < p->rounds; i++) {
		uint64_t g, charged = 0;
		unsigned int before = pre_exits(p);
		bool pre;

		vsched_lock(vs);
		g = time_mono_ns();
		sched_vcpu_runnable(s, 0, g);
		drain(p, s);
		vsched_unlock(vs);
		wait_inside(p);
		if (p->vt) {
			vsched_lock(vs);
			sched_vcpu_runnable(s, 1, vt_report(s, g, 50000, &charged));
			drain(p, s);
			vsched_unlock(vs);
			usleep(VT_WAIT_US);
			vsched_lock(vs);
			sched_vcpu_blocked(s, 1, vt_report(s, g, VT_BLOCK_NS, &charged));
			drain(p, s);
			vsched_unlock(vs);
			usleep(VT_GAP_US);
			wait_inside(p);
		}
		vsched_lock(vs);
		if (p->slice) {
			pre = slice_tick(p, vs, s, g);
		} else {
			pthread_mutex_lock(&p->lock);
			p->done = false;
			p->timing = true;
			p->t0 = time_mono_ns();
			pthread_mutex_unlock(&p->lock);
			sched_vcpu_runnable(s, 1, p->vt ? vt_report(s, g, VT_WAKE_NS, &charged) :
						 p->t0);
			pre = drain(p, s);
		}
		if (!pre) {
			/* Not taken at the wake (a vt round whose first wake came late, under
			 * load; a slice round's vCPU 1 taking it at the wake): H out, not
			 * sampled. */
			pthread_mutex_lock(&p->lock);
			p->timing = false;
			p->missed++;
			p->applied++;
			pre_kick(p);
			pthread_mutex_unlock(&p->lock);
			vsched_unlock(vs);
			while (__atomic_load_n(&p->inside, __ATOMIC_ACQUIRE)) {
				usleep(50);
				pthread_mutex_lock(&p->lock);
				p->applied++;
				pre_kick(p);
				pthread_mutex_unlock(&p->lock);
			}
		} else {
			vsched_unlock(vs);
			if (p->slice)
				pre_wait_out(p, before);
			else
				wait_flag(p, &p->done);
		}
		vsched_lock(vs);
		/* The preempted one first: blocking 1 first would hand 0 the lane again. */
		sched_vcpu_blocked(s, 0, time_mono_ns());
		sched_vcpu_blocked(s, 1, time_mono_ns());
		drain(p, s);
		vsched_unlock(vs);
	}
	signal_flag(p, &p->stop);
	pthread_join(p->h, NULL);
	vsched_destroy(vs);
	return 0;
}
