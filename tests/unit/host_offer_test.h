/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the offer test files: a VMM's end of a join with its offer page, on a daemon whose
 * clock the test drives (offer_now), and what rt_offer_take() does to the offer word.
 */
#ifndef VSCHED_TESTS_HOST_OFFER_TEST_H
#define VSCHED_TESTS_HOST_OFFER_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "host_test.h"
#include "sched/core.h"
#include "util/time.h"

#define OVMM_ANY_VCPU UINT32_MAX

static uint64_t offer_now;

static inline uint64_t offer_clock(void)
{
	return offer_now;
}

struct ovmm {
	int fd;
	struct host_client *c;
	struct host_offer *o;	/* NULL: joined without offers */
};

static inline struct host *offer_host(unsigned int lanes)
{
	struct host_opts o = { .nr_lanes = lanes, .max_vcpus = 8 };
	struct host *h = NULL;

	CU_ASSERT_EQUAL_FATAL(host_create(&o, &h), 0);
	offer_now = time_mono_ns() + NSEC_PER_SEC;
	host_set_clock(h, offer_clock);
	return h;
}

static inline int ovmm_ev(struct host *h, struct ovmm *m, uint32_t type, uint32_t vcpu,
			  uint64_t a, uint64_t b)
{
	return host_test_ev(h, m->c, type, vcpu, 0, a, b);
}

/* The next datagram of type want for vcpu (OVMM_ANY_VCPU: any), others skipped. */
static inline bool ovmm_recv(struct ovmm *m, uint32_t want, uint32_t vcpu, struct host_ev *ev)
{
	char buf[1024];
	ssize_t n;

	while ((n = recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (n != sizeof(*ev))
			continue;
		memcpy(ev, buf, sizeof(*ev));
		if (ev->type == want && (vcpu == OVMM_ANY_VCPU || ev->vcpu == vcpu))
			return true;
	}
	return false;
}

static inline void ovmm_leave(struct host *h, struct ovmm *m)
{
	vsched_lock(host_vsched(h));
	host_client_remove(h, m->c);
	vsched_unlock(host_vsched(h));
	if (m->o)
		munmap(m->o, sizeof(*m->o));
	close(m->fd);
}

static inline uint64_t offer_word(const struct ovmm *m)
{
	return __atomic_load_n(&m->o->word, __ATOMIC_ACQUIRE);
}

static inline bool offered(const struct ovmm *m, uint32_t lane)
{
	uint64_t w = offer_word(m);

	return host_offer_lane(w) == lane && host_offer_vcpu(w) == HOST_OFFER_FREE;
}

/* What rt_offer_take() does: the CAS from the offer it read (w) to vcpu's claim. */
static inline bool claim_at(struct ovmm *m, uint64_t w, uint32_t vcpu)
{
	return __atomic_compare_exchange_n(&m->o->word, &w, host_offer_word(host_offer_gen(w),
					   host_offer_lane(w), vcpu), false, __ATOMIC_SEQ_CST,
					   __ATOMIC_SEQ_CST);
}

static inline bool claim(struct ovmm *m, uint32_t vcpu)
{
	uint64_t w = offer_word(m);

	return host_offer_lane(w) != HOST_OFFER_NONE && host_offer_vcpu(w) == HOST_OFFER_FREE &&
	       claim_at(m, w, vcpu);
}

/* The daemon core's state of vCPU slot. */
static inline const char *core_state(struct host *h, unsigned int slot)
{
	const char *s;

	vsched_lock(host_vsched(h));
	s = sched_vcpu_state(vsched_sched(host_vsched(h)), slot);
	vsched_unlock(host_vsched(h));
	return s;
}

/* Drops what the daemon sent VMM m. */
static inline void ovmm_drain(struct ovmm *m)
{
	char buf[1024];

	while (recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		;
}

/* VMM m's end saw the daemon hang up (shutdown after garbage). */
static inline bool ovmm_hung_up(struct ovmm *m)
{
	char buf[1024];
	ssize_t n;

	while ((n = recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		;
	return n == 0;
}

/* A joined VM's groups lo (weight 100) and hi (weight 400), vCPU 0 in lo, 1 in hi, committed. */
static inline void ovmm_vt_groups(struct host *h, struct ovmm *m)
{
	static const char *const path[] = { "lo", "hi" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct host_group_msg gm = {
			.type = HOST_MSG_GROUP, .index = i, .id = i + 1,
			.set = { .shares = 1024 << (2 * i), .quota_us = UINT64_MAX,
				 .period_us = 100000, .threaded = 1 },
		};
		struct host_ev ev = { .type = HOST_MSG_VCPU, .vcpu = i, .arg = i + 1 };

		snprintf(gm.path, sizeof(gm.path), "%s", path[i]);
		CU_ASSERT_EQUAL(host_test_msg(h, m->c, &gm, sizeof(gm)), 0);
		CU_ASSERT_EQUAL(host_test_msg(h, m->c, &ev, sizeof(ev)), 0);
	}
	CU_ASSERT_EQUAL(ovmm_ev(h, m, HOST_MSG_COMMIT, 0, 0, 0), 0);
}

#endif
