/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The scheduler runtime: binds the pure scheduler core (sched/core.h) to the VMM's vCPU threads.
 *
 * Lanes: at most nr_lanes vCPUs are inside KVM_RUN with a lane (a permit). A vCPU asks for a lane
 * in the enter() hook and waits there, on its own condition variable, until the core grants one.
 * Slice ends are per-vCPU POSIX timers (SIGEV_THREAD_ID) whose handler only sets
 * kvm_run->immediate_exit; a decision that must take effect before the slice ends kicks
 * (immediate_exit + signal). Nothing is armed and nobody is kicked while no vCPU waits.
 *
 * Charging: each vCPU thread reads its own CPU clock after every KVM_RUN, so a group's
 * usage_usec is the sum of its vCPU threads' CPU time; user/system follow getrusage(RUSAGE_THREAD).
 *
 * One helper thread runs the core's timers (period refills, unthrottling), the idle detection of
 * in-kernel HLT (the lane holder's CPU clock stops: its lane is lent until it runs again) and the
 * liveness watchdog (a runnable, unthrottled vCPU waiting > 1 s: log and fall back to letting
 * the host kernel schedule every vCPU).
 *
 * All state is guarded by the lock given at creation, the same lock the public API (vsched.h)
 * holds while it changes the group tree, so configuration changes and scheduling serialise.
 */
#ifndef VSCHED_SCHED_RUNTIME_H
#define VSCHED_SCHED_RUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vm;
struct sched;
struct vcpu_sched_ops;

#define RT_WATCHDOG_NS		1000000000ULL	/* longest wait of a runnable, unthrottled vCPU */
#define RT_IDLE_POLL_NS		1000000ULL	/* idle detection period while someone waits */
#define RT_IDLE_POLL_SLOW_NS	10000000ULL	/* the same when no vCPU halted for a while */
#define RT_IDLE_QUIET_NS	200000000ULL	/* "a while" */
#define RT_IDLE_POLL_RARE_NS	50000000ULL	/* the same when none halted for a long while */
#define RT_IDLE_RARE_NS		1000000000ULL	/* "a long while" */
#define RT_WAKE_BUCKETS		64		/* log2-spaced wake-to-run histogram, 4 per octave */

/*
 * Host mode: why a vCPU that became runnable did not take an offer (rt_offer_take(), the first
 * condition that refused). The first two are not refusals: no lane offered at the read (none
 * made, or revoked by the daemon's event), or the word another kind's (claimed, a handoff's).
 */
enum rt_offer_refusal {
	RT_OFFER_R_ABSENT,	/* no lane in the word */
	RT_OFFER_R_OTHER,	/* claimed already, or a handoff's or a successor's word */
	RT_OFFER_R_HANDS_OFF,	/* the host kernel schedules (fallback) */
	RT_OFFER_R_TOOK_DUE,	/* this VMM's last claim not confirmed yet */
	RT_OFFER_R_SENT,	/* a datagram of this VMM's still unread by the daemon */
	RT_OFFER_R_INELIGIBLE,	/* the vCPU is not one the core would give the lane to */
	RT_OFFER_R_BAD,		/* a lane, CPU or holder out of range, or the taker itself */
	RT_OFFER_R_NO_HELD,	/* a held lane, and this VMM takes no held-lane offers */
	RT_OFFER_R_HOLDER_STATE,	/* the holder is not running here */
	RT_OFFER_R_HOLDER_SEQ,	/* the holder's grant not applied here yet */
	RT_OFFER_R_NOT_BEFORE,	/* before the offer's not_before */
	RT_OFFER_R_CAS,		/* revoked (or claimed) between the reads and the CAS */
	RT_OFFER_R_NR
};

struct runtime_stats {
	uint64_t kicks;			/* preemptions that needed a kick */
	uint64_t page_exits;		/* host mode: preemptions a running vCPU read in the grant
					 * page itself (thread backend: no kick, no agent) */
	uint64_t ahead_preempts;	/* host mode: ends the daemon published ahead for a
					 * holder, applied at its own slice end or once read
					 * after it (rt_ahead.c) */
	uint64_t timer_arms;		/* slice timers armed */
	uint64_t retimes;		/* slice ends the core moved (RETIME): timer_settime() */
	uint64_t retimes_peak;		/* the most in one second: a storm would show */
	uint64_t retime_sec, retime_in_sec;	/* the second being counted, and its count */
	uint64_t grants;		/* lanes handed out */
	uint64_t grant_msgs;		/* host mode: GRANT datagrams the agent received (a
					 * grant to a parked vCPU goes by the page alone) */
	uint64_t offers;		/* host mode: of those, idle lanes taken from an offer */
	uint64_t held_offers;		/* host mode: lanes taken from their holder by an offer */
	uint64_t offer_refused[RT_OFFER_R_NR];	/* host mode: offers standing, not taken, by why */
	uint64_t handoffs;		/* host mode: lanes handed on by their holder (rt_hand.c) */
	uint64_t xhandoffs_out;		/* ... released to another VM's successor (rt_hand.c) */
	uint64_t xhandoffs;		/* ... taken from another VM's holder (rt_xhand.c) */
	uint64_t xhandoffs_parked;	/* ... of them by the successor's own thread, woken
					   from its park by the claim (rt_xhand_park()) */
	uint64_t xw_wakes;		/* sleepers made runnable by the waker (rt_xwait.c) */
	uint64_t migrations;		/* vCPU threads re-pinned to another lane's host CPU */
	uint64_t host_pins;		/* host mode: grants whose thread the daemon had pinned
					 * (HOST_CPU_PINNED): no mask set here */
	uint64_t throttles;		/* groups throttled (quota ran out) */
	uint64_t lends;			/* lanes lent by halted vCPUs */
	uint64_t reclaims;		/* lent lanes taken back */
	uint64_t watch_events;		/* helper wake-ups by a halt or a lent vCPU running */
	uint64_t helper_wakes;		/* passes of the helper thread (each a host context switch) */
	uint64_t helper_cpu_ns;		/* the helper thread's CPU time: the runtime's own cost */
	uint64_t slice_ns;		/* the rotation slice now (planned from switch costs) */
	uint64_t watchdog_trips;
	uint64_t backstops;		/* slice ends the helper ran RT_BACKSTOP_NS late: the
					 * holder's own thread had not come back (a loaded host) */
	bool fallback;			/* the watchdog handed scheduling to the host kernel */
	uint64_t nr_wake;		/* wake-to-run samples (paravirtual sleeps) */
	uint64_t wake_hist[RT_WAKE_BUCKETS];
	uint64_t nr_handoff;		/* lane grant to a parked vCPU -> its KVM_RUN */
	uint64_t handoff_ns;		/* their sum: lane time spent handing over */
	uint64_t handoff_hist[RT_WAKE_BUCKETS];
	/*
	 * A lent vCPU's wake-up (its halt inside KVM_RUN ended) to its lane: granted in place, or
	 * after a wait, its next KVM_RUN. The wake is the look's time less the CPU the vCPU used
	 * since it last looked halted (rt_halt_woke_est(): it runs SCHED_FIFO while lent, so its
	 * CPU time is its time awake).
	 */
	uint64_t nr_halt_wake;
	uint64_t halt_wake_ns;		/* their sum */
	uint64_t halt_wake_hist[RT_WAKE_BUCKETS];
	/*
	 * Host mode: a GRANT the daemon published from a slice end to come (rt_ahead.c), from that
	 * moment `at` to its thread applying it (the lane's gap after the end, this VMM's part).
	 */
	uint64_t nr_ahead_grant;
	uint64_t ahead_grant_hist[RT_WAKE_BUCKETS];
};

struct runtime;

/* runtime_create() flags */
#define RUNTIME_UNSCHEDULED	0x1	/* every vCPU runs whenever the host lets it (accounting
					 * still happens): the baseline for throughput comparisons */
