/* SPDX-License-Identifier: GPL-2.0 */
/* Inside the vsched groups parser: one parse's state, shared by vgroups.c and vgroups_tree.c. */
#ifndef VSCHED_LIBVIRT_VGROUPS_INT_H
#define VSCHED_LIBVIRT_VGROUPS_INT_H

#include "libvirt/vgroups.h"

struct vg_ctx {
	struct vgroups *vg;
	struct diag *d;
	unsigned int max_vcpus;
	char **parent_name;		/* [nr], resolved after all groups are read */
	int *parent_line;
};

/* vgroups_tree.c: the index of the group named name, or -1. */
int vgroups_find(struct vgroups *vg, const char *name);
/* Links parents, refuses unknown parents and cycles, computes paths. */
int vgroups_link(struct vg_ctx *c);
/* Orders groups parents-first (by depth, stable) and remaps indices. */
int vgroups_sort(struct vgroups *vg, unsigned int max_vcpus);

#endif
