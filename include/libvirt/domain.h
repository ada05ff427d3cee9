/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A libvirt domain XML document, read with libxml2: what vsched uses of it (name, uuid, vCPUs,
 * memory, the direct-kernel <os> boot, <resource><partition>, <cputune>, and our <metadata>
 * groups). Everything is validated while parsing; a parsed domain_def is known good.
 */
#ifndef VSCHED_LIBVIRT_DOMAIN_H
#define VSCHED_LIBVIRT_DOMAIN_H

#include <stdint.h>

#include "libvirt/cputune.h"
#include "libvirt/vgroups.h"
#include "libvirt/xmlutil.h"

#define DOMAIN_VCPUS_MAX	CPUSET_MAX

#define DOMAIN_KNOBS_MAX	16

struct domain_def {
	char *name;
	int name_line;
	char type[8];			/* <domain type=...>: "kvm", "qemu", or "" if absent */
	char uuid[37];			/* canonical text form, "" if the XML has none */
	unsigned int max_vcpus;		/* <vcpu>N</vcpu> */
	unsigned int vcpus;		/* current='M' (online at start), default N */
	/* The vCPUs online at start: 0 to vcpus-1, or the enabled ones of <vcpus> (libvirt's
	 * master when it lists vCPUs; vcpus is then their number). A vsched VM starts 0 to
	 * vcpus-1 whatever this says (no hot-plug; domain_knobs() names the difference). */
	struct cpuset online;
	int vcpu_line;
	/* <vcpu cpuset=...> (the vCPUs' default host CPUs, NULL if absent or placement='auto')
	 * and placement='auto' (numad's advice): libvirt's; a vsched VM says it ignores them. */
	char *vcpu_cpuset;
	bool vcpu_placement_auto;
	struct iothread_ids iothreads;
	uint64_t memory;		/* bytes (whole KiB, as libvirt), from <memory unit=...> */
	int memory_line;
	char *kernel;			/* <os><kernel>, NULL if absent */
	char *initrd;
	char *cmdline;
	char *partition;		/* <resource><partition>, NULL if absent */
	int partition_line;
	struct cputune tune;
	struct vgroups groups;
	/* Domain-level tuning a vsched VM does not apply (domain_knobs()), for plan_warn_vsched(). */
	struct domain_knob {
		const char *elem;
		char why[192];
		int line;
	} knobs[DOMAIN_KNOBS_MAX];
	unsigned int nr_knobs;
};

/*
 * Parse a domain from a file ("-" = stdin) or from memory. On error returns -EINVAL (one
 * message in d->msg: file, line, element, value) or -errno; def is left empty. Warnings
 * (elements vsched ignores) are in d->warn on success too. d->file is used in messages.
 */
int domain_parse_file(const char *path, struct domain_def *def, struct diag *d);
int domain_parse_memory(const char *buf, size_t len, struct domain_def *def, struct diag *d);
void domain_free(struct domain_def *def);
/* domain.c: the elements of doc into def (domain_load.c reads and parses the document). */
int domain_parse_doc(xmlDoc *doc, struct domain_def *def, struct diag *d);
/* domain_vcpus.c: def->online (and def->vcpus) from <vcpus>, with libvirt's checks. */
int domain_vcpus(xmlNode *root, struct domain_def *def, struct diag *d);
/* domain_knobs.c: notes in def->knobs what of root a vsched VM does not apply. */
void domain_knobs(xmlNode *root, struct domain_def *def);
/* Reads a whole XML document from fd (bounded); 0 or -errno. *out is malloc'ed. */
int domain_read(int fd, char **out, size_t *len);

/* libvirt's memory units (virScaleInteger): "KiB" (the default), "M", "GB", ... -> bytes. */
int domain_scale_memory(const char *value, const char *unit, uint64_t *bytes);

#endif
