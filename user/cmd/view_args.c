// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "lib/parse.h"
#include "user/cmd/view_args.h"

enum {
	OPT_FORMAT = 4000,
	OPT_REPORT,
	OPT_WATCH,
	OPT_WATCH_ALL,
	OPT_WARN_TIME,
	OPT_HANG_TIMEOUT,
	OPT_SORT,
	OPT_PHASES,
	OPT_WHAT_IF,
	OPT_CRITICAL_PATH
};

static const struct argp_option options[] = {
	{"format", OPT_FORMAT, "FMT", 0, "Report format: text (default) or json", 0},
	{"report", OPT_REPORT, "FILE", 0,
	 "Write the report to FILE instead of standard output (which a traced command keeps "
	 "to itself)",
	 0},
	{"watch", OPT_WATCH, "SITE", 0,
	 "Detailed block (arrival order, inter-arrival, wall-clock) for barriers whose call "
	 "site, name or function contains SITE (repeatable)",
	 0},
	{"watch-all", OPT_WATCH_ALL, NULL, 0, "Detailed block for every barrier", 0},
	{"warn-time", OPT_WARN_TIME, "MS", 0, "Warn about barriers longer than MS (default 1000)",
	 0},
	{"hang-timeout", OPT_HANG_TIMEOUT, "S", 0,
	 "Report a barrier with arrivals and no release for S seconds (default 10, 0 = off)", 0},
	{"sort", OPT_SORT, "KEY", 0, "Order of the lock tables: wait (default), hold, count", 0},
	{"phases", OPT_PHASES, "N|all", 0,
	 "JSON: list the first N phases (default 10000; the summary counts them all) or all", 0},
	{"critical-path", OPT_CRITICAL_PATH, NULL, 0,
	 "The critical path of the approximated run (replayed): its time by thread and by "
	 "barrier site",
	 0},
	{"what-if", OPT_WHAT_IF, "SPEC", 0,
	 "Replay the approximated run with a change and predict its time "
	 "(repeatable): " SIM_SPEC_HELP,
	 0},
	{},
};

static void bad_value(const struct argp_state *st, const char *opt, const char *arg, int err)
{
	argp_error(st, "invalid value '%s' for %s: %s", arg, opt,
		   err == -ERANGE ? "out of range" : "not a number");
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct view_opts *o = st->input;
	char err[512];
	uint64_t v;
	int e;

	switch (key) {
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			argp_error(st, "unknown --format '%s' (text or json)", arg);
		o->json = !strcmp(arg, "json");
		return 0;
	case OPT_REPORT:
		o->report_path = arg;
		return 0;
	case OPT_WATCH:
		if (o->nwatch >= VIEW_MAX_WATCH)
			argp_error(st, "too many --watch (limit %d)", VIEW_MAX_WATCH);
		o->watch[o->nwatch++] = arg;
		return 0;
	case OPT_WATCH_ALL:
		o->watch_all = 1;
		return 0;
	case OPT_WARN_TIME:
		e = parse_u64(arg, 0, 86400000ULL, &v);
		if (e)
			bad_value(st, "--warn-time", arg, e);
		o->warn_ns = v * 1000000ULL;
		return 0;
	case OPT_HANG_TIMEOUT:
		e = parse_seconds_ns(arg, 86400ULL * 1000000000ULL, &o->hang_ns);
		if (e)
			bad_value(st, "--hang-timeout", arg, e);
		return 0;
	case OPT_PHASES:
		if (!strcmp(arg, "all")) {
			o->phases = 0;
			return 0;
		}
		e = parse_u64(arg, 1, UINT64_MAX, &o->phases);
		if (e)
			bad_value(st, "--phases", arg, e);
		return 0;
	case OPT_CRITICAL_PATH:
		o->critical_path = 1;
		return 0;
	case OPT_WHAT_IF:
		if (o->nwhat_if >= VIEW_MAX_WHAT_IF)
			argp_error(st, "too many --what-if (limit %d)", VIEW_MAX_WHAT_IF);
		if (sim_change__parse(arg, &o->what_if[o->nwhat_if], err, sizeof(err)))
			argp_error(st, "%s", err);
		o->nwhat_if++;
		return 0;
	case OPT_SORT:
		o->sort = sync_sort__parse(arg);
		if (o->sort < 0)
			argp_error(st, "unknown --sort '%s' (wait, hold, count)", arg);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

const struct argp view_argp = {.options = options, .parser = parse_opt};
