/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Unsigned arithmetic the analyses share. */
#ifndef SBT_NUM_H
#define SBT_NUM_H

#include <stdint.h>

/* a - b, 0 when b is the greater: times and durations never wrap negative. */
static inline uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

/* ns times by, rounded; past what a uint64_t holds (a hostile trace's
 * ratio), the largest: converting such a double is undefined. */
static inline uint64_t scaled_u64(uint64_t ns, double by)
{
	double v = (double)ns * by + 0.5;

	return v >= 18446744073709551616.0 ? UINT64_MAX : v > 0 ? (uint64_t)v : 0;
}

#endif
