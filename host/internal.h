/* SPDX-License-Identifier: GPL-2.0 */
/* Private to the daemon (host/): its state, the VMs it serves and the helpers between files. */
#ifndef VSCHED_HOST_INTERNAL_H
#define VSCHED_HOST_INTERNAL_H

#include <pthread.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "host/host.h"
#include "host/proto.h"
#include "sched/rotate.h"
#include "sched/slice_plan.h"
#include "util/list.h"
#include "util/strv.h"

struct sched;
struct sched_decision;
struct ctl;
struct group;

/* A slot of the core: free (client NULL) or one vCPU of a joined VM. */
struct host_slot {
	struct host_client *client;
	unsigned int vcpu;		/* the VM's own index */
	bool revoked;			/* blocked by the daemon: its VMM went silent on a lane */
	uint64_t last_heard;		/* last message about this vCPU */
	/* host_charge.c: the holder's estimate since its last report or grant */
	uint64_t charged_at;		/* daemon's time of that report or grant */
	uint64_t ahead_ns;		/* charged beyond what its VMM reported */
	uint64_t joined_at;		/* host_ran_count(): its VM's join, daemon's time */
	uint64_t reported_ns;		/* ... the CPU its RANs reported since */
	uint64_t preempt_at;		/* host_slice.c: PREEMPT sent, not reported since; 0 */
	uint32_t nr_waits;		/* RUNNABLEs read: a new wait (host_xhand.c) */
	uint64_t ahead_at;		/* host_ahead.c: a PREEMPT published for then, not
					   followed by a message about this vCPU since; 0 */
	uint64_t end_at;		/* host_lanes.c: the slice end its VMM was last told
					   (GRANT, RETIME), to answer by answer_ns; 0: none */
	uint64_t checked_at;		/* ... when its thread was last found not stopped */
	/* host_revoke.c: its times read then (vm_threads 0: none); at the first such reading
	   since its last word, its thread's CPU (run0) and its VMM's datagrams read (read0) */
	struct host_times times;
	uint64_t run0, read0;
};

#define HOST_OUTBOX	32	/* decisions queued for one VMM during one event */
#define HOST_INPUT_BATCH 64	/* datagrams read from one VMM per wake-up (host_client_input()) */
#define HOST_MSG_MAX_LEN 1024	/* above every message: a longer datagram is garbage */

