/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * perf_event counters for per-phase deltas (-e): perf-style event names to
 * perf_event_attr, per-CPU counters opened for the BPF side to read at
 * barrier boundaries, and the fallback to software events on machines
 * without a hardware PMU (most VMs).
 */
#ifndef SBT_COUNTERS_H
#define SBT_COUNTERS_H

#include <stddef.h>
#include "sbt/format.h"

struct counter_set {
	struct sbt_counter_info info[SBT_MAX_COUNTERS];
	int n;
	int ncpus;	  /* possible CPUs: fds has n * ncpus entries, -1 where not opened */
	int *fds;	  /* index k * ncpus + cpu */
	char notice[512]; /* what was dropped or substituted, said once */
};

/* Parse "cycles,page-faults,r01c2,cpu/config=0x3c/". 0, or -EINVAL with a
 * message in err (unknown name, too many). */
int counters__parse(const char *list, struct counter_set *cs, char *err, size_t errlen);
/* Open the counters on every online CPU. Hardware events this machine does
 * not have are dropped; if none is left, the software events task-clock,
 * page-faults, context-switches and cpu-migrations are counted instead.
 * cs->notice says what happened. 0, or a negative errno with a message. */
int counters__open(struct counter_set *cs, char *err, size_t errlen);
void counters__close(struct counter_set *cs);
/* Print the known events and whether this machine can count them. */
void counters__list(FILE *f);

#endif
