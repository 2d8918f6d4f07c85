/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Options of a tracing session (live tracing, `record`, `top`), as the
 * command line gave them (user/cmd/env_args.c parses them). */
#ifndef SBT_ENV_H
#define SBT_ENV_H

#include <stdint.h>
#include <sys/types.h>
#include "analyses/approx_opts.h"
#include "analyses/view_opts.h"
#include "user/resolve/probes.h"

#define ENV_MAX_PROBES 64
/* record's trace file when -o is not given (as perf's perf.data) */
#define ENV_DEFAULT_OUTPUT "sbt-bpf.sbt"
#define ENV_MAX_PIDS	   256
/* --inject-delay's bound: a spin in a BPF program holds the CPU (10 ms). */
#define ENV_INJECT_MAX_NS 10000000ULL
/* --job-id's length bound. */
#define ENV_JOB_ID_MAX 64
#define ENV_MAX_FILTER 16

/* --filter: a process is traced when every key given matches (a key given
 * several times matches any of its values). */
struct env_filter {
	const char *comm[ENV_MAX_FILTER]; /* glob on the process name */
	int ncomm;
	uid_t uid[ENV_MAX_FILTER];
	int nuid;
	const char *cgroup[ENV_MAX_FILTER]; /* cgroup v2 path prefix */
	int ncgroup;
};

struct env {
	int record;		  /* `record` subcommand: write a trace, stay quiet */
	int top;		  /* `top` subcommand: live table of the jobs */
	pid_t pid;		  /* -p, the first one */
	pid_t pids[ENV_MAX_PIDS]; /* -p PID[,PID...], repeatable */
	int npids;
	int follow;			 /* -f: -p and the processes they start */
	int tree;			 /* a process tree followed in BPF: -- CMD, -p -f */
	int all;			 /* -a: every process on the machine */
	struct env_filter filter;	 /* --filter */
	int interval_ms;		 /* top: refresh period */
	char **cmd;			 /* -- CMD ARGS... (NULL-terminated) */
	const char *output;		 /* -o */
	int output_default;		 /* record without -o: ENV_DEFAULT_OUTPUT */
	uint64_t duration_ns;		 /* --duration; 0 = until the target exits */
	uint64_t buffer_bytes;		 /* --buffer-size */
	int shared_ring;		 /* --shared-ring */
	int shim;			 /* preload the probe shim (-- CMD, unless --no-shim) */
	int shim_given;			 /* --shim 1, --no-shim -1, neither 0 */
	int drain_ms;			 /* --drain-interval */
	int nice;			 /* --nice: the drain's nice while tracing; -1: unchanged */
	uint64_t max_lines;		 /* --max-lines: episode lines per second */
	uint64_t iterations;		 /* --iterations: loop length, for the ETA */
	const char *iterations_var;	 /* --iterations VARIABLE: the program's loop bound */
	int quiet;			 /* -q: no episode lines */
	int force;			 /* attach even if no traced function is used */
	unsigned int classes;		 /* --trace: SBT_TRACE_* bits */
	int classes_given;		 /* --trace was given */
	const char *events;		 /* -e: counter events */
	int list_events;		 /* --list-events */
	int64_t alpha_enter, alpha_exit; /* --alpha override, ns; -1: calibrated */
	uint64_t inject_ns;		 /* --inject-delay: spun per probe hit, charged */
	const char *job_id;		 /* --job-id; NULL: none */
	int64_t skew_ns;		 /* --clock-skew: added to every record's time */
	double skew_ppm;		 /* and this drift from the session's start */
	int no_calibrate;		 /* --no-calibrate: the cached costs */
	uint64_t recalibrate_ns;	 /* --recalibrate: while tracing; 0: start and end only */
	int recalibrate_given;
	struct view_opts view;	   /* --format, --watch, --warn-time, ... */
	struct approx_opts approx; /* --model, --exit-order, --approximated */
	struct user_probe probes[ENV_MAX_PROBES];
	int nprobes;
};

#endif