struct host_client {
	struct list_head node;
	int fd;
	pid_t pid;
	bool joined;
	bool dead;			/* a send failed: host_run() hangs up */
	bool full;			/* ... because its socket was full (not reading) */
	char name[HOST_NAME_LEN];
	char group[HOST_PATH_LEN];	/* "/machine/vm1" once joined */
	/* host_lanes.c: the decisions of the event being handled, sent once it is decided */
	struct host_ev out[HOST_OUTBOX];
	unsigned int nr_out;
	unsigned int nr_vcpus;
	unsigned int *slot;		/* vCPU index -> slot */
	unsigned int nr_revoked;
	/* The batch being received (GROUP... VCPU... COMMIT). */
	struct host_group_msg *batch;
	unsigned int nr_batch;
	unsigned int *vcpu_group;	/* per vCPU: batch index + 1, 0 the VM group */
	/* The last batch committed: the groups mirrored below the VM group, their ids */
	struct host_group_msg *tree;
	unsigned int nr_tree;
	/* The grant page (host_page.c): the daemon's own seq per vCPU, and the mapping. */
	uint32_t *seq;
	struct host_grant *page;	/* NULL: none, decisions go by the socket alone */
	size_t page_len;
	/* host_offer.c: the offer page (NULL: none) the VMM may write, and what is known of it */
	struct host_offer *offer;
	uint64_t nr_read;		/* datagrams read since the join */
	uint64_t *offer_ok;		/* the daemon's copy of the offered vCPUs (bitmap) */
	bool offer_held;		/* it takes offers of a lane its vCPU holds */
	uint32_t offer_holder;		/* the holder of the lane offered, HOST_OFFER_NONE: idle */
	bool took_due;			/* a claim honoured, its TOOK not read yet: */
	uint32_t took_vcpu, took_gen, took_lane;
	bool garbage;			/* wrote garbage in its offer page: host_run() hangs up */
	/* host_hand.c: handoffs (HOST_HELLO_HAND) */
	bool offer_hand;		/* it hands a lane its vCPU releases to the successor */
	uint32_t hand_succ;		/* the successor of the handoff offered (VM's index) */
	bool hand_alone;		/* it was the only waiter: granted with no slice end */
	uint64_t nr_read_state;		/* datagrams other than RAN read since the join */
	uint64_t nr_hands;		/* handoffs honoured as the core's own decision */
	uint64_t nr_hands_revoked;	/* ... and revoked (the core chose otherwise) */
	/* host_xhand.c: as the successor's VM of a handoff across VMs */
	uint64_t nr_xhands;		/* lanes its vCPU took from another VM's claim, honoured */
	uint64_t nr_xhands_revoked;	/* ... not the core's decision: told PREEMPT */
	uint64_t nr_xhands_missed;	/* claims of the lane it was published for, not taken */
	/* the successor last woken to watch a peer's word, for which wait */
	uint32_t x_woke_vcpu, x_woke_peer, x_woke_wait;
	/* host_peer.c: the offer page shared read-only with the other VMs (HOST_HELLO_PEER) */
	bool share;			/* it asked */
	bool shared;			/* sealed: its read-only fd went to the others */
	uint32_t share_id;		/* its id in PEER, unique while the daemon runs */
	int share_fd;			/* -1; the read-write memfd until sealed, then read-only */
	/* host_kick.c: the peer by SO_PEERCRED, and a pidfd of each vCPU thread it reported */
	pid_t peer_pid;
	int peer_fd;			/* pidfd of the peer process, -1: none */
	int *kick_fd;			/* per vCPU: pidfd of its thread, -1: the agent kicks */
	pid_t *kick_tid;		/* per vCPU: that thread's TID */
	uint64_t nr_kicks;
	bool pin;			/* HOST_HELLO_PIN: grantees pinned by the daemon */
	uint64_t nr_pins;		/* host_pin()s checked to have reached the thread */
	int pin_unchecked;		/* the vCPU host_pin() pinned, not checked yet; -1: none */
	uid_t uid;			/* the peer's (SO_PEERCRED): where it may join */
	unsigned long long start;	/* the peer's start time: with peer_pid, its identity
					   (host_owners.c), 0: unknown */
	bool owners_back;		/* its kept owners looked for (its first COMMIT) */
	/* host_charge.c: its threads other than the vCPUs' (OTHER), charged to its VM group */
	uint64_t other_joined;		/* its join (daemon's time): host_report_possible() */
	uint64_t other_at;		/* its allowance counted up to here (daemon's time) */
	uint64_t other_allow;		/* ns it may still charge: elapsed time x host CPUs */
	uint64_t other_ns;		/* charged since the join */
	uint64_t other_refused_ns;	/* reported beyond the allowance, not charged */
	/* HOST_HELLO_GUEST: its in-guest bits read; PREEMPTs left to the page and the kick */
	bool guest;
	uint64_t nr_preempts_quiet;
	/* HOST_HELLO_AHEAD: decisions made ahead of a slice end (host_ahead.c) */
	bool ahead;
	uint64_t nr_ahead_pre;		/* PREEMPTs published for a slice end to come */
	uint64_t nr_ahead_late;		/* ... preempted by the daemon at the grace after it */
	uint64_t nr_ahead_withdrawn;	/* ... replaced by a grant before the end came */
	uint64_t nr_revokes;		/* its vCPUs revoked, all told (logged as it leaves) */
	uint64_t nr_owe_runnable;	/* ... not: silent past an end, its thread not stopped */
	uint64_t revoke_late_ns;	/* ... the latest after its slice end */
	uint64_t nr_revokes_grace;	/* ... of them, silent for the grace (any thread state) */
	uint64_t nr_revokes_asleep;	/* ... its thread neither ran nor waited for a CPU */
	uint64_t nr_revokes_ran;	/* ... its thread ran past its end without a word */
	uint64_t judged_late_ns;	/* ... those two, the latest after its slice end */
	/* its holders preempted by the daemon, by the event that made the core decide */
	uint64_t nr_pre[HOST_PRE_MAX];
	/* host_dcpu.c: the daemon's own CPU for it (host_run()'s thread, or lock held) */
	uint32_t dcpu_marks;		/* the timer's decisions for it in this tick */
	uint64_t dcpu_owed;		/* measured, charged at the daemon's next timer */
	uint64_t dcpu_ns;		/* charged to its VM group since the join */
};

