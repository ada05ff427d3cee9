/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `vsched host`: one scheduler core (sched/) for every VM on the machine. Each VMM in host mode
 * connects to <run dir>/host.sock (include/host/proto.h) and joins: its vCPUs take slots of the
 * core, its VM becomes the group <partition>/<name> and its own subtree is mirrored below. The
 * daemon feeds the core the VMMs' events and sends its decisions back (docs/host.md).
 *
 * The core has a fixed vCPU count, so the daemon creates it with max_vcpus slots: a free slot
 * is blocked in the root group, never runnable, with no thread; a joining VM takes free slots
 * and gives them back when it leaves (its socket hangs up: exit, crash, SIGKILL).
 *
 * All state is guarded by the tree's lock (vsched_lock()): the event loop, the control
 * directory's FUSE threads (through the public API and its change callback) and the tests
 * serialise on it. Functions return 0 or -errno and print nothing, except host_run(), which
 * logs one line per VM that joins, leaves or is hung up on.
 */
#ifndef VSCHED_HOST_HOST_H
#define VSCHED_HOST_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOST_MAX_VCPUS_DFL	256		/* slots: vCPUs of all joined VMs together */
#define HOST_GRACE_NS		100000000ULL	/* a lane holder silent this long while others
						   wait loses the lane (revocation) */
#define HOST_ANSWER_NS		5000000ULL	/* a VMM silent this long after a slice end it
						   was told (GRANT, RETIME), while others wait and
						   the thread is stopped, loses that vCPU's lane;
						   one not stopped is judged by its schedstat times
						   over as long again (host/host_revoke.c) */
#define HOST_PARTITION_DFL	"/machine"

struct host;
struct host_client;
struct vsched;
struct vsched_move_perm;

struct host_opts {
	unsigned int nr_lanes;		/* host CPUs given to the VMs */
	unsigned int max_vcpus;		/* slots; 0: HOST_MAX_VCPUS_DFL */
	uint64_t grace_ns;		/* 0: HOST_GRACE_NS */
	uint64_t answer_ns;		/* 0: HOST_ANSWER_NS */
};

int host_create(const struct host_opts *o, struct host **out);
/* The calling thread off the lanes' CPUs where its mask has others (vsched host's daemon). */
void host_pin_daemon(struct host *h);
void host_destroy(struct host *h);	/* closes every client; NULL is a no-op */
/* The tree (for the control directory: ctl_mount(host_vsched(h), ...)). */
struct vsched *host_vsched(struct host *h);

/*
 * Listens on sock (SOCK_SEQPACKET). -EADDRINUSE if a live daemon answers there; a stale socket
 * file (nobody listening) is replaced.
 */
int host_listen(struct host *h, const char *sock);
/*
 * fn(arg, path) for each group the daemon removes itself (a VM leaving, a group its VMM's batch
 * no longer names), after the event, without the tree's lock: the control directory forgets
 * the owners and modes it kept there (ctl_forget()), or a new VM of the name inherited them.
 */
void host_set_gone(struct host *h, void (*fn)(void *arg, const char *path), void *arg);
/*
 * The control directory's own records of modes and files' owners (ctl_attrs_save(),
 * ctl_attr_load(): one record a line) saved with the tree in .host-tree and given back: above
 * the VM groups at once (those restored before this call), at and below a VM group to the VMM
 * process it was saved for when it re-joins, never to another, and only to the group of the
 * same id (GROUP's), not to one made again under its path (host/host_owners.c). Records
 * due are given to load after each event, without the tree's lock (host_attrs_flush(): how
 * many it took, for the tests).
 */
void host_set_attrs(struct host *h, char *(*save)(void *arg),
		    int (*load)(void *arg, const char *rec), void *arg);
unsigned int host_attrs_flush(struct host *h);
/* Serves until stop_fd becomes readable (an eventfd or pipe). 0 or -errno. */
int host_run(struct host *h, int stop_fd);

/*
 * The tree above the VM groups kept across restarts (host/host_state.c): restored from file
 * before the daemon serves (lines applied, *nr_refused those that failed; 0 with no file), then
 * saved there by a thread of its own within 250 ms of each change and at stop. The dump is
 * the file's text (malloc'ed), for the tests.
 */
