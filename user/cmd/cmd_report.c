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
	"  sbt-bpf report --pid 4242 all.sbt        # one process of record -a\n"
	"\n"
	"A trace of several processes gets a report per process unless --pid "
	"selects one.";

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct report_env *env = st->input;

	(void)arg;
	if (key != ARGP_KEY_INIT)
		return ARGP_ERR_UNKNOWN;
	st->child_inputs[0] = &env->file;
	st->child_inputs[1] = &env->view;
	return 0;
}

static int analyse(struct replay *rp, const struct report_env *env)
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
	static const struct argp argp = {
		.parser = parse_opt, .args_doc = "[FILE]", .doc = doc, .children = children};
	struct report_env env = {};
	struct replay rp;
	int rc;

	view_opts__init(&env.view);
	rc = trace_file_args__parse(&argp, argc, argv, &env, &env.file);
	if (!rc)
		rc = trace_file_args__open(&env.file, &rp, 0);
	if (rc)
		return rc;
	rc = analyse(&rp, &env);
	replay__close(&rp);
	return rc;
}