struct host {
	struct vsched *vs;
	struct sched *s;
	pthread_mutex_t *lock;
	unsigned int nr_lanes, nr_slots, nr_free;
	int *lane_cpu;			/* host CPU of each lane, -1: lanes float */
	struct lane_rotate rot;		/* the lanes' moves over those CPUs (host_lanes.c) */
	struct host_slot *slot;
	struct list_head clients;
	unsigned int nr_clients;
	/* Groups the daemon removed itself, told to gone_fn after the event (host_set_gone()). */
	void (*gone_fn)(void *arg, const char *path);
	void *gone_arg;
	struct strv gone;
	/* host_owners.c: the directory's records (host_set_attrs()); those kept in .host-tree
	 * for VMMs not re-joined yet (struct host_kept); those due to the directory */
	char *(*attrs_save)(void *arg);
	int (*attrs_load)(void *arg, const char *rec);
	void *attrs_arg;
	struct list_head kept;
	struct strv attrs_due;
	uint64_t grace_ns;
	uint64_t answer_ns;		/* host_revoke_due(): a told VMM's time to answer */
	uint64_t (*clock)(void);	/* time_mono_ns(); tests drive their own */
	/* host_kick_thread_state(); tests say their own */
	char (*thread_state)(const struct host_client *c, unsigned int vcpu);
	/* host_kick_thread_times(); tests say their own */
	int (*thread_times)(const struct host_client *c, unsigned int vcpu, struct host_times *t);
	unsigned int nr_host_cpus;	/* online: the most CPU a VMM's threads can use */
	int listen_fd, epoll_fd, timer_fd;
	uint64_t timer_at;		/* what timer_fd is armed for, HOST_TIME_INF: nothing */
	struct slice_plan slice;	/* host_slice.c: lane changes' costs, the slice's plan */
	uint64_t slice_ns;		/* the core's slice now */
	char sock[108];
	/* host_fwd.c: the one forward to a VMM in flight */
	pthread_mutex_t fwd_serial;	/* held by the forwarding thread while it waits */
	pthread_mutex_t fwd_lock;	/* guards the fields below; inside the tree's lock */
	pthread_cond_t fwd_cond;
	struct host_client *fwd_client;	/* whose answer is awaited, NULL: none */
	uint32_t fwd_next, fwd_seq;
	bool fwd_done;
	int fwd_err;
	/* host_offer.c: the one outstanding offer of an idle lane */
	struct host_client *offer_to;	/* NULL: none */
	uint32_t offer_gen, offer_lane;	/* offer_lane HOST_OFFER_HAND: a handoff */
	struct host_client *xsucc_to;	/* host_xhand.c: the successor's VM of a handoff across
					   VMs (offer_to: the releasing VM), NULL: none */
	uint32_t xsucc;			/* its vCPU (the VM's index) */
	bool xsucc_alone;		/* it was the only waiter: no slice end */
	struct host_client **lane_last;	/* each lane's last holder's VM, NULL: none */
	struct host_client *offer_rr;	/* the last VM offered a lane: round-robin after it */
	uint32_t share_next;		/* host_peer.c: the next VM's id */
	/* the event the core is fed now, and its VM (NULL: the daemon's own) */
	enum host_pre_cause cause;
	struct host_client *cause_c;
	bool cause_waited;		/* a wake while another vCPU already waited */
	bool cause_named;		/* ... that sched_wake_takes_lane() named a lane for */
	bool cause_offered, cause_took_due;	/* ... its VM had an offer untaken / a TOOK due */
	bool pre_stats;			/* the four above counted, all logged as a VM leaves */
	struct host_client *held_untaken;	/* pre_stats: the VM whose held-lane offer the
						   last settle revoked untaken, NULL: none */
	/* host_dcpu.c: the daemon thread's CPU, measured per unit of work */
	uint64_t (*cpu_clock)(void);	/* time_thread_ns(); tests drive their own */
	uint64_t dcpu_last;		/* its last reading */
	bool dcpu_marking;		/* in the timer's unit: decisions mark their VMs */
	uint64_t dcpu_uncharged;	/* no VM's (accepts, hang-ups, idle ticks, leavers) */
	uint64_t nr_dcpu_reads, nr_dcpu_charges;
	uint64_t nr_ahead;		/* host_ahead.c: the core's timer run ahead of a slice end */
	uint64_t nr_ahead_runs;		/* ... timer runs armed for it */
	uint64_t nr_ahead_missed;	/* ... of them, done at or after the end */
	uint64_t ahead_path_ns;		/* ... its timer-to-decisions path, p90 (learnt) */
	uint64_t ahead_lead_ns;		/* ... how long before an end the timer wakes */
	uint64_t ahead_wake, ahead_wake_end;	/* ... host_ahead_next()'s last: when, for what */
	uint64_t nr_arms;		/* host_arm(): the timer set to a new moment */
	/* host_client_input(): one VMM's batch, read with one recvmmsg() */
	char (*in_buf)[HOST_MSG_MAX_LEN];	/* HOST_INPUT_BATCH of them */
	uint64_t nr_input_reads;	/* the system calls that read them */
};

