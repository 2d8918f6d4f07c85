// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `sbt-bpf report FILE`: the phase analysis of a recorded trace, as a table
 * or as JSON. Runs the same analysis and report code as live tracing. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "user/cmd/cmds.h"
#include "user/cmd/trace_file_args.h"
#include "lib/log.h"
#include "analyses/names.h"
#include "lib/parse.h"
#include "analyses/phases.h"
#include "analyses/report.h"
#include "analyses/sync.h"
#include "analyses/sync_report.h"
#include "analyses/replay.h"
#include "lib/tracefile.h"

#define REPORT_MAX_WATCH 32

struct report_env {
	struct trace_file_args file;
	int json;
	const char *watch[REPORT_MAX_WATCH];
	int nwatch;
	int watch_all;
	uint64_t warn_ns;
	uint64_t hang_ns;
	int sort;
};

enum {
	OPT_FORMAT = 1000,
	OPT_WATCH,
	OPT_WATCH_ALL,
	OPT_WARN_TIME,
	OPT_HANG_TIMEOUT,
	OPT_SORT,
};

static const struct argp_option options[] = {
	{"format", OPT_FORMAT, "FMT", 0, "text (default) or json", 0},
	{"watch", OPT_WATCH, "SITE", 0, "Detailed block for barriers matching SITE (repeatable)",
	 0},
	{"watch-all", OPT_WATCH_ALL, NULL, 0, "Detailed block for every barrier", 0},
	{"warn-time", OPT_WARN_TIME, "MS", 0, "Mark barriers longer than MS (default 1000)", 0},
	{"hang-timeout", OPT_HANG_TIMEOUT, "S", 0,
	 "Report barriers with no release for S seconds of trace time (default 10, 0 = off)", 0},
	{"sort", OPT_SORT, "KEY", 0, "Order of the lock table: wait (default), hold, count", 0},
	{},
};

static const char doc[] = "Analyse a .sbt trace file recorded by `sbt-bpf record`.\n"
			  "\n"
			  "Examples:\n"
			  "  sbt-bpf report lu.sbt\n"
			  "  sbt-bpf report --format json lu.sbt > lu.json\n"
			  "  sbt-bpf report --watch lu.c:320 lu.sbt\n"
			  "  sbt-bpf report --approximated lu.sbt     # probe cost removed\n"
			  "  sbt-bpf report --model sm --exit-order reverse lu.sbt\n"
			  "  sbt-bpf report --pid 4242 all.sbt        # one process of record -a\n"
			  "\n"
			  "A trace of several processes gets a report per process unless --pid "
			  "selects one.";

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct report_env *env = st->input;
	uint64_t v;

	switch (key) {
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			argp_error(st, "unknown --format '%s' (text or json)", arg);
		env->json = !strcmp(arg, "json");
		return 0;
	case OPT_WATCH:
		if (env->nwatch >= REPORT_MAX_WATCH)
			argp_error(st, "too many --watch");
		env->watch[env->nwatch++] = arg;
		return 0;
	case OPT_WATCH_ALL:
		env->watch_all = 1;
		return 0;
	case OPT_WARN_TIME:
		if (parse_u64(arg, 0, 86400000ULL, &v))
			argp_error(st, "invalid value '%s' for --warn-time", arg);
		env->warn_ns = v * 1000000ULL;
		return 0;
	case OPT_HANG_TIMEOUT:
		if (parse_seconds_ns(arg, 86400ULL * 1000000000ULL, &env->hang_ns))
			argp_error(st, "invalid value '%s' for --hang-timeout", arg);
		return 0;
	case OPT_SORT:
		env->sort = sync_sort__parse(arg);
		if (env->sort < 0)
			argp_error(st, "unknown --sort '%s' (wait, hold, count)", arg);
		return 0;
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &env->file;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static int analyse(struct replay *rp, const struct report_env *env)
{
	struct report_opts ro = {.format = env->json ? REPORT_JSON : REPORT_TEXT,
				 .phase_table = 1,
				 .watch = env->watch,
				 .nwatch = env->nwatch,
				 .watch_all = env->watch_all,
				 .warn_ns = env->warn_ns,
				 .sort = env->sort,
				 .view = env->file.approx.view,
				 .out = stdout};

	if (!env->json)
		printf("Trace of: %s\nKernel: %s\n\n", rp->job ? rp->job->command : rp->m->command,
		       rp->m->kernel);
	return replay__report(rp, &ro, env->hang_ns) ? EXIT_RUNTIME : EXIT_OK;
}

int cmd_report(int argc, char **argv)
{
	static const struct argp_child children[] = {{&trace_file_argp, 0, NULL, 0}, {}};
	static const struct argp argp = {.options = options,
					 .parser = parse_opt,
					 .args_doc = "FILE",
					 .doc = doc,
					 .children = children};
	struct report_env env = {.warn_ns = 1000000000ULL, .hang_ns = 10000000000ULL};
	struct replay rp;
	int rc;

	rc = trace_file_args__parse(&argp, argc, argv, &env, &env.file);
	if (!rc)
		rc = trace_file_args__open(&env.file, &rp, 0);
	if (rc)
		return rc;
	rc = analyse(&rp, &env);
	replay__close(&rp);
	return rc;
}
