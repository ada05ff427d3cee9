/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Indexed binary min-heap of intrusive nodes: O(log n) insert, remove of any node and re-keying
 * after a node's key changed; O(1) minimum. Nodes know their slot, so no search is needed.
 */
#ifndef VSCHED_UTIL_HEAP_H
#define VSCHED_UTIL_HEAP_H

#include <stdbool.h>
#include <stddef.h>

struct heap_node {
	unsigned int idx;	/* slot in the heap, HEAP_NONE when not in one */
};

#define HEAP_NONE	(~0U)

struct heap {
	struct heap_node **a;
	unsigned int nr, cap;
	bool (*less)(const struct heap_node *x, const struct heap_node *y);
};

void heap_init(struct heap *h, bool (*less)(const struct heap_node *, const struct heap_node *));
void heap_free(struct heap *h);
/* Grows the array so that cap >= nr; inserts never allocate. 0 or -ENOMEM. */
int heap_reserve(struct heap *h, unsigned int nr);
void heap_insert(struct heap *h, struct heap_node *n);	/* needs a reserved slot */
void heap_remove(struct heap *h, struct heap_node *n);
void heap_fix(struct heap *h, struct heap_node *n);	/* after n's key changed */

static inline struct heap_node *heap_min(const struct heap *h)
{
	return h->nr ? h->a[0] : NULL;
}

static inline bool heap_queued(const struct heap_node *n)
{
	return n->idx != HEAP_NONE;
}

static inline void heap_node_init(struct heap_node *n)
{
	n->idx = HEAP_NONE;
}

#endif
