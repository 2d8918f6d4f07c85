// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* `sbt-bpf calibrate`: measure the cost of a probe hit per probed function on
 * this machine, print it and cache it for recordings. */
#include <argp.h>
#include <stdio.h>
#include <string.h>
#include "user/cmd/argp_check.h"
#include "user/trace/calibrate.h"
#include "user/cmd/cmds.h"
#include "lib/log.h"
#include "user/bpf/session.h"

struct calibrate_env {
	int cached; /* print the cache if valid instead of measuring */
};

static const struct argp_option options[] = {
	{"cached", 'c', NULL, 0, "Show the cached values when they match this machine", 0},
	{},
};

static const char doc[] =
	"Measure α, the cost of one probe hit, for each probed function on this machine: the "
	"real functions are called in-process on private objects, with and without probes. "
	"The result is cached in " CALIBRATION_CACHE " for sessions run with --no-calibrate (a "
	"session measures its own costs by default, at its start, while it traces and at its "
	"end).\n"
	"\n"
	"Examples:\n"
	"  sudo sbt-bpf calibrate\n"
	"  sudo sbt-bpf calibrate --cached";

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct calibrate_env *env = st->input;

	switch (key) {
	case 'c':
		env->cached = 1;
		return 0;
	case ARGP_KEY_ARG:
		argp_error(st, "unexpected argument '%s'", arg);
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static void print(const struct calibration *c, int measured)
{
	int i;

	printf("Probe cost per hit on %s, kernel %s (%s):\n", c->cpu, c->kernel,
	       measured ? "measured now" : "cached");
	static const char *const cls[] = {"single-stepped", "emulated", "nop5 (optimized)",
					  "sys_enter / sys_exit"};
	const int ncls = (int)(sizeof(cls) / sizeof(cls[0]));

	printf("%-26s %12s %12s  %s\n", "function", "entry ns", "return ns", "probed instruction");
	for (i = 0; i < c->n; i++) {
		const struct alpha *a = &c->a[i];
		char skip[32] = "";

		if (a->entry_skip)
			snprintf(skip, sizeof(skip), " (%d bytes in)", a->entry_skip);
		printf("%-26s %12llu %12llu  %s%s\n", a->symbol, (unsigned long long)a->entry_ns,
		       (unsigned long long)a->exit_ns,
		       !strcmp(a->symbol, CAL_COUNTERS) ? "two counters read, one record"
		       : a->cls >= 0 && a->cls < ncls	? cls[a->cls]
							: "?",
		       skip);
	}
}

int cmd_calibrate(int argc, char **argv)
{
	struct calibrate_env env = {0};
	struct argp argp = {.options = options, .parser = parse_opt, .doc = doc};
	struct calibration c;
	char err[512];
	int e;

	argp_err_exit_status = EXIT_USAGE;
	if (argp_check_options(&argp, argc, argv) || argp_parse(&argp, argc, argv, 0, NULL, &env))
		return EXIT_USAGE;
	if (env.cached && !calibration__load(&c, CALIBRATION_CACHE)) {
		print(&c, 0);
		return EXIT_OK;
	}
	if (session__check_privileges(err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	e = calibration__measure(&c, err, sizeof(err));
	if (e) {
		log_err("calibration failed: %s", err);
		return EXIT_RUNTIME;
	}
	e = calibration__save(&c, CALIBRATION_CACHE);
	if (e)
		log_warn("cannot save %s: %s", CALIBRATION_CACHE, strerror(-e));
	print(&c, 1);
	return EXIT_OK;
}
