// SPDX-License-Identifier: GPL-2.0
/*
 * The daemon's decisions leave once per event (host/host_lanes.c, host_flush()): queued while
 * it decides, one sendmmsg() per VMM at the end, and a RETIME that a later decision about the
 * same vCPU replaces within the event is not sent. The core re-times a capped partition's
 * holders at each charge (the holders charged at decision time, then the event's own report),
 * so one event re-timed a holder two or three times: each a datagram and most a wake-up of the
 * VMM's agent (docs/host.md, "Capacity: the daemon's datagrams"). Time is driven.
 */
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "test.h"
#include "util/time.h"
#include "vsched.h"

#define FL_VMS		4
#define FL_VCPUS	2

static uint64_t fl_now;

static uint64_t fl_clock(void)
{
	return fl_now;
}

struct fl_vm {
	struct host_client *c;
	int fd;
	bool holds[FL_VCPUS];
	uint64_t until[FL_VCPUS], since[FL_VCPUS];
};

/* Reads what the daemon sent vm as a VMM applies it; the most RETIMEs of one vCPU. */
static unsigned int fl_read(struct fl_vm *vm, unsigned int *dgrams)
{
	unsigned int retimes[FL_VCPUS] = { 0 }, max = 0;
	struct host_ev ev;

	while (recv(vm->fd, &ev, sizeof(ev), MSG_DONTWAIT) == sizeof(ev)) {
		if (ev.vcpu >= FL_VCPUS)
			continue;
		if (ev.type == HOST_MSG_GRANT) {
			vm->holds[ev.vcpu] = true;
			vm->since[ev.vcpu] = fl_now;
			vm->until[ev.vcpu] = ev.a;
		} else if (ev.type == HOST_MSG_PREEMPT) {
			vm->holds[ev.vcpu] = false;
		} else if (ev.type == HOST_MSG_RETIME) {
			vm->until[ev.vcpu] = ev.a;
			if (++retimes[ev.vcpu] > max)
				max = retimes[ev.vcpu];
		} else {
			continue;
		}
		(*dgrams)++;
	}
	return max;
}

static unsigned int fl_read_all(struct fl_vm *vms, unsigned int *dgrams)
{
	unsigned int i, n, max = 0;

	for (i = 0; i < FL_VMS; i++)
		if ((n = fl_read(&vms[i], dgrams)) > max)
			max = n;
	return max;
}

/*
 * bench-host's partition with driven time: three VMs of two hogs in a group capped "50000
 * 100000" (weight 200) beside an uncapped VM of two, 2 lanes. Each holder reports 95 % of its
 * wall time at its slice end (RAN, TICK) as a VMM does, and applies what the daemon sends it in
 * those events (its until was forgotten after them: a RETIME to a 50 us bandwidth end got lost);
 * the daemon's timer runs every step. Without the timer, a moment where the three capped groups
 * were throttled together and f's two vCPUs held both lanes (nobody waiting: no slice end) had
 * no event left to refill them, and the test stalled there (386 events in 2000 steps with a
 * refill that handed back any lane taken from its group, docs/scheduler.md §4). At most one
 * RETIME per vCPU and event.
 */
static void test_host_flush_retime(void)
{
	struct host_opts o = { .nr_lanes = 2, .max_vcpus = 16 };
	unsigned int i, j, k, worst = 0, n, dgrams = 0, events = 0;
	struct fl_vm vms[FL_VMS] = { { 0 } };
	struct host *h = NULL;
	char name[8];

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	fl_now = time_mono_ns() + NSEC_PER_SEC;
	host_set_clock(h, fl_clock);
	for (i = 0; i < FL_VMS; i++) {
		snprintf(name, sizeof(name), "%c%u", i < 3 ? 'c' : 'f', i);
		vms[i].fd = host_test_join(h, name, FL_VCPUS, i < 3 ? 50000 : UINT64_MAX,
					   &vms[i].c);
	}
	for (i = 0; i < FL_VMS; i++)
		for (j = 0; j < FL_VCPUS; j++) {
			CU_ASSERT_EQUAL(host_test_ev(h, vms[i].c, HOST_MSG_RUNNABLE, j, 0, 0, 0), 0);
			fl_read_all(vms, &dgrams);
		}
	for (k = 0; k < 2000; k++) {
		uint64_t next = fl_now + NSEC_PER_MSEC;

		for (i = 0; i < FL_VMS; i++)
			for (j = 0; j < FL_VCPUS; j++)
				if (vms[i].holds[j] && vms[i].until[j] > fl_now &&
				    vms[i].until[j] < next)
					next = vms[i].until[j];
		fl_now = next;
		for (i = 0; i < FL_VMS; i++)
			for (j = 0; j < FL_VCPUS; j++) {
				struct fl_vm *vm = &vms[i];

				if (!vm->holds[j] || vm->until[j] > fl_now)
					continue;
				vm->until[j] = UINT64_MAX;	/* runs on until told */
				CU_ASSERT_EQUAL(host_test_ev(h, vm->c, HOST_MSG_RAN, j, 0,
							     (fl_now - vm->since[j]) * 95 / 100,
							     0), 0);
				vm->since[j] = fl_now;
				if ((n = fl_read_all(vms, &dgrams)) > worst)
					worst = n;
				CU_ASSERT_EQUAL(host_test_ev(h, vm->c, HOST_MSG_TICK, 0, 0, 0, 0), 0);
				if ((n = fl_read_all(vms, &dgrams)) > worst)
					worst = n;
				events += 2;
			}
		/* The daemon's timer (it decides only when due): the refills among others. */
		host_timer(h);
		if ((n = fl_read_all(vms, &dgrams)) > worst)
			worst = n;
	}
	if (worst != 1)
		fprintf(stderr, "\n  %u events, %u decisions sent, most RETIMEs of one vCPU in "
			"one event %u\n", events, dgrams, worst);
	CU_ASSERT_TRUE(events > 500);
	CU_ASSERT_EQUAL(worst, 1);

	vsched_lock(host_vsched(h));
	for (i = 0; i < FL_VMS; i++)
		host_client_remove(h, vms[i].c);
	vsched_unlock(host_vsched(h));
	for (i = 0; i < FL_VMS; i++)
		close(vms[i].fd);
	host_destroy(h);
}

static CU_TestInfo host_flush_tests[] = {
	{ "one RETIME per holder and event: the one a later decision replaces is not sent",
	  test_host_flush_retime },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_flush", host_flush_tests);
