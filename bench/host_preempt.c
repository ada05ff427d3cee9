// SPDX-License-Identifier: GPL-2.0
/*
 * bench-host-preempt: what a preemption costs in host mode (`vsched host`, docs/host.md)
 * against the embedded core, as the holder's vCPU sees it: from the event that makes the core
 * take a holder's lane to the holder's vCPU leaving the guest (KVM_RUN returning, or the thread
 * backend's work loop seeing its kick).
 *
 * vCPU 0 sits in a cpu.idle group, vCPU 1 in its parent: when vCPU 1 becomes runnable while
 * vCPU 0 holds the one lane, the core takes the lane from vCPU 0 at once. The holder H runs a
 * vCPU (spin_vcpu.h: a real KVM vCPU on `jmp $`, or the thread backend's hog loop) until the
 * kick takes it out. The kick is vmm/kick.c's on both paths (immediate_exit, then a signal):
 *  in-process: thread A feeds the core under the tree's lock and kicks on the PREEMPT
 *              decision, as rt_preempt() does;
 *  host:       A sends RUNNABLE to a daemon (host/ in a child process); the daemon's core
 *              decides, writes the grant page and sends PREEMPT; the VMM's agent thread
 *              receives it and kicks, as rt_remote.c's agent does (through rt_preempt()).
 *  host, page: the same, and the holder's vCPU watches its grant page entry as the runtime
 *              makes the thread backend do (rt_page_watch()): the daemon's write takes it out,
 *              the agent kicks only if it applies the PREEMPT first (under the lock, as there).
 *              KVM cannot watch memory inside KVM_RUN: its vCPU needs the agent's kick, so the
 *              row is run on the thread backend only.
 *  host, kick: the daemon kicks H itself (HOST_HELLO_KICK, host/host_kick.c: the TID H
 *              reported, checked, signalled by its thread pidfd after the page write); H's
 *              handler is vmm/kick.c's (it sets H's immediate_exit) and H applies the PREEMPT
 *              from its entry on the way out, as rt_page_exit() (the thread backend also
 *              watches the entry, as in the runtime); the agent kicks only if it
 *              applies the PREEMPT first, as rt_remote.c.
 *  host, held: the daemon offers the held lane to the VM (HOST_HELLO_HELD: vCPU 1 would take
 *              it from the cpu.idle holder at once); A takes it with the CAS, as
 *              rt_offer_take(), and kicks H itself, as rt_preempt(); TOOK goes before A's
 *              next datagram. A round the offer was not there for asks by the socket (counted).
 * Both rows end where the vCPU experiences the preemption. Until 2026-12-04 they ended at the
 * kicker's store, so the kick's delivery (the signal to the other CPU and KVM's exit, paid on both
 * paths alike) was left out of both and the ratio was that of the decisions alone; the "kick
 * issued" columns still show that part. The "vt" rows are the same paths for a preemption by
 * virtual time, not by cpu.idle: vCPU 0 in group lo (weight 100), vCPU 1 in group hi (weight 400),
 * no cpu.idle group. Per round vCPU 0 is granted; vCPU 1 wakes, is level with it and waits; 2 ms
 * later it blocks again without having run (owed what it waited); 200 us later it wakes (timed),
 * behind vCPU 0 by more than min_run, and takes the lane. In-process, vCPU 0's run time is reported
 * before each of vCPU 1's events, as the daemon charges a holder its wall time at each event (the
 * core given the round's planned times: vt_report()); in host mode vCPU 0's CPU time is reported
 * (RAN) once it is out, as its VMM does. `host, vt held`: the daemon offers the lane ahead
 * (sched_wake_vt_lane(), one lane); without it (`main`) every round asks by the socket. Under load
 * a round's sleeps may outlast vCPU 0's slice and the daemon hands vCPU 1 the lane before the timed
 * wake: such a round is not sampled, it is counted ("out before the timed wake"), and vCPU 0's
 * grants are counted (one a round, one more a stray: a claim the daemon did not honour would add
 * one). The daemon pins its thread off the lanes' CPUs as `vsched host` does (unpinned until
 * 2026-12-05; BENCH_PRE_PIN=0). BENCH_PRE_SET=idle|vt|slice runs one set of rows only.
 * BENCH_PRE_LANES=2 runs the vt rows on two lanes: a second VM ("other", one hog vCPU that holds
 * lane 0 throughout, reporting its wall time every millisecond as a running VMM does) beside the
 * bench's VM, whose vCPU 0 holds lane 1 (H pinned to CPU 1); in-process the same tree (/vm/lo,
 * /vm/hi and /other at equal weights, vCPU 2 in /other on lane 0). At equal VM weights the wake
 * leaves "other" its whole lane, and the daemon decides the preemption ahead on two lanes
 * (sched_wake_vt_lane(), several lanes). Idle-lane offers do not apply (the lane is held): the path
 * is the same with them. H is pinned to CPU 0, the one lane's CPU, as both runtimes pin a lane's
 * holder. Per round: vCPU 0 granted and inside its vCPU, then vCPU 1 runnable (timed until H is
 * out), then both blocked (0 first: its lane is not handed back). BENCH_PRE_ROUNDS overrides the
 * number of rounds (default 5000); BENCH_PRE_ACCEL=thread|kvm runs one backend only.
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_daemon.h"
#include "host_preempt.h"

/*
 * The paths on one backend, in-process first; 1 if the backend cannot run here. The page row
 * only where the backend watches memory (thread).
 */
