// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Growable arrays: capacity doubling from about 64 bytes' worth, new room zeroed. */
#include <errno.h>
#include <stdlib.h>
#include "lib/array.h"
#include "unit.h"

TEST(reserve_doubles_and_zeroes)
{
	int *a = NULL;
	size_t cap = 0, i;

	CHECK_EQ(array_reserve((void **)&a, &cap, 0, sizeof(*a)), 0);
	CHECK(a == NULL);
	CHECK_EQ(array_reserve((void **)&a, &cap, 1, sizeof(*a)), 0);
	CHECK_EQ(cap, 16); /* 64 bytes of ints */
	for (i = 0; i < 16; i++) {
		CHECK_EQ(a[i], 0);
		a[i] = 7;
	}
	CHECK_EQ(array_reserve((void **)&a, &cap, 16, sizeof(*a)), 0);
	CHECK_EQ(cap, 16); /* fits: untouched */
	CHECK_EQ(array_reserve((void **)&a, &cap, 33, sizeof(*a)), 0);
	CHECK_EQ(cap, 64);
	CHECK_EQ(a[15], 7);
	for (i = 16; i < 64; i++)
		CHECK_EQ(a[i], 0);
	free(a);
}

/* Large elements start with one (an episode's arrivals: most hold few). */
TEST(large_elements_start_small)
{
	struct big {
		char b[200];
	} *a = NULL;
	size_t cap = 0;

	CHECK_EQ(array_reserve((void **)&a, &cap, 1, sizeof(*a)), 0);
	CHECK_EQ(cap, 1);
	CHECK_EQ(array_reserve((void **)&a, &cap, 2, sizeof(*a)), 0);
	CHECK_EQ(cap, 2);
	CHECK_EQ(array_reserve((void **)&a, &cap, 5, sizeof(*a)), 0);
	CHECK_EQ(cap, 8);
	CHECK_EQ(a[4].b[199], 0);
	free(a);
}

/* A queue: oldest first across the ring's wrap and its growth, a bound,
 * and empty. */
TEST(fifo_keeps_order_across_wrap_and_growth)
{
	struct array_fifo q = {0};
	int v, i, next = 0, out = 0;

	CHECK_EQ(array_fifo_pop(&q, &v, sizeof(v)), 0);
	/* fill the first room (16 ints), take some, push past the end: wrapped */
	for (i = 0; i < 16; i++, next++)
		CHECK_EQ(array_fifo_push(&q, &next, sizeof(next), 0), 0);
	CHECK_EQ(q.cap, 16);
	for (i = 0; i < 10; i++) {
		CHECK_EQ(array_fifo_pop(&q, &v, sizeof(v)), 1);
		CHECK_EQ(v, out++);
	}
	for (i = 0; i < 10; i++, next++)
		CHECK_EQ(array_fifo_push(&q, &next, sizeof(next), 0), 0);
	CHECK_EQ(q.cap, 16);
	CHECK(q.head + q.len > q.cap); /* wrapped */
	/* full and wrapped: growing keeps the order */
	for (i = 0; i < 20; i++, next++)
		CHECK_EQ(array_fifo_push(&q, &next, sizeof(next), 0), 0);
	CHECK_EQ(q.cap, 64);
	CHECK_EQ(q.len, 36);
	while (array_fifo_pop(&q, &v, sizeof(v)))
		CHECK_EQ(v, out++);
	CHECK_EQ(out, next);
	CHECK_EQ(q.len, 0);
	free(q.buf);
}

TEST(fifo_bounded)
{
	struct array_fifo q = {0};
	int v = 1, i;

	for (i = 0; i < 16; i++)
		CHECK_EQ(array_fifo_push(&q, &v, sizeof(v), 16), 0);
	CHECK_EQ(array_fifo_push(&q, &v, sizeof(v), 16), -E2BIG);
	CHECK_EQ(q.len, 16);
	free(q.buf);
}
