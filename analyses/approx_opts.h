/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* How a run is approximated and which view the reports show: chosen on the
 * command line (user/cmd/approx_args.c), used by live tracing and replay. */
#ifndef SBT_APPROX_OPTS_H
#define SBT_APPROX_OPTS_H

#include "analyses/phases.h"
#include "analyses/report.h"

struct approx_opts {
	int model;	/* enum ph_model */
	int exit_order; /* enum ph_exit_order */
	int view;	/* enum report_view */
	int band;	/* compute the error band (phases_config.error_band) */
};

/* The defaults: Malony-Reed, measured exit order, both views, a band. */
static inline void approx_opts__init(struct approx_opts *o)
{
	*o = (struct approx_opts){
		.model = PH_MODEL_MR, .exit_order = PH_EXIT_RANK, .view = REPORT_BOTH, .band = 1};
}

#endif
