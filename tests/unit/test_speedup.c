// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Amdahl's serial fraction from two runs, exact values. */
#include <math.h>
#include "analyses/speedup.h"
#include "unit.h"

static int near(double x, double y)
{
	return fabs(x - y) < 1e-9;
}

TEST(serial_fraction_from_two_thread_counts)
{
	/* perfectly parallel: 100 on 1 thread, 25 on 4 */
	CHECK(near(amdahl_serial(100, 1, 25, 4), 0));
	/* all serial: no change */
	CHECK(near(amdahl_serial(100, 1, 100, 4), 1));
	/* f = 0.2: T(2) = 100 (0.2 + 0.4) = 60, T(8) = 100 (0.2 + 0.1) = 30 */
	CHECK(near(amdahl_serial(60, 2, 30, 8), 0.2));
	CHECK(near(amdahl_serial(30, 8, 60, 2), 0.2)); /* either way round */
	/* super-linear (cache effects): below 0 */
	CHECK(amdahl_serial(100, 1, 20, 4) < 0);
	/* the same thread count, or no time: cannot be told */
	CHECK(isnan(amdahl_serial(100, 4, 90, 4)));
	CHECK(isnan(amdahl_serial(0, 1, 90, 4)));
	CHECK(isnan(amdahl_serial(100, 0, 90, 4)));
}
