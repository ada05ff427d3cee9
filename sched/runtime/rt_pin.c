// SPDX-License-Identifier: GPL-2.0
/*
 * Lanes on host CPUs. Lane i is the i-th CPU of the process's affinity mask, and a vCPU granted
 * lane i is pinned there before it is woken. Without this the host kernel places the woken vCPU
 * thread by its own rules: usually on the CPU it last ran on, where another lane holder is in
 * KVM_RUN, while the CPU the preempted vCPU leaves goes idle until the next load balance
 * (measured here: 15 % of two CPUs idle with 4 hogs on 2 lanes, docs/runtime.md).
 *
 * The lanes also move over their CPUs: every RT_PIN_ROTATE_NS lane i takes the CPU of lane
 * i + 1 and its holder follows. Whatever else the host runs on one CPU is then paid by every
 * lane in turn. Without it a vCPU owed a whole lane paid all of it on its CPU, and fair shares
 * cannot make that up (traced in overcommit: another process and kdamond took 1.8 % of the
 * owner's CPU over 2 s, none of the other CPU).
 *
 * In host mode the lanes are the daemon's: each GRANT names its lane's host CPU, and the vCPU
 * is pinned there the same way (rt_pin_host()). They do not rotate: the VMMs would each rotate
 * on their own clock and two holders would share a CPU meanwhile.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "rt.h"

int rt_pin_init(struct runtime *rt)
{
	unsigned int cpu, n = 0;

	rt->lane_cpu = NULL;
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

/*
 * Host mode: the daemon says lane's CPU (-1: it floats) with each grant; the map is made at the
 * first one (again after a fallback released it). The process's mask is taken then, from the
 * agent's thread, which is never pinned. Lock held.
 */
int rt_pin_host(struct runtime *rt, unsigned int lane, int cpu)
{
	unsigned int i;

	if (lane >= rt->nr_lanes)
		return -EINVAL;
	if (!rt->lane_cpu) {
		if (sched_getaffinity(0, sizeof(rt->host_cpus), &rt->host_cpus))
			return -errno;
		rt->lane_cpu = calloc(rt->nr_lanes, sizeof(*rt->lane_cpu));
		if (!rt->lane_cpu)
			return -ENOMEM;
		for (i = 0; i < rt->nr_lanes; i++)
			rt->lane_cpu[i] = -1;
	}
	rt->lane_cpu[lane] = cpu;
	return 0;
}

void rt_pin_exit(struct runtime *rt)
{
	free(rt->lane_cpu);
	rt->lane_cpu = NULL;
}

#define RT_PIN_ROTATE_NS	250000000ULL

/* Before a vCPU is woken onto lane: on a sleeping thread this only changes its mask. */
void rt_pin_lane(struct runtime *rt, struct rt_vcpu *rv, unsigned int lane)
{
	cpu_set_t set;
	int cpu;

	if (!rt->lane_cpu || lane >= rt->nr_lanes || rv->tid <= 0)
		return;
	rv->lane = (int)lane;
	cpu = rt->lane_cpu[(lane + rt->pin_shift) % rt->nr_lanes];
	if (cpu < 0 || rv->cpu == cpu)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(rv->tid, sizeof(set), &set)) {
		rv->cpu = cpu;
		rt->st.migrations++;
	}
}

/* Every RT_PIN_ROTATE_NS (checked on the helper's passes): each lane moves one CPU on. */
void rt_pin_rotate(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	if (!rt->lane_cpu || rt->remote || rt->nr_lanes < 2 || now < rt->pin_rotate_at)
		return;
	rt->pin_rotate_at = now + RT_PIN_ROTATE_NS;
	rt->pin_shift = (rt->pin_shift + 1) % rt->nr_lanes;
	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if ((rv->state == RT_RUNNING || rv->state == RT_LENT) && rv->lane >= 0)
			rt_pin_lane(rt, rv, (unsigned int)rv->lane);
	}
}

/* Host scheduling again (the watchdog's fallback): every vCPU may run anywhere it could before. */
void rt_pin_release(struct runtime *rt)
{
	unsigned int i;

	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if (rv->cpu >= 0 && rv->tid > 0)
			sched_setaffinity(rv->tid, sizeof(rt->host_cpus), &rt->host_cpus);
		rv->cpu = -1;
	}
	rt_pin_exit(rt);
}
