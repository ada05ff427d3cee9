// SPDX-License-Identifier: GPL-2.0
/* The vmm_peer fuzz target's invariant checks and its debug print (fuzz/vmm_peer.c). */
#include <stdio.h>

#include "vmm_peer.h"

/* What a park or a watch waits on: a mapped peer's word, this VM's successor's side's peer. */
void fp_check_watch(struct fp *f, const struct futex_waitv *fw)
{
	const struct host_offer *po = rt_peer_find(&f->rt, (uint32_t)f->offer->x_peer);

	FUZZ_CHECK(po && fw->uaddr == (uintptr_t)host_offer_futex(po) && fw->flags == FUTEX_32,
		   "waits on %#llx, not peer %llu's word", (unsigned long long)fw->uaddr,
		   (unsigned long long)f->offer->x_peer);
}

/*
 * This VM's word after op: moved from the successor's side only by a take of the side published
 * (gen, vCPU) and of a lane the peer holds. w0: the word before it.
 */
void fp_check_take(struct fp *f, uint64_t w0, uint64_t takes0)
{
	uint64_t w = f->offer->word;
	uint32_t lane = host_offer_lane(w), id = host_offer_vcpu(w);

	if (f->rt.st.xhandoffs == takes0)
		return;
	FUZZ_CHECK(f->rt.st.xhandoffs == takes0 + 1, "%llu takes in one operation",
		   (unsigned long long)(f->rt.st.xhandoffs - takes0));
	/* Not that id still runs: a newer entry the same step applied may have moved it on. */
	FUZZ_CHECK(host_offer_lane(w0) == HOST_OFFER_XSUCC && host_offer_gen(w) ==
		   host_offer_gen(w0) && lane < f->rt.nr_lanes && id < f->rt.nr_vcpus,
		   "a take wrote %#llx over %#llx", (unsigned long long)w, (unsigned long long)w0);
	if (!f->garbage) {
		FUZZ_CHECK(f->side.on && f->side.gen == host_offer_gen(w) && f->side.vcpu == id,
			   "vCPU %u took gen %u, not the side published", id, host_offer_gen(w));
		FUZZ_CHECK(f->side.held >> lane & 1,
			   "a forged claim gave vCPU %u lane %u, not peer %u's (%#llx)",
			   id, lane, f->side.peer, (unsigned long long)f->side.held);
	}
	f->named[id] |= 1ULL << lane;
}

/* Every running vCPU on a lane of the daemon's that was named for it. */
void fp_check_lanes(struct fp *f)
{
	unsigned int i;

	for (i = 0; i < f->rt.nr_vcpus; i++) {
		const struct rt_vcpu *rv = &f->v[i];

		if (rv->state != RT_RUNNING)
			continue;
		FUZZ_CHECK(rv->lane >= 0 && (unsigned int)rv->lane < f->rt.nr_lanes,
			   "vCPU %u runs on lane %d of %u", i, rv->lane, f->rt.nr_lanes);
		FUZZ_CHECK(f->named[i] >> rv->lane & 1,
			   "vCPU %u runs on lane %d, never named for it", i, rv->lane);
	}
}

/* FP_DEBUG: the operation, this VM's word, each vCPU's state, lane, seq and lanes named. */
void fp_print(const struct fp *f, unsigned int n, uint8_t op)
{
	unsigned int i;

	fprintf(stderr, "op %u: %u, word %#llx", n, op, (unsigned long long)f->offer->word);
	for (i = 0; i < f->rt.nr_vcpus; i++)
		fprintf(stderr, ", vCPU %u state %d lane %d seq %u named %#llx", i, f->v[i].state,
			f->v[i].lane, f->v[i].seq_applied, (unsigned long long)f->named[i]);
	fputc('\n', stderr);
}
