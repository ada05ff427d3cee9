// SPDX-License-Identifier: GPL-2.0
/*
 * Lanes on host CPUs. Lane i is the i-th CPU of the process's affinity mask, and a vCPU granted
 * lane i is pinned there before it is woken. Without this the host kernel places the woken vCPU
 * thread by its own rules: usually on the CPU it last ran on, where another lane holder is in
 * KVM_RUN, while the CPU the preempted vCPU leaves goes idle until the next load balance
 * (measured here: 15 % of two CPUs idle with 4 hogs on 2 lanes, docs/runtime.md).
 *
 * The lanes also move over their CPUs (include/sched/rotate.h): every LANE_ROTATE_NS lane i
 * takes the CPU of lane i + 1 and its holder follows.
 *
 * In host mode the lanes are the daemon's: each GRANT names its lane's host CPU, and the vCPU
 * is pinned there the same way (rt_pin_host()). The daemon rotates them by the same rule and
 * tells each holder whose lane moved (PIN); a VMM does not rotate on its own clock, or two
 * holders of two VMs would share a CPU.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>

#include "rt.h"

int rt_pin_init(struct runtime *rt)
{
	unsigned int cpu, n = 0;

	rt->lane_cpu = NULL;
	if ((unsigned int)CPU_COUNT(&rt->host_cpus) < rt->nr_lanes)
		return 0;	/* more lanes than CPUs: the host kernel places the threads */
	rt->lane_cpu = calloc(rt->nr_lanes, sizeof(*rt->lane_cpu));
	if (!rt->lane_cpu)
		return -ENOMEM;
	for (cpu = 0; cpu < CPU_SETSIZE && n < rt->nr_lanes; cpu++)
		if (CPU_ISSET(cpu, &rt->host_cpus))
			rt->lane_cpu[n++] = (int)cpu;
	rt_place_lanes(rt);	/* the helper off them, where the mask has other CPUs */
	return 0;
}

/*
 * Host mode: the daemon says lane's CPU (-1: it floats) with each grant; the map is made at the
 * first one (again after a fallback released it). The runtime's own threads leave each CPU seen
 * (rt_place.c). Lock held.
 */
int rt_pin_host(struct runtime *rt, unsigned int lane, int cpu)
{
	unsigned int i;

	if (lane >= rt->nr_lanes)
		return -EINVAL;
	if (!rt->lane_cpu) {
		rt->lane_cpu = calloc(rt->nr_lanes, sizeof(*rt->lane_cpu));
		if (!rt->lane_cpu)
			return -ENOMEM;
		for (i = 0; i < rt->nr_lanes; i++)
			rt->lane_cpu[i] = -1;
	}
	rt->lane_cpu[lane] = cpu;
	rt_place_seen(rt, cpu);
	return 0;
}

/*
 * Host mode: the daemon's lanes moved over its CPUs (PIN): lane runs on cpu now, and rv, if it
 * still holds that lane here, follows at once. Lock held.
 */
int rt_pin_moved(struct runtime *rt, struct rt_vcpu *rv, unsigned int lane, int cpu)
{
	int ret = rt_pin_host(rt, lane, cpu);

	if (!ret && rv->state == RT_RUNNING && rv->lane == (int)lane && !rt_hands_off(rt))
		rt_pin_lane(rt, rv, lane);
	return ret;
}

void rt_pin_exit(struct runtime *rt)
{
	free(rt->lane_cpu);
	rt->lane_cpu = NULL;
}

/*
 * Before a vCPU is woken onto lane: on a sleeping thread this only changes its mask. In host
 * mode the daemon sets the mask too (HOST_HELLO_PIN: before its grant wakes the thread, also for
 * a grant this VMM never applies), so rv->cpu is only what this VMM last set, and the mask is
 * set every time (a call that changes nothing costs a system call, not a migration), but for a
 * grant whose page entry says the daemon pinned this thread there (HOST_CPU_PINNED).
 */
void rt_pin_lane(struct runtime *rt, struct rt_vcpu *rv, unsigned int lane)
{
	cpu_set_t set;
	int cpu;

	if (!rt->lane_cpu || lane >= rt->nr_lanes || rv->tid <= 0)
		return;
	rv->lane = (int)lane;
	cpu = lane_rotate_cpu(&rt->pin_rot, rt->lane_cpu, rt->nr_lanes, lane);
	if (cpu < 0 || (rv->cpu == cpu && !rt->remote))
		return;
	/* The daemon's pin for the grant its page entry holds (rt_page_take()). */
	if (rv->host_pinned == cpu + 1) {
		if (rv->cpu != cpu)
			rt->st.migrations++;
		rv->cpu = cpu;
		rt->st.host_pins++;
		return;
	}
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (!sched_setaffinity(rv->tid, sizeof(set), &set)) {
		if (rv->cpu != cpu)
			rt->st.migrations++;
		rv->cpu = cpu;
	}
}

/* Every LANE_ROTATE_NS (checked on the helper's passes): each lane moves one CPU on. */
void rt_pin_rotate(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	if (!rt->lane_cpu || rt->remote || !lane_rotate_due(&rt->pin_rot, rt->nr_lanes, now))
		return;
	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if ((rv->state == RT_RUNNING || rv->state == RT_LENT) && rv->lane >= 0)
			rt_pin_lane(rt, rv, (unsigned int)rv->lane);
	}
}

/*
 * Host mode: a vCPU that goes to sleep (it released its lane) floats over the process's CPUs
 * until its next grant pins it again (the daemon's, rt_pin_lane()). Left on its lane's CPU, its
 * wake-up queued behind that CPU's next holder, often another VM's vCPU in the guest, which the
 * host kernel did not preempt for it: the RUNNABLE that would have made it that holder's
 * successor left only once the holder released the lane, and the lane idled until the daemon
 * granted it (docs/host.md, "Handoffs across VMs"). Lock held.
 */
void rt_pin_float(struct runtime *rt, struct rt_vcpu *rv)
{
	if (!rt->remote || !rt->lane_cpu || rv->tid <= 0 || rv->cpu < 0)
		return;
	if (!sched_setaffinity(rv->tid, sizeof(rt->host_cpus), &rt->host_cpus))
		rv->cpu = -1;
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
	rt_place_reset(rt);
}
