/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-vCPU groups of a domain, kept in one namespaced element of the domain's <metadata>
 * (libvirt keeps one top-level element per namespace). The schema is in docs/libvirt.md:
 *
 *   <vsched:groups xmlns:vsched="https://vsched.dev/xmlns/groups/1.0" host="yes">
 *     <vsched:group name="latency" weight="400" period="100000" quota="150000"/>
 *     <vsched:group name="bg" parent="latency" idle="yes"/>
 *     <vsched:assign vcpus="0-1" group="latency"/>
 *   </vsched:groups>
 */
#ifndef VSCHED_LIBVIRT_VGROUPS_H
#define VSCHED_LIBVIRT_VGROUPS_H

#include <stdbool.h>
#include <stdint.h>

#include <libxml/tree.h>

#include "libvirt/xmlutil.h"

#define VGROUPS_NS_PREFIX	"https://vsched.dev/xmlns/groups/"
#define VGROUPS_NS		VGROUPS_NS_PREFIX "1.0"
#define VGROUP_NAME_MAX		64
#define VGROUP_DEPTH_MAX	16
#define VGROUP_PATH_MAX		((VGROUP_NAME_MAX + 1) * VGROUP_DEPTH_MAX)
#define VGROUPS_MAX		256

struct vgroup {
	char name[VGROUP_NAME_MAX + 1];
	char path[VGROUP_PATH_MAX];	/* "parent/name", relative to the VM */
	int parent;			/* index into vgroups.g, -1 = the VM itself */
	unsigned int depth;		/* 1 for a child of the VM */
	bool weight_set;
	unsigned int weight;		/* cgroup v2 cpu.weight */
	bool idle;
	uint64_t period;		/* µs; 0 = unset (100000) */
	int64_t quota;			/* µs; 0 = unset, < 0 = unlimited */
	uint64_t burst;			/* µs, cpu.max.burst */
	int line;
};

/* <vsched:groups host='...'>: join the host scheduler (docs/libvirt.md). */
enum vgroups_host {
	VGROUPS_HOST_UNSET,		/* join when the domain has <resource><partition> */
	VGROUPS_HOST_YES,
	VGROUPS_HOST_NO,		/* embedded, even with a <partition> */
};

struct vgroups {
	bool present;			/* the element exists (even if empty) */
	enum vgroups_host host;
	int host_line;
	unsigned int nr;
	struct vgroup *g;		/* parents come before their children */
	int *vcpu_group;		/* [max_vcpus]: index into g, -1 = not assigned */
};

/*
 * Reads our element from <metadata> (NULL: no metadata) and validates it: unknown group,
 * overlapping assignment, vCPU beyond max_vcpus, nesting cycle, bad values. 0, -EINVAL (message
 * in d) or -ENOMEM; free with vgroups_free() either way.
 */
int vgroups_parse(xmlNode *metadata, unsigned int max_vcpus, struct vgroups *vg,
		  struct diag *d);
void vgroups_free(struct vgroups *vg);
/*
 * Why name cannot be a group's (too long, characters, leading '.', a control file's name), or
 * NULL. The rule of <vsched:group name> and of each part of a partition path.
 */
const char *vgroup_name_problem(const char *name);

/*
 * Warns about each element of vsched's namespace (any version) that is not a child of the
 * domain's first <metadata>, where vgroups_parse() reads it: under <domain>, inside another
 * namespace's element, ... it would be dropped without a word. 0 or -ENOMEM.
 */
int vgroups_warn_stray(xmlNode *root, struct diag *d);

#endif
