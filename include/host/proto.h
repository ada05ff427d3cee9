/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wire protocol between a VMM in host mode (sched/runtime/rt_remote.c) and `vsched host`
 * (host/): one message per SOCK_SEQPACKET datagram on <run dir>/host.sock, each a fixed-size
 * struct chosen by its first field. The receiver checks the datagram's length against the type
 * before it reads anything else; the daemon checks every field (docs/host.md) and hangs up on a
 * VMM that sends anything out of range. Both ends run on one machine: native byte order.
 *
 * A session: the VMM sends HELLO, the daemon answers WELCOME (lanes, the VM's group, or an
 * errno). Then the VMM sends its subtree as GROUP... VCPU... COMMIT (again after every change)
 * and vCPU events; the daemon sends decisions (GRANT, PREEMPT, RETIME) and, when the lanes
 * move over its CPUs, PIN to each holder (not in the grant page: it is no decision). A HELLO
 * with nr_vcpus 0 is a probe: WELCOME, then the daemon hangs up. A VMM that hears nothing for a
 * while asks PING; the daemon answers PONG (a stuck daemon does not: the VMM falls back).
 * A write, mkdir or rmdir in the daemon's directory below a VM group goes to its VMM as CTL,
 * applied there to the VM's own tree and answered CTL_DONE (its batch comes first); settings
 * of the VM group itself written in the daemon's directory go to the VMM as VMSET, for its
 * next HELLO.
 *
 * The grant page: the WELCOME of a join that asked for it (HOST_HELLO_PAGE) carries
 * (SCM_RIGHTS) a sealed memfd the VMM can only map read-only, one struct host_grant per vCPU,
 * written by the daemon alone and never read by it.
 * Each decision about a vCPU is written there before it is sent, and a grant wakes the futex
 * of its entry: a vCPU thread parked for a lane waits on that futex and takes its grant from
 * the page itself; the datagram follows for the agent (docs/host.md).
 *
 * The offer page (HOST_HELLO_OFFER; the WELCOME's second fd): one struct host_offer the VMM may
 * write. When a lane is idle and nobody waits, the daemon offers it to one VM there; a vCPU of
 * that VM that becomes runnable takes it with a CAS on `word` and runs at once; TOOK follows,
 * before that VMM's next datagram. The daemon revokes the offer with a CAS before it feeds its
 * core anything else; whoever wins the CAS wins. The daemon reads nothing there but `word`, and
 * checks it (host/host_offer.c).
 * With HOST_HELLO_HELD (version 4) a held lane may be offered the same way, when nobody waits
 * and the core would take it at once from its holder for a vCPU of the holder's own VM that
 * wakes (a cpu.idle holder): `holder` names it, and the vCPU that takes the offer preempts it
 * (kicks it, as the VMM's own core would) and runs: the daemon's wake-up and the agent's are
 * off the preemption's path.
 * With HOST_HELLO_HAND (version 7), while a vCPU waits and the core's next pick (the waiter a
 * lane freed now would go to) is a vCPU of this VM, the daemon offers that VM a handoff: lane
 * HOST_OFFER_HAND in the word, the successor, and each lane a vCPU of this VM holds (holder,
 * the seq of its grant, the lane's CPU). A holder that blocks (or is lent) claims it (lane: its
 * own, vcpu: itself) and grants the successor the lane at once; the claim stands for its
 * BLOCKED, and the TOOK follows as for any offer. The daemon feeds the core that event and
 * revokes what the core would not have done (host/host_hand.c).
 * With HOST_HELLO_PEER (version 8) the offer page is the first part of handoffs across VMs
 * (docs/host.md, "Handoffs across VMs"): once the VMM has mapped it (its first datagram after
 * the WELCOME says so) the daemon seals it against every new writable mapping and write(), and
 * sends a read-only fd of it (PEER) to every other VMM that asked, theirs to it. Each offer word
 * keeps one writer besides the daemon, its own VMM; a peer can map it only read-only.
 */
#ifndef VSCHED_HOST_PROTO_H
#define VSCHED_HOST_PROTO_H

#include <stdint.h>

#include "util/registry.h"

/* 2: the grant page, GRANT's CPU, WELCOME's pid/nr_vms, PING/PONG, CTL, VMSET;
 * 3: PIN, CTL.may, offers (TOOK); 4: offers of a held lane (HOST_HELLO_HELD, holder);
 * 5: the daemon kicks holders itself (HOST_HELLO_KICK);
 * 6: a held lane's offer may name the moment it may be taken from (not_before);
 * 7: handoffs: a lane its holder releases goes to the waiter published ahead (HOST_HELLO_HAND);
 * 8: the daemon pins a granted vCPU's thread to its lane's CPU before it wakes it (HOST_HELLO_PIN);
 * 9: offer pages sealed once mapped and shared read-only with the other VMs (HOST_HELLO_PEER);
 * 10: the VMM's parked bits in its offer page: a grant to a parked vCPU by the page alone;
 * 11: a successor's side published wakes that VM's offer word (its gen), not the successor's
 * grant-page entry: the VMM's waker thread waits there and takes the lane (rt_xwait.c);
 * 12: OTHER, the CPU of the VMM's threads other than its vCPUs', charged to its VM group; the
 * VMM's in-guest bits (HOST_HELLO_GUEST): no PREEMPT datagram after the daemon's kick to a
 * vCPU inside the guest;
 * 13: decisions made ahead of a slice end (HOST_HELLO_AHEAD): a grant-page entry's `at` (a
 * PREEMPT that holds from `at`, a GRANT from `at`), a PREEMPT datagram's a (its `at`,
 * HOST_TIME_INF: at once);
 * 14: a successor's take of a handoff across VMs sends no TOOK (settled from its word);
 * 15: a grant-page entry's cpu carries HOST_CPU_PINNED where the daemon pinned the grantee's
 * thread to it for that grant (HOST_HELLO_PIN): the thread does not pin itself again;
 * 16: GROUP's id, the group's identity in the VMM's process (owners kept across a daemon's
 * restart go back to the same group only, not to one made again under its path) */
#define HOST_PROTO_VERSION	16
#define HOST_SOCK_NAME		REGISTRY_HOST_SOCK	/* in the run dir */
#define HOST_NAME_LEN		129		/* a VM name (registry_name_valid()) + NUL */
#define HOST_PATH_LEN		256		/* a group path, NUL included */
#define HOST_MAX_GROUPS		256		/* groups in one VM's subtree */
#define HOST_MAX_VM_VCPUS	1024		/* vCPUs of one VM */
/* One report's CPU time: above, garbage if more than could have run since the join
 * (host_ran_count(), host_other.c) */
#define HOST_RAN_MAX_NS		10000000000ULL
#define HOST_REPORT_NS		20000000ULL	/* a VMM reports a running holder's CPU time at least
						   this often (its slice ends sooner) */
#define HOST_TIME_INF		UINT64_MAX
#define HOST_CPU_NONE		UINT64_MAX	/* GRANT's b: the lane has no CPU of its own */
#define HOST_CPU_PINNED		(1ULL << 62)	/* a grant entry's cpu |: the daemon pinned the
						   grantee's thread there (protocol 15) */
#define HOST_CPU_XNONE		(UINT64_MAX - 1)	/* x_cpu[l]: not a lane of x_peer's
						   (a VMM refuses a take of it) */
#define HOST_FILE_LEN		64		/* an interface file's name + NUL */
#define HOST_CTL_BUF_LEN	512		/* a forwarded write's value */
#define HOST_CTL_MAY_BITS	HOST_PATH_LEN	/* depths below a VM group a path can name */
#define HOST_ERRNO_MAX		4095

enum host_msg_type {
	/* VMM -> daemon */
	HOST_MSG_HELLO = 1,
	HOST_MSG_GROUP,		/* one group of the VM's subtree, parents before children */
	HOST_MSG_VCPU,		/* one vCPU's group in the batch */
	HOST_MSG_COMMIT,	/* the batch is complete: mirror it */
	HOST_MSG_RUNNABLE,
	HOST_MSG_BLOCKED,
	HOST_MSG_RAN,		/* a = user ns, b = system ns */
	HOST_MSG_TICK,		/* a slice ended and its holder reported: decide */
	HOST_MSG_TID,		/* a = the vCPU thread's TID */
	/* daemon -> VMM */
	HOST_MSG_WELCOME,
	HOST_MSG_GRANT,		/* lane, a = until (HOST_TIME_INF: none), b = the lane's host CPU */
	HOST_MSG_PREEMPT,	/* a = the moment it holds from (HOST_HELLO_AHEAD), HOST_TIME_INF:
				   at once */
	HOST_MSG_RETIME,	/* a = until; not in the grant page: seq is the grant's it changes */
	/* liveness (sched/runtime/rt_remote_live.h): the daemon answers a PING at once */
	HOST_MSG_PING,		/* VMM -> daemon: a = the VMM's time, echoed */
	HOST_MSG_PONG,		/* daemon -> VMM */
	/* the daemon's directory below a VM group is the VMM's tree (host/host_fwd.c) */
	HOST_MSG_CTL,		/* daemon -> VMM: a write, mkdir or rmdir (struct host_ctl_msg) */
	HOST_MSG_CTL_DONE,	/* VMM -> daemon: a = the CTL's seq, b = its errno (0: done) */
	HOST_MSG_VMSET,		/* daemon -> VMM: the VM group's settings (host_group_msg, path
				   ""), written in the daemon's directory: sent again at a re-join */
	HOST_MSG_PIN,		/* daemon -> VMM: the lanes moved over their CPUs (every
				   LANE_ROTATE_NS): vcpu holds lane arg, now on host CPU b */
	HOST_MSG_TOOK,		/* VMM -> daemon: vcpu took the offer: a = its gen, b = its lane */
	HOST_MSG_PEER,		/* daemon -> VMM: a = a peer VM's id; arg 1: its offer page's
				   read-only fd comes with it (SCM_RIGHTS), 0: it left */
	HOST_MSG_OTHER,		/* VMM -> daemon: a = user ns, b = system ns its threads other than
				   the vCPUs' used since its last OTHER (or its join): charged
				   to its VM group (host_charge_other()) */
	HOST_MSG_MAX,
};

/* A report of CPU time: changes no one's state (voids no handoff, may precede a TOOK). */
static inline int host_msg_is_report(uint32_t type)
{
	return type == HOST_MSG_RAN || type == HOST_MSG_OTHER;
}

/* The settings of one group (the VM group itself in HELLO, a subgroup in GROUP). */
struct host_settings {
	uint64_t shares;	/* kernel load units (cpu.weight 100 = 1024) */
	uint64_t quota_us;	/* UINT64_MAX: "max" */
	uint64_t period_us;
	uint64_t burst_us;
	uint8_t idle;
	uint8_t threaded;	/* cgroup.type "threaded" (subgroups) */
	uint8_t subtree_cpu;	/* "cpu" in cgroup.subtree_control */
	uint8_t pad[5];
};

#define HOST_HELLO_PAGE		0x01	/* the VMM waits on a grant page (futex_waitv) */
#define HOST_HELLO_OFFER	0x02	/* the VMM takes idle-lane offers (with a page only) */
#define HOST_HELLO_HELD		0x04	/* ... and offers of a lane its own vCPU holds */
#define HOST_HELLO_KICK		0x08	/* the daemon signals a preempted holder's thread (the
					   kick signal, SIGRTMIN + 1) after writing its PREEMPT
					   in the page: with a page only; TIDs checked */
