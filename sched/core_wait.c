// SPDX-License-Identifier: GPL-2.0
/*
 * Per-vCPU waits for a lane, for vsched.vcpu.stat (state, wait time, wait histogram). A wait is
 * what the runtime sees: from the decision that leaves a runnable vCPU without a lane (it wakes,
 * or is preempted) to the decision that gives it one, or to its blocking. Measured on the core's
 * clock, so the simulator and the runtime count the same thing.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "internal.h"

unsigned int sched_wait_bucket(uint64_t ns)
{
	double b;

	if (ns < 1000)
		return 0;
	b = floor(4.0 * log2((double)ns / 1000.0)) + 1.0;
	return b >= SCHED_WAIT_BUCKETS - 1 ? SCHED_WAIT_BUCKETS - 1 : (unsigned int)b;
}

uint64_t sched_wait_bucket_ceil_ns(unsigned int b)
{
	return (uint64_t)(1000.0 * exp2((double)b / 4.0) + 0.5);
}

void core_wait_begin(struct vcpu_core *vc, uint64_t now)
{
	if (vc->wait_start == SCHED_TIME_NONE)
		vc->wait_start = now;
}

void core_wait_end(struct vcpu_core *vc, uint64_t now)
{
	uint64_t ns;

	if (vc->wait_start == SCHED_TIME_NONE)
		return;
	ns = now > vc->wait_start ? now - vc->wait_start : 0;
	vc->wait.wait_ns += ns;
	vc->wait.nr_waits++;
	vc->wait.hist[sched_wait_bucket(ns)]++;
	vc->wait_start = SCHED_TIME_NONE;
}

int sched_vcpu_wait(const struct sched *s, unsigned int id, uint64_t now_ns,
		    struct sched_wait *out)
{
	const struct vcpu_core *vc;

	if (id >= s->nr_vcpus)
		return -ESRCH;
	vc = &s->core.vcpus[id];
	*out = vc->wait;
	if (vc->wait_start != SCHED_TIME_NONE && now_ns > vc->wait_start)
		out->wait_ns += now_ns - vc->wait_start;
	return 0;
}

const char *sched_vcpu_state(const struct sched *s, unsigned int id)
{
	const struct vcpu_core *vc;

	if (id >= s->nr_vcpus)
		return "idle";
	vc = &s->core.vcpus[id];
	if (vc->told_lane >= 0)
		return "running";
	if (!vc->runnable)
		return "idle";
	return sched_vcpu_throttled(s, id) ? "throttled" : "waiting";
}