static int run_accel(bool kvm, unsigned int rounds)
{
	const char *name = kvm ? "kvm" : "thread";
	struct pre *in = pre_new(rounds, kvm), *ho = pre_new(rounds, kvm);
	struct pre *pg = kvm ? NULL : pre_new(rounds, kvm), *hd = pre_new(rounds, kvm);
	struct pre *dk = pre_new(rounds, kvm);
	int ret = 0;

	if (!in || !ho || !hd || !dk || (!kvm && !pg)) {
		printf("%-6s skipped: the backend cannot run here\n", name);
		ret = 1;
	} else {
		if (pg)
			pg->watch = true;
		hd->held = true;
		dk->dkick = true;
		dk->watch = !kvm;	/* the runtime's thread backend watches its entry too */
		if (run_inprocess(in) || run_daemon(ho) || (pg && run_daemon(pg)) || run_daemon(dk) ||
		    run_daemon(hd))
			ret = -1;
	}
	if (!ret) {
		report(name, "in-process", in);
		report(name, "host", ho);
		if (pg)
			report(name, "host, page", pg);
		report(name, "host, kick", dk);
		report(name, "host, held", hd);
		ratio(name, "host", ho, in);
		if (pg)
			ratio(name, "host, page", pg, in);
		ratio(name, "host, kick", dk, in);
		ratio(name, "host, held", hd, in);
		printf("%-6s host, held: %u of %u rounds asked by the socket (no offer to take)\n",
		       name, hd->by_socket, hd->n);
		printf("%-6s rounds ended with no preemption in %d ms (not sampled): host %u, "
		       "kick %u, held %u\n", name, ROUND_STALL_MS, ho->stalled, dk->stalled,
		       hd->stalled);
	}
	if (in)
		pre_free(in);
	if (ho)
		pre_free(ho);
	if (pg)
		pre_free(pg);
	if (hd)
		pre_free(hd);
	if (dk)
		pre_free(dk);
	return ret;
}

