/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a live session writes into its .sbt file's metadata (lib/tracefile.h):
 * the recording, the probe table and costs, names, threads, jobs, losses. */
#ifndef SBT_TRACE_META_H
#define SBT_TRACE_META_H

#include "lib/tracefile.h"
#include "user/trace/target.h"

/* Losses of the session, per CPU (ncpus entries). */
struct trace_losses {
	__u64 total;
	const __u64 *per_cpu;
	int ncpus;
};

/* Fill m (malloc'ed members: tf_meta_free()) from the session of target tg,
 * which ended at end_ns. */
void trace_meta__fill(struct tf_meta *m, const struct target *tg, __u64 end_ns,
		      const struct trace_losses *lost);

#endif
