// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `sbt-bpf report FILE`: the phase analysis of a recorded trace, as a table
 * or as JSON. Runs the same analysis and report code as live tracing. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "approx_opts.h"
#include "cmds.h"
#include "log.h"
#include "names.h"
#include "parse.h"
#include "phases.h"
#include "report.h"
#include "sync.h"
#include "sync_report.h"
#include "tracefile.h"

#define REPORT_MAX_WATCH 32

struct report_env {
	const char *path;
	int json;
	const char *watch[REPORT_MAX_WATCH];
	int nwatch;
	int watch_all;
	uint64_t warn_ns;
	uint64_t hang_ns;
	int sort;
	struct approx_opts approx;
};

enum { OPT_FORMAT = 1000, OPT_WATCH, OPT_WATCH_ALL, OPT_WARN_TIME, OPT_HANG_TIMEOUT, OPT_SORT };

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
			  "  sbt-bpf report --model sm --exit-order reverse lu.sbt";

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
		st->child_inputs[0] = &env->approx;
		return 0;
	case ARGP_KEY_ARG:
		if (env->path)
			argp_error(st, "one trace file at a time");
		env->path = arg;
		return 0;
	case ARGP_KEY_END:
		if (!env->path)
			argp_error(st, "missing trace FILE");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* The probe table indexed by id, as the analysis wants it. */
static struct sbt_probe_info *probe_index(const struct tf_meta *m, int *n)
{
	struct sbt_probe_info *infos;
	__u32 i;
	int max = 0;

	for (i = 0; i < m->nprobes; i++)
		if (m->probes[i].id + 1 > max)
			max = m->probes[i].id + 1;
	infos = calloc(max + 1, sizeof(*infos));
	if (!infos)
		return NULL;
	for (i = 0; i < m->nprobes; i++)
		infos[m->probes[i].id] = m->probes[i];
	*n = max;
	return infos;
}

static struct names *load_names(const struct tf_meta *m)
{
	struct names *n = names__new();
	__u32 i;

	for (i = 0; n && i < m->nsymbols; i++)
		names__set(n, m->symbols[i].pid, m->symbols[i].addr, m->symbols[i].name);
	for (i = 0; n && i < m->nthreads; i++)
		names__set_comm(n, m->threads[i].tid, m->threads[i].comm);
	return n;
}

static int analyse(struct tf_reader *tf, const struct report_env *env, struct names *names,
		   const struct sbt_probe_info *infos, int nprobes)
{
	const struct tf_meta *m = tracefile__meta(tf);
	/* the costs must cover every probe id the records may carry */
	int alpha_ok = m->alpha_enter && m->nalpha >= (__u32)nprobes;
	struct sync *sync = sync__new(infos, nprobes);
	struct report_opts ro = {.format = env->json ? REPORT_JSON : REPORT_TEXT,
				 .phase_table = 1,
				 .watch = env->watch,
				 .nwatch = env->nwatch,
				 .watch_all = env->watch_all,
				 .warn_ns = env->warn_ns,
				 .sort = env->sort,
				 .view = env->approx.view,
				 .out = stdout};
	struct report_src src = {.probes = infos,
				 .nprobes = nprobes,
				 .names = names,
				 .start_ns = m->start_ns,
				 .realtime_offset_ns = m->realtime_offset_ns,
				 .command = m->command,
				 .kernel = m->kernel,
				 .sync = sync,
				 .counters = m->counters,
				 .ncounters = m->ncounters,
				 .alpha_enter = alpha_ok ? m->alpha_enter : NULL,
				 .alpha_exit = alpha_ok ? m->alpha_exit : NULL,
				 .model = env->approx.model,
				 .exit_order = env->approx.exit_order};
	struct phases_config pc = {.probes = infos,
				   .nprobes = nprobes,
				   .start_ns = m->start_ns,
				   .sync = sync,
				   .ncounters = m->ncounters,
				   .alpha_enter = alpha_ok ? m->alpha_enter : NULL,
				   .alpha_exit = alpha_ok ? m->alpha_exit : NULL,
				   .model = env->approx.model,
				   .exit_order = env->approx.exit_order};
	struct report_drops drops = {
		.total = m->drops_total, .per_cpu = m->drops_per_cpu, .ncpus = m->ncpus};
	struct report *r = report__new(&ro, &src);
	struct phases *ph = phases__new(&pc, &report_phases_ops, r);
	struct sbt_event e;
	__u64 last_check = 0;
	__u32 i;
	int rc;

	if (!r || !ph || !sync) {
		report__free(r);
		phases__free(ph);
		sync__free(sync);
		return -ENOMEM;
	}
	report__attach(r, ph);
	for (i = 0; i < m->nthreads; i++)
		phases__add_thread(ph, m->threads[i].pid, m->threads[i].tid,
				   m->threads[i].start_ns ? m->threads[i].start_ns : m->start_ns);
	if (!env->json)
		printf("Trace of: %s\nKernel: %s\n\n", m->command, m->kernel);
	report__begin(r);
	while ((rc = tracefile__next(tf, &e)) == 1) {
		phases__feed(ph, &e);
		/* Hangs in trace time, checked every 10 ms of it. */
		if (env->hang_ns && e.ts > last_check + 10000000ULL) {
			phases__check_hangs(ph, e.ts, env->hang_ns);
			last_check = e.ts;
		}
	}
	report__at_end(r);
	phases__finish(ph);
	report__end(r, &drops);
	phases__free(ph);
	report__free(r);
	sync__free(sync);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct report_env env = {.warn_ns = 1000000000ULL, .hang_ns = 10000000000ULL};
	static const struct argp_child children[] = {
		{&approx_argp, 0, "Approximation (probe cost removed):", 0}, {}};
	struct argp argp = {.options = options,
			    .parser = parse_opt,
			    .args_doc = "FILE",
			    .doc = doc,
			    .children = children};
	struct sbt_probe_info *infos;
	struct names *names;
	struct tf_reader *tf;
	char err[512];
	int nprobes = 0, rc;

	approx_opts__init(&env.approx);
	argp_err_exit_status = EXIT_USAGE;
	if (argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	tf = tracefile__open(env.path, err, sizeof(err));
	if (!tf) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	infos = probe_index(tracefile__meta(tf), &nprobes);
	names = load_names(tracefile__meta(tf));
	rc = infos && names ? analyse(tf, &env, names, infos, nprobes) : -ENOMEM;
	if (rc < 0)
		log_err("%s: %s", env.path, strerror(-rc));
	names__free(names);
	free(infos);
	tracefile__close(tf);
	return rc < 0 ? EXIT_RUNTIME : EXIT_OK;
}
