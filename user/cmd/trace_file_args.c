// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <limits.h>
#include "user/cmd/argp_check.h"
#include "lib/log.h"
#include "lib/parse.h"
#include "user/cmd/approx_args.h"
#include "user/cmd/trace_file_args.h"
#include "user/trace/env.h"

enum { OPT_PID = 3000 };

static const struct argp_option options[] = {
	{"pid", OPT_PID, "PID", 0,
	 "The process to read from a trace that holds several (record -a, -p PID,PID)", 0},
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct trace_file_args *a = st->input;
	int pid;

	switch (key) {
	case OPT_PID:
		if (parse_int(arg, 1, INT_MAX, &pid))
			argp_error(st, "invalid value '%s' for --pid", arg);
		a->pid = pid;
		return 0;
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &a->approx;
		return 0;
	case ARGP_KEY_ARG:
		if (a->path)
			argp_error(st, "one trace file at a time");
		a->path = arg;
		return 0;
	case ARGP_KEY_END:
		if (!a->path) /* record's default file, as perf report reads perf.data */
			a->path = ENV_DEFAULT_OUTPUT;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp_child children[] = {
	{&approx_argp, 0, "Approximation (probe cost removed):", 0},
	{},
};

const struct argp trace_file_argp = {.options = options, .parser = parse_opt, .children = children};

int trace_file_args__parse(const struct argp *argp, int argc, char **argv, void *input,
			   struct trace_file_args *a)
{
	*a = (struct trace_file_args){0};
	approx_opts__init(&a->approx);
	argp_err_exit_status = EXIT_USAGE;
	if (argp_check_options(argp, argc, argv))
		return EXIT_USAGE;
	return argp_parse(argp, argc, argv, 0, NULL, input) ? EXIT_USAGE : 0;
}

int trace_file_args__open(const struct trace_file_args *a, struct replay *rp, int need_one)
{
	if (replay__open(rp, a->path, &a->approx))
		return EXIT_RUNTIME;
	if (replay__select(rp, a->pid, need_one)) {
		replay__close(rp);
		return EXIT_RUNTIME;
	}
	return 0;
}
