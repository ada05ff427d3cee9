// SPDX-License-Identifier: GPL-2.0
/*
 * The vsched groups as a tree: parents linked by name (unknown parents, cycles and depth
 * refused), paths computed, groups ordered parents-first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vgroups_int.h"

int vgroups_find(struct vgroups *vg, const char *name)
{
	unsigned int i;

	for (i = 0; i < vg->nr; i++)
		if (!strcmp(vg->g[i].name, name))
			return (int)i;
	return -1;
}

/* Links parents, refuses unknown parents and cycles, computes paths. */
int vgroups_link(struct vg_ctx *c)
{
	struct vgroups *vg = c->vg;
	unsigned int i, steps;
	int p;

	for (i = 0; i < vg->nr; i++) {
		if (!c->parent_name[i])
			continue;
		p = vgroups_find(vg, c->parent_name[i]);
		if (p < 0)
			return diag_at(c->d, -EINVAL, c->parent_line[i], "group", c->parent_name[i],
					 "unknown parent group of '%s'", vg->g[i].name);
		vg->g[i].parent = p;
	}
	for (i = 0; i < vg->nr; i++) {
		char chain[VGROUP_PATH_MAX] = "";
		size_t len = 0;

		steps = 0;
		for (p = (int)i; p >= 0 && steps <= vg->nr; p = vg->g[p].parent, steps++)
			;
		if (p < 0) {
			vg->g[i].depth = steps;
			continue;
		}
		/* A cycle (maybe reached through other groups): step into it, then name it. */
		for (p = (int)i, steps = 0; steps < vg->nr; steps++)
			p = vg->g[p].parent;
		i = (unsigned int)p;
		do {
			len += (size_t)snprintf(chain + len, sizeof(chain) - len, "%s -> ",
						vg->g[p].name);
			if (len >= sizeof(chain))
				break;
			p = vg->g[p].parent;
		} while (p != (int)i && p >= 0);
		if (len < sizeof(chain))
			snprintf(chain + len, sizeof(chain) - len, "%s", vg->g[i].name);
		return diag_at(c->d, -EINVAL, vg->g[i].line, "group", vg->g[i].name,
				 "nesting cycle: %s", chain);
	}
	for (i = 0; i < vg->nr; i++) {
		struct vgroup *g = &vg->g[i];

		if (g->depth > VGROUP_DEPTH_MAX)
			return diag_at(c->d, -EINVAL, g->line, "group", g->name,
					 "nested deeper than %d levels", VGROUP_DEPTH_MAX);
	}
	return 0;
}

static int vg_path(struct vgroups *vg, int i, char *buf, size_t len)
{
	int n = 0;

	if (vg->g[i].parent >= 0)
		n = vg_path(vg, vg->g[i].parent, buf, len);
	return n + snprintf(buf + n, len - (size_t)n, "%s%s", n ? "/" : "", vg->g[i].name);
}

/* Orders groups parents-first (by depth, stable) and remaps indices. */
int vgroups_sort(struct vgroups *vg, unsigned int max_vcpus)
{
	struct vgroup *sorted;
	int *map;
	unsigned int i, d, k = 0;

	sorted = calloc(vg->nr ? vg->nr : 1, sizeof(*sorted));
	map = calloc(vg->nr ? vg->nr : 1, sizeof(*map));
	if (!sorted || !map) {
		free(sorted);
		free(map);
		return -ENOMEM;
	}
	for (i = 0; i < vg->nr; i++)
		vg_path(vg, (int)i, vg->g[i].path, sizeof(vg->g[i].path));
	for (d = 1; d <= VGROUP_DEPTH_MAX; d++)
		for (i = 0; i < vg->nr; i++)
			if (vg->g[i].depth == d) {
				map[i] = (int)k;
				sorted[k++] = vg->g[i];
			}
	for (i = 0; i < vg->nr; i++)
		if (sorted[i].parent >= 0)
			sorted[i].parent = map[sorted[i].parent];
	for (i = 0; i < max_vcpus; i++)
		if (vg->vcpu_group[i] >= 0)
			vg->vcpu_group[i] = map[vg->vcpu_group[i]];
	memcpy(vg->g, sorted, vg->nr * sizeof(*sorted));
	free(sorted);
	free(map);
	return 0;
}
