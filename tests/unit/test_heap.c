// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

#include "test.h"
#include "util/heap.h"

struct item {
	struct heap_node node;
	long key;
};

static bool item_less(const struct heap_node *a, const struct heap_node *b)
{
	return ((const struct item *)a)->key < ((const struct item *)b)->key;
}

static bool heap_valid(const struct heap *h)
{
	unsigned int i;

	for (i = 0; i < h->nr; i++) {
		if (h->a[i]->idx != i)
			return false;
		if (i && item_less(h->a[i], h->a[(i - 1) / 2]))
			return false;
	}
	return true;
}

static void test_heap_random_operations(void)
{
	enum { N = 500 };
	static struct item it[N];
	struct heap h;
	unsigned int i, r, seed = 1;
	long prev;

	heap_init(&h, item_less);
	CU_ASSERT_EQUAL_FATAL(heap_reserve(&h, N), 0);
	for (i = 0; i < N; i++) {
		heap_node_init(&it[i].node);
		it[i].key = rand_r(&seed) % 1000;
		heap_insert(&h, &it[i].node);
	}
	CU_ASSERT_TRUE(heap_valid(&h));
	/* Re-key and remove arbitrary nodes, checking the invariant as we go. */
	for (r = 0; r < 2000; r++) {
		struct item *x = &it[rand_r(&seed) % N];

		if (heap_queued(&x->node)) {
			if (r % 3 == 0) {
				heap_remove(&h, &x->node);
				CU_ASSERT_FALSE(heap_queued(&x->node));
			} else {
				x->key = rand_r(&seed) % 1000;
				heap_fix(&h, &x->node);
			}
		} else {
			heap_insert(&h, &x->node);
		}
	}
	CU_ASSERT_TRUE(heap_valid(&h));
	prev = -1;
	while (heap_min(&h)) {
		struct item *x = (struct item *)heap_min(&h);

		CU_ASSERT_TRUE(x->key >= prev);
		prev = x->key;
		heap_remove(&h, &x->node);
	}
	CU_ASSERT_EQUAL(h.nr, 0);
	heap_free(&h);
}

static CU_TestInfo heap_tests[] = {
	{ "random insert, re-key, remove", test_heap_random_operations },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/heap", heap_tests)
