/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What the targets of a tracing session and its event loop share, owned by
 * the tracer: the options, the BPF session, the probe costs, the names and
 * the jobs (one analysis per traced process). Targets find processes and
 * attach their probes; they start jobs and name what records refer to
 * through the functions below.
 */
#ifndef SBT_CONTEXT_H
#define SBT_CONTEXT_H

#include <sys/types.h>
#include "analyses/jobs.h"
#include "analyses/names.h"
#include "lib/hmap.h"
#include "user/bpf/counters.h"
#include "user/bpf/session.h"
#include "user/trace/env.h"
#include "user/trace/probe_costs.h"

struct sym_timeline;

struct trace_ctx {
	const struct env *env;
	struct session *session;
	struct probe_costs costs;
	struct counter_set counters; /* -e */
	struct names *names;
	struct jobs *jobs;
	__u64 start_ns;		  /* phase 0 of the threads there at the start begins here */
	__s64 realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	char command[1024];	  /* what is traced, for headings and the trace file */
	int told_unfollowed;	  /* trace_ctx__unfollowed() said it */
};

/* A thread seen created before its process became a job (-a). */
struct pending_thread {
	__u32 pid;
	__u64 start_ns;
	char comm[SBT_COMM_LEN];
};

/* A job for process pid: its analysis, what names its addresses, and the
 * threads it has now: seen created when `pending`, a map tid -> struct
 * pending_thread that may be NULL, has them (their entries are consumed);
 * else started at start_ns if the process was born in the session
 * (launched, or exec'd since), or before the session (attached to: their
 * first phases are partial). Its names: `noted` (taken; may be NULL), the
 * symbolizers read while the process was there (at its fork, exec and
 * stops), up to now, and the process read now from now on (user/resolve/
 * sym_timeline.h). NULL on allocation failure. */
struct job *trace_ctx__start_job(struct trace_ctx *c, pid_t pid, __u64 start_ns, int born,
				 const char *command, struct hmap *pending,
				 struct sym_timeline *noted);
/* Job's process exec'd at ts_ns (an SBT_EV_EXEC record, read in time order):
 * its records from then on are named from the new program's files (the
 * process read now; by address if it is gone), the earlier ones still from
 * the old program's (doc/design.md §2, names). */
void trace_ctx__job_exec(struct trace_ctx *c, struct job *job, __u64 ts_ns);
/* Frees what names job's addresses (its report is out). */
void trace_ctx__job_free_names(struct job *job);
/* ns, a time of CLOCK_MONOTONIC, as the session stamps its records
 * (--clock-skew shifts them). */
__u64 trace_ctx__stamp(const struct trace_ctx *c, __u64 ns);
/* Now, as the session stamps its records: a symbolizer read now, while
 * the process stands still, names the records stamped from now on. */
__u64 trace_ctx__now(const struct trace_ctx *c);
/* A target started a process that is not traced (an SBT_EV_FORK record: -p
 * without --follow): said once, with what would trace it (not under top). */
void trace_ctx__unfollowed(struct trace_ctx *c, const struct sbt_event *e);
/* Name what record e of job refers to (thread, call site, object) while
 * the process can still be read, from the files it mapped at e's time.
 * Records are named in time order. */
void trace_ctx__name_record(struct trace_ctx *c, struct job *job, const struct sbt_event *e);

#endif