#define HOST_HELLO_HAND		0x10	/* the VMM hands a lane its vCPU releases to the
					   successor published in its offer page (with offers) */
#define HOST_HELLO_PIN		0x20	/* the daemon sets a granted vCPU thread's affinity to
					   its lane's CPU before the grant wakes it (with kicks
					   only: TIDs checked); the VMM then keeps no copy of
					   its threads' affinity (host/host_kick.c) */
#define HOST_HELLO_PEER		0x40	/* its offer page sealed once mapped and sent read-only
					   to the other VMMs that asked, theirs to it (PEER) */
#define HOST_HELLO_GUEST	0x80	/* the VMM sets a vCPU's bit in guest[] of its offer page
					   while its thread is inside the guest (with kicks and
					   offers only): the daemon sends no PREEMPT to a holder
					   it kicked there, which applies it from its grant page
					   entry on the way out */
#define HOST_HELLO_AHEAD	0x100	/* the VMM applies decisions made ahead of a slice end
					   from their entry's `at` (with a page and offers only:
					   host/host_ahead.c, sched/runtime/rt_ahead.c) */

struct host_hello {
	uint32_t type;		/* HOST_MSG_HELLO */
	uint32_t version;
	int32_t pid;		/* the VMM */
	uint32_t nr_vcpus;	/* 0: a probe */
	char name[HOST_NAME_LEN];
	char partition[HOST_PATH_LEN];	/* absolute, "" or "/": /machine */
	uint16_t flags;			/* HOST_HELLO_* */
	uint8_t pad[5];
	struct host_settings vm;	/* the VM group's cpu.weight, cpu.max */
};

