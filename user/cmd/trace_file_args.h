/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What `report` and `export` share on their command line: the trace FILE,
 * --pid and the approximation options, as an argp child, and the opening
 * of the trace. */
#ifndef SBT_TRACE_FILE_ARGS_H
#define SBT_TRACE_FILE_ARGS_H

#include <argp.h>
#include "analyses/replay.h"

struct trace_file_args {
	const char *path;
	__u32 pid; /* --pid; 0: none */
	struct approx_opts approx;
};

/* Child 0 of the command's argp; its input is a struct trace_file_args
 * (hand it over in ARGP_KEY_INIT: st->child_inputs[0]). */
extern const struct argp trace_file_argp;

/* Parse argv with the command's argp into its input (which holds a), a's
 * defaults set first. 0, or EXIT_USAGE after argp printed why. */
int trace_file_args__parse(const struct argp *argp, int argc, char **argv, void *input,
			   struct trace_file_args *a);
/* Open the trace and select --pid; with need_one, a trace holding several
 * processes needs one. 0, or EXIT_RUNTIME after logging why. */
int trace_file_args__open(const struct trace_file_args *a, struct replay *rp, int need_one);

#endif
