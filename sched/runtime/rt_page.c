// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's grant page, the VMM's side (include/host/proto.h): the daemon's latest decision
 * about each vCPU, mapped read-only. A vCPU thread parked for a lane waits on its entry's futex
 * (and on a private word the VMM's own wake-ups bump) and applies a grant it finds there
 * itself: the daemon's wake-up reaches it directly, where the agent thread's receiving the
 * GRANT and signalling it cost a third host wake-up per decision.
 *
 * A vCPU in the guest watches its entry too where the backend can (vcpu->exit_word: the thread
 * backend looks between work units): a PREEMPT written there takes it out at once and it
 * applies it itself on the way out (rt_page_exit()), where the agent's wake-up and its kick
 * (a signal to the other CPU) cost two more steps. KVM cannot watch memory inside KVM_RUN; its
 * vCPUs are kicked by the agent as before.
 *
 * The agent still receives every decision on the socket (it kicks and re-times vCPUs inside
 * KVM_RUN) but a grant to a vCPU parked on its entry (its bit in the offer page: the daemon
 * sends that one by the page alone); each carries the entry's seq after it, and whichever of
 * the two paths comes second skips a decision the other applied, or one the page has already
 * moved past. What is read
 * from the page is checked like a message (lane, CPU) and otherwise ignored.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/proto.h"
#include "rt.h"
#include "vmm/vm.h"

#define RT_PAGE_READ_TRIES	64	/* a daemon stopped mid-write: wait on the futex */

static long rt_futex_waitv(struct futex_waitv *w, unsigned int n)
{
	return syscall(SYS_futex_waitv, w, n, 0, NULL, CLOCK_MONOTONIC);
}

/* The same, until the absolute CLOCK_MONOTONIC ns deadline (0: none). */
static long rt_futex_waitv_until(struct futex_waitv *w, unsigned int n, uint64_t deadline)
{
	struct timespec ts = time_ns_to_ts(deadline);

	if (!deadline)
		return rt_futex_waitv(w, n);
	return syscall(SYS_futex_waitv, w, n, 0, &ts, CLOCK_MONOTONIC);
}

/* Whether this kernel has futex_waitv (5.16): a join asks for a page only then. */
bool rt_page_usable(void)
{
	uint32_t zero = 0;
	struct futex_waitv probe = {
		.val = 1, .uaddr = (uintptr_t)&zero, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG,
	};

	/* An expected value that differs returns at once (EAGAIN) where it exists. */
	return !(rt_futex_waitv(&probe, 1) < 0 && errno == ENOSYS);
}

/*
 * Maps the page fd of a WELCOME (taken over; -1: none came, the daemon could not make one and
 * sends every decision). Every vCPU starts from the new numbering. A page that came and cannot
 * be mapped fails the join: the daemon sends grants to waiting vCPUs by the page alone. Lock
 * held.
 */
int rt_page_map(struct runtime *rt, int fd)
{
	size_t len = rt->nr_vcpus * sizeof(struct host_grant);
	struct stat st;
	unsigned int i;
	void *p;

	rt_page_unmap(rt);
	for (i = 0; i < rt->nr_vcpus; i++)
		rt->v[i].seq_applied = rt->v[i].retime_seq = 0;
	if (fd < 0)
		return 0;
	p = fstat(fd, &st) || (size_t)st.st_size < len ? MAP_FAILED :
	    mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -EPROTO;
	rt->page = p;
	rt->page_len = (size_t)st.st_size;
	return 0;
}

/*
 * The daemon is gone or the VM ends; parked threads were woken. A vCPU in the guest may be
 * reading its entry through exit_word right now (thread backend, unlocked): the pointer is
 * cleared, and the page is replaced by zeros rather than unmapped, so a read that loaded it
 * before finds memory (and, unless it applied seq 0, leaves the guest to look). The zeros are
 * unmapped at the next unmap, a whole hang-up and re-join later (200 ms at the least), or at
 * the end (rt_page_free()). Lock held.
 */
void rt_page_unmap(struct runtime *rt)
{
	unsigned int i;

	if (!rt->page)
		return;
	for (i = 0; i < rt->nr_vcpus; i++)
		if (rt->v[i].vcpu)
			__atomic_store_n(&rt->v[i].vcpu->exit_word, NULL, __ATOMIC_RELEASE);
	if (rt->page_old)
		munmap(rt->page_old, rt->page_old_len);
	rt->page_old = mmap((void *)rt->page, rt->page_len, PROT_READ,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
	rt->page_old_len = rt->page_len;
	if (rt->page_old == MAP_FAILED) {
		munmap((void *)rt->page, rt->page_len);	/* no memory: what was possible */
		rt->page_old = NULL;
	}
	rt->page = NULL;
}

/* The VM ended: its vCPU threads are gone. */
void rt_page_free(struct runtime *rt)
{
	rt_page_unmap(rt);
	if (rt->page_old)
		munmap(rt->page_old, rt->page_old_len);
	rt->page_old = NULL;
}

bool rt_page_newer(const struct rt_vcpu *rv, uint32_t seq)
{
	return (int32_t)(seq - rv->seq_applied) > 0;
}

/* A consistent copy of an entry (seqlock); false if the daemon is mid-write. *seq: last seen. */
static bool rt_page_read(const struct host_grant *g, struct host_grant *e, uint32_t *seq)
{
	unsigned int i;

	for (i = 0; i < RT_PAGE_READ_TRIES; i++) {
		*seq = __atomic_load_n(&g->seq, __ATOMIC_ACQUIRE);
		if (*seq & 1)
			continue;
		e->lane = __atomic_load_n(&g->lane, __ATOMIC_RELAXED);
		e->until = __atomic_load_n(&g->until, __ATOMIC_RELAXED);
		e->cpu = __atomic_load_n(&g->cpu, __ATOMIC_RELAXED);
		e->at = __atomic_load_n(&g->at, __ATOMIC_RELAXED);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&g->seq, __ATOMIC_RELAXED) == *seq) {
			e->seq = *seq;
			return true;
		}
	}
	return false;
}

