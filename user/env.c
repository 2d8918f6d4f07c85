// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "env.h"
#include "log.h"
#include "parse.h"
#include "sync_report.h"

enum {
	OPT_WATCH = 1000,
	OPT_WATCH_ALL,
	OPT_WARN_TIME,
	OPT_HANG_TIMEOUT,
	OPT_PROBE,
	OPT_BUFFER,
	OPT_DRAIN,
	OPT_MAX_LINES,
	OPT_FORMAT,
	OPT_FORCE,
	OPT_TRACE,
	OPT_SORT,
	OPT_LIST_EVENTS,
	OPT_ALPHA,
};

static const char trace_doc[] =
	"Trace barrier phases of a running pthreads/OpenMP process (-p) or of a command "
	"(-- CMD), live, with SBT-style reports.\n"
	"\n"
	"Examples:\n"
	"  sudo sbt-bpf -p 4242                        # attach to a running job\n"
	"  sudo sbt-bpf -- ./lu -p8 -n2048             # launch and trace a command\n"
	"  sudo sbt-bpf --watch-all -- ./prog          # arrival order of every barrier\n"
	"  sudo sbt-bpf --watch lu.c:320 -p 4242       # details of one barrier site\n"
	"  sudo sbt-bpf --hang-timeout 5 -p 4242       # name threads missing at a barrier\n"
	"  sudo sbt-bpf --probe ./app:my_barrier:team -- ./app\n"
	"  sudo sbt-bpf --trace all --sort hold -p 4242   # locks too, by hold time\n"
	"  sudo sbt-bpf -e cycles,instructions --watch-all -p 4242   # counters per phase\n"
	"\nSubcommands: record, report (sbt-bpf COMMAND --help)."
	"\vProbe kinds for --probe: barrier (the first argument identifies the barrier), team "
	"(every thread of the process takes part; no argument), region (parallel region frame), "
	"lock, "
	"trylock, unlock (first argument = the lock), P, V (semaphore), wait, signal (condition).";

static const char record_doc[] =
	"Record a trace file of a running process (-p) or of a command (-- CMD).\n"
	"\n"
	"Examples:\n"
	"  sudo sbt-bpf record -p 4242 -o lu.sbt\n"
	"  sudo sbt-bpf record -o lu.sbt -- ./lu -p8\n"
	"  sbt-bpf report lu.sbt";

static const struct argp_option options[] = {
	{"pid", 'p', "PID", 0, "Trace the running process PID (all its threads)", 0},
	{"output", 'o', "FILE", 0, "Write a .sbt trace file", 0},
	{"watch", OPT_WATCH, "SITE", 0,
	 "Detailed block (arrival order, inter-arrival, wall-clock) for barriers whose call "
	 "site, name or function contains SITE (repeatable)",
	 1},
	{"watch-all", OPT_WATCH_ALL, NULL, 0, "Detailed block for every barrier", 1},
	{"warn-time", OPT_WARN_TIME, "MS", 0, "Warn when a barrier takes longer (default 1000)", 1},
	{"hang-timeout", OPT_HANG_TIMEOUT, "S", 0,
	 "Report a barrier with arrivals and no release for S seconds (default 10, 0 = off)", 1},
	{"quiet", 'q', NULL, 0, "No line per barrier episode; summary only", 1},
	{"max-lines", OPT_MAX_LINES, "N", 0,
	 "At most N episode lines per second of trace (default 50, 0 = no limit)", 1},
	{"format", OPT_FORMAT, "FMT", 0, "Summary format: text (default) or json", 1},
	{"probe", OPT_PROBE, "BINARY:SYMBOL:KIND", 0,
	 "Also probe SYMBOL in BINARY as a KIND (see below); repeatable", 2},
	{"trace", OPT_TRACE, "LIST", 0,
	 "What to trace: barrier, lock, sem, cond, futex, all (default barrier,sem,cond,futex: "
	 "lock probes are the most frequent calls, so the most perturbing)",
	 2},
	{"sort", OPT_SORT, "KEY", 0, "Order of the lock tables: wait (default), hold, count", 1},
	{"force", OPT_FORCE, NULL, 0, "Trace even if the target uses no traced function", 2},
	{"events", 'e', "EVENT,...", 0,
	 "Per-phase counter deltas (at most 4): cycles, instructions, cache-misses, "
	 "branch-misses, task-clock, page-faults, context-switches, cpu-migrations, rNNNN, "
	 "PMU/config=N/ ...",
	 1},
	{"list-events", OPT_LIST_EVENTS, NULL, 0, "List the counter events this machine supports",
	 1},
	{"alpha", OPT_ALPHA, "ENTRY[,RETURN]", 0,
	 "Probe cost per hit in ns for the approximation, instead of the calibrated values "
	 "(sbt-bpf calibrate)",
	 3},
	{"duration", 'd', "S", 0, "Stop after S seconds", 3},
	{"buffer-size", OPT_BUFFER, "SIZE", 0, "Ring buffer size, power of two (default 16M)", 3},
	{"drain-interval", OPT_DRAIN, "MS", 0, "Drain the ring buffer every MS ms (default 20)", 3},
	{"verbose", 'v', NULL, 0, "More messages (twice: libbpf debug output)", 4},
	{},
};