/* host_lanes.c: decisions out, timers, revocation. Lock held. */
void host_drain(struct host *h);
void host_send(struct host_client *c, const void *msg, size_t len);
void host_send_failed(struct host_client *c);
/* The decisions queued (host_decide_kick()) sent: c's, every VMM's. */
void host_flush_client(struct host_client *c);
void host_flush(struct host *h);
uint64_t host_lane_cpu(struct host *h, unsigned int lane);
/* Whether a runnable vCPU of a joined VM waits for a lane (then no lane is offered). */
bool host_someone_waits(struct host *h);
void host_arm(struct host *h);
bool host_decision_due(struct host *h, uint64_t now);	/* the timer is not for a move only */
/* host_revoke.c: holders whose VMM stopped answering. Lock held. */
void host_owe_tick(struct host *h, struct host_client *c, uint64_t now);
uint64_t host_owe_due(struct host *h, unsigned int l, unsigned int v);
void host_unrevoke(struct host *h, struct host_client *c, uint64_t now);

/* host_charge.c: holders charged up to a decision; reports reconciled. Lock held. */
void host_charge_holders(struct host *h, uint64_t now, unsigned int skip);
void host_charge_granted(struct host *h, unsigned int slot, uint64_t now);
/* host_other.c: the CPU of a VMM's other threads, charged to its VM group. Lock held. */
int host_charge_other(struct host *h, struct host_client *c, uint64_t user, uint64_t sys,
		      uint64_t now);
int host_charge_report(struct host *h, unsigned int slot, uint64_t user, uint64_t sys,
		       uint64_t now);
/* A report of user + sys ns, done before it since since on cpus CPUs: false if impossible. */
bool host_report_possible(uint64_t since, uint64_t now, uint64_t cpus, uint64_t done,
			  uint64_t user, uint64_t sys);
/* A RAN of user + sys ns about slot counted; false (not counted): it cannot be true. */
bool host_ran_count(struct host *h, unsigned int slot, uint64_t user, uint64_t sys,
		       uint64_t now);

/*
 * host_dcpu.c: the daemon's own CPU charged to the VMs its work was for. end: a unit of work
 * ended (c's datagrams; c NULL: the timer's since begin(), split by its decisions' VMs, marked
 * by mark(), or no VM's); charge: what each VM is owed into its VM group (lock held, the
 * caller drains); leave: c's owed CPU left uncharged.
 */
void host_dcpu_begin(struct host *h);
void host_dcpu_mark(struct host *h, struct host_client *c);
void host_dcpu_end(struct host *h, struct host_client *c);
void host_dcpu_charge(struct host *h, uint64_t now);
void host_dcpu_leave(struct host *h, struct host_client *c);

