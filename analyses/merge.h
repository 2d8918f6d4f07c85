/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Traces of one job recorded on several nodes, one agent each, merged into
 * one trace on the first one's clock (doc/design.md §5.8, merging nodes).
 * Each node's CLOCK_MONOTONIC is its own: a first estimate maps it through
 * CLOCK_REALTIME at the recording's start (the INFO realtime offsets), then
 * the MPI collective episodes correct offset and drift: every rank leaves a
 * synchronizing collective within its release latency, so a node's ranks'
 * departures, against the first node's in the same episode, are samples of
 * the clocks' difference (analyses/clock_fit.h). What the fit leaves is the
 * stated uncertainty. Pids and thread ids that collide between nodes are
 * made distinct (bit 22 and up: the node's index), probe ids follow one
 * another, and the records are merged in time order.
 */
#ifndef SBT_MERGE_H
#define SBT_MERGE_H

#include <stddef.h>
#include "analyses/clock_fit.h"
#include "lib/tracefile.h"

#define MERGE_MAX_INPUTS 256

/* What merging did with one input. */
struct merge_node {
	char host[TF_HOST_MAX];
	char job_id[65];
	__u32 nranks;	      /* its jobs that were MPI ranks */
	__s64 realtime_ns;    /* the first estimate: its clock onto the first's */
	struct clock_fit fit; /* the correction from the episodes, after it */
	size_t episodes;      /* episodes shared with the first node (the samples) */
	__u32 remapped;	      /* pids and tids renamed for colliding with another node's */
	__u64 records;
};

struct merge_opts {
	const char *const *inputs;
	int ninputs;
	const char *output;
	int align; /* correct the clocks from the episodes (else the realtime estimate alone) */
};

/* Merge; nodes[ninputs] says what was done. 0, or a negative errno with a
 * message in err (an input unreadable, too many probes, the output). */
int merge__run(const struct merge_opts *o, struct merge_node *nodes, char *err, size_t errlen);

#endif
