// SPDX-License-Identifier: GPL-2.0
/*
 * Handoffs (HOST_HELLO_HAND, docs/host.md "Handoffs"): a lane its holder releases while a vCPU
 * waits goes to that waiter without the daemon's wake-up on the path, as an embedded core hands
 * it on (one wake-up: the waiter's), where through the daemon it cost two (the daemon's, then
 * the waiter's).
 *
 * After each event, while a vCPU waits, the daemon asks its core which waiter a lane freed now
 * would go to (sched_next_waiter()). If that successor's VM takes handoffs and one of its vCPUs
 * holds a lane, the daemon offers that VM a handoff in its offer page: the successor, and for
 * each lane the VM holds, its holder, the seq of the holder's grant and the lane's CPU. A holder
 * that blocks (or is lent) claims it with a CAS (its lane, itself), grants the successor the
 * lane and wakes its thread: one wake-up, inside the VMM (sched/runtime/rt_hand.c).
 *
 * Within one VM the successor's thread is the releasing VMM's own, so the VMM that writes the
 * claim is the one whose vCPUs it moves. A successor of another VM that holds no lane is
 * host_xhand.c's: it takes the lane itself, from the releasing VM's claim, with a CAS in its
 * own offer word the daemon reads.
 *
 * The claim stands for the holder's BLOCKED: settled before anything reaches the core, as every
 * offer, it is fed to the core as that event (the holder not charged on: its exit reported
 * what it ran), and the core's decisions go out. Granted the successor that lane, nothing is
 * news (a RETIME if the slice end differs); any other decision (another waiter picked as the
 * clock moved, a throttle of the successor's group by the charges) revokes the handoff: the
 * successor is PREEMPTed and the lane's true holder granted.
 *
 * Not at rotation ends: built and measured, the core kept the holder there at a near tie
 * (its sticky pick) in 14 of 78 and up to 128 of 129 such handoffs of two hogs on one lane,
 * which the published successor cannot foresee (docs/host.md, "Latency: handoffs"). The daemon
 * reads only the word: a claim of another gen, of a lane its holder does not hold, or by a vCPU
 * that holds none, is garbage (hung up on).
 */
#include <errno.h>
#include <limits.h>

#include "internal.h"
#include "sched/core.h"

/* vCPUs of every VM that wait for a lane. */
unsigned int host_hand_waiters(struct host *h)
{
	struct host_client *c;
	unsigned int i, n = 0;

	list_for_each_entry(c, &h->clients, node)
		for (i = 0; c->joined && i < c->nr_vcpus; i++)
			if (sched_vcpu_is_runnable(h->s, c->slot[i]) &&
			    sched_vcpu_lane(h->s, c->slot[i]) < 0)
				n++;
	return n;
}

/*
 * c's lanes in its offer page: for each lane a vCPU of c holds (not revoked), the holder, the
 * seq of its grant and the lane's CPU; the number of them.
 */
unsigned int host_hand_lanes(struct host *h, struct host_client *c)
{
	struct host_offer *o = c->offer;
	unsigned int l, held = 0;

	for (l = 0; l < h->nr_lanes && l < HOST_HAND_LANES; l++) {
		struct host_hand_lane e = { .holder = HOST_OFFER_NONE, .cpu = HOST_CPU_NONE };
		int hv = sched_lane_vcpu(h->s, l);

		if (hv >= 0 && h->slot[hv].client == c && !h->slot[hv].revoked) {
			e.holder = h->slot[hv].vcpu;
			e.holder_seq = host_page_seq(c, e.holder);
			e.cpu = host_lane_cpu(h, l);
			held++;
		}
		/* Released: a claim that read these after this gen's revocation fails its CAS. */
		__atomic_store_n(&o->hand[l].holder_seq, e.holder_seq, __ATOMIC_RELAXED);
		__atomic_store_n(&o->hand[l].cpu, e.cpu, __ATOMIC_RELAXED);
		__atomic_store_n(&o->hand[l].holder, e.holder, __ATOMIC_RELAXED);
	}
	return held;
}

/* Whether c may be offered a handoff (as the releasing VM or the successor's) now. */
bool host_hand_ok(const struct host_client *c)
{
	return c->offer_hand && c->joined && !c->dead && c->offer && !c->nr_revoked &&
	       !c->took_due;
}

