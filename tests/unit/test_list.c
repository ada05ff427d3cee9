// SPDX-License-Identifier: GPL-2.0
#include "test.h"
#include "util/list.h"

struct item {
	int v;
	struct list_head node;
};

static void test_list_order_and_delete(void)
{
	struct list_head head = LIST_HEAD_INIT(head);
	struct item a = { 1 }, b = { 2 }, c = { 3 }, *it, *n;
	int sum = 0, order[3], i = 0;

	CU_ASSERT_TRUE(list_empty(&head));
	list_add_tail(&a.node, &head);
	list_add_tail(&b.node, &head);
	list_add(&c.node, &head);
	list_for_each_entry(it, &head, node)
		order[i++] = it->v;
	CU_ASSERT_EQUAL(order[0], 3);
	CU_ASSERT_EQUAL(order[1], 1);
	CU_ASSERT_EQUAL(order[2], 2);
	list_for_each_entry_safe(it, n, &head, node) {
		sum += it->v;
		list_del(&it->node);
	}
	CU_ASSERT_EQUAL(sum, 6);
	CU_ASSERT_TRUE(list_empty(&head));
}

static CU_TestInfo list_tests[] = {
	{ "order and delete", test_list_order_and_delete },
	CU_TEST_INFO_NULL,
};

TEST_SUITE("util/list", list_tests)