void host_decide(struct host *h, const struct sched_decision *d);
void host_pre_wake(struct host *h, unsigned int slot, uint64_t now);
void host_pre_log(const struct host_client *c);
void host_decide_kick(struct host *h, const struct sched_decision *d, bool kick);

/*
 * host_offer.c: idle-lane offers. settle() before anything reaches the core (revokes the offer;
 * honours a claim that won); make() after (offers the first idle lane if nobody waits). settle
 * returns a VM that wrote garbage (marked dead, hung up by host_run()), or NULL. Lock held.
 */
int host_offer_init(struct host *h);
void host_offer_exit(struct host *h);
int host_offer_create(struct host_client *c, int *fd, bool peer);
void host_offer_destroy(struct host *h, struct host_client *c);
struct host_client *host_offer_settle(struct host *h);
void host_offer_make(struct host *h);
int host_offer_took(struct host_client *c, const struct host_ev *m);
/* After a claim's event reached the core: its decisions, taker told only if the core differs. */
void host_offer_apply(struct host *h, struct host_client *c, unsigned int taker,
		      unsigned int lane, bool taker_inf, bool retime, uint32_t victim);
void host_offer_took_due(struct host_client *c, uint32_t vcpu, uint32_t gen, uint32_t lane);
bool host_offer_parked(const struct host_client *c, unsigned int vcpu);
bool host_offer_in_guest(const struct host_client *c, unsigned int vcpu);

/* host_hand.c: handoffs of a released lane to the waiter published ahead. Lock held. */
void host_hand_make(struct host *h);
unsigned int host_hand_waiters(struct host *h);
int host_hand_honour(struct host *h, struct host_client *c, uint64_t w);
unsigned int host_hand_lanes(struct host *h, struct host_client *c);
bool host_hand_ok(const struct host_client *c);
int host_hand_claim(struct host *h, struct host_client *c, uint64_t w, unsigned int sslot);
/*
 * host_xhand.c: handoffs across VMs (HOST_HELLO_PEER). make: slot, the next waiter, is of a VM
 * that holds no lane; settle: the offer to a (releasing) and b (successor's) settled, a VM that
 * wrote garbage returned (marked dead). Lock held.
 */
void host_xhand_make(struct host *h, unsigned int slot);
struct host_client *host_xhand_settle(struct host *h, struct host_client *a,
				      struct host_client *b);

/*
 * host_peer.c: a VM's offer page sealed once its VMM mapped it (its first datagram after the
 * WELCOME), then sent read-only to the other VMs that asked, theirs to it; gone when it
 * leaves. send_fd: a datagram with one fd (SCM_RIGHTS; -1: none). Lock held.
 */
void host_peer_seal(struct host *h, struct host_client *c);
void host_peer_leave(struct host *h, struct host_client *c);
void host_send_fd(struct host_client *c, const void *msg, size_t len, int fd);

/* host_slice.c: the rotation slice planned from lane changes' costs. Lock held. */
struct sched_decision;
void host_slice_init(struct host *h);
void host_slice_decided(struct host *h, const struct sched_decision *d, uint64_t now);
void host_slice_reported(struct host *h, unsigned int slot, uint64_t now);
void host_slice_tick(struct host *h, struct host_client *c, uint64_t now);

/*
 * host_ahead.c: slice ends decided ahead (HOST_HELLO_AHEAD), by a lead learnt from the daemon's
 * own timer path, HOST_AHEAD_NS to HOST_AHEAD_MAX_NS. next: when the timer is due for it; run:
 * the core's timer run at the slice end (the caller drains); armed: the end a timer armed for t
 * is to decide ahead; learn: the timer's run for it done; at: the moment a decision about c's
 * vCPU made now holds from (0: at once); heard: a message about slot; enforce: published ends
 * not applied by the grace. Lock held.
 */
uint64_t host_ahead_next(struct host *h);
bool host_ahead_run(struct host *h, uint64_t now);
void host_ahead_learn(struct host *h, uint64_t armed, uint64_t end);
uint64_t host_ahead_armed(struct host *h, uint64_t t);
uint64_t host_ahead_at(struct host *h, const struct host_client *c);
bool host_ahead_holds_offers(struct host *h);
void host_ahead_heard(struct host *h, unsigned int slot, uint64_t now);
void host_ahead_enforce(struct host *h, uint64_t now);

