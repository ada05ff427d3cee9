// SPDX-License-Identifier: GPL-2.0
/*
 * Lanes on host CPUs. Lane i is the i-th CPU of the process's affinity mask, and a vCPU granted
 * lane i is pinned there before it is woken; while it waits for a lane it is SCHED_BATCH
 * (rt_pin_batch()). Without this the host kernel places the woken vCPU
 * thread by its own rules: usually on the CPU it last ran on, where another lane holder is in
 * KVM_RUN, while the CPU the preempted vCPU leaves goes idle until the next load balance
 * (measured here: 15 % of two CPUs idle with 4 hogs on 2 lanes, docs/runtime.md).
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "rt.h"

int rt_pin_init(struct runtime *rt)
{
	unsigned int cpu, n = 0;

	rt->lane_cpu = NULL;
	/* Only threads of the ordinary policy switch to SCHED_BATCH and back (not under chrt). */
	rt->batch_ok = sched_getscheduler(0) == SCHED_OTHER;
	if (sched_getaffinity(0, sizeof(rt->host_cpus), &rt->host_cpus))
		return -errno;
	if ((unsigned int)CPU_COUNT(&rt->host_cpus) < rt->nr_lanes)
		return 0;	/* more lanes than CPUs: the host kernel places the threads */
	rt->lane_cpu = calloc(rt->nr_lanes, sizeof(*rt->lane_cpu));
	if (!rt->lane_cpu)
		return -ENOMEM;
	for (cpu = 0; cpu < CPU_SETSIZE && n < rt->nr_lanes; cpu++)
		if (CPU_ISSET(cpu, &rt->host_cpus))
			rt->lane_cpu[n++] = (int)cpu;
	return 0;
}

void rt_pin_exit(struct runtime *rt)
{
	free(rt->lane_cpu);
	rt->lane_cpu = NULL;
}

/* Before a vCPU is woken onto lane: on a sleeping thread this only changes its mask. */
void rt_pin_lane(struct runtime *rt, struct rt_vcpu *rv, unsigned int lane)
{
	cpu_set_t set;
	int cpu;

	if (!rt->lane_cpu || lane >= rt->nr_lanes || rv->tid <= 0)
		return;
	cpu = rt->lane_cpu[lane];
	if (rv->cpu == cpu)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(rv->tid, sizeof(set), &set)) {
		rv->cpu = cpu;
		rt->st.migrations++;
	}
}

/*
 * A vCPU waiting for a lane is SCHED_BATCH, whose wake-ups do not preempt: granted the lane of a
 * vCPU still leaving it on the same CPU, it runs when that one blocks a few microseconds later.
 * (A preempting wake-up cost two more host context switches per handoff and could leave the
 * preempted vCPU runnable behind a guest for a host tick.) A vCPU going into a paravirtual
 * sleep, or halted with its lane lent, is SCHED_OTHER again: its own wake-up must preempt the
 * lane holder on its CPU at once, so the core hears of it without delay.
 */
void rt_pin_batch(struct runtime *rt, struct rt_vcpu *rv, bool batch)
{
	struct sched_param sp = { 0 };

	if (!rt->lane_cpu || !rt->batch_ok || rv->batch == batch || rv->tid <= 0)
		return;
	if (!sched_setscheduler(rv->tid, batch ? SCHED_BATCH : SCHED_OTHER, &sp))
		rv->batch = batch;
}

/* Host scheduling again (the watchdog's fallback): every vCPU may run anywhere it could before. */
void rt_pin_release(struct runtime *rt)
{
	unsigned int i;

	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		rt_pin_batch(rt, rv, false);
		if (rv->cpu >= 0 && rv->tid > 0)
			sched_setaffinity(rv->tid, sizeof(rt->host_cpus), &rt->host_cpus);
		rv->cpu = -1;
	}
	rt_pin_exit(rt);
}
