/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Private to the runtime (sched/runtime/runtime.c, rt_*.c): per-vCPU state and its transitions,
 * the lane bookkeeping and the narrow interface to the scheduler core (rt_core.c feeds the core
 * every event and drains its decisions; runtime.c only records thread ids in the tree and sets
 * the core's clock before groups are configured).
 */
#ifndef VSCHED_SCHED_RT_H
#define VSCHED_SCHED_RT_H

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "host/proto.h"
#include "sched/rotate.h"
#include "sched/runtime.h"
#include "sched/slice_plan.h"
#include "util/debug.h"
#include "util/time.h"

#define RT_INF			UINT64_MAX
#define RT_WATCHDOG_CHECK_NS	100000000ULL	/* how often the watchdog looks while vCPUs wait */
#define RT_RUSAGE_EVERY_NS	1000000ULL	/* user/system split resolution */
#define RT_BACKSTOP_NS		100000000ULL	/* the helper takes over a slice end this late */
#define RT_WATCH_RAN_NS		50000ULL	/* CPU time that shows a lent vCPU runs again */
#define RT_PRIO_HELPER		2		/* SCHED_FIFO priorities (rt_helper.c, rt_watch.c) */
#define RT_PRIO_LENT		1
#define RT_KICK_SLACK_NS	50000ULL	/* a slice timer this close makes a kick pointless */
#define RT_STEAL_RECHECK_NS	1000000000ULL	/* a guest without steal time is asked again */
#define RT_IDLE_SETTLE_NS	500000ULL	/* asleep this long, clock still: halted (fallback) */
#define RT_REPORT_NS		HOST_REPORT_NS	/* host mode: running vCPUs' CPU time reported */
#define RT_OTHER_NS		100000000ULL	/* host mode: other threads' CPU time reported */

struct vm;
struct vcpu;
struct sched;
struct kvm_steal_time;
struct rt_remote;
struct host_grant;
struct host_offer;

/*
 * A vCPU's state, changed only by rt_set_state() (rt_state.c), which allows these transitions
 * and no others (a BUG in debug builds) and keeps nr_waiting and nr_lent:
 *
 *              thread_start             enter
 *        OFF ---------------> BLOCKED ---------> WAITING <-----------+
 *                                ^                 |  ^              |
 *                                |           grant |  | preempt      | runs again
 *                                |                 v  |              | (reclaim, enter)
 *                                +----- sleep --- RUNNING -- halt --> LENT
 *                                                    ^               |
 *                                                    +--- grant -----+
 *
 * sleep: to BLOCKED from every state but OFF; thread_exit: to OFF from every state but OFF.
 *
 *   from \ to   OFF  BLOCKED  WAITING  RUNNING  LENT
 *   OFF          .      x        .        .       .
 *   BLOCKED      x      x        x        .       .    BLOCKED -> BLOCKED: a sleep while the
 *   WAITING      x      x        .        x       .    host schedules (unscheduled, fallback)
 *   RUNNING      x      x        x        x       x    RUNNING -> RUNNING: a grant to a holder
 *   LENT         x      x        x        x       .
 */
enum rt_state {
	RT_OFF,		/* thread not started or ended */
	RT_BLOCKED,	/* paravirtual sleep (or not yet runnable) */
	RT_WAITING,	/* runnable, no lane: waits in enter() (or still in KVM_RUN, being kicked) */
	RT_RUNNING,	/* holds a lane */
	RT_LENT,	/* halted inside KVM_RUN; its lane is lent to others */
};
#define RT_NR_STATES	(RT_LENT + 1)

/* What the host kernel reports about a vCPU thread to the helper (rt_watch.c). */
enum rt_watch_mode {
	WATCH_NONE,
	WATCH_HALT,	/* a lane holder in KVM_RUN: that it leaves the CPU */
	WATCH_RUN,	/* a lent vCPU: that it gets a CPU again */
};

struct rt_vcpu {
	struct runtime *rt;
	struct vcpu *vcpu;
	unsigned int id;
	enum rt_state state;
	pthread_cond_t cond;
	bool in_guest;		/* between enter() returning 0 and the next charge() */
	uint64_t until;		/* slice end while RUNNING, RT_INF: none */
	uint64_t armed;		/* the timer's current deadline, 0: disarmed */
	timer_t timer;
	bool has_timer;
	clockid_t cpu_clock;	/* the thread's CPU clock, readable by the helper */
	pid_t tid;
	int cpu;		/* host CPU it is pinned to, -1: none (rt_pin.c) */
	int host_pinned;	/* 1 + the CPU the daemon pinned it to for the grant being
				   applied (HOST_CPU_PINNED), 0: none */
	int lane;		/* the lane it was last pinned for, -1: none */
	int stat_fd;		/* /proc/self/task/TID/stat, for the idle check */
	int blocking_fd;	/* KVM stats fd with the "blocking" statistic, or -1 */
	off_t blocking_off;
	int switch_fd, run_fd;	/* perf events of the watch, or -1 */
	void *ring;		/* their shared sample ring, NULL: not watched */
	enum rt_watch_mode watch_mode;
	bool boosted;		/* SCHED_FIFO (rt_watch.c): while lent, and after until it exits */
	uint64_t last_lend;	/* when it last lent its lane: it is watched for halts a while */
	uint64_t wait_since;	/* when it last became WAITING */
	uint64_t wake_deadline;	/* end of the last paravirtual sleep, 0: none pending */
	uint64_t sleep_end;	/* host mode: the waker makes it runnable then (rt_xwait.c), 0: not */
	uint64_t granted_at;	/* when a waiting vCPU got its lane, 0: not pending */
	uint64_t halt_woke_at;	/* when a lent vCPU woke, until it has a lane; 0: none */

	/* Steal time (rt_steal.c): by the vCPU thread only. */
	struct kvm_steal_time *steal_area;	/* the guest's, while parked; NULL: none */
	uint64_t parked_at;	/* when the wait for a lane began */
	uint64_t steal_recheck_at;	/* the guest had no area: do not ask before this */

	/* Charging: written by the vCPU thread only. */
	uint64_t clock_charged;	/* thread CPU clock up to which the core was told (lock) */
	uint64_t since_sample;	/* charged since the last getrusage() */
	uint64_t ru_user, ru_sys;	/* last getrusage(RUSAGE_THREAD) sample, ns */
	double user_frac;	/* user share of the host's split over the last sample */

	/* Idle detection: last sample of the CPU clock, by the helper. */
	uint64_t probe_t, probe_cpu;
	bool probe_asleep;	/* found asleep at probe_t, clock still since (fallback check) */

	/* Host mode's grant page (rt_page.c), lock held. */
	uint32_t seq_applied;	/* the last decision applied (page entry seq) */
	uint32_t wake_word;	/* private futex: the VMM's own wake-ups of a page wait */
	bool page_waiting;	/* parked in rt_page_wait() */
	bool xwatch;		/* ... on a peer's offer word too (rt_xhand_park()) */
	bool page_parked;	/* its parked bit set (rt_page_park()) */
	uint32_t retime_seq;	/* a RETIME of a grant not taken yet from the page: its seq, 0 */
	uint64_t retime_until;
	/* rt_ahead.c: a PREEMPT the daemon published for a slice end to come: its seq (0: none),
	 * applied by this vCPU's slice end at ahead_at */
	uint32_t ahead_seq;
	uint64_t ahead_at;
};

/* The runtime's SCHED_FIFO threads (rt_place.c). */
enum rt_place_thread {
	RT_PLACE_HELPER,
	RT_PLACE_AGENT,
	RT_PLACE_WAKER,
	RT_PLACE_NR,
};

struct runtime {
	struct vm *vm;
	struct sched *s;
	pthread_mutex_t *lock;
	unsigned int nr_lanes;
	bool unscheduled;
	int *lane_cpu;		/* host CPU of each lane, NULL: not pinned */
	struct lane_rotate pin_rot;	/* the lanes' moves over their CPUs (embedded) */
	cpu_set_t host_cpus;	/* the process affinity mask at creation */
	/* The runtime's SCHED_FIFO threads off the lanes' CPUs (rt_place.c), lock held. */
	pid_t place_tid[RT_PLACE_NR];	/* those running, 0: not */
	cpu_set_t place_lanes;	/* the CPUs lanes use (host mode: those seen so far) */
	cpu_set_t place_set;	/* where those threads run */
	bool place_warned;
	bool fallback;
	unsigned int nr_vcpus;
	struct rt_vcpu *v;
	unsigned int nr_waiting;	/* vCPUs in RT_WAITING, kept by rt_set_state() */
	unsigned int nr_lent;		/* vCPUs in RT_LENT, the same */
	bool idle_polls;	/* some vCPU's halts are found only by polling */

	pthread_t helper;
	clockid_t helper_clock;	/* its CPU clock, while it runs */
	bool helper_started;
	bool helper_stop;
	int epoll_fd;		/* the helper sleeps here: pokes and watch events */
	int poke_fd;		/* eventfd */
	uint64_t helper_at;	/* when the helper plans to wake, RT_INF: only when signalled */
	uint64_t relook_at;	/* a halt to confirm (fallback check), RT_INF: none */
	uint64_t watchdog_at;
	uint64_t last_grant;	/* when a waiting vCPU last got a lane */
	uint64_t last_lend;	/* when a halted lane holder last lent its lane */
	struct slice_plan slice;	/* the rotation slice's costs and plan (rt_slice.c) */

	struct runtime_stats st;
	void *core;		/* rt_core.c's state */
	struct rt_remote *remote;	/* host mode (rt_remote.c), NULL: the core is s */
	uint64_t report_at;	/* host mode: next report of running vCPUs' CPU time */
	/* Host mode: the CPU of the threads other than the vCPUs' (rt_other.c) */
	uint64_t other_at;	/* next OTHER due with a report */
	uint64_t other_sent;	/* their CPU, ns, up to the last OTHER (or the join) */
	uint64_t other_user, other_sys;	/* getrusage()'s view of them at that OTHER */
	double other_frac;	/* the user part of their last change */
	const struct host_grant *page;	/* host mode: the grant page, NULL: none (rt_page.c) */
	size_t page_len;
	void *page_old;		/* the last page unmapped, zeros now (rt_page_unmap()) */
	size_t page_old_len;
	struct host_offer *offer;	/* host mode: idle-lane offers, NULL: none (rt_offer.c) */
	bool offer_held;	/* host mode: the daemon may offer a lane a vCPU here holds */
	bool offer_hand;	/* host mode: a released lane goes to the successor (rt_hand.c) */
	uint64_t sent;		/* host mode: datagrams sent since the join */
	uint64_t sent_state;	/* ... of them not RAN (a handoff's count) */
	bool state_queued;	/* a datagram not RAN queued since the lock was last dropped */
	bool took_due;		/* an offer taken, its TOOK not sent yet (rt_offer.c): */
	uint32_t took_vcpu, took_gen, took_lane;
	struct rt_peer *peer;	/* host mode: other VMs' offer pages, read-only (rt_peer.c) */
	unsigned int nr_peers;
	/* Host mode: the waker thread (rt_xwait.c). */
	pthread_t xw;
	bool xw_thread;		/* created (rt_xwait_stop() joins it) */
	bool xw_started, xw_stop;	/* its timer made, its loop runs; told to end */
	uint32_t xw_word;	/* private futex: its wake-ups (kicks, its timer's signal) */
	timer_t xw_timer;	/* signals it at the earliest sleep end */
	uint64_t xw_at;		/* the time its timer is armed for, RT_INF: none */
	uint32_t xw_gen, xw_watches;	/* waits on a peer's word for this gen of this VM's (the
					   waker's and the vCPU threads' together) */
	bool xw_peer;		/* the waker waits on a peer's word */
	struct trace *trace;	/* recording (rt_trace.c), or NULL */
};

/* The runtime's clock: CLOCK_MONOTONIC, as its slice timers and condition variables. */
static inline uint64_t rt_now(void)
{
	return time_mono_ns();
}

/* The host kernel schedules the vCPUs: --no-sched, or a fallback (watchdog, lost daemon). */
static inline bool rt_hands_off(const struct runtime *rt)
{
	return rt->unscheduled || rt->fallback;
}

/*
 * Drops the lock; in host mode, then sends what was queued under it (rt_remote.c). Every
 * runtime path that lets go of the lock goes through here, and the public API's unlock too
 * (runtime_bind()), so nothing queued waits for another thread's unlock.
 */
void rt_unlock(struct runtime *rt);
/*
 * At a vCPU's exit: as rt_unlock(), but reports (RAN) alone are left queued for the thread's
 * next unlock, microseconds later (its entry, or its sleep with the BLOCKED or a handoff's
 * TOOK), so that the exit before a release does not wake the daemon ahead of the claim
 * (rt_remote.c).
 */
void rt_unlock_exit(struct runtime *rt);
/*
 * Before a condition wait, which drops the lock without sending: sends what is queued (lock
 * dropped meanwhile). true if it did: the caller looks at its condition again.
 */
bool rt_unlock_send(struct runtime *rt);

/* State changes (rt_state.c), lock held. */
void rt_set_state(struct rt_vcpu *rv, enum rt_state to, uint64_t now);
bool rt_state_legal(enum rt_state from, enum rt_state to);

/* Decisions, applied with the lock held (rt_decide.c; from rt_core.c or rt_remote.c). */
void rt_grant(struct runtime *rt, unsigned int id, unsigned int lane, uint64_t until);
void rt_preempt(struct runtime *rt, unsigned int id);
void rt_set_until(struct runtime *rt, unsigned int id, uint64_t until);
/* One delay into a histogram of RT_WAKE_BUCKETS log buckets (rt_hist.c). */
void rt_hist_add(uint64_t *hist, uint64_t *nr, uint64_t delay);
/* A lent vCPU runs again, woken at woke (runtime.c). */
void rt_reclaim(struct runtime *rt, struct rt_vcpu *rv, uint64_t woke, uint64_t now);
/* A halted lane holder whose CPU clock reads cpu lends its lane (rt_helper.c). */
void rt_lend(struct runtime *rt, struct rt_vcpu *rv, uint64_t cpu, uint64_t now);
/* A vCPU woken from a lent halt has its lane: its wake-to-lane delay (rt_hist.c). */
void rt_hist_halt_wake(struct runtime *rt, struct rt_vcpu *rv, uint64_t now);
/* When a lent vCPU whose CPU clock reads cpu at now woke, as far as the helper can tell. */
uint64_t rt_halt_woke_est(const struct rt_vcpu *rv, uint64_t cpu, uint64_t now);
/* After any event: wake the helper if the core's next timer moved earlier. */
void rt_poke_helper(struct runtime *rt, uint64_t now);
/* SCHED_FIFO (RT_PRIO_HELPER) for the calling thread when the host lets it (rt_helper.c). */
void rt_thread_boost(void);

/* Slice timers and kicks (rt_timer.c). */
int rt_timer_init(void);
int rt_timer_create(struct rt_vcpu *rv);
void rt_timer_delete(struct rt_vcpu *rv);
void rt_timer_arm(struct rt_vcpu *rv, uint64_t until);
void rt_timer_bind_self(struct vcpu *vcpu);
void rt_kick(struct rt_vcpu *rv);

/* The guest's steal time for parked vCPUs (rt_steal.c); park without the lock held. */
struct kvm_steal_time *rt_steal_area(struct vm *vm, uint64_t msr);
void rt_steal_park(struct rt_vcpu *rv, uint64_t now);
void rt_steal_unpark(struct rt_vcpu *rv, uint64_t end);

/* Lanes on host CPUs (rt_pin.c). */
int rt_pin_init(struct runtime *rt);
void rt_pin_exit(struct runtime *rt);
void rt_pin_lane(struct runtime *rt, struct rt_vcpu *rv, unsigned int lane);
void rt_pin_release(struct runtime *rt);
void rt_pin_float(struct runtime *rt, struct rt_vcpu *rv);
int rt_pin_host(struct runtime *rt, unsigned int lane, int cpu);
int rt_pin_moved(struct runtime *rt, struct rt_vcpu *rv, unsigned int lane, int cpu);
void rt_pin_rotate(struct runtime *rt, uint64_t now);

/*
 * The runtime's SCHED_FIFO threads off the lanes' CPUs (rt_place.c). rt_place_off(): the CPUs
 * of mask no lane uses, how many; none: off is mask (they float).
 */
unsigned int rt_place_off(const cpu_set_t *mask, const cpu_set_t *lanes, cpu_set_t *off);
void rt_place_init(struct runtime *rt);
void rt_place_lanes(struct runtime *rt);
void rt_place_seen(struct runtime *rt, int cpu);
void rt_place_reset(struct runtime *rt);
void rt_place_join(struct runtime *rt, enum rt_place_thread t);

/* What wakes the helper (rt_watch.c). */
int rt_watch_init(struct runtime *rt);
void rt_watch_exit(struct runtime *rt);
void rt_watch_open(struct rt_vcpu *rv);
void rt_watch_close(struct rt_vcpu *rv);
bool rt_watched(const struct rt_vcpu *rv);
void rt_watch_set(struct rt_vcpu *rv, enum rt_watch_mode mode);
void rt_watch_holder(struct rt_vcpu *rv, uint64_t now);
void rt_watch_poke(struct runtime *rt);
void rt_watch_wait(struct runtime *rt, uint64_t until);

/* The rotation slice from the measured cost of a lane change (rt_slice.c). */
void rt_slice_exit(struct runtime *rt, const struct rt_vcpu *rv, uint64_t now);
void rt_slice_handoff(struct runtime *rt, uint64_t ns);
void rt_slice_plan(struct runtime *rt, uint64_t now);
void rt_slice_fine(struct runtime *rt, uint64_t now);

/* Halt detection (rt_idle.c). */
void rt_idle_open(struct rt_vcpu *rv);
void rt_idle_close(struct rt_vcpu *rv);
int rt_idle_blocking(const struct rt_vcpu *rv);

/* Charging (rt_account.c). */
void rt_account_start(struct rt_vcpu *rv);
void rt_account_split(struct rt_vcpu *rv, uint64_t cpu_ns, bool self, uint64_t *user,
		      uint64_t *sys);
void rt_charge_upto(struct runtime *rt, struct rt_vcpu *rv, uint64_t clock, bool self,
		    uint64_t now);
uint64_t rt_vcpu_clock(const struct rt_vcpu *rv);
void rt_charge_running(struct runtime *rt, uint64_t now);

/* The vCPU tracks of a trace (rt_trace.c); lane: the lane held when RUNNING, else -1. */
void rt_trace_state(struct runtime *rt, struct rt_vcpu *rv, int lane, uint64_t now);
void rt_trace_throttle(struct runtime *rt, uint64_t now);
void rt_trace_kick(struct runtime *rt, struct rt_vcpu *rv, uint64_t now);

/* The helper thread (rt_helper.c). */
int rt_helper_start(struct runtime *rt);
void rt_helper_stop(struct runtime *rt);
uint64_t rt_helper_cpu_ns(const struct runtime *rt);

/*
 * The scheduler core, seen from the runtime (rt_core.c). Every call has the lock held and may
 * call the decision functions above before it returns.
 */
int rt_core_create(struct runtime *rt);
void rt_core_destroy(struct runtime *rt);
void rt_core_runnable(struct runtime *rt, unsigned int id, uint64_t now);
void rt_core_blocked(struct runtime *rt, unsigned int id, uint64_t now, bool held);
void rt_core_ran(struct runtime *rt, unsigned int id, uint64_t user_ns, uint64_t sys_ns,
		 uint64_t now);
void rt_core_tick(struct runtime *rt, uint64_t now);
void rt_core_config(struct runtime *rt, uint64_t now);
uint64_t rt_core_next_timer(struct runtime *rt);	/* RT_INF: none */
uint64_t rt_core_next_group_timer(struct runtime *rt);	/* without slice ends; RT_INF: none */
bool rt_core_throttled(struct runtime *rt, unsigned int id);
int rt_core_set_slice(struct runtime *rt, uint64_t slice);
void rt_core_set_tid(struct runtime *rt, unsigned int id, pid_t tid);

/* Host mode (rt_remote.c): the same events as messages; decisions come back to the agent. */
struct runtime_host;
int rt_remote_create(struct runtime *rt, const struct runtime_host *host);
int rt_remote_start(struct runtime *rt);
void rt_remote_stop(struct runtime *rt);
void rt_remote_destroy(struct runtime *rt);
void rt_remote_event(struct runtime *rt, unsigned int type, unsigned int id, uint64_t a,
		     uint64_t b);
void rt_remote_tick(struct runtime *rt, uint64_t now);
void rt_remote_config(struct runtime *rt);
/* Sends what was queued (lock not held); a failed send loses the daemon. */
void rt_remote_flush(struct runtime *rt);
/* Still joined after the sends of rt_remote_create() (lock held). */
bool rt_remote_joined(struct runtime *rt);
/*
 * rt_remote_dial.c: a socket connected to the daemon, or -errno; HELLO (type, version and pid
 * filled in here), then the WELCOME: 0, the daemon's -errno, or -EPROTO for a reply that is
 * not one. *page_fd: the grant page a join comes with, *offer_fd its offer page, -1: none (the
 * caller closes them).
 */
struct host_hello;
struct host_welcome;
int rt_remote_dial(const char *sock);
int rt_remote_hello(int fd, struct host_hello *m, int timeout_ms, struct host_welcome *w,
		    int *page_fd, int *offer_fd);
/* The grant page (rt_page.c). Lock held. */
bool rt_page_usable(void);
int rt_page_map(struct runtime *rt, int fd);
void rt_page_unmap(struct runtime *rt);
bool rt_page_newer(const struct rt_vcpu *rv, uint32_t seq);
void rt_page_retime(struct rt_vcpu *rv, uint32_t seq, uint64_t until);
/* rv's entry applied if newer (a grant, a PREEMPT); false if unread (*seq: the seq last seen). */
bool rt_page_apply(struct runtime *rt, struct rt_vcpu *rv, uint32_t *seq);
void rt_page_park(struct runtime *rt, struct rt_vcpu *rv);
void rt_page_park_end(struct runtime *rt, struct rt_vcpu *rv);
void rt_page_wait(struct runtime *rt, struct rt_vcpu *rv);
void rt_page_watch(struct runtime *rt, struct rt_vcpu *rv);
void rt_page_exit(struct runtime *rt, struct rt_vcpu *rv);
void rt_page_guest(struct runtime *rt, struct rt_vcpu *rv, bool on);
/* A consistent copy of rv's entry; false: no page, or the daemon is mid-write. */
bool rt_page_entry(struct runtime *rt, const struct rt_vcpu *rv, struct host_grant *e);
/*
 * Decisions made ahead of a slice end (rt_ahead.c, HOST_HELLO_AHEAD). defer: a newer decision
 * to apply later (true) or now; grant_msg: a GRANT datagram left to the thread's page wait;
 * tick: the published ends due at a slice end applied (false: ask the daemon); wait: until
 * when a parked thread waits for its entry's grant (0: take it now). Lock held.
 */
bool rt_ahead_defer(struct runtime *rt, struct rt_vcpu *rv, uint32_t seq, uint32_t lane,
		    uint64_t at);
bool rt_ahead_grant_msg(struct runtime *rt, struct rt_vcpu *rv, uint32_t seq);
bool rt_ahead_tick(struct runtime *rt, uint64_t now);
uint64_t rt_ahead_wait(struct runtime *rt, struct rt_vcpu *rv, const struct host_grant *e);
/* Host mode: the CPU of the VMM's other threads, reported (rt_other.c). Lock held. */
void rt_other_join(struct runtime *rt, uint64_t now);
void rt_other_report(struct runtime *rt, uint64_t now);
void rt_page_free(struct runtime *rt);
void rt_vcpu_wake(struct rt_vcpu *rv);
/* Idle-lane offers (rt_offer.c). Lock held. take: true if vCPU id took one and holds a lane. */
void rt_offer_map(struct runtime *rt, int fd);
void rt_offer_unmap(struct runtime *rt);
bool rt_offer_take(struct runtime *rt, unsigned int id);
void rt_offer_flush(struct runtime *rt);
/*
 * Other VMs' offer pages (rt_peer.c, HOST_HELLO_PEER). Lock held. add: fd taken over (-1:
 * the peer left); -EPROTO for a page not sealed against writes and resizing (not mapped; the
 * daemon that sent it is lost). find: the peer's page, NULL: none.
 */
struct rt_peer {
	uint32_t id;
	const struct host_offer *o;
};
#define RT_PEERS_MAX	256
int rt_peer_add(struct runtime *rt, uint32_t id, int fd);
const struct host_offer *rt_peer_find(const struct runtime *rt, uint32_t id);
void rt_peer_clear(struct runtime *rt);
/*
 * The agent's receive: a datagram and the one fd that may come with it (*fd, -1: none, -2: a
 * datagram with more or a truncated one, garbage); a PEER (is_msg) takes its fd over (msg).
 */
ssize_t rt_peer_recv(int fd, char *buf, size_t len, int *pfd);
bool rt_peer_is_msg(const void *buf, ssize_t n);
int rt_peer_msg(struct runtime *rt, const void *buf, ssize_t n, int fd);
/*
 * Handoffs across VMs, the successor's side (rt_xhand.c). Lock held. watch: the other VM's
 * word rv's parked thread waits on too (false: none); take: true if rv took the lane that VM
 * released (it holds it now).
 */
struct futex_waitv;
struct rt_vcpu *rt_xhand_succ(struct runtime *rt);
bool rt_xhand_watch(struct runtime *rt, struct futex_waitv *fw);
bool rt_xhand_take(struct runtime *rt, struct rt_vcpu *rv);
/*
 * rv's thread parks on its grant page entry (rt_page_wait()): the futex it also waits on, put
 * in fw (at most RT_XHAND_PARK_MAX), how many: the releasing VM's word while rv is the
 * published successor, whose claim's FUTEX_WAKE then reaches the thread itself. unpark: back
 * from that wait, a claim that woke it taken.
 */
#define RT_XHAND_PARK_MAX	1
unsigned int rt_xhand_park(struct runtime *rt, struct rt_vcpu *rv, struct futex_waitv *fw);
void rt_xhand_unpark(struct runtime *rt, struct rt_vcpu *rv);
/*
 * The waker (rt_xwait.c): a SCHED_FIFO thread that makes a sleeping vCPU runnable at its sleep's
 * end and takes another VM's released lane for the published successor, where the vCPU's own
 * thread may wait behind a busy CPU's lane holder. arm: rv is about to sleep until end (lock
 * held), before it releases its lane.
 */
int rt_xwait_start(struct runtime *rt);
void rt_xwait_stop(struct runtime *rt);
void rt_xwait_arm(struct runtime *rt, struct rt_vcpu *rv, uint64_t end);
/* The pages or the peers changed: the waker looks again. Lock held. */
void rt_xwait_changed(struct runtime *rt);
/*
 * Waits on another VM's word for one gen of this VM's (the waker's and the vCPU threads'): that
 * VM writes its word at will, and a word changed between each read and each wait would keep a
 * SCHED_FIFO waker (or a parked vCPU thread) of this VMM looping. Past this they leave that word
 * alone until the daemon publishes again (a claim then is settled by the daemon: two wake-ups).
 */
#define RT_XWAIT_WATCH_MAX	256
/* One more wait on a peer's word for this VM's gen (waker and vCPU threads): false past the
 * bound. Lock held. */
bool rt_xwait_watch_ok(struct runtime *rt);
/*
 * Handoffs (rt_hand.c). Lock held. id, a lane holder, releases its lane (it blocks or is lent):
 * true if the successor the daemon published took it (the claim stands for id's BLOCKED).
 */
bool rt_hand_off(struct runtime *rt, unsigned int id);
/*
 * rt_remote_ctl.c: a datagram from the daemon that may be a CTL: 0 not one, 1 applied to vs
 * and answered, -EPROTO malformed. Called without the lock.
 */
struct vsched;
struct host_ctl_msg;
int rt_remote_ctl(struct runtime *rt, struct vsched *vs, const void *buf, size_t n);
/* A valid CTL made in vs, moves checked with the writer's permissions it carries: -errno. */
int rt_remote_ctl_apply(struct vsched *vs, const struct host_ctl_msg *m);
/* Hands scheduling to the host kernel (the watchdog, a lost daemon). Lock held. */
void rt_fallback(struct runtime *rt);

#endif
