// SPDX-License-Identifier: GPL-2.0
/*
 * Handoffs across VMs, the successor's side (HOST_HELLO_PEER, host/host_xhand.c): while a vCPU
 * of this VM waits and is the daemon's next pick, and another VM holds a lane, the daemon
 * publishes in this VM's offer page that this vCPU succeeds the lane that VM releases
 * (lane HOST_OFFER_XSUCC, that VM's id). The VMM's waker thread (rt_xwait.c) waits on that
 * VM's offer word (its page read-only here: rt_peer.c); when that VM's holder claims its
 * handoff of the same gen there (and wakes the word), it takes the lane claimed for the vCPU
 * with a CAS of this VM's own word and wakes the vCPU's thread, pinned to the lane: the
 * daemon's wake-up is off the path. The vCPU's own thread takes it too if it finds the claim
 * before it parks; parked on its grant page entry it waits on that VM's word too
 * (rt_xhand_park()), so the claim's FUTEX_WAKE reaches it directly and it takes at one wake-up,
 * where the waker's take and its wake of the thread made two (the waker then leaves the word
 * to it, and wakes it to park on the word if a side is published after it parked: rt_xwait.c).
 *
 * Taken only if the daemon's view is this VMM's (it read every datagram sent but reports, this
 * vCPU's latest entry applied) and no TOOK is due. What is read in either page is checked like
 * a message; the daemon reads this VM's word, not the other's, to know a take (host_xhand.c),
 * and tells the vCPU PREEMPT if its core did not give it that lane.
 */
#include <linux/futex.h>

#include "host/proto.h"
#include "rt.h"

#define RT_XHAND_SLICE_MAX	(1000ULL * 1000 * 1000)	/* a slice read above this: none */

/*
 * The successor's side standing in this VM's word (*w): its waiting vCPU (*prv) and the peer
 * page that releases to it; NULL: none.
 */
static const struct host_offer *rt_xhand_side(struct runtime *rt, uint64_t *w,
					      struct rt_vcpu **prv)
{
	struct host_offer *o = rt->offer;
	uint64_t peer, succ;

	if (!o || !rt->nr_peers || rt_hands_off(rt))
		return NULL;
	*w = __atomic_load_n(&o->word, __ATOMIC_ACQUIRE);
	succ = __atomic_load_n(&o->x_succ, __ATOMIC_RELAXED);
	peer = __atomic_load_n(&o->x_peer, __ATOMIC_RELAXED);
	if (host_offer_lane(*w) != HOST_OFFER_XSUCC || host_offer_vcpu(*w) != HOST_OFFER_FREE ||
	    succ >= rt->nr_vcpus || rt->v[succ].state != RT_WAITING || peer > UINT32_MAX)
		return NULL;
	*prv = &rt->v[succ];
	return rt_peer_find(rt, (uint32_t)peer);
}

/* The peer page whose claim rv may take now, and this VM's word (*w); NULL: none. */
static const struct host_offer *rt_xhand_peer(struct runtime *rt, struct rt_vcpu *rv,
					      uint64_t *w)
{
	struct host_offer *o = rt->offer;
	const struct host_offer *po;
	struct rt_vcpu *sv;

	po = rt_xhand_side(rt, w, &sv);
	if (!po || sv != rv || rt->took_due ||
	    __atomic_load_n(&o->x_succ_seq, __ATOMIC_RELAXED) != rv->seq_applied ||
	    __atomic_load_n(&o->x_sent, __ATOMIC_RELAXED) != rt->sent_state)
		return NULL;
	return po;
}

struct rt_vcpu *rt_xhand_succ(struct runtime *rt)
{
	struct rt_vcpu *rv = NULL;
	uint64_t w;

	assert_held(rt->lock);
	return rt_xhand_side(rt, &w, &rv) ? rv : NULL;
}

/*
 * Whenever a side stands, not only when rv may take it now: the waker is not woken again for a
 * later gen of the same successor and peer (host_xhand.c), by which the view may have caught up.
 */