struct host_state;
int host_state_restore(struct host *h, const char *file, unsigned int *nr_refused);
int host_state_start(struct host *h, const char *file, struct host_state **out);
void host_state_stop(struct host_state *st);	/* NULL is a no-op */
char *host_state_dump(struct host *h);

/*
 * One VMM connection, for host_run() and the tests: a connected SOCK_SEQPACKET fd (taken over,
 * closed by host_client_remove()); host_client_msg() handles one datagram: 0, 1 (done: a probe
 * answered or a join refused; hang up), or -EPROTO/-EINVAL/... (garbage: hang up). Replies and
 * decisions go to the fd. Take the tree's lock around host_client_msg().
 */
int host_client_add(struct host *h, int fd, struct host_client **out);
int host_client_msg(struct host *h, struct host_client *c, const void *buf, size_t len);
void host_client_remove(struct host *h, struct host_client *c);
/* The VM group of a joined client ("/machine/vm1"), or NULL. */
const char *host_client_group(const struct host_client *c);
/* Handoffs of c's (host_hand.c) the core confirmed, or (revoked) decided otherwise. */
uint64_t host_client_hands(const struct host_client *c, bool revoked);
/* Lanes c's vCPUs took from another VM's release (host_xhand.c): taken and the core's own
 * decision, taken and not (PREEMPTed), or released to it and not taken. */
enum host_xhand_count { HOST_XHAND_TAKEN, HOST_XHAND_REVOKED, HOST_XHAND_MISSED };
uint64_t host_client_xhands(const struct host_client *c, enum host_xhand_count which);
/*
 * What made the core preempt a holder (counted per preempted VM, logged as it leaves): a
 * wake of a vCPU of its own VM or another's, a slice end (TICK) of its own VM or another's, a
 * report, a block, the daemon's timer (group timers, the grace), a change of the tree (a write
 * in the directory, a VM's batch), an offer's claim honoured; any of them with the holder's own
 * path throttled: THROTTLE. With pre_stats (VSCHED_HOST_PRE_STATS set), also the wakes (of
 * either kind) made while another vCPU already waited (WAITED), and those the held-lane rule
 * (sched_wake_takes_lane()) named a lane for at that moment (NAMED), of those the ones whose
 * VM had a held-lane offer standing that it did not take (NAMED_OFFERED) or was due a TOOK, so
 * that no offer could stand (NAMED_TOOK_DUE), and the counts are logged.
 */
enum host_pre_cause {
	HOST_PRE_WAKE, HOST_PRE_WAKE_XVM, HOST_PRE_TICK, HOST_PRE_TICK_XVM, HOST_PRE_RAN,
	HOST_PRE_BLOCKED, HOST_PRE_TIMER, HOST_PRE_TREE, HOST_PRE_OFFER, HOST_PRE_THROTTLE,
	HOST_PRE_WAITED, HOST_PRE_NAMED, HOST_PRE_NAMED_OFFERED, HOST_PRE_NAMED_TOOK_DUE, HOST_PRE_MAX
};

uint64_t host_client_preempts(const struct host_client *c, enum host_pre_cause k);
/* CPU of the VMM's threads other than its vCPUs' charged to its VM group (OTHER), ns; *refused:
 * what it reported beyond what its process could have used (not charged). Lock held. */
uint64_t host_client_other_ns(const struct host_client *c, uint64_t *refused);
/* PREEMPTs not sent: the daemon kicked the holder inside the guest (HOST_HELLO_GUEST). */
uint64_t host_client_quiet_preempts(const struct host_client *c);
/* Grantees' threads the daemon pinned to their lanes' CPUs, checked alive after the pin. */
uint64_t host_client_pins(const struct host_client *c);
/* Slice ends decided ahead (HOST_HELLO_AHEAD): the core's timer runs ahead of one; c's holders
 * whose published end the daemon enforced at the grace (host/host_ahead.c). */
uint64_t host_nr_ahead(const struct host *h);
/* The lead its timer wakes by before an end, ns (learnt, HOST_AHEAD_NS to HOST_AHEAD_MAX_NS);
 * *runs: the timer's runs for an end; *missed: those done at or after it (decided at once). */
