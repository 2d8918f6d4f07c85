// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `sbt-bpf export`: a recorded trace as Chrome/Perfetto JSON, CSV, the JSON
 * report, or an SVG timeline (analyses/export.h). */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "user/cmd/cmds.h"
#include "user/cmd/trace_file_args.h"
#include "analyses/export.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "lib/parse.h"
#include "analyses/replay.h"

#define FORMAT_JSON (-2) /* the report's JSON, not an exporter */

struct export_env {
	struct trace_file_args file;
	const char *output;
	int format;
	int width;
	int both; /* --both given: the SVG draws both views even when they look alike */
	int critical_path;
};

enum { OPT_FORMAT = 1000, OPT_BOTH, OPT_WIDTH, OPT_CRITICAL_PATH };

static const struct argp_option options[] = {
	{"format", OPT_FORMAT, "FMT", 0, "chrome (default), csv, json, svg or otf2", 0},
	{"output", 'o', "FILE", 0,
	 "Write to FILE ('-': standard output; otf2: a directory, created, holding traces.otf2); "
	 "required",
	 0},
	{"both", OPT_BOTH, NULL, 0,
	 "Measured and approximated views (the default; the SVG draws one set of rows when they "
	 "differ by less than a pixel, unless --both is given)",
	 0},
	{"width", OPT_WIDTH, "PX", 0, "SVG: width of the picture in pixels (default 1200)", 0},
	{"critical-path", OPT_CRITICAL_PATH, NULL, 0,
	 "The approximated run's critical path: chrome, a track of its own; svg, a bar under "
	 "the rows on it (a replay of the run: memory grows with the trace)",
	 0},
	{},
};

