// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* sbt-bpf: barrier phases of pthreads/OpenMP programs, with eBPF. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "lib/log.h"
#include "lib/words.h"
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
	{"merge", cmd_merge, "merge the traces of one job's nodes into one (clocks aligned)"},
};
#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void usage(FILE *f)
{
	size_t i;

	fprintf(f,
		"%s\n"
		"Usage: sbt-bpf [OPTION...] [-p PID[,PID...] | -a | -- COMMAND [ARG...]]\n"
		"       sbt-bpf COMMAND [OPTION...]\n\n"
		"Without a command: trace live (sbt-bpf --help for options).\nCommands:\n",
		argp_program_version);
	for (i = 0; i < NCMDS; i++)
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

static const struct cmd *find_cmd(const char *name)
{
	size_t i;

	for (i = 0; i < NCMDS; i++)
		if (!strcmp(name, cmds[i].name))
			return &cmds[i];
	return NULL;
}

static int unknown_cmd(const char *word)
{
	const char *names[NCMDS], *near;
	size_t i;

	for (i = 0; i < NCMDS; i++)
		names[i] = cmds[i].name;
	near = words__closest(word, names, NCMDS, 2);
	if (near) {
		log_err("unknown command '%s'; did you mean '%s'?", word, near);
		return EXIT_USAGE;
	}
	log_err("unknown command '%s' (a command to trace goes after --)", word);
	usage(stderr);
	return EXIT_USAGE;
}

/* `sbt-bpf -q record ...`: a command word after flags that take no value
 * (before --) would otherwise become the program to trace. */
static int misplaced_cmd(int argc, char **argv)
{
	static const char *const flags[] = {
		"-q",	 "-v",	    "-a",	   "--quiet",	     "--verbose",
		"--all", "--force", "--watch-all", "--approximated", "--measured"};
	int i;
	size_t k;

	for (i = 2; i < argc && strcmp(argv[i], "--"); i++) {
		if (!find_cmd(argv[i]))
			continue;
		for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++)
			if (!strcmp(argv[i - 1], flags[k])) {
				log_err("'%s' is a command: it goes first (sbt-bpf %s [OPTION...])",
					argv[i], argv[i]);
				return 1;
			}
	}
	return 0;
}

/* Runs c with its name as the program's in argp's messages ("sbt-bpf
 * report: ..."). */
static int run_cmd(const struct cmd *c, int argc, char **argv)
{
	char name[32];

	snprintf(name, sizeof(name), "sbt-bpf %s", c->name);
	argv[0] = name;
	return c->fn(argc, argv);
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	c = find_cmd(argv[1]);
	if (c)
		return run_cmd(c, argc - 1, argv + 1);
	if (argv[1][0] != '-')
		return unknown_cmd(argv[1]);
	if (misplaced_cmd(argc, argv))
		return EXIT_USAGE;
	return do_trace(argc, argv);
}