/* Someone waits and no offer stands: a handoff to the VM of the core's next pick, if it holds
 * a lane and asked (HOST_HELLO_HAND); else, from another VM's lane (host_xhand.c). */
void host_hand_make(struct host *h)
{
	struct host_client *c;
	struct host_offer *o;
	int v = sched_next_waiter(h->s);

	if (v < 0 || !h->slot[v].client || h->slot[v].revoked)
		return;
	c = h->slot[v].client;
	o = c->offer;
	if (!host_hand_ok(c))
		return;
	if (!host_hand_lanes(h, c)) {
		host_xhand_make(h, (unsigned int)v);
		return;
	}
	c->hand_succ = h->slot[v].vcpu;
	c->hand_alone = host_hand_waiters(h) == 1;
	__atomic_store_n(&o->hand_succ, c->hand_succ, __ATOMIC_RELAXED);
	__atomic_store_n(&o->hand_succ_seq, host_page_seq(c, c->hand_succ), __ATOMIC_RELAXED);
	__atomic_store_n(&o->hand_sent, c->nr_read_state, __ATOMIC_RELAXED);
	__atomic_store_n(&o->hand_slice, c->hand_alone ? 0 : h->slice_ns, __ATOMIC_RELAXED);
	h->offer_gen++;
	h->offer_lane = HOST_OFFER_HAND;
	h->offer_to = c;
	__atomic_store_n(&o->word, host_offer_word(h->offer_gen, HOST_OFFER_HAND, HOST_OFFER_FREE),
			 __ATOMIC_RELEASE);
}

/*
 * c's holder in word w released its lane, to be succeeded by the vCPU in slot sslot: checked
 * against the core (unchanged since the offer), then its BLOCKED fed to the core (decisions
 * left pending). The lane, or -EPROTO: w is not a claim of this offer.
 */
int host_hand_claim(struct host *h, struct host_client *c, uint64_t w, unsigned int sslot)
{
	uint32_t lane = host_offer_lane(w), hv = host_offer_vcpu(w);
	unsigned int hslot;
	uint64_t now;

	if (host_offer_gen(w) != h->offer_gen || lane >= h->nr_lanes || lane >= HOST_HAND_LANES ||
	    hv >= c->nr_vcpus)
		return -EPROTO;
	hslot = c->slot[hv];
	/* Nothing reached the core since the offer: its lanes are what was published. */
	if (sched_lane_vcpu(h->s, lane) != (int)hslot || h->slot[hslot].revoked ||
	    !sched_vcpu_is_runnable(h->s, sslot) || sched_vcpu_lane(h->s, sslot) >= 0)
		return -EPROTO;
	host_offer_took_due(c, hv, h->offer_gen, lane);
	now = h->clock();
	h->slot[sslot].last_heard = now;
	h->slot[hslot].last_heard = now;
	/*
	 * The holder stopped at the claim, some time before now, and its exit reported what it ran
	 * (the claim is made after): charged on to now it would pay for what the successor ran.
	 */
	host_charge_holders(h, now, hslot);
	sched_vcpu_blocked(h->s, hslot, now);
	return (int)lane;
}

/*
 * c's holder in word w released its lane to the successor: its BLOCKED fed to the core, then
 * the core's decisions. -EPROTO: w is not a claim of this offer.
 */
int host_hand_honour(struct host *h, struct host_client *c, uint64_t w)
{
	unsigned int sslot = c->slot[c->hand_succ];
	int lane = host_hand_claim(h, c, w, sslot);

	if (lane < 0)
		return lane;
	/* Whether the core did what the VMM did, for --stats and the tests. */
	if (sched_lane_vcpu(h->s, (unsigned int)lane) == (int)sslot)
		c->nr_hands++;
	else
		c->nr_hands_revoked++;
	host_offer_apply(h, c, c->hand_succ, (unsigned int)lane, c->hand_alone, true,
			 HOST_OFFER_NONE);
	return 0;
}

uint64_t host_client_hands(const struct host_client *c, bool revoked)
{
	return revoked ? c->nr_hands_revoked : c->nr_hands;
}
