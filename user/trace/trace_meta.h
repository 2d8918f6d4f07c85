/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What a live session writes into its .sbt file's metadata (lib/tracefile.h),
 * as it finds it: the recording, the probe table and costs, names, threads,
 * jobs, losses, each put once ahead of the records that need it, so that a
 * file cut anywhere names what its records refer to (doc/design.md §6). */
#ifndef SBT_TRACE_META_H
#define SBT_TRACE_META_H

#include "lib/tracefile.h"
#include "user/trace/target.h"

struct trace_meta;

struct trace_meta *trace_meta__new(void);
void trace_meta__free(struct trace_meta *s);
/* Put into w what the session of tg found since the last call: the first
 * call the start of the recording (INFO, probes and their costs, counters),
 * every call the probes, names, jobs, threads (and their exits) and losses
 * that are new. With end_ns, the end too (INFO with it and how a launched
 * command ended, every job's losses); later calls put nothing. 0 or -errno. */
int trace_meta__put(struct trace_meta *s, struct tf_writer *w, const struct target *tg,
		    __u64 end_ns);

#endif
