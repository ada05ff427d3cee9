// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode's grant page, the VMM's side (include/host/proto.h): the daemon's latest decision
 * about each vCPU, mapped read-only. A vCPU thread parked for a lane waits on its entry's futex
 * (and on a private word the VMM's own wake-ups bump) and applies a grant it finds there
 * itself: the daemon's wake-up reaches it directly, where the agent thread's receiving the
 * GRANT and signalling it cost a third host wake-up per decision.
 *
 * The agent still receives every decision on the socket (it kicks and re-times vCPUs inside
 * KVM_RUN); each carries the entry's seq after it, and whichever of the two paths comes second
 * skips a decision the other applied, or one the page has already moved past. What is read
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

#define RT_PAGE_READ_TRIES	64	/* a daemon stopped mid-write: wait on the futex */

static long rt_futex_waitv(struct futex_waitv *w, unsigned int n)
{
	return syscall(SYS_futex_waitv, w, n, 0, NULL, CLOCK_MONOTONIC);
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
		rt->v[i].seq_applied = 0;
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

/* The daemon is gone or the VM ends; parked threads were woken. Lock held. */
void rt_page_unmap(struct runtime *rt)
{
	if (rt->page)
		munmap((void *)rt->page, rt->page_len);
	rt->page = NULL;
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
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&g->seq, __ATOMIC_RELAXED) == *seq) {
			e->seq = *seq;
			return true;
		}
	}
	return false;
}

/* A grant the page holds for a waiting rv, applied as the agent would. Lock held. */
static void rt_page_take(struct runtime *rt, struct rt_vcpu *rv, const struct host_grant *e)
{
	if (!rt_page_newer(rv, e->seq))
		return;
	if (e->lane != HOST_LANE_NONE &&
	    (e->lane >= rt->nr_lanes || (e->cpu != HOST_CPU_NONE && e->cpu >= CPU_SETSIZE)))
		return;		/* garbage: the socket's copy of it loses the daemon */
	rv->seq_applied = e->seq;
	if (e->lane == HOST_LANE_NONE ||
	    rt_pin_host(rt, e->lane, e->cpu == HOST_CPU_NONE ? -1 : (int)e->cpu))
		return;
	rt_grant(rt, rv->id, e->lane, e->until == HOST_TIME_INF ? RT_INF : e->until);
}

/*
 * A vCPU waiting for a lane: takes a grant from the page, else sleeps (lock dropped) until the
 * daemon writes its entry or the VMM wakes it (rt_vcpu_wake()). The caller looks again.
 */
void rt_page_wait(struct runtime *rt, struct rt_vcpu *rv)
{
	const struct host_grant *g = &rt->page[rv->id];
	struct futex_waitv w[2] = {
		{ .uaddr = (uintptr_t)&g->seq, .flags = FUTEX_32 },
		{ .uaddr = (uintptr_t)&rv->wake_word, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG },
	};
	struct host_grant e;
	uint32_t seq;

	if (rt_page_read(g, &e, &seq)) {
		rt_page_take(rt, rv, &e);
		if (rv->state != RT_WAITING)
			return;
	}
	w[0].val = seq;
	w[1].val = rv->wake_word;
	rv->page_waiting = true;
	mutex_unlock(rt->lock);
	rt_futex_waitv(w, 2);
	mutex_lock(rt->lock);
	rv->page_waiting = false;
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