static int bad_value(const struct argp_state *st, const char *opt, const char *arg, int err)
{
	argp_error(st, "invalid value '%s' for %s: %s", arg, opt,
		   err == -ERANGE ? "out of range" : "not a number");
	return EINVAL;
}

static int parse_probe(struct env *env, const char *arg, struct argp_state *st)
{
	char err[256];

	if (env->nprobes >= ENV_MAX_PROBES) {
		argp_error(st, "too many --probe (limit %d)", ENV_MAX_PROBES);
		return EINVAL;
	}
	if (user_probe__parse(arg, &env->probes[env->nprobes], err, sizeof(err))) {
		argp_error(st, "%s", err);
		return EINVAL;
	}
	env->nprobes++;
	return 0;
}

static int parse_alpha(struct env *env, const char *arg, struct argp_state *st)
{
	char buf[64], *comma;
	uint64_t en, ex;

	snprintf(buf, sizeof(buf), "%s", arg);
	comma = strchr(buf, ',');
	if (comma)
		*comma = 0;
	if (parse_u64(buf, 0, 1000000000ULL, &en) ||
	    (comma && parse_u64(comma + 1, 0, 1000000000ULL, &ex))) {
		argp_error(st, "invalid value '%s' for --alpha (ENTRY[,RETURN] in ns)", arg);
		return EINVAL;
	}
	env->alpha_enter = en;
	env->alpha_exit = comma ? ex : en;
	return 0;
}

