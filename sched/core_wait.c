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

/*
 * Bucket b >= 1 holds waits of [2^((b - 1) / 4), 2^(b / 4)) us, bucket 0 those under 1 us and
 * the last everything above: b = floor(4 * log2(ns / 1000)) + 1, capped. A wait ends at almost
 * every lane switch, and libm's log2 was half the cost of ending one, so the buckets' lower edges
 * are tabled: the smallest ns the floating formula puts in each bucket (test_core_wait.c checks
 * every edge against it: both give every ns the same bucket).
 */
static const uint64_t wait_edge[] = {
	0, 1000, 1190, 1415, 1682, 2000, 2379, 2829, 3364, 4000, 4757, 5657, 6728, 8000,
	9514, 11314, 13455, 16000, 19028, 22628, 26909, 32000, 38055, 45255, 53818,
	64000, 76110, 90510, 107635, 128000, 152219, 181020, 215270, 256000, 304438,
	362039, 430539, 512000, 608875, 724078, 861078, 1024000, 1217749, 1448155,
	1722156, 2048000, 2435497, 2896310, 3444312, 4096000, 4870993, 5792619, 6888624,
	8192000, 9741985, 11585238, 13777247, 16384000, 19483970, 23170476, 27554494,
	32768000, 38967939, 46340951, 55108988, 65536000, 77935878, 92681901, 110217975,
	131072000, 155871755, 185363801, 220435950, 262144000, 311743510, 370727601,
	440871900, 524288000, 623487020, 741455201, 881743800, 1048576000, 1246974040,
	1482910401, 1763487600, 2097152000, 2493948080, 2965820801, 3526975199,
	4194304000, 4987896160, 5931641602, 7053950397, 8388608000, 9975792319,
	11863283204,
};
_Static_assert(sizeof(wait_edge) / sizeof(wait_edge[0]) == SCHED_WAIT_BUCKETS, "an edge a bucket");

unsigned int sched_wait_bucket(uint64_t ns)
{
	unsigned int m, b;

	if (ns < 1000)
		return 0;
	/*
	 * 2^m <= ns < 2^(m + 1): the edge of bucket 4m - 39 + k is about 0.98 * 2^(m + k / 4),
	 * at or below 2^m (1 + k / 4) for k = 0..3. So the two bits below ns's top one (k) name
	 * a bucket at or below ns's, and ns's is that one or the next (every octave has four).
	 */
	m = 63 - (unsigned int)__builtin_clzll(ns);
	b = m > 10 ? 4 * m - 39 + (unsigned int)((ns >> (m - 2)) & 3) : 1;
	if (b > SCHED_WAIT_BUCKETS - 1)
		b = SCHED_WAIT_BUCKETS - 1;
	while (b + 1 < SCHED_WAIT_BUCKETS && wait_edge[b + 1] <= ns)
		b++;
	return b;
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
	vc->waited += ns;
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