#define RUNTIME_NO_PIN		0x2	/* lanes float: the host kernel places the vCPU threads */

/*
 * A runtime for vm's vCPUs on nr_lanes lanes, scheduling with the core inside s (whose vCPU
 * count must match), serialised by lock. Lane i runs on the i-th CPU of the process's affinity
 * mask (when it has nr_lanes CPUs and RUNTIME_NO_PIN is not given). 0 or -errno.
 */
int runtime_create(struct vm *vm, struct sched *s, pthread_mutex_t *lock, unsigned int nr_lanes,
		   unsigned int flags, struct runtime **out);
/*
 * Host mode (docs/host.md): the core runs in `vsched host`, reached at sock. The VM joins as
 * <partition>/<name> with the VM group's settings below; its own tree (s) stays the source of
 * truth for its subtree and is sent again after every change. Decisions come back to an agent
 * thread. If the daemon goes away the vCPUs run unscheduled (said once on stderr) and the
 * runtime joins again when it returns (retried every RUNTIME_HOST_RETRY_NS).
 */
#define RUNTIME_HOST_RETRY_NS	200000000ULL
struct runtime_host {
	const char *sock;
	const char *name;
	const char *partition;	/* NULL or "": /machine */
	unsigned long shares;	/* the VM group's weight in load units, 0: default */
	uint64_t quota_us;	/* its cpu.max, UINT64_MAX: max */
	uint64_t period_us;
	struct vsched *vs;	/* the VM's tree: changes the daemon forwards are made there */
};
/* What a daemon says to a probe. */
struct runtime_host_info {
	unsigned int nr_lanes;
	unsigned int nr_vms;	/* VMs joined */
	pid_t pid;
};
#define RUNTIME_HOST_REPLY_MS	2000	/* a daemon answers a HELLO within this */
/*
 * Whether a daemon answers at sock within timeout_ms: 0 and what it says, or -errno (no
 * daemon: -ENOENT, ...; no answer: -ETIMEDOUT).
 */