#define HOST_AHEAD_NS		100000ULL
#define HOST_AHEAD_MAX_NS	400000ULL
uint64_t host_ahead_lead(const struct host *h, uint64_t *runs, uint64_t *missed);
uint64_t host_nr_arms(const struct host *h);
/* What the daemon's timer is armed for (HOST_TIME_INF: nothing), for the tests. */
uint64_t host_timer_at(const struct host *h);
/* System calls that read VMMs' datagrams (host_client_input(): one per batch). */
uint64_t host_nr_input_reads(const struct host *h);
uint64_t host_client_ahead_late(const struct host_client *c);
/* c's vCPUs revoked by the daemon (silent past what it was told: host_revoke_due()), all told. */
uint64_t host_client_revokes(const struct host_client *c);

/*
 * A change in the daemon's directory (its FUSE threads; lock not held): op a HOST_CTL_* of
 * include/host/proto.h, group the group's path ("/machine/web1/a"; for mkdir/rmdir the
 * directory's), file the file written. Below a VM group it is the VMM's: sent to it and
 * waited for (0 or its -errno; -ETIMEDOUT after 2 s, -ESRCH if it left, -EOPNOTSUPP for
 * vsched.vcpus, which numbers slots here). Above VM groups a move of a VM's vCPU is refused
 * (-EOPNOTSUPP) and one of a free slot (vsched.vcpus) too (-ESRCH), all or none. 1: not a
 * VMM's change, apply it here. perm: for a
 * write that moves vCPUs, the writer's permission on each ancestor's cgroup.procs here (the
 * root first; ctl_forward()), with which the VMM checks the move as its own directory would;
 * NULL: unchecked (a privileged caller).
 */
int host_forward(struct host *h, unsigned int op, const char *group, const char *file,
		 const char *buf, size_t len, const struct vsched_move_perm *perm);

/* The daemon's clock (default time_mono_ns()), for tests that drive time. */
void host_set_clock(struct host *h, uint64_t (*clock)(void));
/* Tests: a vCPU thread's state, as /proc says it (R, S, T...; the default reads /proc). */
void host_set_thread_state(struct host *h,
			   char (*fn)(const struct host_client *c, unsigned int vcpu));
/*
 * A silent holder's thread as the kernel counts it (/proc/<pid>/task/<tid>/schedstat, stat)
 * and its VMM's threads' states, to tell a late VMM from a stuck one (host/host_times.c).
 */
struct host_times {
	uint64_t run_ns, wait_ns;	/* the vCPU's thread: on a CPU, waiting on a runqueue */
	char state;			/* its state (R, S, D...) */
	unsigned int vm_threads;	/* threads of its VMM */
	unsigned int vm_runnable;	/* ... in R: on a CPU or waiting for one */
};
/* Tests: the reader (0; -ESRCH: the thread or VMM gone; else unknown). Default: /proc. */
void host_set_thread_times(struct host *h, int (*fn)(const struct host_client *c,
						      unsigned int vcpu, struct host_times *t));
/* The peer's uid as host_client_add() read it (SO_PEERCRED), replaced: for the tests. */
void host_client_set_uid(struct host_client *c, uid_t uid);
/* Its thread's CPU clock (default time_thread_ns(), read by host_run()), for tests. */
void host_set_cpu_clock(struct host *h, uint64_t (*clock)(void));
/*
 * host_run()'s units of work, for the tests: every datagram waiting on c's socket (c may be
 * hung up on and freed), and the daemon's timer (the core's group timers, revocations, the
 * lanes' moves). Each ends with the daemon's CPU it used given to the VMs it was for.
 */
void host_client_input(struct host *h, struct host_client *c);
void host_timer(struct host *h);
/*
 * The daemon's own CPU charged to c's VM group, ns (*owed: measured, charged at the next
 * timer); and what was no VM's (*reads: its CPU clock's reads, *charges: group charges made).
 */
uint64_t host_client_dcpu_ns(const struct host_client *c, uint64_t *owed);
uint64_t host_dcpu_uncharged(const struct host *h, uint64_t *reads, uint64_t *charges);

/* Counters, lock held. */
unsigned int host_nr_clients(const struct host *h);
unsigned int host_free_slots(const struct host *h);
/* The core's rotation slice now, ns (planned from lane changes' costs, host/host_slice.c). */
uint64_t host_slice(const struct host *h);

/* A revocation pass at now, decisions sent (host_run() does it on its timer). Lock held. */
void host_revoke_due(struct host *h, uint64_t now);
/* The lanes' move over their CPUs if due at now, each holder told (PIN; host_run()'s timer). */
void host_rotate_due(struct host *h, uint64_t now);

#endif
