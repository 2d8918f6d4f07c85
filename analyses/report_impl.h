/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the reports (analyses/report.h): report.c is the core (lifecycle,
 * names, the phase callbacks, views and figures both formats show);
 * report_text.c and report_json.c each write one format, behind a table of
 * what the format does at each step. Private to them.
 */
#ifndef SBT_REPORT_IMPL_H
#define SBT_REPORT_IMPL_H

#include "lib/json.h"
#include "analyses/alpha_series.h"
#include "analyses/report.h"
#include "analyses/sembar.h"
#include "analyses/sim.h"
#include "analyses/sync_report.h"

#define NAME_MAX_LEN 256

/* A hang, kept for the summary (JSON writes them at the end): how many
 * threads waited and were missing, and the first of them. */
struct hang_note {
	__u32 pid;
	__u64 object;
	__u16 probe;
	__u64 call_site;
	__u64 since_ns;
	int at_end;
	__u32 nwaiting, nmissing;
	int listed_waiting, listed_missing;
	__u32 waiting[PH_HANG_LISTED], missing[PH_HANG_LISTED];
	__u64 missing_exit[PH_HANG_LISTED]; /* when a missing thread exited; 0: alive */
	/* threads of the process stopped then (the first PH_STOPPED_KEPT):
	 * nstopped > 0 makes it a stop, not a hang */
	__u32 stopped[PH_STOPPED_KEPT];
	int nstopped;
};

/* Hangs kept for the JSON summary; later ones are printed (text) and
 * counted, so that a trace of endless hangs keeps a report's memory bounded. */
#define REPORT_HANGS_KEPT 1000

struct report;

/* The --what-if replays (report_whatif.c): the replay as is, then each
 * change asked, balance by site ranked after a "balance". */
#define REPORT_WHATIF_ROWS 32
struct whatif_row {
	char name[300];
	__u64 predicted_ns;
	int stalled;
	const char *missing; /* what the change named that the trace lacks; NULL: none */
};
struct report_whatif {
	int err; /* 0, -ENODATA (no probe costs), -E2BIG, -ENOMEM */
	__u64 as_is_ns, barges;
	int as_is_stalled;
	/* --critical-path: the replay as is's, per view (enum ph_view), and
	 * why there is none */
	struct sim_path path[2];
	int path_err[2];
	struct whatif_row rows[REPORT_WHATIF_ROWS];
	int nrows;
};

/* What one output format writes; NULL: nothing at that step. */
struct report_format_ops {
	/* the start of the document */
	void (*begin)(struct report *r);
	/* a completed episode (with participants); names made on demand
	 * (report__episode_names: formatting them costs more than the
	 * analysis of the episode, and most are never shown) */
	void (*episode)(struct report *r, const struct ph_episode *ep);
	/* a hang, as it is found */
	void (*hang)(struct report *r, const struct hang_note *h);
	/* the summary; closes the document */
	void (*end)(struct report *r, const struct report_drops *d);
};

extern const struct report_format_ops report_text_ops, report_json_ops;

struct report {
	struct report_opts o;
	struct report_src src;
	const struct report_format_ops *ops;
	const struct phases *ph;
	struct json json;
	struct hang_note *hangs; /* the first REPORT_HANGS_KEPT */
	size_t nhangs, cap_hangs;
	__u64 hangs_total;
	int at_end;
	/* text: episode-line rate limit, per second of trace time */
	__u64 window_start, window_lines, suppressed;
	__u64 table_rows;	  /* text: rows of the phase table so far */
	__u64 json_phases;	  /* JSON: phases listed so far */
	__u64 watch_matched;	  /* text: bit i, --watch i matched a barrier */
	char command_end[64];	  /* how the launched command ended; "": unknown */
	struct iterations *it;	  /* the outer iterations (doc/design.md §5.6) */
	struct sim *sim;	  /* --what-if: the replay's items; NULL: none asked */
	struct report_whatif *wi; /* and what it gave (a report of each process
				   * of a trace is kept: not in every one) */
};

static inline double ms(__u64 ns)
{
	return ns / 1e6;
}

static inline double sec(__u64 ns)
{
	return ns / 1e9;
}

void report__before_output(struct report *r);
static inline const char *report__symbol(const struct report *r, __u16 probe)
{
	return report_src__symbol(&r->src, probe);
}

/* Probe id's entry in the probe table, or NULL. */
static inline const struct sbt_probe_info *report__probe(const struct report *r, __u16 probe)
{
	return probe < r->src.phases.nprobes ? &r->src.phases.probes[probe] : NULL;
}

/* Whether episodes of probe are a parallel region's implicit barrier. */
static inline int report__implicit(const struct report *r, __u16 probe)
{
	return probe < r->src.phases.nprobes &&
	       r->src.phases.probes[probe].kind == SBT_PK_REGION_BODY;
}

/* What a barrier whose episodes' probe is probe is made of: a mutex and a
 * condvar (analyses/condbar.h), semaphores (analyses/sembar.h), or NULL: a
 * barrier function or a parallel region. */
static inline const char *report__made_of(const struct report *r, __u16 probe)
{
	int kind = probe < r->src.phases.nprobes ? r->src.phases.probes[probe].kind : 0;

	if (kind == SBT_PK_COND_WAIT || kind == SBT_PK_COND_SIGNAL)
		return "mutex + condvar";
	if (sembar__is_sem_kind(kind))
		return "semaphores";
	return NULL;
}

