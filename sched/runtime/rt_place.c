// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime's own SCHED_FIFO threads (the helper, host mode's agent and waker) off the lanes'
 * CPUs. Floating, a SCHED_FIFO thread is woken on the CPU it last ran on whenever it can preempt
 * what runs there (a lane holder is SCHED_OTHER), so one that once landed on a lane's CPU stayed
 * there for the VMM's life and preempted that lane's holder at each wake-up: at a slice end the
 * holder's exit, its RAN and the successor's start waited for it (a holder waited 3 ms;
 * docs/history/host-log.md, "the slice row's slow mode"). Where the process's mask has CPUs no
 * lane uses, these threads run there, as the daemon does (host_pin_daemon()).
 *
 * The lanes' CPUs: embedded, those of rt->lane_cpu, over which the lanes rotate. In host mode
 * the daemon's, known from what its GRANTs and PINs name (rt_pin_host()): its lanes rotate over
 * its CPUs, so every CPU a lane was seen on is a lane's CPU for good, not only the ones this VM's
 * vCPUs hold now. Those learnt so far are left out; a new one moves the threads once more.
 *
 * Where no CPU is off the lanes (a VM on every CPU), they float over the mask. Each lane's CPU
 * is every lane's in turn (the rotation), so no one CPU hurts a lane less for long; and a
 * floating FIFO thread woken where a real-time thread of its priority or higher runs (another
 * VMM's helper) is placed by the kernel on a CPU that runs none, which a pin would forbid.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt.h"

unsigned int rt_place_off(const cpu_set_t *mask, const cpu_set_t *lanes, cpu_set_t *off)
{
	unsigned int n;

	CPU_XOR(off, mask, lanes);
	CPU_AND(off, off, mask);
	n = (unsigned int)CPU_COUNT(off);
	if (!n)
		memcpy(off, mask, sizeof(*off));
	return n;
}

static int rt_place_set(struct runtime *rt, pid_t tid, const cpu_set_t *set)
{
	int err;

	if (!sched_setaffinity(tid, sizeof(*set), set))
		return 0;
	err = errno;
	/* Only slower where it fails (a cpuset changed under the VMM): said once. */
	if (!rt->place_warned)
		fprintf(stderr, "vsched: the runtime's threads stay where they were (%s)\n",
			strerror(err));
	rt->place_warned = true;
	return -err;
}

/* The lanes' CPUs changed: the threads that run move. Lock held. */
static void rt_place_apply(struct runtime *rt)
{
	unsigned int t;
	cpu_set_t set;

	rt_place_off(&rt->host_cpus, &rt->place_lanes, &set);
	if (CPU_EQUAL(&set, &rt->place_set))
		return;
	rt->place_set = set;
	for (t = 0; t < RT_PLACE_NR; t++)
		if (rt->place_tid[t] > 0)
			rt_place_set(rt, rt->place_tid[t], &set);
}

void rt_place_init(struct runtime *rt)
{
	CPU_ZERO(&rt->place_lanes);
	rt->place_set = rt->host_cpus;
}

/* Embedded: the lanes are on rt->lane_cpu (rt_pin_init(), before the threads start). */
void rt_place_lanes(struct runtime *rt)
{
	unsigned int l;

	CPU_ZERO(&rt->place_lanes);
	for (l = 0; rt->lane_cpu && l < rt->nr_lanes; l++)
		if (rt->lane_cpu[l] >= 0 && rt->lane_cpu[l] < CPU_SETSIZE)
			CPU_SET(rt->lane_cpu[l], &rt->place_lanes);
	rt_place_apply(rt);
}

/* Host mode: a lane of the daemon's runs on cpu (-1: it floats). Lock held. */
void rt_place_seen(struct runtime *rt, int cpu)
{
	if (cpu < 0 || cpu >= CPU_SETSIZE || CPU_ISSET(cpu, &rt->place_lanes))
		return;
	CPU_SET(cpu, &rt->place_lanes);
	rt_place_apply(rt);
}

/* No lanes of ours any more (a fallback): the threads float, as the vCPUs. Lock held. */
void rt_place_reset(struct runtime *rt)
{
	CPU_ZERO(&rt->place_lanes);
	rt_place_apply(rt);
}

/*
 * The calling thread, t, as it starts (lock not held): it runs where rt_place_apply() says. It
 * clears its place_tid[] itself under the lock as it ends: its TID may be another thread's next.
 */
void rt_place_join(struct runtime *rt, enum rt_place_thread t)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);

	mutex_lock(rt->lock);
	rt->place_tid[t] = tid;
	if (!CPU_EQUAL(&rt->place_set, &rt->host_cpus))
		rt_place_set(rt, tid, &rt->place_set);
	rt_unlock(rt);
}

