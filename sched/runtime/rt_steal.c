// SPDX-License-Identifier: GPL-2.0
/*
 * Steal time for vCPUs the runtime parks. KVM tells a guest only about time its vCPU thread
 * waited in a host run queue (record_steal_time() adds the thread's run_delay) and sets the
 * preempted flag only on a host preemption. A vCPU parked for a lane sleeps on a condition
 * variable, so to the guest it would look as if it had run all along: wrong steal in
 * /proc/stat and spinlock waiters that keep spinning on a lock holder that is not running.
 *
 * So while it waits for a lane the vCPU thread itself sets the preempted flag in the guest's
 * steal-time area, and before it enters KVM_RUN again adds the time it waited to steal, with
 * the version odd around the write as KVM does. Both run on the vCPU thread outside KVM_RUN,
 * so they never race KVM's own update, which follows at the next entry: it adds run_delay on
 * top of the steal value it reads back and clears the flag (with xchg when the guest uses PV
 * TLB flushes, so a flush the guest deferred to this vCPU's next entry still happens; the
 * runtime therefore only ever sets the flag).
 */
#include <linux/kvm_para.h>

#include "rt.h"
#include "vmm/vcpu.h"

/* The guest's area for an MSR_KVM_STEAL_TIME value, NULL if disabled or not all in RAM. */
struct kvm_steal_time *rt_steal_area(struct vm *vm, uint64_t msr)
{
	if (!(msr & KVM_MSR_ENABLED) || (msr & KVM_STEAL_RESERVED_MASK))
		return NULL;
	return vm_gpa(vm, msr & KVM_STEAL_VALID_BITS, sizeof(struct kvm_steal_time));
}

/*
 * The vCPU is about to wait for a lane, or may lose it at the decision that follows: flag it
 * preempted. Its wait begins when the caller sets parked_at (0 until then: a vCPU that keeps
 * its lane adds nothing, and its next entry clears the flag). The MSR is read every time
 * (about 9 us on this host): the guest may have moved its area since, and a stale pointer
 * would write into memory the guest now uses for something else. A guest without the area is
 * asked again only after RT_STEAL_RECHECK_NS (the caller skips the park until
 * steal_recheck_at), which is safe because nothing is written meanwhile. No lock held.
 */
void rt_steal_park(struct rt_vcpu *rv, uint64_t now)
{
	struct kvm_steal_time *st;
	uint64_t msr;

	rv->steal_area = NULL;
	rv->parked_at = 0;
	st = vcpu_get_msr(rv->vcpu, MSR_KVM_STEAL_TIME, &msr) ? NULL :
	     rt_steal_area(rv->rt->vm, msr);
	if (!st) {
		rv->steal_recheck_at = now + RT_STEAL_RECHECK_NS;
		return;
	}
	__atomic_fetch_or(&st->preempted, KVM_VCPU_PREEMPTED, __ATOMIC_SEQ_CST);
	rv->steal_area = st;
}

/*
 * The wait ended at end (the grant): [parked_at, end) becomes the guest's steal time. Both
 * ends are taken where the thread is off the host's run queue, so that none of it is also in
 * run_delay, which KVM adds itself: a vCPU thread preempted on its way to sleep (the new lane
 * holder is woken on the same CPU) or waiting for a CPU after the grant.
 */
void rt_steal_unpark(struct rt_vcpu *rv, uint64_t end)
{
	struct kvm_steal_time *st = rv->steal_area;
	uint64_t d;
	uint32_t v;

	if (!st)
		return;
	rv->steal_area = NULL;
	d = rv->parked_at && end > rv->parked_at ? end - rv->parked_at : 0;
	v = __atomic_load_n(&st->version, __ATOMIC_RELAXED);
	v += (v & 1) + 1;	/* odd: a write is under way (an odd value left is junk) */
	__atomic_store_n(&st->version, v, __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->steal, __atomic_load_n(&st->steal, __ATOMIC_RELAXED) + d,
			 __ATOMIC_SEQ_CST);
	__atomic_store_n(&st->version, v + 1, __ATOMIC_SEQ_CST);
	rv->vcpu->stats.steal_ns += d;
}
