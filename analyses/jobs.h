/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * One analysis per traced process ("job"): its own phases, synchronization
 * objects and report, fed with the records of its pid, exactly as if it
 * were the only process traced. Used by system-wide tracing, several -p,
 * `top`, and `report` of a trace holding several processes.
 *
 * With several jobs, each report is kept aside in memory and printed whole,
 * under a heading, when the job ends; a JSON report becomes
 * {"schema": 1, "jobs": [{"pid", "command", "start_ns", "end_ns", "rank" (MPI
 * ranks only), "report": <the job's report document>}, ...]}, with "mpi": the
 * MPI view across the jobs when processes called MPI (analyses/mpi_report.h).
 *
 * A launched command's process tree (live_first) reads as one process when
 * one process synchronizes: the first job to synchronize (a record of a
 * probed function) is reported as a single process is, live and without a
 * heading; any other that synchronizes is reported as above; a job that never
 * does is not reported, unless none did: then the first job (the command) is,
 * as a single process. JSON is a single report or the "jobs" document, as it
 * turns out at the end.
 */
#ifndef SBT_JOBS_H
#define SBT_JOBS_H

#include <stdio.h>
#include "analyses/phases.h"
#include "analyses/report.h"
#include "analyses/sync.h"

struct job_aside;

struct job {
	__u32 pid;
	char command[1024];
	__u64 start_ns; /* phase 0 of its threads starts here */
	__u64 end_ns;	/* exit of its last thread; 0 while it runs */
	int ended;	/* its report is out */
	struct sync *sync;
	struct phases *ph;
	struct report *report;
	FILE *out;		 /* its report: the output, or its aside with several jobs */
	struct job_aside *aside; /* that stream into memory, else NULL */
	__u64 drops;		 /* records lost, when known at its end */
	int synced;		 /* it called a probed function (a probe record) */
	int live;		 /* live_first: its report goes to the output as it is written */
	int rank;		 /* its MPI rank (jobs__set_rank()); -1: none known */
	void *user;		 /* the caller's per-job data */
};

struct jobs_config {
	struct report_opts ro; /* template: out is where every report ends up */
	/* template of the report and, in src.phases, of the analysis: start,
	 * sync and command come from the job */
	struct report_src src;
	int separate;	/* several jobs: reports aside in memory, with headings */
	int show_idle;	/* print jobs without barrier activity too */
	int live_first; /* a process tree: the first job to synchronize live (above) */
};

struct jobs;

struct jobs *jobs__new(const struct jobs_config *c);
/* Frees every job (their reports must be out: jobs__end_all()). */
void jobs__free(struct jobs *j);
/* The running job of pid, or NULL. */
struct job *jobs__find(const struct jobs *j, __u32 pid);
/* A new job for pid (a running one of the same pid must have ended). NULL
 * on allocation failure: the process is counted as left out (once per pid),
 * named at jobs__end_all() and jobs__failed(). */
struct job *jobs__start(struct jobs *j, __u32 pid, __u64 start_ns, const char *command);
/* Feed a record to its pid's running job (none: ignored). Returns the job,
 * or NULL. The exit of the job's last thread sets end_ns; the caller then
 * ends it with jobs__end(). */
struct job *jobs__feed(struct jobs *j, const struct sbt_event *e);
/* The job is MPI rank `rank` on host (NULL: not known); the MPI view
 * (analyses/mpi.h), printed after the jobs' reports, names it so. 0 or -ENOMEM. */
int jobs__set_rank(struct jobs *j, struct job *job, int rank, const char *host);
/* Whether the job synchronized at a barrier or ran a parallel region. */
int job__active(const struct job *job);
/* Finish the job's analysis and print its report. */
void jobs__end(struct jobs *j, struct job *job, const struct report_drops *d);
/* Start the combined document (JSON with several jobs). */
void jobs__begin(struct jobs *j);
/* End every running job (drops_of gives each one's lost records), close the
 * combined document; log the processes left out and the reports cut short
 * for want of memory. A failed write to ro.out is left on it (ferror()). */
void jobs__end_all(struct jobs *j,
		   void (*drops_of)(void *ctx, const struct job *job, struct report_drops *d),
		   void *ctx);
/* -ENOMEM when a process was left out or its report cut short for want of
 * memory (the command is to fail), else 0. */
int jobs__failed(const struct jobs *j);
size_t jobs__count(const struct jobs *j);
/* Jobs that called a probed function. */
size_t jobs__nsynced(const struct jobs *j);
/* The first job that created a thread (NULL: none). */
const struct job *jobs__threaded(const struct jobs *j);
/* Whether the job is one the output reports (with live_first, those that
 * synchronized, or the first job when none did; every job otherwise). */
int jobs__reported(const struct jobs *j, const struct job *job);
/* Whether it is reported whatever the other jobs do later (a job written
 * to a trace as the recording goes cannot be taken back). */
int jobs__reported_for_good(const struct jobs *j, const struct job *job);
/* Every job started so far, in start order (ended ones too). */
struct job *jobs__at(const struct jobs *j, size_t i);

#endif