static inline const char *report__comm(const struct report *r, __u32 tid)
{
	return report_src__comm(&r->src, tid, "?");
}

/* How the reports name a barrier: where it is called, and what it is. */
struct barrier_names {
	char where[NAME_MAX_LEN], name[NAME_MAX_LEN];
	int named; /* report__episode_names: where and name are made */
};
void report__name_barrier(const struct report *r, __u32 pid, __u64 call_site, __u64 object,
			  __u16 probe, struct barrier_names *bn);
/* Episode ep's names in bn, made at the first call (bn->named = 0 before). */
const struct barrier_names *report__episode_names(const struct report *r,
						  const struct ph_episode *ep,
						  struct barrier_names *bn);
/* Time since the session start. */
__u64 report__rel(const struct report *r, __u64 ts);
/* The same, negative before the session start: an attach records thread
 * creations a little before its probes are all in (its start). */
__s64 report__rel_signed(const struct report *r, __u64 ts);
/* The probe costs are known: approximated values are reported. */
int report__approx(const struct report *r);
/* Where the probe costs came from (alpha_series.h ALPHA_SOURCE_*, or
 * "unknown": a trace of an older version). */
const char *report__costs_source(const struct report *r);
/* Whether calibrated entry e of the costs is charged to a probe of the
 * session (or to counter records). */
int report__cost_entry_used(const struct report *r, size_t e);
/* A probe that borrowed its cost (from its first instruction's class, or
 * the fallback): the entry, 0 for others and for joins (*how: enum
 * alpha_how). */
const char *report__borrowed(const struct report *r, __u16 probe, int *how);
/* The name of a first instruction's class as calibrations give it. */
const char *report__insn_class(int cls);
/* How many borrowed probes a report lists by name. */
#define REPORT_BORROWED_KEPT 16
/* The view of outputs that show one: the approximated one only on request. */
int report__single_view(const struct report *r);
/* Whether sections that show each view in turn show view (enum ph_view): the
 * approximated when the probe costs are known and not --measured, the
 * measured unless --approximated (or there is no approximation). */
int report__shows(const struct report *r, int view);
/* Both views side by side. */
int report__both_views(const struct report *r);
/* The traced run, first to last event: measured, approximated. */
__u64 report__traced_ns(const struct report *r);
__u64 report__traced_a_ns(const struct report *r);
/* An approximated figure v's error e for "v ± e": the farther end of its
 * band b. */
__u64 report__half_width(__u64 v, const struct ph_band *b);
const char *report__model_name(const struct report *r);
/* Standard deviation of a site's barrier times. */
double report__barrier_sd(const struct ph_site *s);
/* The lock, semaphore, condvar and futex tables' view of the report. */
struct sync_report report__sync_view(const struct report *r);
/* Records lost: as the source counted them, or as the analysis saw them. */
__u64 report__drops_total(const struct report *r, const struct report_drops *d);

/* report_iter.c: the outer iterations (doc/design.md §5.6), the text
 * "Iterations" section and the JSON iterations{} object. */
void report_text__iterations(struct report *r);
/* Fork-join steps (report_forkjoin.c): whether there are any, whether the
 * text shows them (with barrier phases, only beyond a thread pool's one
 * step); the text section and the JSON fork_join{} object. */
int report__has_fork_join(const struct report *r);
int report__shows_fork_join(const struct report *r);
void report_text__fork_join(struct report *r);
void report_json__fork_join(struct report *r);
void report_json__iterations(struct report *r);
/* report_speedup.c: what the run is for another report's --baseline, and
 * the speedup against the baseline (text section, JSON baseline{}). */
void report__summarize(const struct report *r, struct run_summary *s);
struct it_result;
/* ... and within one run, the iterations by team size (text lines, JSON keys
 * of the iteration's object). */
void report_text__team_speedup(struct report *r, const struct it_result *o);
void report_json__team_speedup(struct report *r, const struct it_result *o);
void report_text__baseline(struct report *r);
void report_json__baseline(struct report *r);

/* report_eff_json.c: efficiencies and wait states in JSON (doc/design.md
 * §5.5): the wait keys of arrival a in a view (m: its phase's times); the
 * efficiency{} object of a phase, a site, a thread and the run (w: the
 * waits each thread caused). */
void report_json__arrival_waits(struct json *j, const struct ph_arrival *a, int view,
				const struct ph_episode_times *m);
void report_json__phase_eff(struct report *r, const struct ph_episode *ep);
void report_json__site_eff(struct report *r, const struct ph_site *s);
void report_json__thread_eff(struct report *r, const struct ph_thread *t,
			     const struct sync_waits *w);
void report_json__run_eff(struct report *r, const struct sync_waits *w);

/* report_whatif.c: the --what-if replays (doc/design.md §5.7), run at the
 * summary (d: the recording machine's CPUs), and their text section and
 * JSON what_if{} object. */
void report_whatif__compute(struct report *r, const struct report_drops *d);
/* Why a replay could not be made: its error (0: none), and in words. */
int report_whatif__err(const struct report *r);
const char *report_whatif__why(int err);
void report_text__whatif(struct report *r);
void report_json__whatif(struct report *r);
/* report_path.c: the critical path's text section and JSON object. */
void report_text__critical_path(struct report *r);
void report_json__critical_path(struct report *r);

/* report_eff_text.c: the Efficiency and Wait states tables of the text
 * summary (doc/design.md §5.5). */
void report_text__efficiency(struct report *r);

#endif /* SBT_REPORT_IMPL_H */
