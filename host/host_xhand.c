// SPDX-License-Identifier: GPL-2.0
/*
 * Handoffs across VMs (HOST_HELLO_PEER, docs/host.md "Handoffs across VMs"): a lane released
 * while the core's next pick is a vCPU of another VM goes to that vCPU's thread without the
 * daemon's wake-up on the path, as a handoff inside one VM does (host_hand.c).
 *
 * While a vCPU of VM b waits, b holds no lane and is the core's next pick, and a vCPU of VM a
 * holds a lane (both asked, both shared their offer pages: host_peer.c), the daemon offers
 * both, with one gen: a a handoff as host_hand.c's (its lanes, holders, seqs) whose successor
 * is "another VM's" (hand_succ HOST_HAND_XVM), b the successor's side (lane HOST_OFFER_XSUCC:
 * a's id, the successor and its entry's seq, the lanes' CPUs). It wakes b's word once (a
 * FUTEX_WAKE of its gen half, no write) so that b's waker thread waits on a's word too.
 *
 * a's holder that blocks claims its lane in a's word (as inside one VM) and FUTEX_WAKEs it;
 * b's waker thread (SCHED_FIFO), parked on a's word (read-only: host_peer.c), sees the claim of
 * its gen, takes the lane for the successor with a CAS of b's own word (lane, successor) and
 * wakes the successor's thread, pinned to the lane: no wake-up of the daemon on the path.
 * a's VMM sends its TOOK at once (an untaken release must not idle the lane until a's next
 * datagram); b's VMM sends none (protocol 14): its take is in its word, which the daemon
 * settles at a's TOOK or any earlier event, and b offered nothing while a TOOK of b's was due
 * lost b's own release's handoff. Sent at once from the successor's thread, b's TOOK woke a
 * daemon on another CPU on the successor's way into the guest: ~17 us on a 2-CPU PVM guest.
 *
 * The daemon settles b's word first, then a's (before anything reaches its core): so it knows
 * whether b took, from b's own word, whatever a writes. a's valid claim is fed to the core as
 * the holder's BLOCKED (host_hand_claim()); b's take as what it stands for: the successor
 * granted the lane, told only where the core differs (a PREEMPT, a RETIME), as a handoff inside
 * one VM. Every mismatch is settled without trusting either VM beyond its own word:
 *  - b's word not a take of this offer (another gen, lane or vCPU): b hung up;
 *  - a's word not a claim of this offer: a hung up (as a forged handoff inside one VM);
 *  - b took but a's word is no claim, or a claim of another lane (a rewrote it, or b lied):
 *    nobody is hung up (the daemon cannot tell who), b's successor is told its true state
 *    (PREEMPT; or the GRANT of the lane the core gave it);
 *  - a claimed and b did not take (its thread was late, or its view older): the core decides
 *    as for a BLOCKED from the socket (the successor granted by the page: two wake-ups).
 * So a VM moves only its own vCPUs: a hostile a can stop its holder (its own) or make b's
 * successor run until the PREEMPT reaches it on a lane a holds; a hostile b can run its own
 * vCPU on a lane it does not hold until the PREEMPT, as a refused offer claim does.
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "sched/core.h"

/* The VM of the first lane held by a vCPU of another VM that may release it to b. */
static struct host_client *host_xhand_from(struct host *h, struct host_client *b)
{
	unsigned int l;

	for (l = 0; l < h->nr_lanes && l < HOST_HAND_LANES; l++) {
		int hv = sched_lane_vcpu(h->s, l);
		struct host_client *a = hv >= 0 ? h->slot[hv].client : NULL;

		if (a && a != b && a->shared && !h->slot[hv].revoked && host_hand_ok(a))
			return a;
	}
	return NULL;
}

/* Whether a holds lane l (as host_hand_lanes() counts it): a lane a's claim may hand on. */
static bool host_xhand_lane_of(struct host *h, const struct host_client *a, unsigned int l)
{
	int hv = l < h->nr_lanes ? sched_lane_vcpu(h->s, l) : -1;

	return hv >= 0 && h->slot[hv].client == a && !h->slot[hv].revoked;
}

