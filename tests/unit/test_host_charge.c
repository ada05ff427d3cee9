// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon charges other VMs' lane holders up to each decision (host/host_charge.c), as an
 * embedded runtime does with rt_charge_running(): a holder's VMM reports only at a slice end,
 * an exit or every RT_REPORT_NS, and the core deciding in between saw it as behind (a throttle
 * noticed late, picks on stale virtual time). Reports stay the truth: what was charged ahead
 * of them is paid back first. Time is driven (host_set_clock()).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "sched/core.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

static uint64_t charge_now;

static uint64_t charge_clock(void)
{
	return charge_now;
}

struct cvmm {
	int fd;
	struct host_client *c;
};

static int cvmm_ev(struct host *h, struct cvmm *m, uint32_t type, uint32_t vcpu, uint64_t a,
		   uint64_t b)
{
	return host_test_ev(h, m->c, type, vcpu, 0, a, b);
}

/* Joins VM name with one vCPU and cpu.max quota_us per 100 ms (UINT64_MAX: max). */
static void cvmm_join(struct host *h, struct cvmm *m, const char *name, uint64_t quota_us)
{
	m->fd = host_test_join(h, name, 1, quota_us, &m->c);
}

static void cvmm_leave(struct host *h, struct cvmm *m)
{
	vsched_lock(host_vsched(h));
	host_client_remove(h, m->c);
	vsched_unlock(host_vsched(h));
	close(m->fd);
}

static struct host *charge_host(unsigned int lanes)
{
	struct host_opts o = { .nr_lanes = lanes, .max_vcpus = 4 };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	/* The core never goes back: start the driven clock past the real one at creation. */
	charge_now = time_mono_ns() + NSEC_PER_SEC;
	host_set_clock(h, charge_clock);
	return h;
}

/* Another VM's event charges a's holder its wall time on the lane; a's reports pay it back. */
static void test_host_charge_holders(void)
{
	struct host *h = charge_host(2);
	struct cvmm a, b;

	cvmm_join(h, &a, "a", UINT64_MAX);
	cvmm_join(h, &b, "b", UINT64_MAX);
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);	/* granted */
	charge_now += 5 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(cvmm_ev(h, &b, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 5000);
	/* Deciding again at the same time charges nothing more: at most the wall time held. */
	CU_ASSERT_EQUAL(cvmm_ev(h, &b, HOST_MSG_TICK, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(cvmm_ev(h, &b, HOST_MSG_TICK, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 5000);
	/* a reports 6 ms at 6 ms: 5 were charged ahead, 1 more now. */
	charge_now += NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, 6000000, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 6000);
	/* 4 ms on the lane, then a report of 3 (its CPU was busy elsewhere): 1 ms stays ahead... */
	charge_now += 4 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(cvmm_ev(h, &b, HOST_MSG_TICK, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 10000);
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, 3000000, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 10000);
	/* ...and the next report pays it back first: reported 9 ms + 2 ms = what is charged. */
	charge_now += 2 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, 1500000, 500000), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 11000);
	/* Off its lane a vCPU is charged only what it reports. */
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_BLOCKED, 0, 0, 0), 0);
	charge_now += 10 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(cvmm_ev(h, &b, HOST_MSG_TICK, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 11000);
	cvmm_leave(h, &a);
	cvmm_leave(h, &b);
	host_destroy(h);
}

/*
 * A capped VM's holder that ran past its quota is throttled at the next decision, whoever's
 * event it is, and its lane goes to the one waiting: before, the core saw the quota unused
 * until the holder's own report, and the other VM waited meanwhile.
 */
static void test_host_charge_throttle(void)
{
	struct host *h = charge_host(1);
	struct sched *s = vsched_sched(host_vsched(h));
	struct cvmm c, f;
	struct host_ev ev;

	cvmm_join(h, &c, "c", 10000);		/* 10 ms per 100 ms */
	cvmm_join(h, &f, "f", UINT64_MAX);
	CU_ASSERT_EQUAL(cvmm_ev(h, &c, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(cvmm_ev(h, &f, HOST_MSG_RUNNABLE, 0, 0, 0), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 0);	/* c holds the lane, f waits */
	vsched_unlock(host_vsched(h));
	charge_now += 12 * NSEC_PER_MSEC;
	CU_ASSERT_EQUAL(cvmm_ev(h, &f, HOST_MSG_TICK, 0, 0, 0), 0);
	vsched_lock(host_vsched(h));
	CU_ASSERT_TRUE(sched_vcpu_throttled(s, 0));
	CU_ASSERT_EQUAL(sched_lane_vcpu(s, 0), 1);
	vsched_unlock(host_vsched(h));
	while (recv(c.fd, &ev, sizeof(ev), MSG_DONTWAIT) == sizeof(ev) &&
	       ev.type != HOST_MSG_PREEMPT)
		;
	CU_ASSERT_EQUAL(ev.type, HOST_MSG_PREEMPT);
	cvmm_leave(h, &c);
	cvmm_leave(h, &f);
	host_destroy(h);
}

/*
 * A vCPU that really ran 12 s without a report (its helper held off its CPU, the daemon itself
 * stalled) reports it in one RAN: charged, not garbage, also where the daemon reads it right
 * after an earlier report it read late. More than the vCPU could have run since its join, its
 * reports so far included, is still garbage: its VMM is hung up on.
 */
static void test_host_charge_long_report(void)
{
	struct host *h = charge_host(1);
	struct cvmm a;

	cvmm_join(h, &a, "a", UINT64_MAX);
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RUNNABLE, 0, 0, 0), 0);	/* granted */
	charge_now += 12 * NSEC_PER_SEC;
	/* A report sent before the stall, read after it; then the 12 s at once. */
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, 5 * NSEC_PER_MSEC, 0), 0);
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, 11 * NSEC_PER_SEC,
				NSEC_PER_SEC - 5 * NSEC_PER_MSEC), 0);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 12000000);
	/* Within HOST_RAN_MAX_NS, as always: 10 s more, charged, though not run. */
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, HOST_RAN_MAX_NS, 0), 0);
	/* Above it and beyond its life (12 s, 10 s of slack) with what it reported (22 s). */
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, HOST_RAN_MAX_NS + 1, 0), -ERANGE);
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, 0, UINT64_MAX), -ERANGE);
	CU_ASSERT_EQUAL(cvmm_ev(h, &a, HOST_MSG_RAN, 0, UINT64_MAX, UINT64_MAX), -ERANGE);
	CU_ASSERT_EQUAL(host_test_usage_us(h, "/machine/a"), 22000000);
	cvmm_leave(h, &a);
	host_destroy(h);
}

static CU_TestInfo host_charge_tests[] = {
	{ "holders are charged up to a decision; reports pay it back",
	  test_host_charge_holders },
	{ "a holder past its quota is throttled at another VM's event",
	  test_host_charge_throttle },
	{ "a RAN above HOST_RAN_MAX_NS the vCPU could have run is charged, not garbage",
	  test_host_charge_long_report },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_charge", host_charge_tests);
