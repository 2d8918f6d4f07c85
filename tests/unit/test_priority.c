// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The drain's priority rule (user/trace/priority.h): raised at a quarter
 * full, lowered again below a sixteenth, nothing in between. */
#include "unit.h"
#include "user/trace/priority.h"

TEST(raised_from_a_quarter_full)
{
	CHECK_EQ(priority__wants_low(1, 0), 1);
	CHECK_EQ(priority__wants_low(1, 249), 1);
	CHECK_EQ(priority__wants_low(1, 250), 0);
	CHECK_EQ(priority__wants_low(1, 1000), 0);
}

TEST(lowered_again_below_a_sixteenth)
{
	CHECK_EQ(priority__wants_low(0, 1000), 0);
	CHECK_EQ(priority__wants_low(0, 249), 0);
	CHECK_EQ(priority__wants_low(0, 60), 0);
	CHECK_EQ(priority__wants_low(0, 59), 1);
}

/* Not asked for: nothing changes, whatever the rings hold. */
TEST(disabled_leaves_the_priority_alone)
{
	struct priority p;

	priority__begin(&p, -1);
	CHECK_EQ(p.enabled, 0);
	priority__adjust(&p, 1000);
	priority__raise(&p);
	CHECK_EQ(p.warned, 0);
}