struct host_welcome {
	uint32_t type;		/* HOST_MSG_WELCOME */
	uint32_t version;
	int32_t err;		/* 0, or the -errno the join failed with */
	uint32_t nr_lanes;
	char group[HOST_PATH_LEN];	/* "/machine/vm1": the VM's group in the daemon's tree */
	int32_t pid;		/* the daemon (`vsched list`) */
	uint32_t nr_vms;	/* VMs joined, this one included */
};

struct host_group_msg {
	uint32_t type;		/* HOST_MSG_GROUP */
	uint32_t index;		/* 0, 1, ... in the batch */
	char path[HOST_PATH_LEN];	/* relative to the VM group: "a", "a/b" */
	struct host_settings set;
	/*
	 * The group's identity in the VMM's process (its serial, never reused in its tree): not 0,
	 * one per group of the batch. A group removed and made again under the same path has a
	 * new one, so what the daemon kept for the old one is not given to it (host_owners.c).
	 * VMSET: 0.
	 */
	uint64_t id;
};

/* HOST_MSG_CTL: what a write in the daemon's directory below a VM group asks of its VMM. */
enum host_ctl_op {
	HOST_CTL_WRITE = 1,	/* path, file, buf[len] */
	HOST_CTL_MKDIR,		/* path */
	HOST_CTL_RMDIR,		/* path */
	HOST_CTL_MAX,
};

