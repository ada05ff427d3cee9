/* SPDX-License-Identifier: GPL-2.0 */
/* The host_msgs fuzz target's state (fuzz/host_msgs.c), shared with its checks. */
#ifndef VSCHED_FUZZ_HOST_MSGS_H
#define VSCHED_FUZZ_HOST_MSGS_H

#include "fuzz.h"
#include "host/proto.h"

#define HM_SLOTS	16
#define HM_VMMS		3
#define HM_OPS		256
#define HM_RAW_MAX	1100
#define HM_CLOCK_MAX	10000000000ULL

struct hm_vmm {
	bool live;			/* connected, not hung up on */
	int fd;				/* the VMM's end */
	int dfd;			/* the daemon's end (its client's fd) */
	struct host_client *c;
	unsigned int hello_vcpus;	/* nr_vcpus of the last HELLO sent */
	unsigned int nr_vcpus;		/* joined with, 0: not joined */
	const struct host_grant *page;
	struct host_offer *offer;
	char group[HOST_PATH_LEN];	/* its VM group (WELCOME) */
	uint32_t ctl_seq;		/* the seq of the last CTL it was sent, 0: none */
};

struct hm {
	struct host *h;
	unsigned int nr_lanes;
	struct hm_vmm vmm[HM_VMMS];
	struct fuzz_in in;
	const char *fwd_path;		/* a forward's path, while it waits */
};

extern bool hm_debug;

/* The invariants' checks, fuzz/host_msgs_check.c */
void hm_recv(struct hm *f, struct hm_vmm *v);
void hm_check_pages(const struct hm *f);

#endif
