/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A recorded trace fed back through the analyses, for `report` and
 * `export`: the file's probe table, names, probe costs and threads set up
 * the phase analysis the way a live session would.
 */
#ifndef SBT_REPLAY_H
#define SBT_REPLAY_H

#include "analyses/alpha_series.h"
#include "analyses/approx_opts.h"
#include "analyses/names.h"
#include "analyses/phases.h"
#include "analyses/report.h"
#include "analyses/sync.h"
#include "lib/tracefile.h"

struct replay {
	struct tf_reader *tf;
	const struct tf_meta *m;
	struct sbt_probe_info *infos; /* indexed by probe id */
	int nprobes;
	struct names *names;
	struct sync *sync;
	int alpha_ok;		    /* the costs cover every probe id */
	struct alpha_series *costs; /* calibrated during the recording; NULL: none */
	struct approx_opts approx;
	/* the process selected (--pid, or the trace's only job): records of
	 * others are skipped; 0 = all */
	__u32 pid;
	const struct tf_job *job; /* its entry in the trace, or the only one */
	/* called with every record after the analysis took it (may be NULL) */
	void (*on_record)(void *ctx, const struct sbt_event *e, const struct phases *ph);
	void *record_ctx;
};

/* Open path; logs the reason and returns a negative errno on failure. */
int replay__open(struct replay *r, const char *path, const struct approx_opts *a);
/* The same on an open file (lib/tracefile.h: tracefile__open_fd), named name. */
int replay__open_fd(struct replay *r, int fd, const char *name, const struct approx_opts *a);
void replay__close(struct replay *r);
/* Select process pid (0: none). With need_one, a trace holding several
 * processes needs one selected. 0, or -EINVAL after logging why. */
int replay__select(struct replay *r, __u32 pid, int need_one);
/* The phase analysis's configuration, and the reports' sources (holding it). */
struct phases_config replay__phases_config(const struct replay *r);
struct export_thread;
/* The threads of the trace's metadata (of the process selected, if one
 * is), for exports that lay rows out first: an array to free, *n of them
 * (NULL: no memory). */
struct export_thread *replay__export_threads(const struct replay *rp, int *n);
struct report_src replay__report_src(const struct replay *r);
/* Every record through ph (threads of the file declared first; hangs in
 * trace time when hang_ns), then phases__finish(). Returns 0 or a negative
 * errno (a read error, logged). before_finish, when set, runs before
 * phases__finish() (report__at_end). */
int replay__run(struct replay *r, struct phases *ph, __u64 hang_ns,
		void (*before_finish)(void *ctx), void *ctx);

/* The report (ro) of the whole trace: begin, every record, end; with
 * several processes and none selected, a report per process (jobs.h). 0 or
 * a negative errno. */
int replay__report(struct replay *r, const struct report_opts *ro, __u64 hang_ns);

#endif