struct host_ctl_msg {
	uint32_t type;		/* HOST_MSG_CTL */
	uint32_t op;		/* enum host_ctl_op */
	uint32_t seq;		/* echoed in CTL_DONE */
	uint32_t len;		/* bytes of buf (WRITE) */
	char path[HOST_PATH_LEN];	/* relative to the VM group: "" (itself), "a", "a/b" */
	char file[HOST_FILE_LEN];	/* WRITE: the interface file */
	/*
	 * WRITE of a file that moves vCPUs: bit d set if the writer may write cgroup.procs of the
	 * destination's ancestor d levels below the VM group (0: the VM group) in the daemon's
	 * directory (cgroup v2 delegation, vsched_move_check_perm()); all set: unchecked.
	 */
	uint8_t may[HOST_CTL_MAY_BITS / 8];
	char buf[HOST_CTL_BUF_LEN];
};

/* VMM -> daemon events and VCPU/COMMIT; daemon -> VMM decisions. */
struct host_ev {
	uint32_t type;
	uint32_t vcpu;		/* the VM's own vCPU index */
	uint32_t arg;		/* GRANT: lane; VCPU: group index + 1 (0: the VM group itself) */
	uint32_t seq;		/* decisions: the vCPU's grant page entry's seq after it */
	uint64_t a, b;
};

#define HOST_LANE_NONE		UINT32_MAX

/* One vCPU's entry of the grant page: the daemon's latest decision about it, as a state. */
struct host_grant {
	uint32_t seq;		/* odd while the daemon writes; a parked vCPU's futex word */
	uint32_t lane;		/* the lane it holds, HOST_LANE_NONE: none */
	uint64_t until;		/* its slice end, HOST_TIME_INF: none */
	uint64_t cpu;		/* the lane's host CPU, HOST_CPU_NONE: it floats; a GRANT's
				   | HOST_CPU_PINNED: its thread pinned there by the daemon */
	uint64_t at;		/* 0: holds now; else (HOST_HELLO_AHEAD) the CLOCK_MONOTONIC ns it
				   holds from: a PREEMPT at a holder's slice end, a GRANT from it */
};

/*
 * The offer page. word: gen << 32 | lane << 16 | vcpu. lane HOST_OFFER_NONE: no offer (revoked);
 * vcpu HOST_OFFER_FREE: offered, else the vCPU that took it. The other fields are the daemon's,
 * written before the word that offers: they hold for that gen only (a later gen's fields come
 * after that gen's revocation, so a claim that read them fails its CAS).
 */
#define HOST_OFFER_NONE		0xffffu
#define HOST_OFFER_FREE		0xffffu
#define HOST_OFFER_HAND		0xfffeu	/* lane of a handoff offer: whichever holder releases */
#define HOST_HAND_LANES		64	/* lanes a handoff covers (the lanes after: none) */
#define HOST_OFFER_XSUCC	0xfffdu	/* lane of a successor's offer: a lane another VM releases */
#define HOST_HAND_XVM		0xffffu	/* hand_succ: the successor is another VM's (HOST_HELLO_PEER) */

/* One lane of a handoff offer: the VM's vCPU that holds it and what the claim is checked by. */
struct host_hand_lane {
	uint32_t holder;	/* HOST_OFFER_NONE: not a lane of this VM's */
	uint32_t holder_seq;	/* the seq of the holder's grant: applied, or no claim */
	uint64_t cpu;		/* the lane's host CPU, HOST_CPU_NONE: it floats */
};

