// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Growable arrays: capacity doubling from about 64 bytes' worth, new room zeroed. */
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
