// SPDX-License-Identifier: GPL-2.0
/*
 * Host mode: the CPU the VMM's threads other than its vCPUs' use (the agent, the helper, the
 * waker, device and main threads), reported to the daemon (HOST_MSG_OTHER), which charges it
 * to the VM group as the kernel charges a cgroup every thread in it (host/host_other.c).
 *
 * Measured as the process's CPU clock less each vCPU thread's CPU clock (every vCPU thread's
 * whole life is its vCPU's, rt_account.c): whatever thread the VMM adds is counted without
 * being named. The process clock is read first, so a vCPU's time that runs on while the clocks
 * are read shows as less, never more; what a read misses comes with a later one (only a total
 * above the last one reported is sent). The user/system split follows the process's rusage
 * less its vCPU threads' last samples. Sent with the helper's reports of running vCPUs every
 * RT_OTHER_NS: a VM none of whose vCPUs runs sends none, and its threads' CPU comes with its
 * next run (the daemon allows what the elapsed time allows, up to 10 s).
 */
#include <sys/resource.h>
#include <time.h>

#include "host/proto.h"
#include "rt.h"

/* The other threads' CPU so far, ns: the process's clock less its vCPU threads'. */
static uint64_t rt_other_cpu(const struct runtime *rt)
{
	uint64_t proc, vcpus = 0, ns;
	unsigned int i;

	if (time_clock_ns(CLOCK_PROCESS_CPUTIME_ID, &proc))
		return 0;
	for (i = 0; i < rt->nr_vcpus; i++) {
		const struct rt_vcpu *rv = &rt->v[i];

		/* Not started (0) or ended: what it was charged, its whole life (rt_account.c). */
		ns = rv->state == RT_OFF ? rv->clock_charged : rt_vcpu_clock(rv);
		vcpus += ns;
	}
	return proc > vcpus ? proc - vcpus : 0;
}

/* getrusage()'s user and system time of the process less its vCPU threads' last samples. */
static void rt_other_rusage(const struct runtime *rt, uint64_t *user, uint64_t *sys)
{
	uint64_t u = 0, s = 0;
	struct rusage ru;
	unsigned int i;

	*user = *sys = 0;
	if (getrusage(RUSAGE_SELF, &ru))
		return;
	for (i = 0; i < rt->nr_vcpus; i++) {
		u += rt->v[i].ru_user;
		s += rt->v[i].ru_sys;
	}
	*user = time_tv_to_ns(&ru.ru_utime) > u ? time_tv_to_ns(&ru.ru_utime) - u : 0;
	*sys = time_tv_to_ns(&ru.ru_stime) > s ? time_tv_to_ns(&ru.ru_stime) - s : 0;
}

/* Joined (again): what the other threads used before is no group's. Lock held. */
void rt_other_join(struct runtime *rt, uint64_t now)
{
	rt->other_sent = rt_other_cpu(rt);
	rt_other_rusage(rt, &rt->other_user, &rt->other_sys);
	rt->other_at = now + RT_OTHER_NS;
}

/* With the helper's report: OTHER, if RT_OTHER_NS passed and they used anything. Lock held. */
void rt_other_report(struct runtime *rt, uint64_t now)
{
	uint64_t cpu, u, s, du, ds, user;

	if (!rt_remote_joined(rt) || now < rt->other_at)
		return;
	rt->other_at = now + RT_OTHER_NS;
	cpu = rt_other_cpu(rt);
	if (cpu <= rt->other_sent)
		return;
	rt_other_rusage(rt, &u, &s);
	du = u > rt->other_user ? u - rt->other_user : 0;
	ds = s > rt->other_sys ? s - rt->other_sys : 0;
	/* The host's split moves in ticks: the last one stands until a tick shows up. */
	if (du + ds) {
		rt->other_frac = (double)du / (double)(du + ds);
		rt->other_user = u;
		rt->other_sys = s;
	}
	cpu -= rt->other_sent;
	rt->other_sent += cpu;
	user = (uint64_t)((double)cpu * rt->other_frac);
	if (user > cpu)
		user = cpu;
	rt_remote_event(rt, HOST_MSG_OTHER, 0, user, cpu - user);
}
