// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `sbt-bpf merge`: the traces one job's nodes recorded, one agent each,
 * into one trace on the first node's clock (analyses/merge.h). */
#include <argp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "analyses/merge.h"
#include "lib/log.h"
#include "user/cmd/argp_check.h"
#include "user/cmd/cmds.h"

struct merge_env {
	const char *inputs[MERGE_MAX_INPUTS];
	int ninputs;
	const char *output;
	int no_align;
};

enum { OPT_NO_ALIGN = 1000 };

static const struct argp_option options[] = {
	{"output", 'o', "FILE", 0, "The merged trace (required)", 0},
	{"no-align", OPT_NO_ALIGN, NULL, 0,
	 "Map each node's clock through CLOCK_REALTIME at its recording's start only, without the "
	 "correction from the MPI collectives",
	 0},
	{},
};

static const char doc[] =
	"Merge the traces of one job's nodes (`sbt-bpf record --job-id ID` on each) into one "
	"trace that `report` and `export` read, on the first trace's clock. Each node's "
	"CLOCK_MONOTONIC is its own: it is first mapped through CLOCK_REALTIME at the start of "
	"its recording, then offset and drift are corrected from the MPI collectives the nodes' "
	"ranks shared (every rank leaves a barrier within its release latency); what the "
	"correction leaves is printed as the uncertainty. Pids that two nodes both used are "
	"renamed in the merged trace (the node's index above bit 22).\n"
	"\n"
	"Examples:\n"
	"  sbt-bpf merge node1.sbt node2.sbt -o job.sbt\n"
	"  sbt-bpf report job.sbt\n"
	"  sbt-bpf export --format otf2 -o job-otf2 job.sbt";

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct merge_env *env = st->input;

	switch (key) {
	case 'o':
		env->output = arg;
		return 0;
	case OPT_NO_ALIGN:
		env->no_align = 1;
		return 0;
	case ARGP_KEY_ARG:
		if (env->ninputs == MERGE_MAX_INPUTS)
			argp_error(st, "at most %d traces", MERGE_MAX_INPUTS);
		env->inputs[env->ninputs++] = arg;
		return 0;
	case ARGP_KEY_END:
		if (env->ninputs < 2)
			argp_error(st, "two traces at least to merge");
		if (!env->output)
			argp_error(st, "the merged trace's name is missing (-o FILE)");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

/* Whether paths a and b name one file (the output would truncate an input). */
static int same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return 1;
	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Each input's clock, as merged: its estimate, the correction, the uncertainty. */
static void say_nodes(const struct merge_env *env, const struct merge_node *nodes)
{
	int i;

	for (i = 0; i < env->ninputs; i++) {
		const struct merge_node *n = &nodes[i];

		printf("%s: host %s, %u ranks, %llu records", env->inputs[i],
		       n->host[0] ? n->host : "?", n->nranks, (unsigned long long)n->records);
		if (n->remapped)
			printf(", %u pids/tids renamed", n->remapped);
		if (!i) {
			printf(": the reference clock\n");
			continue;
		}
		/* below a microsecond: the same clock (not "-0.000000") */
		printf("\n    clock: %+.6f s from CLOCK_REALTIME at the start",
		       llabs(n->realtime_ns) < 1000 ? 0.0 : n->realtime_ns / 1e9);
		if (n->fit.used)
			printf(", then %+.3f us and %+.3f ppm from %zu of %zu episodes shared; "
			       "uncertainty +-%.3f us\n",
			       n->fit.offset_ns / 1e3, n->fit.drift * 1e6, n->fit.used, n->episodes,
			       n->fit.residual_ns / 1e3);
		else
			printf(" alone (no MPI collective shared with the first trace's ranks)\n");
	}
}

int cmd_merge(int argc, char **argv)
{
	struct merge_env env = {0};
	struct argp argp = {
		.options = options, .parser = parse_opt, .doc = doc, .args_doc = "TRACE TRACE..."};
	static struct merge_node nodes[MERGE_MAX_INPUTS];
	struct merge_opts o;
	char err[512] = "";
	int i;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_check_options(&argp, argc, argv) || argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	for (i = 0; i < env.ninputs; i++)
		if (same_file(env.inputs[i], env.output)) {
			log_err("%s is both an input and the output", env.output);
			return EXIT_USAGE;
		}
	o = (struct merge_opts){.inputs = env.inputs,
				.ninputs = env.ninputs,
				.output = env.output,
				.align = !env.no_align};
	if (merge__run(&o, nodes, err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	for (i = 1; i < env.ninputs; i++)
		if (strcmp(nodes[i].job_id, nodes[0].job_id))
			log_warn("%s is of job '%s', %s of '%s'", env.inputs[i], nodes[i].job_id,
				 env.inputs[0], nodes[0].job_id);
	say_nodes(&env, nodes);
	printf("wrote %s\n", env.output);
	return EXIT_OK;
}
