/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Reports of barrier phases, shared by live tracing and `sbt-bpf report`:
 * SBT-style episode lines and watch blocks, hang reports, loop-barrier and
 * thread summaries, as text or as one JSON document (schema in README.md).
 * Plugs into the phase analysis through its callbacks and streams: phases
 * are written as they complete, never kept.
 */
#ifndef SBT_REPORT_H
#define SBT_REPORT_H

#include <stdio.h>
#include "analyses/names.h"
#include "analyses/phases.h"
#include "analyses/speedup.h"
#include "analyses/sync.h"

enum report_format { REPORT_TEXT, REPORT_JSON };
/* Which times the text shows when the probe costs are known (JSON always
 * carries both). */
enum report_view { REPORT_BOTH, REPORT_MEASURED_ONLY, REPORT_APPROXIMATED_ONLY };

struct report_opts {
	int format;
	int view;		  /* enum report_view */
	int episode_lines;	  /* one SBT line per completed episode (live) */
	int phase_table;	  /* a table row per phase (report) */
	const char *const *watch; /* detailed block for sites matching these */
	int nwatch;
	int watch_all;
	int sort;	       /* enum sync_sort: order of the lock table */
	__u64 warn_ns;	       /* warn when a barrier takes longer */
	__u64 max_lines_per_s; /* episode lines per second of trace time; 0 = no limit */
	__u64 max_phases;      /* JSON: phases listed (the first ones); 0 = all */
	FILE *out;
	/* Called before anything is written to out (live: clears the status
	 * line on the terminal). */
	void (*before_output)(void *ctx);
	void *hook_ctx;
	/* --what-if: replays of the approximated run (analyses/sim.h), in the
	 * summary; none: no replay */
	const struct sim_change *what_if;
	int nwhat_if;
	int critical_path; /* --critical-path: the replay's, in the summary */
	/* report --baseline: the run compared with (speedup, Amdahl), and its
	 * name; NULL: none */
	const struct run_summary *baseline;
	const char *baseline_name;
	/* Filled at the summary with what another report compares with; NULL:
	 * not asked */
	struct run_summary *summary_out;
	/* Where the report adds the --watch patterns it matched (bit i:
	 * watch[i]), for a caller with several reports to warn once about
	 * those no report matched; NULL: the report warns itself. */
	__u64 *watch_matched;
};

/* The analysis reported on, and where names and times come from (a live
 * session or a trace file). */
struct report_src {
	/* probes, session start, sync, counters, probe costs and model: the
	 * report reads the configuration its phase analysis runs with */
	struct phases_config phases;
	const struct names *names;
	__s64 realtime_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	const char *command;
	const char *kernel;
	/* how the probe costs were obtained (alpha_series.h ALPHA_SOURCE_*); NULL
	 * or "": not said (a trace of an older version) */
	const char *costs_source;
	const struct sbt_counter_info *counters; /* -e events, in record order */
};

/* Names from a source: a probe's symbol ("?" for an unknown id); an object,
 * by its symbol or else its probe's symbol and address; a thread's command
 * (unknown when there is none). */
const char *report_src__symbol(const struct report_src *s, __u16 probe);
void report_src__object(const struct report_src *s, __u32 pid, __u64 object, __u16 probe, char *buf,
			size_t n);
const char *report_src__comm(const struct report_src *s, __u32 tid, const char *unknown);

struct report_drops {
	__u64 total;
	const __u64 *per_cpu;
	int ncpus;
};

struct report;

struct report *report__new(const struct report_opts *o, const struct report_src *src);
void report__free(struct report *r);
/* The analysis whose sites and threads the summary reads. */
void report__attach(struct report *r, const struct phases *p);
/* Callbacks for phases__new(). */
extern const struct phases_ops report_phases_ops;
/* Text reports: write to out from now on, with or without episode lines
 * (a report kept aside until its process turned out to be the one to show
 * live). */
void report__redirect(struct report *r, const struct report_opts *o);
/* Start the document (JSON: opens the object and the phases array). */
void report__begin(struct report *r);
/* Hangs reported from now on were found at the end of the trace. */
void report__at_end(struct report *r);
/* How the launched command ended ("exited with status 3", "killed by
 * SIGSEGV"), for the summary (text: a "Command:" line; JSON command_end). */
void report__set_command_end(struct report *r, const char *end);
/* ... as set ("": not yet). */
const char *report__command_end(const struct report *r);
/* Summary: sites, threads, hangs, drops; closes the JSON document. */
void report__end(struct report *r, const struct report_drops *d);

/* Warn (text reports) about each --watch pattern of o not in matched. */
void report_opts__warn_unmatched(const struct report_opts *o, __u64 matched);

/* The outer iteration of the report's first process with one (doc/design.md
 * §5.6): iterations begun, and their mean measured time (0: none timed yet).
 * Returns -1 while no period is found. */
int report__iteration_now(const struct report *r, __u64 *count, double *mean_ns);

/* Where a call site is, as the reports name it (top names sites too). */
void report__site_where(const struct report *r, __u32 pid, __u64 call_site, char *buf, size_t n);

#endif