/* The vt rows on one backend: in-process, the daemon by the socket, the held lane's offer. */
static int run_accel_vt(bool kvm, unsigned int rounds)
{
	const char *name = kvm ? "kvm" : "thread";
	struct pre *in = pre_new(rounds, kvm), *ho = pre_new(rounds, kvm);
	struct pre *hd = pre_new(rounds, kvm);
	int ret = 0;

	if (!in || !ho || !hd) {
		printf("%-6s skipped: the backend cannot run here\n", name);
		ret = 1;
	} else {
		in->vt = ho->vt = hd->vt = true;
		in->lane = ho->lane = hd->lane = bench_daemon_lanes - 1;
		hd->held = true;
		if (run_inprocess(in) || run_daemon(ho) || run_daemon(hd))
			ret = -1;
	}
	if (!ret) {
		report(name, "in-process, vt", in);
		report(name, "host, vt", ho);
		report(name, "host, vt held", hd);
		ratio(name, "host, vt", ho, in);
		ratio(name, "host, vt held", hd, in);
		printf("%-6s host, vt held: %u of %u rounds asked by the socket (no offer to take)\n",
		       name, hd->by_socket, hd->n);
		printf("%-6s rounds ended with no preemption in %d ms (not sampled): host %u, held %u\n",
		       name, ROUND_STALL_MS, ho->stalled, hd->stalled);
		printf("%-6s vCPU 0 granted: host %u, held %u times in %u rounds (and strays)\n",
		       name, ho->grants, hd->grants, hd->n);
		printf("%-6s vt rounds with the holder out before the timed wake (not sampled): "
		       "in-process %u, host %u, held %u; in-process not taken at the wake: %u\n",
		       name, in->stray - in->missed, ho->stray, hd->stray, in->missed);
	}
	if (in)
		pre_free(in);
	if (ho)
		pre_free(ho);
	if (hd)
		pre_free(hd);
	return ret;
}

/*
 * The slice rows on one backend: a slice end with a vCPU waiting (both vCPUs in one group),
 * timed from the end itself. In-process the runtime's helper wakes and decides; in host mode
 * the VMM's helper wakes, reports and sends TICK, and the daemon decides (since 2026-12-05 on
 * its own timer at the end, not on the TICK), writes the entry (a thread-backend holder
 * watches it) and kicks the holder itself (HOST_HELLO_KICK), as the runtime asks where it may.
 * Since protocol 13 the row asks for slice ends decided ahead (HOST_HELLO_AHEAD, as the
 * runtime does; BENCH_PRE_AHEAD=0: not): the daemon publishes "PREEMPT at until" 100 us before
 * the end, and the helper applies it at the end (kick, RAN, no TICK), as rt_ahead_tick().
 * The helper (this thread) runs SCHED_FIFO, as rt_thread_boost() makes the runtime's.
 * The host row's samples are split: applied ahead, or by TICK (nothing published by the end). A
 * round whose end a RETIME moved while it was timed is not sampled, as the in-process row
 * samples no round its core re-times at the end (counted; until 2026-12-06 sampled: 3 ms to
 * the daemon's 100 ms grace each, host p99s of 36-108 ms).
 */
