/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The probe table of a session by probe id, and what each hit costs (α,
 * doc/design.md §5.4): the calibrated cost of the probed function, else of
 * its first instruction's class, unless --alpha fixes it. Probes found later
 * (other processes, dlopen) are added in place: ids never move.
 */
#ifndef SBT_PROBE_COSTS_H
#define SBT_PROBE_COSTS_H

#include "sbt/format.h"
#include "user/resolve/probes.h"
#include "user/trace/calibrate.h"
#include "user/trace/env.h"

struct probe_costs {
	struct sbt_probe_info *infos; /* SBT_MAX_PROBES entries, by probe id */
	__u64 *alpha_enter, *alpha_exit;
	__u64 alpha_counters; /* per counter record */
	int n;		      /* ids in use: 1 + the highest */
	struct calibration cal;
	int cal_ok;
	__s64 fixed_enter, fixed_exit; /* --alpha, or -1 */
	__u64 inject_ns;	       /* --inject-delay, added to every uprobe's */
};

/* Room for every id, and the costs: --alpha, else the calibration (cached
 * or measured now; a failure leaves every cost 0: no approximation).
 * ncounters: counter records will be charged. 0 or -ENOMEM. */
int probe_costs__init(struct probe_costs *pc, const struct env *env, int ncounters);
/* Probes p[0..n) take ids first..first+n-1. */
void probe_costs__set(struct probe_costs *pc, const struct probe *p, int first, int n);
void probe_costs__free(struct probe_costs *pc);

#endif
