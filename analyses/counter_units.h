/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The unit of a counter's values (doc/design.md §6): the software clocks
 * (cpu-clock, task-clock) count nanoseconds, shown in ms in text like every
 * time there; other events are counts. */
#ifndef SBT_COUNTER_UNITS_H
#define SBT_COUNTER_UNITS_H

#include <linux/perf_event.h>
#include "sbt/format.h"

static inline int counter_is_time(const struct sbt_counter_info *c)
{
	return c->type == PERF_TYPE_SOFTWARE &&
	       (c->config == PERF_COUNT_SW_CPU_CLOCK || c->config == PERF_COUNT_SW_TASK_CLOCK);
}

/* The unit of its raw values, as JSON and CSV carry them. */
static inline const char *counter_raw_unit(const struct sbt_counter_info *c)
{
	return counter_is_time(c) ? "ns" : "events";
}

/* The unit shown in text tables ("" for counts). */
static inline const char *counter_text_unit(const struct sbt_counter_info *c)
{
	return counter_is_time(c) ? " ms" : "";
}

/* A value as text tables show it. */
static inline double counter_text_value(const struct sbt_counter_info *c, __u64 v)
{
	return counter_is_time(c) ? (double)v / 1e6 : (double)v;
}

#endif
