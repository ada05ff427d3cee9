// SPDX-License-Identifier: GPL-2.0
/* Indexed binary min-heap; see include/util/heap.h. */
#include <errno.h>
#include <stdlib.h>

#include "util/heap.h"

void heap_init(struct heap *h, bool (*less)(const struct heap_node *, const struct heap_node *))
{
	h->a = NULL;
	h->nr = 0;
	h->cap = 0;
	h->less = less;
}

void heap_free(struct heap *h)
{
	free(h->a);
	h->a = NULL;
	h->nr = h->cap = 0;
}

int heap_reserve(struct heap *h, unsigned int nr)
{
	struct heap_node **a;
	unsigned int cap;

	if (nr <= h->cap)
		return 0;
	cap = h->cap ? h->cap : 4;
	while (cap < nr)
		cap *= 2;
	a = realloc(h->a, cap * sizeof(*a));
	if (!a)
		return -ENOMEM;
	h->a = a;
	h->cap = cap;
	return 0;
}

void heap_insert(struct heap *h, struct heap_node *n)
{
	heap_insert_by(h, n, h->less);
}

void heap_remove(struct heap *h, struct heap_node *n)
{
	heap_remove_by(h, n, h->less);
}

void heap_fix(struct heap *h, struct heap_node *n)
{
	heap_fix_by(h, n, h->less);
}
