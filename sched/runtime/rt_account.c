// SPDX-License-Identifier: GPL-2.0
/*
 * Charging from the vCPU thread's own CPU clock. The core gets every charge at once (usage is
 * exact); the user/system split of a charge follows the proportion the host reported for this
 * thread (getrusage(RUSAGE_THREAD)) over the last sample, refreshed every millisecond of charged
 * time so a busy exit path does not pay a system call per exit.
 */
#include <sys/resource.h>

#include "rt.h"

static void rt_rusage(uint64_t *user, uint64_t *sys)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru)) {
		*user = *sys = 0;
		return;
	}
	*user = time_tv_to_ns(&ru.ru_utime);
	*sys = time_tv_to_ns(&ru.ru_stime);
}

uint64_t rt_vcpu_clock(const struct rt_vcpu *rv)
{
	uint64_t ns;

	if (time_clock_ns(rv->cpu_clock, &ns))
		return rv->clock_charged;
	return ns;
}

/*
 * The thread's whole life is the vCPU's, as a thread created in a cgroup is charged from its
 * first instruction: its setup (timers, perf events; milliseconds on a fresh host) is charged
 * with the first exit, and user/system with it from the host's first sample.
 */
void rt_account_start(struct rt_vcpu *rv)
{
	rv->clock_charged = 0;
	rv->since_sample = 0;
	rv->user_frac = 1.0;	/* guest time is user time until the host says otherwise */
	rv->ru_user = rv->ru_sys = 0;
}

/* Splits cpu_ns into user and system time; self: on the vCPU thread, which may sample. */
void rt_account_split(struct rt_vcpu *rv, uint64_t cpu_ns, bool self, uint64_t *user,
		      uint64_t *sys)
{
	rv->since_sample += cpu_ns;
	if (self && rv->since_sample >= RT_RUSAGE_EVERY_NS) {
		uint64_t u, s, du, ds;

		rt_rusage(&u, &s);
		du = u > rv->ru_user ? u - rv->ru_user : 0;
		ds = s > rv->ru_sys ? s - rv->ru_sys : 0;
		/* The host's split moves in ticks; keep the last one until a tick shows up. */
		if (du + ds)
			rv->user_frac = (double)du / (double)(du + ds);
		rv->ru_user = u;
		rv->ru_sys = s;
		rv->since_sample = 0;
	}
	*user = (uint64_t)((double)cpu_ns * rv->user_frac);
	if (*user > cpu_ns)
		*user = cpu_ns;
	*sys = cpu_ns - *user;
}

/*
 * Tells the core everything the thread's CPU clock shows up to clock, once: the vCPU thread
 * itself at each exit, the helper for vCPUs that stay inside KVM_RUN. Lock held.
 */
void rt_charge_upto(struct runtime *rt, struct rt_vcpu *rv, uint64_t clock, bool self,
		    uint64_t now)
{
	uint64_t user, sys;

	assert_held(rt->lock);
	if (clock <= rv->clock_charged)
		return;
	rt_account_split(rv, clock - rv->clock_charged, self, &user, &sys);
	rv->clock_charged = clock;
	rt_core_ran(rt, rv->id, user, sys, now);
}

/*
 * A vCPU nobody interrupts stays inside KVM_RUN for seconds. Its time is charged when someone
 * looks or decides: before every public-API read or change (the vsched clock hook, runtime.c)
 * and before the core decides at a slice end, a wake-up or a timer (rt_core.c), as the
 * kernel's update_curr() runs before a cpu.stat read, a reweight, a wake-up preemption or a
 * period refill. (A 10 ms top-up did this before: 100 helper wake-ups a second, each
 * preempting a vCPU on this host.)
 */
void rt_charge_running(struct runtime *rt, uint64_t now)
{
	unsigned int i;

	assert_held(rt->lock);
	for (i = 0; i < rt->nr_vcpus; i++) {
		struct rt_vcpu *rv = &rt->v[i];

		if (rv->in_guest)
			rt_charge_upto(rt, rv, rt_vcpu_clock(rv), false, now);
	}
}
