/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* How the reports show a run: the same options live and in `report`
 * (user/cmd/view_args.c). */
#ifndef SBT_VIEW_OPTS_H
#define SBT_VIEW_OPTS_H

#include <stdint.h>
#include "analyses/sim.h"
#include "analyses/sync_report.h"

#define VIEW_MAX_WATCH	 32
#define VIEW_MAX_WHAT_IF 8

struct view_opts {
	int json;			   /* --format json */
	const char *report_path;	   /* --report FILE; NULL: standard output */
	const char *watch[VIEW_MAX_WATCH]; /* --watch SITE: detailed blocks */
	int nwatch;
	int watch_all;	  /* --watch-all */
	uint64_t warn_ns; /* --warn-time, ms on the command line */
	uint64_t hang_ns; /* --hang-timeout, s on the command line; 0 = off */
	int sort;	  /* --sort: enum sync_sort */
	uint64_t phases;  /* --phases: phases listed in JSON; 0 = all */
	struct sim_change what_if[VIEW_MAX_WHAT_IF]; /* --what-if: replays (sim.h) */
	int nwhat_if;
	int critical_path; /* --critical-path */
};

/* Phases a JSON report lists unless --phases says otherwise: a run of
 * millions of phases would otherwise give gigabytes. */
#define VIEW_JSON_PHASES 10000

/* The defaults: text, barriers over 1 s marked, hangs reported after 10 s. */
static inline void view_opts__init(struct view_opts *o)
{
	*o = (struct view_opts){.warn_ns = 1000ULL * 1000000ULL,
				.hang_ns = 10ULL * 1000000000ULL,
				.sort = SYNC_SORT_WAIT,
				.phases = VIEW_JSON_PHASES};
}

#endif