void host_xhand_make(struct host *h, unsigned int slot)
{
	struct host_client *b = h->slot[slot].client, *a;
	struct host_offer *ob = b->offer, *oa;
	uint32_t succ = h->slot[slot].vcpu;
	unsigned int l;

	if (!b->shared || !host_hand_ok(b) || !b->page || !(a = host_xhand_from(h, b)))
		return;
	oa = a->offer;
	if (!host_hand_lanes(h, a))
		return;
	h->xsucc_alone = host_hand_waiters(h) == 1;
	__atomic_store_n(&oa->hand_succ, HOST_HAND_XVM, __ATOMIC_RELAXED);
	__atomic_store_n(&oa->hand_sent, a->nr_read_state, __ATOMIC_RELAXED);
	/*
	 * Only a's lanes, as host_hand_lanes() found them (not read back from a's page, which a
	 * writes): a's claim is a's word, so a forged one naming a lane of b's or of a third VM's
	 * holder ran b's successor beside that holder, pinned to its CPU, until the daemon's
	 * PREEMPT at a's TOOK (or never, without one). Now b's VMM refuses it (the fuzz target
	 * fuzz/vmm_peer.c): a forged claim costs only a.
	 */
	for (l = 0; l < HOST_HAND_LANES; l++)
		__atomic_store_n(&ob->x_cpu[l], host_xhand_lane_of(h, a, l) ? host_lane_cpu(h, l) :
				 HOST_CPU_XNONE, __ATOMIC_RELAXED);
	__atomic_store_n(&ob->x_peer, a->share_id, __ATOMIC_RELAXED);
	__atomic_store_n(&ob->x_succ, succ, __ATOMIC_RELAXED);
	__atomic_store_n(&ob->x_succ_seq, host_page_seq(b, succ), __ATOMIC_RELAXED);
	__atomic_store_n(&ob->x_sent, b->nr_read_state, __ATOMIC_RELAXED);
	__atomic_store_n(&ob->x_slice, h->xsucc_alone ? 0 : h->slice_ns, __ATOMIC_RELAXED);
	h->offer_gen++;
	h->offer_lane = HOST_OFFER_HAND;
	h->offer_to = a;
	h->xsucc_to = b;
	h->xsucc = succ;
	/* b's first: a's claim of this gen cannot come before a's word offers it. */
	__atomic_store_n(&ob->word, host_offer_word(h->offer_gen, HOST_OFFER_XSUCC,
						    HOST_OFFER_FREE), __ATOMIC_RELEASE);
	__atomic_store_n(&oa->word, host_offer_word(h->offer_gen, HOST_OFFER_HAND,
						    HOST_OFFER_FREE), __ATOMIC_RELEASE);
	/*
	 * b's waker thread (protocol 10, sched/runtime/rt_xwait.c) takes the lane for the
	 * successor: it waits on the gen half of b's word, and is woken (no write to read back) to
	 * wait on a's word too. Once per wait and peer: later gens of the same find it waiting
	 * there already. Not the successor's own thread: parked on its entry, it was the one woken
	 * here, and a vCPU thread woken behind a busy CPU's holder was still not back on a's word
	 * when a claimed (docs/host.md, "Handoffs across VMs").
	 */
	if (b->x_woke_vcpu != succ || b->x_woke_peer != a->share_id ||
	    b->x_woke_wait != h->slot[slot].nr_waits) {
		b->x_woke_vcpu = succ;
		b->x_woke_peer = a->share_id;
		b->x_woke_wait = h->slot[slot].nr_waits;
		syscall(SYS_futex, host_offer_gen_futex(ob), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
}

static void host_xhand_garbage(struct host_client *c)
{
	c->garbage = true;
	c->dead = true;
	shutdown(c->fd, SHUT_RDWR);
}

/* b's successor took a lane the core did not give it: told it holds none, and kicked. */
static void host_xhand_refuse(struct host *h, struct host_client *b, uint32_t succ)
{
	struct host_ev m = { .type = HOST_MSG_PREEMPT, .vcpu = succ };

	(void)h;
	m.seq = host_page_write(b, succ, HOST_LANE_NONE, HOST_TIME_INF, HOST_CPU_NONE);
	host_kick(b, succ);
	host_send(b, &m, sizeof(m));
}

/* b's word: whether its successor took the lane (*lane), settled; b hung up for garbage. */
static bool host_xhand_took(struct host *h, struct host_client *b, uint32_t *lane)
{
	uint32_t gen = h->offer_gen;
	uint64_t w = host_offer_word(gen, HOST_OFFER_XSUCC, HOST_OFFER_FREE);

	if (__atomic_compare_exchange_n(&b->offer->word, &w,
					host_offer_word(gen, HOST_OFFER_NONE, HOST_OFFER_FREE),
					false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return false;	/* revoked: it cannot take it any more */
	*lane = host_offer_lane(w);
	if (host_offer_gen(w) != gen || *lane >= h->nr_lanes || *lane >= HOST_HAND_LANES ||
	    host_offer_vcpu(w) != h->xsucc) {
		host_xhand_garbage(b);
		return false;
	}
	/* No TOOK of b's follows (protocol 14): its word is the take, settled here; b sent
	 * nothing since the side was published (x_sent), so nothing of b's is older. */
	return true;
}

struct host_client *host_xhand_settle(struct host *h, struct host_client *a,
				      struct host_client *b)
{
	uint32_t gen = h->offer_gen, succ = h->xsucc, lb = HOST_LANE_NONE;
	uint64_t w = host_offer_word(gen, HOST_OFFER_HAND, HOST_OFFER_FREE);
	bool took = host_xhand_took(h, b, &lb);
	struct host_client *bad = b->garbage ? b : NULL;
	unsigned int sslot = b->slot[succ];
	int la;

	if (__atomic_compare_exchange_n(&a->offer->word, &w,
					host_offer_word(gen, HOST_OFFER_NONE, HOST_OFFER_FREE),
					false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		if (took) {	/* a took its claim back, or b lied: b's vCPU holds nothing */
			b->nr_xhands_revoked++;
			host_xhand_refuse(h, b, succ);
		}
		return bad;
	}
	la = host_hand_claim(h, a, w, sslot);
	if (la < 0) {
		host_xhand_garbage(a);
		if (took) {
			b->nr_xhands_revoked++;
			host_xhand_refuse(h, b, succ);
		}
		return a;
	}
	if (took && lb == (uint32_t)la) {
		if (sched_lane_vcpu(h->s, lb) == (int)sslot)
			b->nr_xhands++;
		else
			b->nr_xhands_revoked++;
		host_offer_apply(h, b, succ, lb, h->xsucc_alone, true, HOST_OFFER_NONE);
		return bad;
	}
	if (took)
		b->nr_xhands_revoked++;
	else
		b->nr_xhands_missed++;
	host_drain(h);		/* the BLOCKED's decisions, as from the socket */
	if (took && sched_vcpu_lane(h->s, sslot) < 0)
		host_xhand_refuse(h, b, succ);
	return bad;
}

uint64_t host_client_xhands(const struct host_client *c, enum host_xhand_count which)
{
	return which == HOST_XHAND_TAKEN ? c->nr_xhands :
	       which == HOST_XHAND_REVOKED ? c->nr_xhands_revoked : c->nr_xhands_missed;
}
