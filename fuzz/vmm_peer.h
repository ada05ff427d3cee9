/* SPDX-License-Identifier: GPL-2.0 */
/* The vmm_peer fuzz target's state (fuzz/vmm_peer.c), shared with its checks. */
#ifndef VSCHED_FUZZ_VMM_PEER_H
#define VSCHED_FUZZ_VMM_PEER_H

#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>

#include "../sched/runtime/rt.h"
#include "../sched/runtime/rt_remote.h"
#include "../vmm/accel/thread.h"
#include "fuzz.h"
#include "host/proto.h"

#define FP_VCPUS	4
#define FP_PEERS	2
#define FP_OPS		256
#define FP_RAW_MAX	512
#define FP_NR_OPS	14		/* op byte % FP_NR_OPS; but 0xff: */
#define FP_RECV		14
#define FP_PAGE		4096
#define FP_SEALS	(F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL)

struct fp_peer {
	int memfd;
	struct host_offer *w;	/* the peer VMM's own writable mapping */
	bool known;		/* the VMM was sent its page */
};

/* The successor's side the daemon published last (XSUCC), what a take may do with it. */
struct fp_side {
	bool on;
	uint32_t gen, vcpu, peer;
	uint64_t held;		/* the lanes the peer holds */
};

struct fp {
	pthread_mutex_t lock;
	struct runtime rt;
	struct rt_vcpu v[FP_VCPUS];
	struct vcpu vcpu[FP_VCPUS];
	struct thread_vcpu t[FP_VCPUS];
	struct rt_remote remote;
	struct host_grant *page;	/* the daemon's view: writable here */
	struct host_offer *offer;
	struct fp_peer peer[FP_PEERS];
	struct fp_side side;
	bool garbage;			/* the daemon wrote garbage in this VM's offer page */
	/*
	 * Lanes the daemon ever named for each vCPU, or it took: an entry not applied before a
	 * release may still be applied after (no BLOCKED reaches a daemon here to move it on).
	 */
	uint64_t named[FP_VCPUS];
	uint32_t park_gen;
	unsigned int parks;		/* parks on a peer's word in park_gen */
	struct fuzz_in in;
};

/* The invariants' checks, fuzz/vmm_peer_check.c */
void fp_check_watch(struct fp *f, const struct futex_waitv *fw);
void fp_check_take(struct fp *f, uint64_t w0, uint64_t takes0);
void fp_check_lanes(struct fp *f);
void fp_print(const struct fp *f, unsigned int n, uint8_t op);

#endif
