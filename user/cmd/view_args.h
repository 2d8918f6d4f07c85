/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options of the reports' view (--format, --report, --watch, --watch-all, --warn-time,
 * --hang-timeout, --sort), shared by the tracing commands and `report` as an
 * argp child.
 */
#ifndef SBT_VIEW_ARGS_H
#define SBT_VIEW_ARGS_H

#include <argp.h>
#include "analyses/view_opts.h"

/* Add as a child of a command's argp; its input is a struct view_opts
 * (hand it over in ARGP_KEY_INIT: st->child_inputs[i]). */
extern const struct argp view_argp;

#endif
