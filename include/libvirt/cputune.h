/* SPDX-License-Identifier: GPL-2.0 */
/*
 * <cputune> of a libvirt domain, read with libvirt's own rules and ranges
 * (virDomainDefCputuneValidate(), domain_conf.c) so that a file libvirt accepts means the same
 * thing here.
 */
#ifndef VSCHED_LIBVIRT_CPUTUNE_H
#define VSCHED_LIBVIRT_CPUTUNE_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "libvirt/xmlutil.h"
#include "util/cpuset.h"

/* vircgroup.h */
#define CPUTUNE_SHARES_V1_MIN	2ULL
#define CPUTUNE_SHARES_V1_MAX	262144ULL
#define CPUTUNE_SHARES_V2_MIN	1ULL
#define CPUTUNE_SHARES_V2_MAX	10000ULL
#define CPUTUNE_PERIOD_MIN	1000ULL
#define CPUTUNE_PERIOD_MAX	1000000ULL
#define CPUTUNE_QUOTA_MIN	1000LL
#define CPUTUNE_QUOTA_MAX	17592186044415LL
#define CPUTUNE_IGNORED_MAX	16

enum vcpu_policy {
	VCPU_SCHED_NONE,	/* no <vcpusched> covers the vCPU */
	VCPU_SCHED_BATCH,
	VCPU_SCHED_IDLE,
	VCPU_SCHED_FIFO,
	VCPU_SCHED_RR,
};

struct vcpu_tune {
	bool pinned;
	struct cpuset pin;		/* host CPUs, <vcpupin cpuset> */
	enum vcpu_policy policy;
	int priority;			/* fifo/rr only */
};

/*
 * A domain's iothreads as libvirt numbers them: the ids <iothreadids> gives, then the lowest free
 * ids (1, 2, ...) up to count.
 */
struct iothread_ids {
	unsigned int count;		/* <iothreads>, at least as many as given */
	unsigned int nr_given;
	unsigned int *given;		/* <iothreadids><iothread id=...>, sorted */
};

/* Whether the domain has an iothread of that id. */
bool iothread_ids_has(const struct iothread_ids *io, unsigned long long id);

/* A (period, quota) pair: period 0 = unset; quota 0 = unset, < 0 = unlimited. */
struct cputune_bw {
	uint64_t period;
	int64_t quota;
	int line;			/* of the first of the two elements, for later errors */
};

struct cputune {
	bool shares_set;		/* <shares> present, even "0" (libvirt's sharesSpecified) */
	uint64_t shares;
	int shares_line;
	struct cputune_bw vcpu;		/* <period>/<quota>: a cap on each vCPU */
	struct cputune_bw global;	/* <global_period>/<global_quota>: on the whole VM */
	struct cputune_bw emulator;	/* parsed and validated, then warned about */
	struct cputune_bw iothread;
	bool emulatorpin_set;
	struct cpuset emulatorpin;
	int vcpupin_line, emulatorpin_line;	/* the first kept, for plan_warn_vsched() */
	/*
	 * Elements only libvirt's QEMU driver applies (emulator_*, iothread*, emulatorsched,
	 * cachetune, memorytune): the first of each name, for plan_warn_vsched() to name on a
	 * vsched VM. On a QEMU domain they are libvirt's, as <vcpupin>, and said nothing of.
	 */
	struct cputune_ignored {
		const char *elem, *why;
		int line;
	} ignored[CPUTUNE_IGNORED_MAX];
	unsigned int nr_ignored;
	struct vcpu_tune *vcpus;	/* [max_vcpus] */
};

/*
 * Parses <cputune> (node may be NULL) for a domain with max_vcpus vCPUs and the iothreads io
 * into t. Warnings (elements vsched has no use for) go to d. 0 or -EINVAL (message in
 * d), -ENOMEM. t must be freed with cputune_free() either way.
 */
int cputune_parse(xmlNode *node, unsigned int max_vcpus, const struct iothread_ids *io,
		  struct cputune *t, struct diag *d);
void cputune_free(struct cputune *t);

/*
 * libvirt's period/quota rules ("Value of cputune 'period' must be in range [..]"), shared with
 * the metadata parser: elem names the element in the message prefix, in the container
 * ("cputune", "group") and what the knob in libvirt's wording.
 */
int cputune_check_period(struct diag *d, xmlNode *n, const char *elem, const char *in,
			 const char *what, const char *raw, uint64_t *out);
int cputune_check_quota(struct diag *d, xmlNode *n, const char *elem, const char *in,
			const char *what, const char *raw, int64_t *out);

#endif
