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

#endif