int runtime_host_probe(const char *sock, int timeout_ms, struct runtime_host_info *info);
/* runtime_create() in host mode: nr_lanes comes from the daemon. -errno as the daemon's refusal. */
int runtime_create_host(struct vm *vm, struct sched *s, pthread_mutex_t *lock, unsigned int flags,
			const struct runtime_host *host, struct runtime **out);
/* The VM's group in the daemon's tree ("/machine/vm1"), or NULL when embedded. */
const char *runtime_host_group(struct runtime *rt);

/* Starts the helper thread; call before vm_start(). 0 or -errno. */
int runtime_start(struct runtime *rt);
/* Stops the helper thread (after vm_join()) and frees everything. */
void runtime_destroy(struct runtime *rt);
/* The hooks to put into vm->sched. */
extern const struct vcpu_sched_ops runtime_vcpu_ops;

/*
 * Connects rt to the public API of the tree it schedules (whose lock it was created with):
 * every read and change first charges what the vCPUs inside KVM_RUN ran so far, so cpu.stat
 * is exact and a weight, cap or membership change acts from "now"; after a change the core
 * re-decides at once, so it takes effect within one slice. runtime_unbind() before
 * runtime_destroy().
 */
struct vsched;
void runtime_bind(struct runtime *rt, struct vsched *vs);
void runtime_unbind(struct vsched *vs);

/*
 * Brings the core's clock to now (CLOCK_MONOTONIC) before groups are configured, so cpu.max
 * periods start at the real time rather than at 0. Takes the public API's lock.
 */
void runtime_clock_init(struct vsched *vs);

/*
 * Records the schedule into tr (sched/trace.h) from now on; NULL stops. Takes the lock: once it
 * returns with NULL, no thread of the runtime records any more.
 */
struct trace;
void runtime_set_trace(struct runtime *rt, struct trace *tr);

/* Copies the counters (takes the lock). */
void runtime_get_stats(struct runtime *rt, struct runtime_stats *out);
/* The wake-to-run delay at quantile q (0..1) in ns, from the histogram; 0 without samples. */
uint64_t runtime_wake_quantile(const struct runtime_stats *st, double q);
/* The same for a histogram of the same layout (handoff_hist). */
uint64_t runtime_hist_quantile(const uint64_t *hist, uint64_t nr, double q);

#endif