/*
 * The decision the page holds for rv, applied as the agent would apply its datagram: a grant,
 * or no lane (a PREEMPT: nothing to do for a vCPU that waits already). Lock held.
 */
static void rt_page_take(struct runtime *rt, struct rt_vcpu *rv, const struct host_grant *e)
{
	uint64_t until = e->until == HOST_TIME_INF ? RT_INF : e->until;
	bool pinned = e->cpu != HOST_CPU_NONE && (e->cpu & HOST_CPU_PINNED);
	uint64_t cpu = pinned ? e->cpu & ~HOST_CPU_PINNED : e->cpu;

	if (!rt_page_newer(rv, e->seq))
		return;
	if (e->lane != HOST_LANE_NONE &&
	    (e->lane >= rt->nr_lanes || (cpu != HOST_CPU_NONE && cpu >= CPU_SETSIZE)))
		return;		/* garbage: the socket's copy of it loses the daemon */
	if (rt_ahead_defer(rt, rv, e->seq, e->lane, e->at))
		return;		/* made ahead of a slice end: holds from e->at (rt_ahead.c) */
	rv->seq_applied = e->seq;
	/* A RETIME of this grant that reached the agent before the grant reached the thread. */
	if (rv->retime_seq && rv->retime_seq == e->seq)
		until = rv->retime_until;
	rv->retime_seq = 0;
	if (e->lane == HOST_LANE_NONE) {
		if (rv->state == RT_RUNNING && !rv->in_guest) {
			rt->st.page_exits++;
			rt_preempt(rt, rv->id);
		}
		return;
	}
	if (rt_pin_host(rt, e->lane, cpu == HOST_CPU_NONE ? -1 : (int)cpu))
		return;
	/*
	 * The daemon pinned this thread there before its wake-up (HOST_CPU_PINNED): the thread
	 * reading it is the one it pinned, alive, so rt_pin_lane() need not set the mask again,
	 * a system call (3.2 us here) between the wake-up and the guest, under the VMM's lock.
	 */
	rv->host_pinned = pinned ? (int)cpu + 1 : 0;
	rt_grant(rt, rv->id, e->lane, until);
	rv->host_pinned = 0;
	if (e->at && e->at != HOST_TIME_INF) {	/* from a slice end: how late it was taken */
		uint64_t now = rt_now();

		rt_hist_add(rt->st.ahead_grant_hist, &rt->st.nr_ahead_grant,
			    now > e->at ? now - e->at : 0);
	}
}