bool rt_xhand_watch(struct runtime *rt, struct futex_waitv *fw)
{
	const struct host_offer *po;
	struct rt_vcpu *rv;
	uint64_t w;

	assert_held(rt->lock);
	po = rt_xhand_side(rt, &w, &rv);
	if (!po)
		return false;
	fw->uaddr = (uintptr_t)host_offer_futex(po);
	fw->val = __atomic_load_n(host_offer_futex(po), __ATOMIC_ACQUIRE);
	fw->flags = FUTEX_32;	/* shared: the page is mapped in both VMMs */
	return true;
}

/*
 * The peer's word read here (rt_xhand_watch()): a claim made after this read ends the wait. A
 * side published after the thread parked reaches it through the waker, which the daemon's
 * publish wakes (rt_xwait.c): it wakes the parked successor to park again here. Not every
 * parked thread on the daemon's wake: a VM of many waiting vCPUs would wake them all at each
 * new successor. The waker, if it waits on the word, is kicked to let go of it (it watches only
 * for a successor not parked). Bounded with the waker's waits per gen: a peer that rewrites and
 * wakes its word at will wakes this normal thread at most that often.
 */
unsigned int rt_xhand_park(struct runtime *rt, struct rt_vcpu *rv, struct futex_waitv *fw)
{
	struct rt_vcpu *sv;
	uint64_t w;

	assert_held(rt->lock);
	rv->xwatch = false;
	if (!rt_xhand_side(rt, &w, &sv) || sv != rv || !rt_xwait_watch_ok(rt) ||
	    !rt_xhand_watch(rt, fw))
		return 0;
	rv->xwatch = true;
	if (rt->xw_peer)
		rt_xwait_changed(rt);
	return 1;
}

void rt_xhand_unpark(struct runtime *rt, struct rt_vcpu *rv)
{
	assert_held(rt->lock);
	if (!rv->xwatch)
		return;
	rv->xwatch = false;
	if (rv->state == RT_WAITING && rt_xhand_take(rt, rv))
		rt->st.xhandoffs_parked++;
}

bool rt_xhand_take(struct runtime *rt, struct rt_vcpu *rv)
{
	struct host_offer *o = rt->offer;
	const struct host_offer *po;
	uint64_t w, pw, cpu, len;
	uint32_t lane;

	assert_held(rt->lock);
	po = rt_xhand_peer(rt, rv, &w);
	if (!po)
		return false;
	pw = __atomic_load_n(&po->word, __ATOMIC_ACQUIRE);
	lane = host_offer_lane(pw);
	/* The peer's claim of this gen: a lane, its holder (the daemon checks which). */
	if (host_offer_gen(pw) != host_offer_gen(w) || lane >= rt->nr_lanes ||
	    lane >= HOST_HAND_LANES || host_offer_vcpu(pw) == HOST_OFFER_FREE)
		return false;
	cpu = __atomic_load_n(&o->x_cpu[lane], __ATOMIC_RELAXED);
	len = __atomic_load_n(&o->x_slice, __ATOMIC_RELAXED);
	/* HOST_CPU_XNONE: not a lane the peer holds, a claim it forged (host_xhand_make()). */
	if (cpu == HOST_CPU_XNONE || (cpu != HOST_CPU_NONE && cpu >= CPU_SETSIZE) ||
	    len > RT_XHAND_SLICE_MAX)
		return false;
	if (!__atomic_compare_exchange_n(&o->word, &w,
					 host_offer_word(host_offer_gen(w), lane, rv->id), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return false;	/* revoked meanwhile: the daemon decides */
	rt_pin_host(rt, lane, cpu == HOST_CPU_NONE ? -1 : (int)cpu);
	rt_grant(rt, rv->id, lane, len ? rt_now() + len : RT_INF);
	rt->st.xhandoffs++;
	/*
	 * No TOOK (protocol 14): the daemon settles this take from this VMM's word at the
	 * releaser's TOOK, which the releasing VMM sends at its claim. Sent from here, it woke a
	 * daemon on another CPU on this vCPU's way into the guest (a send() of ~17 us against ~4
	 * on a 2-CPU PVM guest: bench-host-latency's xvm row 2.5-3.0x in-process); deferred to the
	 * next datagram, the daemon, which offered a VM nothing while its TOOK was due, could not
	 * publish this vCPU's own release as a handoff.
	 */
	return true;
}
