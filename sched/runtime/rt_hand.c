// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's handoffs, the VMM's side (include/host/proto.h, host/host_hand.c): while a vCPU of
 * this VM waits and is the daemon's next pick, the daemon publishes it as the successor of the
 * lanes this VM holds. A holder that releases its lane (it blocks or is lent) claims the handoff
 * with a CAS and grants the successor the lane at once, as an embedded core would: the
 * successor's thread wakes once, from here, where through the daemon the daemon's wake-up came
 * first. The claim stands for the holder's BLOCKED; its TOOK goes with the releaser's unlock
 * (not deferred as an offer's, rt_offer.c) and the daemon, which hears the claim then, revokes
 * a handoff its core would not have made (a PREEMPT of the successor).
 *
 * Taken only if the daemon's view is this VMM's: it had read every datagram sent but reports
 * (a report changes nobody's state), this VMM applied the holder's grant and the successor's
 * latest entry, and the successor still waits here. Not at a rotation end: the core may keep
 * its holder there (a near tie), which no successor published ahead can tell (docs/host.md).
 */
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/proto.h"
#include "rt.h"

#define RT_HAND_SLICE_MAX	(1000ULL * 1000 * 1000)	/* a slice read above this: none */

/* The lane id holds in the handoff offer o, HOST_HAND_LANES: none. */
static unsigned int rt_hand_lane(struct runtime *rt, const struct host_offer *o, unsigned int id)
{
	unsigned int l;

	for (l = 0; l < rt->nr_lanes && l < HOST_HAND_LANES; l++)
		if (__atomic_load_n(&o->hand[l].holder, __ATOMIC_RELAXED) == id)
			return l;
	return HOST_HAND_LANES;
}

/*
 * The successor is another VM's (HOST_HELLO_PEER, host/host_xhand.c): the claim alone, and a
 * wake-up of the word, on which that VM's parked successor waits (a shared futex: the page is
 * mapped in both). The TOOK goes at once: the daemon hears of the claim before this VMM's next
 * datagram, which may be long, and a successor that did not take the lane leaves it idle
 * until then.
 */
static bool rt_hand_xvm(struct runtime *rt, struct host_offer *o, uint64_t w, unsigned int id)
{
	unsigned int lane = rt_hand_lane(rt, o, id);

	if (lane == HOST_HAND_LANES ||
	    __atomic_load_n(&o->hand[lane].holder_seq, __ATOMIC_RELAXED) != rt->v[id].seq_applied)
		return false;
	if (!__atomic_compare_exchange_n(&o->word, &w, host_offer_word(host_offer_gen(w), lane, id),
					 false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return false;
	syscall(SYS_futex, host_offer_futex(o), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	rt->st.xhandoffs_out++;
	rt->took_due = true;
	rt->took_vcpu = id;
	rt->took_gen = host_offer_gen(w);
	rt->took_lane = lane;
	rt_offer_flush(rt);
	return true;
}

bool rt_hand_off(struct runtime *rt, unsigned int id)
{
	struct host_offer *o = rt->offer;
	uint64_t w, succ, cpu, len;
	struct rt_vcpu *sv;
	unsigned int lane;

	assert_held(rt->lock);
	if (!o || !rt->offer_hand || rt_hands_off(rt) || rt->took_due || id >= rt->nr_vcpus)
		return false;
	w = __atomic_load_n(&o->word, __ATOMIC_ACQUIRE);
	if (host_offer_lane(w) != HOST_OFFER_HAND || host_offer_vcpu(w) != HOST_OFFER_FREE ||
	    __atomic_load_n(&o->hand_sent, __ATOMIC_RELAXED) != rt->sent_state)
		return false;
	succ = __atomic_load_n(&o->hand_succ, __ATOMIC_RELAXED);
	if (succ == HOST_HAND_XVM && rt->nr_peers)
		return rt_hand_xvm(rt, o, w, id);
	if (succ >= rt->nr_vcpus || succ == id)
		return false;
	sv = &rt->v[succ];
	if (sv->state != RT_WAITING ||
	    sv->seq_applied != __atomic_load_n(&o->hand_succ_seq, __ATOMIC_RELAXED))
		return false;
	lane = rt_hand_lane(rt, o, id);
	if (lane == HOST_HAND_LANES ||
	    __atomic_load_n(&o->hand[lane].holder_seq, __ATOMIC_RELAXED) != rt->v[id].seq_applied)
		return false;
	cpu = __atomic_load_n(&o->hand[lane].cpu, __ATOMIC_RELAXED);
	len = __atomic_load_n(&o->hand_slice, __ATOMIC_RELAXED);
	if ((cpu != HOST_CPU_NONE && cpu >= CPU_SETSIZE) || len > RT_HAND_SLICE_MAX)
		return false;
	if (!__atomic_compare_exchange_n(&o->word, &w, host_offer_word(host_offer_gen(w), lane, id),
					 false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return false;	/* revoked meanwhile: the daemon decides */
	rt_pin_host(rt, lane, cpu == HOST_CPU_NONE ? -1 : (int)cpu);
	rt_grant(rt, (unsigned int)succ, lane, len ? rt_now() + len : RT_INF);
	rt->st.handoffs++;
	rt->took_due = true;
	rt->took_vcpu = id;
	rt->took_gen = host_offer_gen(w);
	rt->took_lane = lane;
	/*
	 * The TOOK goes now, from the releaser's unlock (after the successor was signalled): a
	 * releaser that sleeps sends nothing else, and until the daemon reads the claim it makes
	 * this VM no held-lane offer, so the releaser's own next wake went through the daemon
	 * (held2: 38-82 of 81-122 such preemptions, docs/host.md "which preemptions still go
	 * through the daemon"). The successor here is granted by this thread, not by the
	 * daemon's settling, so an early TOOK takes nothing from it (unlike rt_unlock_exit()'s).
	 */
	rt_offer_flush(rt);
	return true;
}
