// SPDX-License-Identifier: GPL-2.0
/*
 * A grant to a vCPU whose thread waits on its grant page entry (the VMM's parked bit in its
 * offer page, rt_page_wait()) goes by the page alone (host_offer_parked()): its GRANT datagram
 * only woke the VMM's agent to drop it, ~150 of the agents' ~430 wake-ups a second beside a
 * capped partition (docs/host.md). A vCPU without the bit still gets the datagram.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "test.h"
#include "vsched.h"

/* Whether a GRANT of vcpu is among the datagrams waiting on fd (all read). */
static bool parked_granted(int fd, uint32_t vcpu)
{
	struct host_ev ev;
	bool seen = false;

	while (recv(fd, &ev, sizeof(ev), MSG_DONTWAIT) > 0)
		if (ev.type == HOST_MSG_GRANT && ev.vcpu == vcpu)
			seen = true;
	return seen;
}

static void test_host_parked_grant(void)
{
	struct host_opts o = { .nr_lanes = 1, .max_vcpus = 4 };
	struct host_offer *off;
	struct host_client *c;
	struct host *h = NULL;
	int fd;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	fd = host_test_join_offers(h, "a", 2, UINT64_MAX, &c, &off);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_TRUE(parked_granted(fd, 0));
	/* 1 waits, parked on its entry: the lane 0 frees goes to it by the page alone. */
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 1, 0, 0, 0), 0);
	__atomic_fetch_or(&off->parked[0], 1ULL << 1, __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 0, 0, 0, 0), 0);
	CU_ASSERT_FALSE(parked_granted(fd, 1));
	/* 0 waits without the bit (inside KVM_RUN, say): its grant is a datagram as ever. */
	__atomic_fetch_and(&off->parked[0], ~(1ULL << 1), __ATOMIC_SEQ_CST);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_RUNNABLE, 0, 0, 0, 0), 0);
	CU_ASSERT_EQUAL(host_test_ev(h, c, HOST_MSG_BLOCKED, 1, 0, 0, 0), 0);
	CU_ASSERT_TRUE(parked_granted(fd, 0));

	munmap(off, sizeof(*off));
	vsched_lock(host_vsched(h));
	host_client_remove(h, c);
	vsched_unlock(host_vsched(h));
	close(fd);
	host_destroy(h);
}

static CU_TestInfo host_parked_tests[] = {
	{ "a grant to a vCPU parked on its entry goes by the page alone", test_host_parked_grant },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("host_parked", host_parked_tests);
