/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Probe costs that change during a session (doc/design.md §5.4): the
 * calibrations a session took, each at its time, and which calibrated entry
 * each probe id is charged. The cost of a hit is the one of the latest
 * calibration at or before the hit's time (before the first: the first).
 *
 * An entry is a calibrated function (pthread_barrier_wait) or a
 * pseudo-entry (ALPHA_SYM_*). A calibration need not measure every entry:
 * one it leaves out keeps its value from the calibration before, and an
 * entry first measured later holds that value before it too. Each entry
 * keeps the calibrations that measured it in time order, so a lookup is a
 * binary search, or O(1) with a hint for records in time order.
 */
#ifndef SBT_ALPHA_SERIES_H
#define SBT_ALPHA_SERIES_H

#include <stddef.h>
#include "sbt/format.h"

/* Pseudo-entries: the futex syscall tracepoints' cost per syscall (sys_enter
 * as entry, sys_exit as return), one counter record (-e) as entry, a probe
 * shim site hit (entry site, exit site). */
#define ALPHA_SYM_FUTEX	    "[futex-tracepoints]"
#define ALPHA_SYM_COUNTERS  "[counter-record]"
#define ALPHA_SYM_SHIM_SITE "[shim-site]"
/* Not a cost: a barrier call's entry and return hits with every CPU hitting
 * probes at once (entry_ns) and alone (exit_ns), measured together. Their
 * ratio scales what a hit is charged by how many threads hit beside it
 * (doc/design.md §5.4) and widens the error band (alpha_series__range()).
 * Its class is ALPHA_ALL_CPUS_CLS + the threads that hit at once (the
 * class the pseudo-entries share, which is all an older trace has: the
 * count unknown, nothing scaled). */
#define ALPHA_SYM_ALL_CPUS "[all-cpus]"
#define ALPHA_ALL_CPUS_CLS 3

/* Distinct entries a series holds; more are ignored (a calibration has a
 * few dozen). It bounds the lookup hints a phase analysis keeps. */
#define ALPHA_SERIES_MAX_ENTRIES 64

/* How a probe came by its cost. */
enum alpha_how {
	ALPHA_NONE,	   /* not bound: the fixed table's cost */
	ALPHA_BY_NAME,	   /* its function was calibrated */
	ALPHA_BY_SHIM,	   /* a probe shim site: the site's cost */
	ALPHA_BY_CLASS,	   /* borrowed: a function whose first instruction the kernel
			    * handles the same way */
	ALPHA_BY_FALLBACK, /* no function of its class was calibrated */
	ALPHA_NHOW,
};

/* How the costs a session charged were obtained (the trace's INFO "costs"). */
#define ALPHA_SOURCE_SESSION  "session"	 /* measured by the session, at its start and later */
#define ALPHA_SOURCE_CACHE    "cache"	 /* the calibration cache (--no-calibrate) */
#define ALPHA_SOURCE_MEASURED "measured" /* --no-calibrate, no valid cache: measured and cached */
#define ALPHA_SOURCE_FIXED    "fixed"	 /* --alpha */
#define ALPHA_SOURCE_NONE     "none"	 /* calibration failed: no approximation */

struct alpha_cost {
	__u64 entry_ns, exit_ns;
};

/* What a series says about one entry, for reports. */
struct alpha_entry_info {
	const char *name;
	int cls;		    /* its first instruction's class, as the calibration gave it */
	size_t measured;	    /* calibrations that measured it */
	struct alpha_cost min, max; /* over them */
};

struct alpha_series;

struct alpha_series *alpha_series__new(void);
void alpha_series__free(struct alpha_series *s);
/* A calibration taken at ts (CLOCK_MONOTONIC ns): n entries, names[i] costs
 * costs[i] (cls[i] its class; cls may be NULL). Calibrations come in time
 * order: one earlier than the last is refused (-EINVAL). 0 or -ENOMEM. */
int alpha_series__add(struct alpha_series *s, __u64 ts, const char *const *names,
		      const struct alpha_cost *costs, const int *cls, size_t n);
/* Probe id is charged the cost of entry name (how: enum alpha_how). A probe
 * bound again takes the new binding. 0, -EINVAL (id out of range) or
 * -ENOSPC (too many entries). */
int alpha_series__bind(struct alpha_series *s, unsigned int id, const char *name, int how);

/* Changes so far (calibrations added, probes bound): what was derived from
 * the series is stale when it moved. */
__u64 alpha_series__generation(const struct alpha_series *s);
/* Calibrations taken, and the time of the k-th (in time order). */
size_t alpha_series__count(const struct alpha_series *s);
__u64 alpha_series__ts(const struct alpha_series *s, size_t k);
/* Entries known, and what the series says about entry e. */
size_t alpha_series__nentries(const struct alpha_series *s);
struct alpha_entry_info alpha_series__entry(const struct alpha_series *s, size_t e);
/* The entry probe id is bound to (its index, how in *how), or -1. */
int alpha_series__entry_of(const struct alpha_series *s, unsigned int id, int *how);
/* The entry named name, or -1 (none, or s NULL); the entry ALPHA_SYM_COUNTERS, or -1. */
int alpha_series__find(const struct alpha_series *s, const char *name);
int alpha_series__counters(const struct alpha_series *s);

/* The cost of entry e in force at ts: the latest calibration of it at or
 * before ts, else its first. hint: the caller's cursor for that entry (0 to
 * begin), kept between calls. 1, or 0 when e was never measured. */
int alpha_series__cost(const struct alpha_series *s, int e, __u64 ts, __u32 *hint,
		       struct alpha_cost *c);

/* The least and greatest cost probe id may be charged (doc/design.md §5.4,
 * error band): its entry's over the calibrations; a borrowed cost's over
 * every function calibrated of its class (ALPHA_BY_CLASS) or every function
 * calibrated (ALPHA_BY_FALLBACK), the uncertainty of borrowing; then the
 * greatest scaled by the largest all-CPUs ratio above 1 (ALPHA_SYM_ALL_CPUS:
 * hits beside it make a hit dearer), the least by the smallest below 1. 1,
 * or 0 when the probe is not bound to a measured entry. */
int alpha_series__range(const struct alpha_series *s, unsigned int id, struct alpha_cost *lo,
			struct alpha_cost *hi);
/* The least and greatest all-CPUs ratio measured (1 and 1 when none was). */
void alpha_series__all_cpus(const struct alpha_series *s, double *least, double *greatest);
/* The threads the all-CPUs ratio was measured with; 0 when unknown. */
unsigned int alpha_series__all_cpus_threads(const struct alpha_series *s);
/* The factor on a hit's cost with others (the sum of the other threads'
 * duties) hitting beside it: linear from 1 alone to ratio with threads - 1
 * others hitting all the time, capped there. */
double alpha_concurrency_factor(double ratio, unsigned int threads, double others);

/* The name of a way to come by a cost ("name", "shim", "class",
 * "fallback"; "none"). */
const char *alpha_how_name(int how);

#endif