static int run_accel_slice(bool kvm, unsigned int rounds)
{
	const char *name = kvm ? "kvm" : "thread";
	struct pre *in = pre_new(rounds, kvm), *ho = pre_new(rounds, kvm);
	struct sched_param fifo = { .sched_priority = 2 }, other = { 0 };
	cpu_set_t all, off;
	bool pinned = false;
	int ret = 0;

	if (!in || !ho) {
		printf("%-6s skipped: the backend cannot run here\n", name);
		ret = 1;
	} else {
		in->slice = ho->slice = true;
		ho->dkick = true;
		ho->watch = !kvm && !getenv("BENCH_PRE_NOWATCH");
		ho->ahead = !getenv("BENCH_PRE_AHEAD") || strcmp(getenv("BENCH_PRE_AHEAD"), "0");
		/*
		 * The helper off the holder's CPU, in both rows (BENCH_PRE_PIN=0: floating). A
		 * SCHED_FIFO thread stays on the CPU it woke on, so where it first landed decided the
		 * run: on the holder's CPU the holder left ~10 us after each kick (once the helper
		 * slept), elsewhere at once, after a wake-up that was often an idle CPU's; floating,
		 * 0.62-1.51x in-process over 21 runs, pinned 0.51-0.90x over 13 (docs/host.md).
		 */
		if (bench_daemon_pin && !sched_getaffinity(0, sizeof(all), &all)) {
			bench_daemon_mask = all;	/* the daemon's lanes: the whole mask */
			bench_daemon_has_mask = true;
			off = all;
			CPU_CLR(in->lane, &off);
			pinned = CPU_COUNT(&off) && !sched_setaffinity(0, sizeof(off), &off);
		}
		sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &fifo);
		if (run_inprocess(in) || run_daemon(ho))
			ret = -1;
		sched_setscheduler(0, SCHED_OTHER, &other);
		if (pinned)
			sched_setaffinity(0, sizeof(all), &all);
	}
	if (!ret) {
		report(name, "in-process, slice", in);
		report(name, "host, slice", ho);
		ratio(name, "host, slice", ho, in);
		printf("%-6s slice rounds not timed (vCPU 1 took the lane at its wake, or no end): "
		       "in-process %u, host %u\n", name, in->missed, ho->missed);
		/* The bench's own bookkeeping: a round whose wait ended before the holder's exit
		 * timed the next round's datagrams, not the path (pre_wait_out()). */
		printf("%-6s slice rounds whose wait ended before the holder was out: in-process %u, "
		       "host %u\n", name, in->unpaired, ho->unpaired);
		/*
		 * The helper (this thread, SCHED_FIFO) stays on the CPU it woke on: on the holder's,
		 * each kick waits for the helper to sleep (~10 us), and the wake-up is one of a busy
		 * CPU; on the other, the kick lands at once but the wake-up may be an idle CPU's.
		 */
		printf("%-6s slice kicks from the holder's CPU: in-process %u of %u, host %u of %u\n",
		       name, in->kicks_here, in->kicks_all, ho->kicks_here, ho->kicks_all);
		if (in->unpaired || ho->unpaired)
			ret = -1;
	}
	if (in)
		pre_free(in);
	if (ho)
		pre_free(ho);
	return ret;
}

static int run_set(bool kvm, unsigned int rounds, const char *set)
{
	int ret = 0, r;

	if (!set || !strcmp(set, "idle"))
		ret = run_accel(kvm, rounds);
	if (ret >= 0 && (!set || !strcmp(set, "vt"))) {
		r = run_accel_vt(kvm, rounds);
		ret = r < 0 ? r : ret;
	}
	if (ret >= 0 && (!set || !strcmp(set, "slice"))) {
		r = run_accel_slice(kvm, rounds);
		ret = r < 0 ? r : ret;
	}
	return ret;
}

int main(void)
{
	const char *env = getenv("BENCH_PRE_ROUNDS"), *accel = getenv("BENCH_PRE_ACCEL");
	const char *set = getenv("BENCH_PRE_SET");
	unsigned int rounds = env ? (unsigned int)atoi(env) : 5000;

	if (!rounds)
		return 2;
	/* The daemon's thread off the lanes' CPUs, as `vsched host` runs (BENCH_PRE_PIN=0: not). */
	bench_daemon_pin = !getenv("BENCH_PRE_PIN") || atoi(getenv("BENCH_PRE_PIN"));
	/* The vt rows on two lanes (above); the idle rows stay on one. */
	if (getenv("BENCH_PRE_LANES") && atoi(getenv("BENCH_PRE_LANES")) == 2) {
		bench_daemon_lanes = 2;
		set = "vt";
	}
	if ((!accel || !strcmp(accel, "thread")) && run_set(false, rounds, set) < 0)
		return 1;
	/* No /dev/kvm is no failure: the thread rows stand alone then. */
	if ((!accel || !strcmp(accel, "kvm")) && run_set(true, rounds, set) < 0)
		return 1;
	return 0;
}
