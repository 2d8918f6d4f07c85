// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Growable arrays: capacity doubling from 8, new room zeroed. */
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
	CHECK_EQ(cap, 8);
	for (i = 0; i < 8; i++) {
		CHECK_EQ(a[i], 0);
		a[i] = 7;
	}
	CHECK_EQ(array_reserve((void **)&a, &cap, 8, sizeof(*a)), 0);
	CHECK_EQ(cap, 8); /* fits: untouched */
	CHECK_EQ(array_reserve((void **)&a, &cap, 33, sizeof(*a)), 0);
	CHECK_EQ(cap, 64);
	CHECK_EQ(a[7], 7);
	for (i = 8; i < 64; i++)
		CHECK_EQ(a[i], 0);
	free(a);
}
