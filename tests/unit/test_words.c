// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Near-miss words for did-you-mean. */
#include <stdint.h>
#include "lib/words.h"
#include "unit.h"

TEST(distance_counts_edits)
{
	CHECK_EQ(words__distance("", ""), 0);
	CHECK_EQ(words__distance("trace", "trace"), 0);
	CHECK_EQ(words__distance("tracee", "trace"), 1);  /* insertion */
	CHECK_EQ(words__distance("recrod", "record"), 2); /* swap = 2 substitutions */
	CHECK_EQ(words__distance("", "top"), 3);
	CHECK_EQ(words__distance("kitten", "sitting"), 3);
	CHECK_EQ(words__distance("0123456789012345678901234567890123456789012345678901234567890123",
				 "x"),
		 SIZE_MAX);
}

TEST(closest_within_the_limit_first_of_equals)
{
	static const char *const opts[] = {"trace", "top", "report", "record", "output"};

	CHECK_STR(words__closest("tracee", opts, 5, 2), "trace");
	CHECK_STR(words__closest("reprot", opts, 5, 2), "report");
	CHECK_STR(words__closest("tpo", opts, 5, 2), "top");
	CHECK(words__closest("frobnicate", opts, 5, 2) == NULL);
	CHECK(words__closest("tracee", opts, 0, 2) == NULL);
}