static int parse_value(struct env *env, int key, const char *arg, struct argp_state *st)
{
	uint64_t v;
	int e = 0, i;

	switch (key) {
	case 'p':
		e = parse_int(arg, 1, INT_MAX, &i);
		env->pid = i;
		return e ? bad_value(st, "-p", arg, e) : 0;
	case OPT_WARN_TIME:
		e = parse_u64(arg, 0, 86400000ULL, &v);
		env->warn_ns = v * 1000000ULL;
		return e ? bad_value(st, "--warn-time", arg, e) : 0;
	case OPT_HANG_TIMEOUT:
		e = parse_seconds_ns(arg, 86400ULL * 1000000000ULL, &env->hang_ns);
		return e ? bad_value(st, "--hang-timeout", arg, e) : 0;
	case 'd':
		e = parse_seconds_ns(arg, 86400ULL * 365 * 1000000000ULL, &env->duration_ns);
		return e ? bad_value(st, "--duration", arg, e) : 0;
	case OPT_BUFFER:
		e = parse_size(arg, 4096, 1ULL << 30, &env->buffer_bytes);
		if (!e && (env->buffer_bytes & (env->buffer_bytes - 1)))
			e = -EINVAL;
		return e ? bad_value(st, "--buffer-size (a power of two, 4K..1G)", arg, e) : 0;
	case OPT_DRAIN:
		e = parse_int(arg, 1, 10000, &env->drain_ms);
		return e ? bad_value(st, "--drain-interval", arg, e) : 0;
	case OPT_MAX_LINES:
		e = parse_u64(arg, 0, UINT32_MAX, &env->max_lines);
		return e ? bad_value(st, "--max-lines", arg, e) : 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct env *env = st->input;

	switch (key) {
	case 'o':
		env->output = arg;
		return 0;
	case OPT_WATCH:
		if (env->nwatch >= ENV_MAX_WATCH)
			argp_error(st, "too many --watch (limit %d)", ENV_MAX_WATCH);
		env->watch[env->nwatch++] = arg;
		return 0;
	case OPT_WATCH_ALL:
		env->watch_all = 1;
		return 0;
	case 'q':
		env->quiet = 1;
		return 0;
	case OPT_FORMAT:
		if (strcmp(arg, "text") && strcmp(arg, "json"))
			argp_error(st, "unknown --format '%s' (text or json)", arg);
		env->json = !strcmp(arg, "json");
		return 0;
	case OPT_PROBE:
		return parse_probe(env, arg, st);
	case OPT_FORCE:
		env->force = 1;
		return 0;
	case 'e':
		env->events = arg;
		return 0;
	case OPT_LIST_EVENTS:
		env->list_events = 1;
		return 0;
	case OPT_ALPHA:
		return parse_alpha(env, arg, st);
	case OPT_TRACE: {
		char err[256];

		if (trace_classes__parse(arg, &env->classes, err, sizeof(err)))
			argp_error(st, "%s", err);
		return 0;
	}
	case OPT_SORT:
		env->sort = sync_sort__parse(arg);
		if (env->sort < 0)
			argp_error(st, "unknown --sort '%s' (wait, hold, count)", arg);
		return 0;
	case 'v':
		log_set_level(log_get_level() + 1);
		return 0;
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &env->approx;
		return 0;
	case ARGP_KEY_ARG:
		return ARGP_ERR_UNKNOWN; /* hand the rest to ARGP_KEY_ARGS */
	case ARGP_KEY_ARGS:
		if (st->next < 1 || strcmp(st->argv[st->next - 1], "--"))
			argp_error(st, "unexpected argument '%s' (a command goes after --)",
				   st->argv[st->next]);
		env->cmd = st->argv + st->next;
		return 0;
	case ARGP_KEY_END:
		if (env->list_events)
			return 0;
		if (!env->pid == !env->cmd)
			argp_error(st, "give either -p PID or -- COMMAND");
		if (env->record && !env->output)
			argp_error(st, "record needs -o FILE");
		if (env->record && env->json)
			argp_error(
				st,
				"record writes a trace; use `sbt-bpf report --format json FILE`");
		return 0;
	}
	return parse_value(env, key, arg, st);
}

int env__parse(struct env *env, int argc, char **argv, int record)
{
	static const struct argp_child children[] = {
		{&approx_argp, 0, "Approximation (probe cost removed):", 4}, {}};
	struct argp argp = {
		.children = children,
		.options = options,
		.parser = parse_opt,
		.args_doc = "[-p PID | -- COMMAND [ARG...]]",
		.doc = record ? record_doc : trace_doc,
	};

	memset(env, 0, sizeof(*env));
	env->record = record;
	env->warn_ns = 1000ULL * 1000000ULL;
	env->hang_ns = 10ULL * 1000000000ULL;
	env->buffer_bytes = 16ULL << 20;
	env->drain_ms = 20;
	env->max_lines = 50;
	env->classes = SBT_TRACE_DEFAULT;
	env->alpha_enter = env->alpha_exit = -1;
	approx_opts__init(&env->approx);
	/* argp exits with EXIT_USAGE (argp_err_exit_status) on usage errors */
	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, env))
		return EXIT_USAGE;
	return 0;
}