static const char doc[] =
	"Export a .sbt trace recorded by `sbt-bpf record`.\n"
	"\n"
	"Formats: chrome (trace-event JSON for ui.perfetto.dev and chrome://tracing),\n"
	"csv (a row per phase and thread), json (the report's JSON), svg (timeline),\n"
	"otf2 (an OTF2 archive for Vampir and otf2-print).\n"
	"\n"
	"Examples:\n"
	"  sbt-bpf export -o lu.json lu.sbt           # open in ui.perfetto.dev\n"
	"  sbt-bpf export --format csv --approximated -o lu.csv lu.sbt\n"
	"  sbt-bpf export --format svg -o lu.svg lu.sbt\n"
	"  sbt-bpf export --critical-path -o lu.json lu.sbt  # its own track\n"
	"  sbt-bpf export --format json --model sm -o - lu.sbt\n"
	"  sbt-bpf export --pid 4242 -o job.json all.sbt   # a process of record -a\n"
	"  sbt-bpf export --format otf2 -o lu-otf2 lu.sbt   # then:\n"
	"  otf2-print lu-otf2/traces.otf2\n"
	"\n"
	"A trace of several processes needs --pid.";

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct export_env *env = st->input;
	uint64_t v;

	switch (key) {
	case OPT_FORMAT:
		env->format = strcmp(arg, "json") ? export_format__parse(arg) : FORMAT_JSON;
		if (env->format == -1)
			argp_error(st, "unknown --format '%s' (chrome, csv, json, svg, otf2)", arg);
		return 0;
	case 'o':
		env->output = arg;
		return 0;
	case OPT_BOTH:
		env->file.approx.view = REPORT_BOTH;
		env->both = 1;
		return 0;
	case OPT_CRITICAL_PATH:
		env->critical_path = 1;
		return 0;
	case OPT_WIDTH:
		if (parse_u64(arg, 300, 100000, &v))
			argp_error(st, "invalid value '%s' for --width (300..100000)", arg);
		env->width = (int)v;
		return 0;
	case ARGP_KEY_INIT:
		st->child_inputs[0] = &env->file;
		return 0;
	case ARGP_KEY_END:
		if (!env->output)
			argp_error(st, "missing -o FILE ('-' for standard output)");
		if (env->critical_path && env->format != EXPORT_CHROME && env->format != EXPORT_SVG)
			argp_error(st, "--critical-path is drawn by chrome and svg (report "
				       "--critical-path gives it as a table)");
		if (env->format == EXPORT_OTF2 && !strcmp(env->output, "-"))
			argp_error(st, "otf2 writes an archive directory: give -o DIR");
		/* the OTF2 library would fail half-way over an existing archive */
		if (env->format == EXPORT_OTF2 && !access(env->output, F_OK))
			argp_error(st,
				   "%s exists: otf2 writes a new archive directory (remove it, "
				   "or give another -o DIR)",
				   env->output);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static int views_of(int view)
{
	if (view == REPORT_MEASURED_ONLY)
		return EXPORT_MEASURED;
	if (view == REPORT_APPROXIMATED_ONLY)
		return EXPORT_APPROXIMATED;
	return EXPORT_MEASURED | EXPORT_APPROXIMATED;
}

/* Formats that read every record (OTF2) get it with its approximated time. */
static void to_exporter(void *ctx, const struct sbt_event *e, const struct phases *ph)
{
	exporter__record(ctx, e, phases__thread_approx(ph, e->tid));
}

/* Process pid of the trace through its own analysis into x (a trace read
 * anew: records are read once per pass). */
static int export_process(struct exporter *x, const struct export_env *env, __u32 pid)
{
	struct trace_file_args one = env->file;
	struct phases_config pc;
	struct phases *ph;
	struct replay rp;
	int rc;

	one.pid = pid;
	if (trace_file_args__open(&one, &rp, 1))
		return -EINVAL;
	pc = replay__phases_config(&rp);
	ph = phases__new(&pc, &exporter_phases_ops, x);
	rc = ph ? 0 : -ENOMEM;
	if (ph) {
		rp.on_record = to_exporter;
		rp.record_ctx = x;
		rc = replay__run(&rp, ph, 0, NULL, NULL);
	}
	phases__free(ph);
	replay__close(&rp);
	return rc;
}

/* OTF2 of a trace of several processes (an MPI job's ranks): each through
 * its own analysis, into one archive, a location group each. */
static int export_each(struct exporter *x, struct replay *rp, const struct export_env *env,
		       const struct export_drops *d)
{
	__u32 i, j;
	int rc = 0;

	exporter__begin(x);
	for (i = 0; i < rp->m->njobs && !rc; i++) {
		for (j = 0; j < i && rp->m->jobs[j].pid != rp->m->jobs[i].pid; j++)
			;
		if (j == i) /* a pid reused: its processes are one pass */
			rc = export_process(x, env, rp->m->jobs[i].pid);
	}
	exporter__end(x, NULL, d);
	return rc;
}

static int run_exporter(struct replay *rp, const struct export_env *env, FILE *out)
{
	struct report_src src = replay__report_src(rp);
	struct phases_config pc = replay__phases_config(rp);
	int nthreads;
	struct export_thread *threads = replay__export_threads(rp, &nthreads);
	struct export_opts o = {.format = env->format,
				.views = views_of(env->file.approx.view),
				.out = out,
				.path = env->output,
				.end_ns = rp->m->end_ns,
				.threads = threads,
				.nthreads = nthreads,
				.width = env->width,
				.keep_views = env->both,
				.critical_path = env->critical_path};
	struct export_drops d = {.total = rp->m->drops_total};
	struct exporter *x;
	struct phases *ph = NULL;
	char err[256] = "out of memory";
	int rc = -ENOMEM;

	x = threads ? exporter__new(&o, &src, err, sizeof(err)) : NULL;
	if (x && !rp->pid && rp->m->njobs > 1) {
		rc = export_each(x, rp, env, &d);
		if (!rc && x->failed)
			rc = -EIO;
		exporter__free(x);
		free(threads);
		return rc;
	}
	if (x)
		ph = phases__new(&pc, &exporter_phases_ops, x);
	if (x && ph) {
		if (exporter__wants_records(x)) {
			rp->on_record = to_exporter;
			rp->record_ctx = x;
		}
		exporter__begin(x);
		rc = replay__run(rp, ph, 0, NULL, NULL);
		exporter__end(x, ph, &d);
		if (!rc && x->failed)
			rc = -EIO;
	}
	if (!x || !ph)
		log_err("%s", x ? strerror(ENOMEM) : err);
	phases__free(ph);
	exporter__free(x);
	free(threads);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	static const struct argp_child children[] = {{&trace_file_argp, 0, NULL, 0}, {}};
	static const struct argp argp = {.options = options,
					 .parser = parse_opt,
					 .args_doc = "[FILE]",
					 .doc = doc,
					 .children = children};
	struct export_env env = {.format = EXPORT_CHROME};
	int to_stdout, rc, err;
	struct replay rp;
	FILE *out;

	rc = trace_file_args__parse(&argp, argc, argv, &env, &env.file);
	/* OTF2 takes every process of the trace (an MPI job's ranks) */
	if (!rc)
		rc = trace_file_args__open(&env.file, &rp, env.format != EXPORT_OTF2);
	if (rc)
		return rc;
	/* OTF2 writes a directory of its own files */
	to_stdout = env.format != EXPORT_OTF2 && !strcmp(env.output, "-");
	out = env.format == EXPORT_OTF2 ? NULL : to_stdout ? stdout : outfile__fopen(env.output);
	if (!out && env.format != EXPORT_OTF2) {
		log_err("cannot create %s: %s", env.output, outfile__why(errno));
		replay__close(&rp);
		return EXIT_RUNTIME;
	}
	if (env.format == FORMAT_JSON)
		rc = replay__report(&rp, &(struct report_opts){.format = REPORT_JSON, .out = out},
				    0);
	else
		rc = run_exporter(&rp, &env, out);
	err = out ? outfile__close(out) : 0;
	if (err && !rc) {
		log_err("writing %s: %s", to_stdout ? "the export" : env.output, strerror(-err));
		rc = err;
	}
	replay__close(&rp);
	return rc ? EXIT_RUNTIME : EXIT_OK;
}
