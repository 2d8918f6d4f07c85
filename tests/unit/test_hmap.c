// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The hash map: two-key lookups, replacement, tombstones, growth and the
 * iterator. */
#include <errno.h>
#include <stdlib.h>
#include "lib/hmap.h"
#include "unit.h"

static void *val(uintptr_t v)
{
	return (void *)(v << 4); /* never NULL nor HMAP_TOMB */
}

TEST(put_get_replace_delete)
{
	struct hmap m;

	hmap_init(&m);
	CHECK(hmap_get(&m, 1, 2) == NULL);
	CHECK_EQ(hmap_put(&m, 1, 2, val(1)), 0);
	CHECK_EQ(hmap_put(&m, 2, 1, val(2)), 0);
	CHECK(hmap_get(&m, 1, 2) == val(1));
	CHECK(hmap_get(&m, 2, 1) == val(2));
	CHECK_EQ(hmap_put(&m, 1, 2, val(3)), 0);
	CHECK(hmap_get(&m, 1, 2) == val(3));
	CHECK_EQ(m.len, 2);
	CHECK(hmap_del(&m, 1, 2) == val(3));
	CHECK(hmap_del(&m, 1, 2) == NULL);
	CHECK(hmap_get(&m, 1, 2) == NULL);
	CHECK(hmap_get(&m, 2, 1) == val(2));
	CHECK_EQ(m.len, 1);
	hmap_free(&m);
}

TEST(growth_keeps_every_entry)
{
	struct hmap m;
	uintptr_t i;
	int missing = 0;

	hmap_init(&m);
	for (i = 1; i <= 10000; i++)
		CHECK_EQ(hmap_put(&m, i, i * 7, val(i)), 0);
	for (i = 1; i <= 10000; i += 2)
		hmap_del(&m, i, i * 7);
	for (i = 1; i <= 10000; i++)
		missing += hmap_get(&m, i, i * 7) != (i % 2 ? NULL : val(i));
	CHECK_EQ(missing, 0);
	CHECK_EQ(m.len, 5000);
	hmap_free(&m);
}

TEST(iterator_visits_each_live_entry_once_and_allows_deletion)
{
	const struct hmap_slot *s;
	struct hmap m;
	uintptr_t i, sum = 0;
	size_t pos = 0, n = 0;

	hmap_init(&m);
	for (pos = 0; hmap_next(&m, &pos);)
		n++;
	CHECK_EQ(n, 0);
	for (i = 1; i <= 100; i++)
		hmap_put(&m, i, 0, val(i));
	hmap_del(&m, 50, 0);
	for (pos = 0; (s = hmap_next(&m, &pos));) {
		sum += s->k1;
		n++;
		if (s->k1 % 2)
			hmap_del(&m, s->k1, 0); /* deleting the current entry is allowed */
	}
	CHECK_EQ(n, 99);
	CHECK_EQ(sum, 5050 - 50);
	CHECK_EQ(m.len, 49);
	hmap_free(&m);
}

TEST(free_values_frees_what_was_malloced)
{
	struct hmap m;
	int i;

	hmap_init(&m);
	for (i = 0; i < 100; i++)
		hmap_put(&m, i, 0, malloc(16));
	free(hmap_del(&m, 3, 0));
	hmap_free_values(&m); /* valgrind / LeakSanitizer would see a leak */
	CHECK_EQ(m.cap, 0);
	CHECK_EQ(m.len, 0);
}

/* Index values, 0 and 1 included (the raw values NULL and HMAP_TOMB). */
TEST(index_values_round_trip)
{
	struct hmap m;
	size_t ix = 99, i;

	hmap_init(&m);
	for (i = 0; i < 50; i++)
		CHECK_EQ(hmap_put_index(&m, i, 7, i), 0);
	for (i = 0; i < 50; i++) {
		CHECK_EQ(hmap_get_index(&m, i, 7, &ix), 1);
		CHECK_EQ(ix, i);
	}
	CHECK_EQ(hmap_get_index(&m, 50, 7, &ix), 0);
	CHECK_EQ(hmap_get_index(&m, 0, 8, &ix), 0);
	CHECK_EQ(hmap_put_index(&m, 1, 7, 0), 0); /* replaced */
	CHECK_EQ(hmap_get_index(&m, 1, 7, &ix), 1);
	CHECK_EQ(ix, 0);
	hmap_free(&m);
}

/* NULL and HMAP_TOMB mark empty and deleted slots: refused as values, not
 * stored to be lost. */
TEST(unstorable_values_are_refused)
{
	struct hmap m;
	int one;

	hmap_init(&m);
	CHECK_EQ(hmap_put(&m, 1, 2, NULL), -EINVAL);
	CHECK_EQ(hmap_put(&m, 1, 2, HMAP_TOMB), -EINVAL);
	CHECK_EQ(m.len, 0);
	CHECK_EQ(hmap_put(&m, 1, 2, &one), 0);
	CHECK_EQ(hmap_put(&m, 1, 2, HMAP_TOMB), -EINVAL); /* the old value stays */
	CHECK(hmap_get(&m, 1, 2) == &one);
	hmap_free(&m);
}
