/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Trace exports (doc/design.md §6): Chrome/Perfetto trace-event JSON, CSV (a row
 * per phase and thread), SVG timeline, OTF2. Each plugs into the phase analysis
 * through its callbacks and writes as phases complete: memory does not grow
 * with the trace (the SVG keeps one cell per thread and pixel column).
 */
#ifndef SBT_EXPORT_H
#define SBT_EXPORT_H

#include <stdio.h>
#include "analyses/phases.h"
#include "analyses/report.h"
#include "analyses/sim.h"

enum export_format { EXPORT_CHROME, EXPORT_CSV, EXPORT_SVG, EXPORT_OTF2, EXPORT_NFORMATS };

#define EXPORT_MEASURED	    1 /* view bits */
#define EXPORT_APPROXIMATED 2

/* A thread known from the trace's metadata (the SVG lays out its rows
 * before the first phase). */
struct export_thread {
	__u32 pid, tid;
	const char *comm;
	__u32 rank_id;	  /* its process's MPI rank + 1; 0: none */
	const char *host; /* where it ran ("": the trace's host) */
};

struct export_opts {
	int format;
	int views; /* EXPORT_MEASURED | EXPORT_APPROXIMATED */
	FILE *out;
	const char *path; /* OTF2: the archive's directory (it writes files of its own) */
	__u64 end_ns;	  /* trace end (SVG time scale, OTF2 trace length) */
	const struct export_thread *threads;
	int nthreads;
	int width;	/* SVG: pixels of the picture (default 1200) */
	int keep_views; /* SVG: draw both views even when they look the same */
	/* Chrome: the approximated run's critical path as a track of its own
	 * (a replay: memory grows with the trace's calls and arrivals) */
	int critical_path;
};

struct export_drops {
	__u64 total;
};

struct exporter;

/* NULL on a bad option (message in err) or no memory. */
struct exporter *exporter__new(const struct export_opts *o, const struct report_src *src, char *err,
			       size_t errlen);
void exporter__free(struct exporter *x);
/* Callbacks for phases__new(). */
extern const struct phases_ops exporter_phases_ops;
void exporter__begin(struct exporter *x);
/* Every record, after the analysis took it; ta: its approximated time. */
void exporter__record(struct exporter *x, const struct sbt_event *e, __u64 ta);
/* Whether the format wants exporter__record(). */
int exporter__wants_records(const struct exporter *x);
/* Closes the document; p gives the thread list, d the drops. */
void exporter__end(struct exporter *x, const struct phases *p, const struct export_drops *d);
/* Parse a format name: enum export_format, or -1. */
int export_format__parse(const char *name);

/* ---- shared by the formats ---- */

struct export_format_ops {
	int (*init)(struct exporter *x, char *err, size_t errlen); /* 0 or -1 + err */
	void (*begin)(struct exporter *x);
	void (*episode)(struct exporter *x, const struct ph_episode *ep);
	void (*call)(struct exporter *x, const struct ph_call *c);
	void (*futex_wait)(struct exporter *x, const struct ph_call *c);
	void (*record)(struct exporter *x, const struct sbt_event *e, __u64 ta);
	void (*end)(struct exporter *x, const struct phases *p, const struct export_drops *d);
	void (*fini)(struct exporter *x);
};

struct exporter {
	struct export_opts o;
	struct report_src src;
	const struct export_format_ops *ops;
	void *state; /* the format's */
	int failed;  /* the format could not write: its message was logged */
	/* --critical-path: the replay's inputs, and its path at the end
	 * (path_err: why there is none) */
	struct sim *sim;
	struct sim_path path;
	int path_err;
};

extern const struct export_format_ops export_chrome_ops, export_csv_ops, export_svg_ops,
	export_otf2_ops;

/* Names for the outputs. */
const char *export__symbol(const struct exporter *x, __u16 probe);
void export__site(const struct exporter *x, const struct ph_episode *ep, char *buf, size_t n);
void export__object(const struct exporter *x, __u32 pid, __u64 obj, __u16 probe, char *buf,
		    size_t n);
const char *export__comm(const struct exporter *x, __u32 tid);

#endif
