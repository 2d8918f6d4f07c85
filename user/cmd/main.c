// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* sbt-bpf: barrier phases of pthreads/OpenMP programs, with eBPF. */
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "sbt/version.h"
#include "user/cmd/cmds.h"

/* argp adds --version (-V) to every command's options and help. */
const char *argp_program_version = "sbt-bpf " SBT_VERSION;

static int do_record(int argc, char **argv)
{
	return cmd_trace(argc, argv, ENV_RECORD);
}

static int do_trace(int argc, char **argv)
{
	return cmd_trace(argc, argv, ENV_TRACE);
}

static int do_top(int argc, char **argv)
{
	return cmd_trace(argc, argv, ENV_TOP);
}

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct cmd cmds[] = {
	{"record", do_record, "record a .sbt trace file (-p PID | -a | -- CMD) -o FILE"},
	{"top", do_top, "live table of the jobs synchronizing on this machine"},
	{"report", cmd_report, "analyse a .sbt trace file (text or JSON)"},
	{"calibrate", cmd_calibrate, "measure the cost of a probe hit on this machine"},
	{"export", cmd_export, "export a .sbt trace: Chrome/Perfetto JSON, CSV, JSON, SVG"},
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"%s\n"
		"Usage: sbt-bpf [OPTION...] [-p PID[,PID...] | -a | -- COMMAND [ARG...]]\n"
		"       sbt-bpf COMMAND [OPTION...]\n\n"
		"Without a command: trace live (sbt-bpf --help for options).\nCommands:\n",
		argp_program_version);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-9s %s\n", cmds[i].name, cmds[i].help);
	fprintf(f, "\nEvery command takes --help and --version.\n"
		   "\nExamples:\n"
		   "  sudo sbt-bpf -p 4242\n"
		   "  sudo sbt-bpf -- ./lu -p8 -n2048\n"
		   "  sudo sbt-bpf -a\n"
		   "  sudo sbt-bpf top\n"
		   "  sudo sbt-bpf record -o lu.sbt -- ./lu\n"
		   "  sbt-bpf report --format json lu.sbt\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	if (argv[1][0] != '-') {
		log_err("unknown command '%s' (a command to trace goes after --)", argv[1]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return do_trace(argc, argv);
}