/* host_page.c: the grant page of a VM. Lock held. */
int host_page_create(struct host_client *c, int *ro_fd);
void host_page_destroy(struct host_client *c);
/* host_kick.c: the daemon kicks a preempted holder's thread itself (HOST_HELLO_KICK). */
void host_kick_peer(struct host_client *c);
int host_kick_create(struct host_client *c);
int host_kick_tid(struct host_client *c, unsigned int vcpu, pid_t tid);
char host_kick_thread_state(const struct host_client *c, unsigned int vcpu);
bool host_pidfd_alive(int fd);
/* host_times.c: schedstat times of vcpu's thread and its VMM's (struct host_times). */
int host_kick_thread_times(const struct host_client *c, unsigned int vcpu, struct host_times *t);
void host_kick(struct host_client *c, unsigned int vcpu);
bool host_pin(struct host_client *c, unsigned int vcpu, uint64_t cpu);
void host_pin_check(struct host_client *c);
void host_kick_destroy(struct host_client *c);
uint32_t host_page_seq(const struct host_client *c, unsigned int vcpu);
uint32_t host_page_write(struct host_client *c, unsigned int vcpu, uint32_t lane, uint64_t until,
			 uint64_t cpu);
/* The same, holding from at (0: now; HOST_HELLO_AHEAD). */
uint32_t host_page_write_at(struct host_client *c, unsigned int vcpu, uint32_t lane,
			    uint64_t until, uint64_t cpu, uint64_t at);
/* A grant (lane) so written; *parked: its thread waits on the entry (read before the wake-up). */
uint32_t host_page_grant(struct host_client *c, unsigned int vcpu, uint32_t lane, uint64_t until,
			 uint64_t cpu, uint64_t at, bool *parked);
/* host_fwd.c: CTL_DONE from c (-EPROTO if malformed); c leaves; VM group settings changed. */
int host_fwd_done(struct host *h, struct host_client *c, const struct host_ev *m);
void host_fwd_gone(struct host *h, struct host_client *c);
void host_fwd_vmset(struct host *h, const char *path, const char *file);

/* host_tree.c: the VM groups. Lock held. */
/* The joined VM whose group is g, or NULL. Lock held. */
struct host_client *host_vm_of(struct host *h, struct group *g);
int host_tree_join(struct host *h, struct host_client *c, const struct host_hello *m);
/* g is about to be removed by the daemon itself: noted for gone_fn. Tree lock held. */
void host_gone(struct host *h, struct group *g);
int host_tree_commit(struct host *h, struct host_client *c);
void host_tree_leave(struct host *h, struct host_client *c);
int host_tree_vet_move(struct host *h, const struct host_client *c, const char *file,
		       const char *buf, size_t len);
int host_path_valid(const char *path, size_t size, bool absolute);
/* The VMM's id of c's group at path (absolute; 0: the VM group itself), or -ENOENT. */
int host_tree_id(const struct host_client *c, const char *path, uint64_t *id);

/*
 * host_owners.c: owners and modes at and below VM groups kept for the VMM that re-joins, and
 * the directory's records above them. restore: one line of .host-tree split in fields (attr,
 * vown, vattr; -EINVAL: garbage); back: c's kept owners given back (its first COMMIT) to its
 * groups of the same path and id (GROUP's; 0: the VM group), the rest dropped; dump:
 * those lines of the tree now, attrs the directory's records (ctl_attrs_save(); NULL: none).
 * Tree lock held.
 */
struct host_kept;
int host_owners_restore(struct host *h, char **f, int n);
void host_owners_back(struct host *h, struct host_client *c);
void host_owners_dump(struct host *h, const char *attrs, FILE *f);
void host_owners_exit(struct host *h);
/* A decimal number of digits alone, at most max: 0 or -EINVAL. */
int host_owners_number(const char *s, unsigned long long max, unsigned long long *out);
int host_settings_valid(const struct host_settings *st);

#endif
