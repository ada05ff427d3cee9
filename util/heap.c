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

static void heap_set(struct heap *h, unsigned int i, struct heap_node *n)
{
	h->a[i] = n;
	n->idx = i;
}

static void heap_up(struct heap *h, unsigned int i)
{
	struct heap_node *n = h->a[i];

	while (i) {
		unsigned int p = (i - 1) / 2;

		if (!h->less(n, h->a[p]))
			break;
		heap_set(h, i, h->a[p]);
		i = p;
	}
	heap_set(h, i, n);
}

static void heap_down(struct heap *h, unsigned int i)
{
	struct heap_node *n = h->a[i];

	for (;;) {
		unsigned int c = 2 * i + 1;

		if (c >= h->nr)
			break;
		if (c + 1 < h->nr && h->less(h->a[c + 1], h->a[c]))
			c++;
		if (!h->less(h->a[c], n))
			break;
		heap_set(h, i, h->a[c]);
		i = c;
	}
	heap_set(h, i, n);
}

void heap_insert(struct heap *h, struct heap_node *n)
{
	heap_set(h, h->nr++, n);
	heap_up(h, h->nr - 1);
}

void heap_remove(struct heap *h, struct heap_node *n)
{
	unsigned int i = n->idx;
	struct heap_node *last = h->a[--h->nr];

	n->idx = HEAP_NONE;
	if (last == n)
		return;
	heap_set(h, i, last);
	heap_fix(h, last);
}

void heap_fix(struct heap *h, struct heap_node *n)
{
	unsigned int i = n->idx;

	if (i && h->less(n, h->a[(i - 1) / 2]))
		heap_up(h, i);
	else
		heap_down(h, i);
}