struct host_offer {
	uint64_t word;
	uint64_t sent;		/* the VM's datagrams the daemon had read: a VMM with more in flight
				   may not take it (the daemon's view of the VM is older) */
	uint64_t cpu;		/* the lane's host CPU, HOST_CPU_NONE: it floats */
	uint64_t holder;	/* HOST_OFFER_NONE: the lane is idle; else the VM's vCPU that holds
				   it, which the taker preempts (HOST_HELLO_HELD only) */
	uint64_t holder_seq;	/* the seq of the holder's grant: a VMM that has not applied it
				   yet may not take the offer */
	uint64_t not_before;	/* CLOCK_MONOTONIC ns: a held lane may not be taken before (the
				   holders of the lanes before it past their min_run), 0: at once */
	uint64_t pad[2];
	uint64_t eligible[HOST_MAX_VM_VCPUS / 64];	/* vCPUs the core would give the lane to */
	/* HOST_HELLO_HAND: a handoff offer (lane HOST_OFFER_HAND), written before its word */
	uint64_t hand_succ;	/* the waiting vCPU a released lane goes to */
	uint64_t hand_succ_seq;	/* the seq of its entry: a VMM that has not applied it, no claim */
	uint64_t hand_sent;	/* the VM's datagrams other than RAN the daemon had read */
	uint64_t hand_slice;	/* the successor's slice (ns) if others wait, 0: none */
	struct host_hand_lane hand[HOST_HAND_LANES];
	/*
	 * HOST_HELLO_PEER: a handoff across VMs, this VM's side as the successor's (lane
	 * HOST_OFFER_XSUCC in word): when VM x_peer (its PEER id) claims its handoff of the same gen
	 * in its own word (hand_succ HOST_HAND_XVM there), vCPU x_succ may take the lane claimed with
	 * a CAS of this word (lane: that lane, vcpu: x_succ). Written before the word.
	 */
	uint64_t x_peer;
	uint64_t x_succ;
	uint64_t x_succ_seq;	/* the seq of its entry: a VMM that has not applied it, no take */
	uint64_t x_sent;	/* this VM's datagrams other than RAN the daemon had read */
	uint64_t x_slice;	/* its slice (ns) if others wait, 0: none */
	uint64_t x_cpu[HOST_HAND_LANES];	/* each lane's host CPU, HOST_CPU_NONE: it floats;
						   HOST_CPU_XNONE: not x_peer's lane */
	/*
	 * The VMM's: vCPUs whose threads wait on their grant page entry's futex (rt_page_wait()).
	 * A grant to one goes by the page alone, without the GRANT datagram whose only reader
	 * would be the agent woken to drop it (host_offer_parked()).
	 */
	uint64_t parked[HOST_MAX_VM_VCPUS / 64];
	/*
	 * The VMM's (HOST_HELLO_GUEST): vCPUs whose threads are inside the guest or on their way
	 * in, set before the entry and cleared on the way out before the thread reads its grant
	 * page entry. A PREEMPT to one the daemon kicked goes by the page and the kick alone.
	 */
	uint64_t guest[HOST_MAX_VM_VCPUS / 64];
};

/* The 32 bits of word that hold lane and vcpu: a claim changes them (a futex word). */
static inline const uint32_t *host_offer_futex(const struct host_offer *o)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (const uint32_t *)&o->word;
#else
	return (const uint32_t *)&o->word + 1;
#endif
}

/*
 * The 32 bits of word that hold gen: every offer the daemon publishes changes them (a futex
 * word: with HOST_HELLO_PEER the daemon wakes it when it publishes a successor's side, on which
 * the VMM's waker thread waits, sched/runtime/rt_xwait.c).
 */
static inline const uint32_t *host_offer_gen_futex(const struct host_offer *o)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (const uint32_t *)&o->word + 1;
#else
	return (const uint32_t *)&o->word;
#endif
}

static inline uint64_t host_offer_word(uint32_t gen, uint32_t lane, uint32_t vcpu)
{
	return (uint64_t)gen << 32 | (uint64_t)(lane & 0xffff) << 16 | (vcpu & 0xffff);
}

static inline uint32_t host_offer_gen(uint64_t w)
{
	return (uint32_t)(w >> 32);
}

static inline uint32_t host_offer_lane(uint64_t w)
{
	return (uint32_t)(w >> 16) & 0xffff;
}

static inline uint32_t host_offer_vcpu(uint64_t w)
{
	return (uint32_t)w & 0xffff;
}

#endif
