/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Indexed binary min-heap of intrusive nodes: O(log n) insert, remove of any node and re-keying
 * after a node's key changed; O(1) minimum. Nodes know their slot, so no search is needed.
 */
#ifndef VSCHED_UTIL_HEAP_H
#define VSCHED_UTIL_HEAP_H

#include <stdbool.h>
#include <stddef.h>

#include "util/compiler.h"

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

/*
 * The same operations with the order given, inline: a caller that passes a comparison it can see
 * has it inlined, where through h->less every comparison is an indirect call (the scheduler's
 * queues: 8 % of a decision's instructions at 256 vCPUs). The same steps either way.
 */
typedef bool heap_less_fn(const struct heap_node *x, const struct heap_node *y);

static __always_inline void heap_set(struct heap *h, unsigned int i, struct heap_node *n)
{
	h->a[i] = n;
	n->idx = i;
}

static __always_inline void heap_up_by(struct heap *h, unsigned int i, heap_less_fn *less)
{
	struct heap_node *n = h->a[i];

	while (i) {
		unsigned int p = (i - 1) / 2;

		if (!less(n, h->a[p]))
			break;
		heap_set(h, i, h->a[p]);
		i = p;
	}
	heap_set(h, i, n);
}

static __always_inline void heap_down_by(struct heap *h, unsigned int i, heap_less_fn *less)
{
	struct heap_node *n = h->a[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && less(h->a[c + 1], h->a[c]))
			c++;
		if (!less(h->a[c], n))
			break;
		heap_set(h, i, h->a[c]);
		i = c;
	}
	heap_set(h, i, n);
}

static __always_inline void heap_fix_by(struct heap *h, struct heap_node *n, heap_less_fn *less)
{
	unsigned int i = n->idx;

	if (i && less(n, h->a[(i - 1) / 2]))
		heap_up_by(h, i, less);
	else
		heap_down_by(h, i, less);
}

static __always_inline void heap_insert_by(struct heap *h, struct heap_node *n,
					   heap_less_fn *less)
{
	heap_set(h, h->nr++, n);
	heap_up_by(h, h->nr - 1, less);
}

static __always_inline void heap_remove_by(struct heap *h, struct heap_node *n,
					   heap_less_fn *less)
{
	unsigned int i = n->idx;
	struct heap_node *last = h->a[--h->nr];

	n->idx = HEAP_NONE;
	if (last == n)
		return;
	heap_set(h, i, last);
	heap_fix_by(h, last, less);
}

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
