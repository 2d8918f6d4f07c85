/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Clocks in nanoseconds. Records carry CLOCK_MONOTONIC (bpf_ktime_get_ns),
 * so every session time is read from that clock too. */
#ifndef SBT_CLOCK_H
#define SBT_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

#endif