/*
 * A RETIME of a grant not applied yet (seq newer than the last applied): it went by the page
 * alone and the thread has not taken it. Kept for when it does (rt_page_take()). Lock held.
 */
void rt_page_retime(struct rt_vcpu *rv, uint32_t seq, uint64_t until)
{
	if (rt_page_newer(rv, seq)) {
		rv->retime_seq = seq;
		rv->retime_until = until;
	}
}

/* rv's bit in one of the offer page's per-vCPU bitmaps, set (on) or cleared, then a full fence. */
static void rt_page_bit(uint64_t *words, const struct rt_vcpu *rv, bool on)
{
	uint64_t bit = 1ULL << (rv->id % 64);

	if (rv->id >= HOST_MAX_VM_VCPUS)
		return;
	if (on)
		__atomic_fetch_or(&words[rv->id / 64], bit, __ATOMIC_SEQ_CST);
	else
		__atomic_fetch_and(&words[rv->id / 64], ~bit, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

/*
 * rv's thread waits on its entry (on) or no longer (off), in the VMM's bit of the offer page
 * the daemon reads after it writes the entry (host_offer_parked()): while it is set, a grant
 * comes by the page alone. The full fences order the bit against the entry's reads that
 * follow, as the daemon's orders its write against the bit's read. Lock held.
 */
static void rt_page_parked(struct runtime *rt, struct rt_vcpu *rv, bool on)
{
	rv->page_parked = on;
	if (rt->offer)
		rt_page_bit(rt->offer->parked, rv, on);
}

/*
 * rv's thread goes into the guest (on) or has come out (off), in the VMM's in-guest bit of the
 * offer page (HOST_HELLO_GUEST) the daemon reads after it writes the entry: while it is set, a
 * PREEMPT the daemon kicked comes by the page alone. Set before the entry; cleared on the way
 * out before the entry is read (rt_page_exit()), with full fences, so a PREEMPT written
 * while the bit was seen set is read then. Lock held.
 */
void rt_page_guest(struct runtime *rt, struct rt_vcpu *rv, bool on)
{
	if (rt->offer)
		rt_page_bit(rt->offer->guest, rv, on);
}

/*
 * rv's thread stops waiting on its entry: the bit goes, then the entry is read again, since
 * a grant written while the bit was set came by the page alone (no datagram will follow),
 * whatever woke the thread. An entry being written is the daemon's after the bit's read: its
 * datagram follows. Lock held.
 */
static void rt_page_unpark(struct runtime *rt, struct rt_vcpu *rv)
{
	struct host_grant e;
	uint32_t seq;

	rt_page_parked(rt, rv, false);
	if (rt->page && !rt_hands_off(rt) && rt_page_read(&rt->page[rv->id], &e, &seq))
		rt_page_take(rt, rv, &e);
}

/*
 * rv's thread is about to ask for a lane and wait for it (rt_enter()): parked before its
 * RUNNABLE is queued, which another thread's send may take at once, and through the steal-time
 * park made with the lock dropped after it. Parked only at rt_page_wait(), a grant the daemon
 * decided in between went as a datagram too and woke the agent for nothing. The same where the
 * RUNNABLE is queued before the thread's entry: a lent vCPU's at its exit (rt_charge()), a
 * sleeper's by the waker (rt_xwait.c). The bit promises only that the entry is read again after
 * it is cleared, which rt_page_wait() or rt_page_park_end() does: at the entry, and before a
 * sleep or the thread's end (while it is still waiting: a grant it took goes back with the
 * BLOCKED as the lane's release). Lock held.
 */
void rt_page_park(struct runtime *rt, struct rt_vcpu *rv)
{
	if (rt->page && !rt_hands_off(rt))
		rt_page_parked(rt, rv, true);
}

/* rt_enter()'s wait is over, or the thread sleeps or ends without one: still parked (no wait
 * ran: an offer taken, a fallback), unparked and the entry read again. Lock held. */
void rt_page_park_end(struct runtime *rt, struct rt_vcpu *rv)
{
	if (rv->page_parked)
		rt_page_unpark(rt, rv);
}

/*
 * Before rv enters the guest: a backend that can watch memory takes it out when the daemon
 * writes its entry past the decision applied (an entry newer already: at once). Lock held.
 */
void rt_page_watch(struct runtime *rt, struct rt_vcpu *rv)
{
	struct vcpu *vcpu = rv->vcpu;

	if (!rt->page || rt_hands_off(rt)) {
		__atomic_store_n(&vcpu->exit_word, NULL, __ATOMIC_RELEASE);
		return;
	}
	vcpu->exit_val = rv->seq_applied;
	__atomic_store_n(&vcpu->exit_word, &rt->page[rv->id].seq, __ATOMIC_RELEASE);
}

/*
 * Out of the guest, a lane holder: a decision the daemon wrote meanwhile (the thread backend
 * left for it) is applied now, before the agent's copy arrives (which it then skips). An entry
 * the daemon is writing is left to the agent. Lock held.
 */
void rt_page_exit(struct runtime *rt, struct rt_vcpu *rv)
{
	struct host_grant e;
	uint32_t seq;

	if (rt->page && !rt_hands_off(rt) && rv->state == RT_RUNNING &&
	    rt_page_read(&rt->page[rv->id], &e, &seq))
		rt_page_take(rt, rv, &e);
}

bool rt_page_entry(struct runtime *rt, const struct rt_vcpu *rv, struct host_grant *e)
{
	uint32_t seq;

	return rt->page && rt_page_read(&rt->page[rv->id], e, &seq);
}

bool rt_page_apply(struct runtime *rt, struct rt_vcpu *rv, uint32_t *seq)
{
	struct host_grant e;

	if (!rt->page || !rt_page_read(&rt->page[rv->id], &e, seq))
		return false;
	rt_page_take(rt, rv, &e);
	return true;
}

/*
 * A vCPU waiting for a lane: takes a grant from the page, else sleeps (lock dropped) until the
 * daemon writes its entry or the VMM wakes it (rt_vcpu_wake()). Parked meanwhile (its bit
 * set): the daemon's grant comes by the page alone. The caller looks again.
 */
void rt_page_wait(struct runtime *rt, struct rt_vcpu *rv)
{
	const struct host_grant *g = &rt->page[rv->id];
	struct futex_waitv w[2 + RT_XHAND_PARK_MAX] = {
		{ .uaddr = (uintptr_t)&g->seq, .flags = FUTEX_32 },
		{ .uaddr = (uintptr_t)&rv->wake_word, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
	};
	struct host_grant e;
	unsigned int n = 2;
	uint64_t until = 0;
	uint32_t seq;

	rt_page_parked(rt, rv, true);
	/* A grant from a slice end to come (rt_ahead.c) is waited for here until then. */
	if (rt_page_read(g, &e, &seq) && rt_page_newer(rv, e.seq) &&
	    !(until = rt_ahead_wait(rt, rv, &e))) {
		rt_page_unpark(rt, rv);	/* takes it, or a newer one: the caller looks again */
		return;
	}
	/* Another VM's release this vCPU succeeds (rt_xhand.c): its word read first, then a claim
	 * made already taken; a claim after that read wakes this thread, which takes it. */
	if (!until)
		n += rt_xhand_park(rt, rv, &w[2]);
	if (!until && rt_xhand_take(rt, rv)) {
		rv->xwatch = false;
		rt_page_unpark(rt, rv);
		return;
	}
	w[0].val = seq;
	w[1].val = rv->wake_word;
	rv->page_waiting = true;
	rt_unlock(rt);
	rt_futex_waitv_until(w, n, until);
	mutex_lock(rt->lock);
	rv->page_waiting = false;
	rt_xhand_unpark(rt, rv);
	rt_page_unpark(rt, rv);
}

/* Wakes rv's thread from a wait on its condition variable or in rt_page_wait(). Lock held. */
void rt_vcpu_wake(struct rt_vcpu *rv)
{
	pthread_cond_broadcast(&rv->cond);
	if (!rv->page_waiting)
		return;
	__atomic_add_fetch(&rv->wake_word, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &rv->wake_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
