/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Options of the approximation (perturbation model and the view of the
 * reports), shared by the tracing commands and `report` as an argp child.
 */
#ifndef SBT_APPROX_ARGS_H
#define SBT_APPROX_ARGS_H

#include <argp.h>
#include "analyses/approx_opts.h"

/* Add as a child of a command's argp; its input is a struct approx_opts
 * (hand it over in ARGP_KEY_INIT: st->child_inputs[i]). */
extern const struct argp approx_argp;

#endif
