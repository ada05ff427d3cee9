/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the <cputune> parser: the state of one parse, shared by cputune.c (the child table,
 * scalars, resctrl), cputune_pin.c and cputune_sched.c.
 */
#ifndef VSCHED_LIBVIRT_CPUTUNE_INT_H
#define VSCHED_LIBVIRT_CPUTUNE_INT_H

#include "libvirt/cputune.h"

/* An <iothreadpin>'s id and line: duplicates are found by sorting, as ids may be large. */
struct cputune_pin {
	unsigned int id;
	int line;
};

/* A <cachetune>/<memorytune>: its vCPUs below the domain's count, checked after the loop. */
struct cputune_rc {
	struct cpuset set;
	bool mem;			/* <memorytune> */
	int line;
	char *raw;
};

struct cputune_ctx {
	struct cputune *t;
	struct diag *d;
	unsigned int max_vcpus;
	const struct iothread_ids *io;
	unsigned int seen;		/* bit per table entry: scalars seen, warnings given */
	struct cpuset sched_vcpus;	/* union of <vcpusched vcpus>, for the overlap check */
	struct cpuset sched_iothreads;
	struct cputune_pin *pins;	/* <iothreadpin>s so far */
	size_t nr_pins, cap_pins;
	struct cputune_rc *rc;		/* <cachetune>s and <memorytune>s so far */
	size_t nr_rc, cap_rc;
};

/* arr with room for one more element (nr of *cap used), maybe moved; NULL: no memory. */
void *cputune_grow(void *arr, size_t *cap, size_t nr, size_t size);
/* Named on a vsched VM by plan_warn_vsched(): the first of each element and reason. */
void cputune_ignore(struct cputune *t, const char *elem, const char *why, int line);

/* cputune_pin.c: the child handlers, and an iothread id's checks (also for iothreadsched). */
int cputune_vcpupin(struct cputune_ctx *c, xmlNode *n, const char *raw);
int cputune_emulatorpin(struct cputune_ctx *c, xmlNode *n, const char *raw);
int cputune_iothreadpin(struct cputune_ctx *c, xmlNode *n, const char *raw);
int cputune_iothread_id(struct cputune_ctx *c, xmlNode *n, const char *elem,
			unsigned long long id);
/* "duplicate iothreadpin", after the loop. */
int cputune_pin_dups(struct cputune_ctx *c);

/* cputune_resctrl.c: the children of <cachetune>/<memorytune> rc, whose vCPUs are set. */
int cputune_resctrl_body(struct cputune_ctx *c, xmlNode *rc, bool mem, const struct cpuset *set);

/* cputune_sched.c */
int cputune_vcpusched(struct cputune_ctx *c, xmlNode *n, const char *raw);
int cputune_iothreadsched(struct cputune_ctx *c, xmlNode *n, const char *raw);
int cputune_emulatorsched(struct cputune_ctx *c, xmlNode *n, const char *raw);

#endif
