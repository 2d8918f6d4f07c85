/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe table of a session by probe id, and what each hit costs (α,
 * doc/design.md §5.4): the calibrated cost of the probed function, else of
 * its first instruction's class, unless --alpha fixes it. Probes found later
 * (other processes, dlopen) are added in place: ids never move.
 *
 * The session calibrates itself: at its start (the costs below), again at
 * low duty while it traces, and at its end; every calibration goes into
 * `series` with its time, and each probe is bound to the calibrated entry
 * it is charged, so that a hit pays the calibration in force at its time.
 * --no-calibrate takes the cache (measured and cached when there is none).
 */
#ifndef SBT_PROBE_COSTS_H
#define SBT_PROBE_COSTS_H

#include <sched.h>
#include "analyses/alpha_series.h"
#include "lib/tracefile.h"
#include "sbt/format.h"
#include "user/resolve/probes.h"
#include "user/trace/calibrate.h"
#include "user/trace/env.h"

/* Where a probe is: what a calibration while tracing must not call. */
struct probe_site {
	__u64 dev, ino, offset, exit_offset;
};

struct probe_costs {
	struct sbt_probe_info *infos;	 /* SBT_MAX_PROBES entries, by probe id */
	__u64 *alpha_enter, *alpha_exit; /* the first calibration's, by probe id */
	__u64 alpha_counters;		 /* per counter record */
	int n;				 /* ids in use: 1 + the highest */
	struct calibration cal;		 /* the first calibration */
	int cal_ok;
	__s64 fixed_enter, fixed_exit; /* --alpha, or -1 */
	__u64 inject_ns;	       /* --inject-delay: in every uprobe's cost */
	const char *source;	       /* ALPHA_SOURCE_*: how the costs were obtained */
	/* every calibration of the session, in time order, and the entry each
	 * probe is charged; NULL with --alpha or when calibration failed */
	struct alpha_series *series;
	struct calibrator *calibrator; /* the session's own; NULL: it does not calibrate */
	__u64 interval_ns, next_ns;    /* calibrations while tracing; 0: none */
	int told;		       /* said why none can run */
	/* the calibrations as the trace file holds them (lib/tracefile.h:
	 * CALIBRATION), and each probe's entry and way (PROBE_COSTS) */
	char **names;
	__u32 nnames;
	struct tf_calibration *cals;
	__u32 ncals;
	size_t cap_cals;
	struct tf_cost *costs;
	__u32 ncosts;
	size_t cap_costs;
	__u32 *bound;		  /* by probe id: 1 + the index in names; 0: none */
	__u16 *how;		  /* by probe id: enum alpha_how */
	struct probe_site *sites; /* by probe id */
};

/* Room for every id, and the costs: --alpha, else the session's first
 * calibration (--no-calibrate, top: the cache, or a thorough measurement
 * cached); a failure leaves every cost 0: no approximation. ncounters:
 * counter records will be charged. 0 or -ENOMEM. */
int probe_costs__init(struct probe_costs *pc, const struct env *env, int ncounters);
/* Probes p[0..n) take ids first..first+n-1. */
void probe_costs__set(struct probe_costs *pc, const struct probe *p, int first, int n);
/* While tracing, at now: when due, a short calibration of the functions the
 * session does not probe (in any process: a calibration's calls would run
 * its probes too), run off the CPUs in `busy` where we may run elsewhere
 * (NULL: anywhere). 1 when one was taken. */
int probe_costs__recalibrate(struct probe_costs *pc, __u64 now, const cpu_set_t *busy);
/* A calibration while tracing is due at now. */
int probe_costs__due(const struct probe_costs *pc, __u64 now);
/* Tracing has ended (nothing of the session is attached): the last
 * calibration. */
void probe_costs__finish(struct probe_costs *pc);
void probe_costs__free(struct probe_costs *pc);

#endif
