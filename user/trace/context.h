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

/* A job for process pid: its analysis, its symbolizer, and the threads it
 * has now: seen created when `pending`, a map tid -> struct pending_thread
 * that may be NULL, has them (their entries are consumed); else started at
 * start_ns if the process was born in the session (launched, or exec'd
 * since), or before the session (attached to: their first phases are
 * partial). NULL on allocation failure. */
struct job *trace_ctx__start_job(struct trace_ctx *c, pid_t pid, __u64 start_ns, int born,
				 const char *command, struct hmap *pending);
/* Job's process exec'd (an SBT_EV_EXEC record): its addresses are named from
 * the new program's files from now on (a symbolizer of the process as it is
 * now; the old one would name them from the old program's, or not at all). */
void trace_ctx__job_exec(struct job *job);
/* A target started a process that is not traced (an SBT_EV_FORK record: -p
 * without --follow): said once, with what would trace it (not under top). */
void trace_ctx__unfollowed(struct trace_ctx *c, const struct sbt_event *e);
/* Name what record e of job refers to (thread, call site, object) while
 * the process can still be read. */
void trace_ctx__name_record(struct trace_ctx *c, struct job *job, const struct sbt_event *e);

#endif
