// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `sbt-bpf report FILE`: the phase analysis of a recorded trace, as a table
 * or as JSON. Runs the same analysis and report code as live tracing. */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "user/cmd/cmds.h"
#include "user/cmd/trace_file_args.h"
#include "user/cmd/view_args.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "analyses/report.h"
#include "analyses/replay.h"

struct report_env {
	struct trace_file_args file;
	struct view_opts view;
	const char *baseline; /* --baseline FILE */
};

enum { OPT_BASELINE = 5000 };

static const struct argp_option options[] = {
	{"baseline", OPT_BASELINE, "FILE", 0,
	 "Compare with a trace of the same program on another number of threads: the speedup "
	 "of its outer iteration (or run) and Amdahl's serial fraction",
	 0},
	{},
};

static const char doc[] =
	"Analyse a .sbt trace file recorded by `sbt-bpf record`.\n"
	"\n"
	"Examples:\n"
	"  sbt-bpf report lu.sbt\n"
	"  sbt-bpf report --format json lu.sbt > lu.json\n"
	"  sbt-bpf report --format json --phases all lu.sbt  # every phase listed\n"
	"  sbt-bpf report --watch lu.c:320 lu.sbt\n"
	"  sbt-bpf report --approximated lu.sbt     # probe cost removed\n"
	"  sbt-bpf report --model sm --exit-order reverse lu.sbt\n"
	"  sbt-bpf report --what-if balance lu.sbt  # what balancing would save\n"
	"  sbt-bpf report --baseline lu-2threads.sbt lu-8threads.sbt\n"
	"  sbt-bpf report --pid 4242 all.sbt        # one process of record -a\n"
	"\n"
	"A trace of several processes gets a report per process unless --pid "
	"selects one.";

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct report_env *env = st->input;

	if (key == OPT_BASELINE) {
		env->baseline = arg;
		return 0;
	}
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	st->child_inputs[0] = &env->file;
	st->child_inputs[1] = &env->view;
	return 0;
}

/* What the baseline run is (its report, thrown away): it must hold one
 * process, or --pid names one of both. 0, or EXIT_RUNTIME after logging why. */
static int summarize_baseline(const struct report_env *env, struct run_summary *sum)
{
	struct trace_file_args a = env->file;
	struct report_opts ro = {.format = REPORT_TEXT, .summary_out = sum};
	struct replay rp;
	int rc;

	a.path = env->baseline;
	a.approx.band = 0;
	rc = trace_file_args__open(&a, &rp, 1);
	if (rc)
		return rc;
	ro.out = fopen("/dev/null", "w");
	if (!ro.out) {
		log_err("cannot open /dev/null: %s", strerror(errno));
		replay__close(&rp);
		return EXIT_RUNTIME;
	}
	rc = replay__report(&rp, &ro, 0) ? EXIT_RUNTIME : EXIT_OK;
	fclose(ro.out);
	replay__close(&rp);
	if (!rc && !sum->known) {
		log_err("%s: no report to compare with", env->baseline);
		rc = EXIT_RUNTIME;
	}
	return rc;
}

static int analyse(struct replay *rp, const struct report_env *env,
		   const struct run_summary *baseline)
{
	const struct view_opts *v = &env->view;
	struct report_opts ro = {.format = v->json ? REPORT_JSON : REPORT_TEXT,
				 .phase_table = 1,
				 .watch = v->watch,
				 .nwatch = v->nwatch,
				 .watch_all = v->watch_all,
				 .what_if = v->what_if,
				 .nwhat_if = v->nwhat_if,
				 .critical_path = v->critical_path,
				 .baseline = baseline,
				 .baseline_name = env->baseline,
				 .warn_ns = v->warn_ns,
				 .sort = v->sort,
				 .max_phases = v->phases,
				 .view = env->file.approx.view,
				 .out = stdout};
	int rc, err;

	if (v->report_path && !(ro.out = outfile__fopen(v->report_path))) {
		log_err("cannot create %s: %s", v->report_path, outfile__why(errno));
		return EXIT_RUNTIME;
	}
	if (!v->json) {
		fprintf(ro.out, "Trace of: %s\n", rp->job ? rp->job->command : rp->m->command);
		if (tracefile__cut(rp->tf))
			fprintf(ro.out, "Recording: cut after %llu records (killed or disk full)\n",
				(unsigned long long)tracefile__nrecords(rp->tf));
		fprintf(ro.out, "Kernel: %s\n\n", rp->m->kernel);
	}
	rc = replay__report(rp, &ro, v->hang_ns) ? EXIT_RUNTIME : EXIT_OK;
	err = outfile__close(ro.out);
	if (err && !rc) {
		log_err("writing %s: %s", v->report_path ? v->report_path : "the report",
			strerror(-err));
		rc = EXIT_RUNTIME;
	}
	return rc;
}

int cmd_report(int argc, char **argv)
{
	static const struct argp_child children[] = {
		{&trace_file_argp, 0, NULL, 0}, {&view_argp, 0, NULL, 0}, {}};
	static const struct argp argp = {.options = options,
					 .parser = parse_opt,
					 .args_doc = "[FILE]",
					 .doc = doc,
					 .children = children};
	struct report_env env = {};
	struct run_summary base = {0};
	struct replay rp;
	int rc;

	view_opts__init(&env.view);
	rc = trace_file_args__parse(&argp, argc, argv, &env, &env.file);
	if (!rc && env.baseline)
		rc = summarize_baseline(&env, &base);
	if (!rc)
		rc = trace_file_args__open(&env.file, &rp, 0);
	if (rc)
		return rc;
	rc = analyse(&rp, &env, env.baseline ? &base : NULL);
	replay__close(&rp);
	return rc;
}
