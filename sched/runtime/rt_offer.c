// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's idle-lane offers, the VMM's side (include/host/proto.h, host/host_offer.c): a lane
 * the daemon left idle with nobody waiting, offered to this VM. A vCPU that becomes runnable
 * takes it with a CAS and runs at once, as an embedded core would grant it, where asking the
 * daemon costs its wake-up before the vCPU's. The daemon sees the claim at its next event of
 * any kind (its revoking CAS fails), feeds its core the RUNNABLE it stands for and answers only
 * if the core decided otherwise (a GRANT of another lane or with a slice end, or PREEMPT).
 *
 * TOOK confirms the claim to the daemon, but not at once: sent at once, it woke the daemon while
 * the granted thread was waking, and on 2 CPUs the two competed (bench-host-latency, one pair of
 * runs: median 1.6x in-process against 0.65x deferred; docs/host.md). It goes before this VMM's
 * next datagram (a BLOCKED, the vCPU's next exit's RAN) or with the helper's next report
 * (RT_REPORT_NS).
 *
 * Taken only when the daemon has read every datagram this VMM sent (the offer says how many):
 * with one in flight (a BLOCKED, a RUNNABLE of another vCPU) the daemon's view the offer was
 * made from is older than the VM's. What is read here is checked like a message (lane, CPU);
 * anything else leaves the offer alone and the vCPU asks by the socket.
 */
#include <errno.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/proto.h"
#include "rt.h"

/* The offer page of a WELCOME (fd taken over, -1: none came). One that cannot be used is not. */
void rt_offer_map(struct runtime *rt, int fd)
{
	struct stat st;
	void *p;

	rt_offer_unmap(rt);
	if (fd < 0)
		return;
	p = fstat(fd, &st) || (size_t)st.st_size < sizeof(struct host_offer) ? MAP_FAILED :
	    mmap(NULL, sizeof(struct host_offer), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p != MAP_FAILED)
		rt->offer = p;
}

void rt_offer_unmap(struct runtime *rt)
{
	if (rt->offer)
		munmap(rt->offer, sizeof(struct host_offer));
	rt->offer = NULL;
}

/*
 * A held lane's offer names its holder, a vCPU of this VM that the taker preempts as the VMM's
 * own core would (a kick), only if this VMM has applied the holder's grant (the daemon's view
 * of it is this VMM's) and it still holds a lane here. -1 - RT_OFFER_R_*: not this, and why;
 * HOST_OFFER_NONE: the lane is idle.
 */
static long rt_offer_holder(struct runtime *rt, const struct host_offer *o, unsigned int id)
{
	uint64_t hv = __atomic_load_n(&o->holder, __ATOMIC_ACQUIRE);
	uint64_t seq = __atomic_load_n(&o->holder_seq, __ATOMIC_ACQUIRE);

	if (hv == HOST_OFFER_NONE)
		return HOST_OFFER_NONE;
	if (!rt->offer_held)
		return -1 - RT_OFFER_R_NO_HELD;
	if (hv >= rt->nr_vcpus || hv == id)
		return -1 - RT_OFFER_R_BAD;
	if (rt->v[hv].state != RT_RUNNING)
		return -1 - RT_OFFER_R_HOLDER_STATE;
	if (rt->v[hv].seq_applied != seq)
		return -1 - RT_OFFER_R_HOLDER_SEQ;
	/* Before it the core may still defer the preemption (a lane before it, or a holder
	 * taken by virtual time, inside its min_run). */
	if (rt_now() < __atomic_load_n(&o->not_before, __ATOMIC_ACQUIRE))
		return -1 - RT_OFFER_R_NOT_BEFORE;
	return (long)hv;
}

/* No offer taken: counted by why (runtime_stats.offer_refused). */
static bool rt_offer_refuse(struct runtime *rt, enum rt_offer_refusal why)
{
	rt->st.offer_refused[why]++;
	return false;
}

bool rt_offer_take(struct runtime *rt, unsigned int id)
{
	struct host_offer *o = rt->offer;
	uint64_t w, cpu, ok;
	uint32_t lane;
	long holder;

	assert_held(rt->lock);
	if (!o)
		return false;
	w = __atomic_load_n(&o->word, __ATOMIC_ACQUIRE);
	lane = host_offer_lane(w);
	if (lane == HOST_OFFER_NONE)
		return rt_offer_refuse(rt, RT_OFFER_R_ABSENT);
	/* Taken already, or a handoff's (rt_hand.c) or a successor's (rt_xhand.c). */
	if (host_offer_vcpu(w) != HOST_OFFER_FREE || lane >= rt->nr_lanes)
		return rt_offer_refuse(rt, RT_OFFER_R_OTHER);
	if (rt_hands_off(rt))
		return rt_offer_refuse(rt, RT_OFFER_R_HANDS_OFF);
	if (rt->took_due)
		return rt_offer_refuse(rt, RT_OFFER_R_TOOK_DUE);
	if (id >= HOST_MAX_VM_VCPUS)
		return rt_offer_refuse(rt, RT_OFFER_R_BAD);
	ok = __atomic_load_n(&o->eligible[id / 64], __ATOMIC_ACQUIRE);
	cpu = __atomic_load_n(&o->cpu, __ATOMIC_ACQUIRE);
	if (__atomic_load_n(&o->sent, __ATOMIC_ACQUIRE) != rt->sent)
		return rt_offer_refuse(rt, RT_OFFER_R_SENT);
	if (!(ok >> (id % 64) & 1))
		return rt_offer_refuse(rt, RT_OFFER_R_INELIGIBLE);
	if (cpu != HOST_CPU_NONE && cpu >= CPU_SETSIZE)
		return rt_offer_refuse(rt, RT_OFFER_R_BAD);
	holder = rt_offer_holder(rt, o, id);
	if (holder < 0)
		return rt_offer_refuse(rt, (enum rt_offer_refusal)(-1 - holder));
	if (!__atomic_compare_exchange_n(&o->word, &w,
					 host_offer_word(host_offer_gen(w), lane, id), false,
					 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		return rt_offer_refuse(rt, RT_OFFER_R_CAS);	/* revoked meanwhile */
	/* The holder out first, as rt_core_drain() applies an embedded core's decisions. */
	if (holder != HOST_OFFER_NONE) {
		rt_preempt(rt, (unsigned int)holder);
		rt->st.held_offers++;
	}
	/* Pinned and granted as a GRANT from the daemon would be (rt_remote.c); unpinned if the
	 * lanes' map cannot be made (the lane is this vCPU's all the same). */
	rt_pin_host(rt, lane, cpu == HOST_CPU_NONE ? -1 : (int)cpu);
	rt_grant(rt, id, lane, RT_INF);
	rt->st.offers++;
	rt->took_due = true;
	rt->took_vcpu = id;
	rt->took_gen = host_offer_gen(w);
	rt->took_lane = lane;
	return true;
}

/* The TOOK of the last offer taken, if not sent yet (rt_remote.c sends it before anything). */
void rt_offer_flush(struct runtime *rt)
{
	assert_held(rt->lock);
	if (!rt->took_due)
		return;
	rt->took_due = false;
	rt_remote_event(rt, HOST_MSG_TOOK, rt->took_vcpu, rt->took_gen, rt->took_lane);
}
