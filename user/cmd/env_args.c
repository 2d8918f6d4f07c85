// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "user/cmd/argp_check.h"
#include "user/cmd/env_args.h"
#include "user/cmd/approx_args.h"
#include "user/cmd/view_args.h"
#include "lib/log.h"
#include "lib/parse.h"

enum {
	OPT_PROBE = 1000,
	OPT_BUFFER,
	OPT_DRAIN,
	OPT_NICE,
	OPT_SHARED_RING,
	OPT_SHIM,
	OPT_NO_SHIM,
	OPT_MAX_LINES,
	OPT_FORCE,
	OPT_TRACE,
	OPT_LIST_EVENTS,
	OPT_ALPHA,
	OPT_INJECT,
	OPT_JOB_ID,
	OPT_CLOCK_SKEW,
	OPT_FILTER,
	OPT_INTERVAL,
	OPT_NO_CALIBRATE,
	OPT_RECALIBRATE,
	OPT_ITERATIONS,
};

/* Calibrations while tracing: ~16 ms of calls on our own thread every 10 s
 * is about 0.2 % of one CPU, and the VM's probe cost drifts over minutes
 * (between runs by ±15 %), not within seconds. */
#define RECALIBRATE_DEFAULT_NS (10ULL * 1000000000ULL)

/* The text --probe's help refers to ("see below"), after each command's help. */
#define PROBE_KINDS                                                                                \
	"Probe kinds for --probe: barrier (the first argument identifies the barrier), team "      \
	"(every thread of the process takes part; no argument), region (parallel region frame), "  \
	"lock, trylock, unlock (first argument = the lock), P, V (semaphore), wait, signal "       \
	"(condition)."

static const char trace_doc[] =
	"Trace barrier phases of a running pthreads/OpenMP process (-p) or of a command "
	"(-- CMD) and the processes it starts, live, with SBT-style reports.\n"
	"\n"
	"Examples:\n"
	"  sudo sbt-bpf -p 4242                   # attach to a running job\n"
	"  sudo sbt-bpf -p 4242 --follow          # ... and the processes it starts\n"
	"  sudo sbt-bpf -- ./lu -p8 -n2048        # launch and trace a command\n"
	"  sudo sbt-bpf -- mpirun -np 4 ./lu      # through a wrapper: a report per\n"
	"                                         # process that synchronizes\n"
	"  sudo sbt-bpf --watch-all -- ./prog     # arrival order, every barrier\n"
	"  sudo sbt-bpf --watch lu.c:320 -p 4242  # details of one barrier site\n"
	"  sudo sbt-bpf --hang-timeout 5 -p 4242  # who is missing at a hung barrier\n"
	"  sudo sbt-bpf --probe ./app:my_barrier:team -- ./app\n"
	"  sudo sbt-bpf --trace all --sort hold -p 4242   # locks too, by hold\n"
	"  sudo sbt-bpf -e cycles,instructions -p 4242    # counters per phase\n"
	"  sudo sbt-bpf -p 4242,4243              # several processes, a report each\n"
	"  sudo sbt-bpf -a -d 60                  # every job here, for a minute\n"
	"  sudo sbt-bpf -a --filter comm='lu*',uid=1000   # one user's lu jobs\n"
	"\n"
	"-- CMD follows the command's children and the programs they exec (sh -c, env, "
	"taskset, numactl, mpirun, scripts): one process synchronizing reads as that "
	"process alone; several get a report each, under a heading. -p PID --follow does "
	"the same for a running process (a job script, a shell): the processes it "
	"started and starts from now on.\n"
	"\nSubcommands: record, report, export, top, calibrate, merge (sbt-bpf COMMAND --help)."
	"\v" PROBE_KINDS;

static const char record_doc[] =
	"Record a trace file of a running process (-p) or of a command (-- CMD).\n"
	"\n"
	"Examples:\n"
	"  sudo sbt-bpf record -p 4242 -o lu.sbt\n"
	"  sudo sbt-bpf record -p 4242 --follow -o job.sbt   # what the job starts too\n"
	"  sudo sbt-bpf record -o lu.sbt -- ./lu -p8\n"
	"  sudo sbt-bpf record -o lu.sbt -- sh -c './lu -p8'   # its children too\n"
	"  sudo sbt-bpf record -a -d 30 -o all.sbt   # every job, a section per pid\n"
	"  sbt-bpf report lu.sbt\n"
	"  sbt-bpf report --pid 4242 all.sbt"
	"\v" PROBE_KINDS;

static const char top_doc[] =
	"Live table of the jobs synchronizing at barriers on this machine (-a, the default) "
	"or of the processes given with -p, refreshed every second.\n"
	"\n"
	"Columns: PID, THR (threads alive), PHASE (barrier episodes completed), PH/S "
	"(episodes per second), WAIT% (share of the threads' time spent waiting at "
	"barriers), BAL (load balance of the compute time: mean / max over threads, 1.00 = "
	"even), LOCK% (share of the threads' time waiting for locks, semaphores, condition "
	"variables), DROPS (records lost), WORST SITE (the barrier with the most waiting), "
	"COMMAND. Rates and shares cover the last refresh interval.\n"
	"\n"
	"Keys: up/down or k/j select a job, Enter shows its threads and what each is doing "
	"(barrier, running, blocked, exited; Esc or Backspace: back), "
	"s cycles the sort column (or w wait%, r phases/s, b balance, l lock%, p pid, t "
	"threads), q quits. When stdout is not a terminal, a plain block of lines is "
	"printed every interval instead.\n"
	"\n"
	"Examples:\n"
	"  sudo sbt-bpf top\n"
	"  sudo sbt-bpf top --filter uid=1000\n"
	"  sudo sbt-bpf top -p 4242,4243 --interval 2\n"
	"  sudo sbt-bpf top -d 10 > jobs.txt          # plain text, 10 s"
	"\v" PROBE_KINDS;

/* A C identifier (a variable's name), not a number. */
static int is_identifier(const char *s)
{
	if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
		return 0;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") ==
	       strlen(s);
}

static const struct argp_option options[] = {
	{"pid", 'p', "PID[,PID...]", 0,
	 "Trace the running process PID (all its threads); several PIDs (a list, or -p "
	 "repeated) give a report each",
	 0},
	{"follow", 'f', NULL, 0,
	 "With -p: also trace the processes they have started and start from now on (a job "
	 "script's or a shell's programs), each that synchronizes with a report; the probes "
	 "then go in once per file, for every process mapping it, as with -- CMD",
	 0},
	{"all", 'a', NULL, 0,
	 "Trace every process on the machine that synchronizes at a barrier, including those "
	 "started later (probes once per library file)",
	 0},
	{"filter", OPT_FILTER, "KEY=VAL,...", 0,
	 "With -a: trace only processes whose comm=GLOB, uid=UID|USER, cgroup=PATH-PREFIX "
	 "match (repeatable; every key given must match)",
	 0},
	{"output", 'o', "FILE", 0,
	 "Write a .sbt trace file (record: default " ENV_DEFAULT_OUTPUT
	 ", the previous one kept as " ENV_DEFAULT_OUTPUT ".old)",
	 0},
	{"quiet", 'q', NULL, 0, "No line per barrier episode; summary only", 1},
	{"max-lines", OPT_MAX_LINES, "N", 0,
	 "At most N episode lines per second of trace (default 50, 0 = no limit)", 1},
	{"iterations", OPT_ITERATIONS, "N|VARIABLE", 0,
	 "The program's outer loop runs N times, or as many as its variable VARIABLE says (a "
	 "global or static of its executable, read while it runs): the status line says which "
	 "iteration it is in and about how long is left",
	 1},
	{"probe", OPT_PROBE, "BINARY:SYMBOL:KIND", 0,
	 "Also probe SYMBOL in BINARY as a KIND (see below); SYMBOL may be a code address "
	 "0xHEX as nm prints it (stripped binaries), or a C++ name as written (Class::method: "
	 "every overload; Class::method(int): one); repeatable",
	 2},
	{"trace", OPT_TRACE, "LIST", 0,
	 "What to trace: barrier, lock, sem, cond, futex, task (OpenMP tasks), mpi (MPI "
	 "collectives, point-to-point, completion), all (default barrier,sem,cond,futex,mpi: lock "
	 "and task probes are the most frequent calls, so the most perturbing; with -a, futex is "
	 "off too: it costs every syscall of the machine)",
	 2},
	{"shim", OPT_SHIM, NULL, 0,
	 "With -- CMD (the default there): preload the probe shim, whose wrappers carry cheap "
	 "probe sites (a 5-byte nop the kernel calls through instead of trapping) that time "
	 "themselves, for the classes traced",
	 2},
	{"no-shim", OPT_NO_SHIM, NULL, 0,
	 "With -- CMD: no probe shim; plain uprobes on the functions themselves", 2},
	{"force", OPT_FORCE, NULL, 0,
	 "Trace even if the target uses no traced function (-p); with -- CMD, no warning "
	 "when nothing synchronized",
	 2},
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
	{"inject-delay", OPT_INJECT, "NS", 0,
	 "Every probe hit spins NS ns more (at most 10 ms), charged in the probe costs: the "
	 "approximation of a run with it should equal one without (sbt-bpf validate)",
	 3},
	{"job-id", OPT_JOB_ID, "ID", 0,
	 "The job this node's part of is (an MPI job on several nodes: each node's agent records "
	 "its ranks with the same ID; `sbt-bpf merge` joins their traces)",
	 3},
	{"clock-skew", OPT_CLOCK_SKEW, "NS[,PPM]", 0,
	 "For tests of `merge`: stamp the records as if this node's clock were NS ns off (and "
	 "drifting PPM parts per million from the start), its CLOCK_REALTIME unaware of it",
	 3},
	{"no-calibrate", OPT_NO_CALIBRATE, NULL, 0,
	 "Charge the costs cached by `sbt-bpf calibrate` (measured and cached if there are none) "
	 "instead of measuring them at the start, while tracing and at the end",
	 3},
	{"recalibrate", OPT_RECALIBRATE, "S", 0,
	 "Measure the probe costs again every S seconds while tracing (default 10; 0: at the "
	 "start and the end only)",
	 3},
	{"duration", 'd', "S", 0, "Stop after S seconds", 3},
	{"buffer-size", OPT_BUFFER, "SIZE", 0,
	 "Ring buffer memory, power of two, split between the CPUs' rings (default 16M)", 3},
	{"shared-ring", OPT_SHARED_RING, NULL, 0,
	 "One ring buffer for every CPU instead of one per CPU (less memory on many CPUs; "
	 "costs more when threads hit probes at once)",
	 3},
	{"drain-interval", OPT_DRAIN, "MS", 0, "Drain the ring buffer every MS ms (default 20)", 3},
	{"nice", OPT_NICE, "N", 0,
	 "Drain at nice N (0-19) while tracing, back to the normal priority while a ring is "
	 "a quarter full or a calibration runs: sbt-bpf then takes the job's CPUs less often "
	 "(default: unchanged)",
	 3},
	{"verbose", 'v', NULL, 0, "More messages (-vv: debugging, -vvv: libbpf's debug output too)",
	 4},
	{},
};

/* `top` takes the options that choose the processes, not the report ones. */
static int top_option(int key)
{
	switch (key) {
	case 'p':
	case 'a':
	case OPT_FILTER:
	case OPT_PROBE:
	case OPT_TRACE:
	case 'd':
	case OPT_BUFFER:
	case OPT_DRAIN:
	case OPT_NICE:
	case OPT_SHARED_RING:
	case OPT_INTERVAL:
	case 'v':
	case OPT_ALPHA:
		return 1;
	}
	return 0;
}

static const struct argp_option top_only_options[] = {
	{"interval", OPT_INTERVAL, "S", 0, "Refresh every S seconds (default 1)", 0},
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

/* PID[,PID...]: every element a pid, none empty ("1,,2" and "1," are
 * mistakes, not two and one processes). */
static int parse_pids(struct env *env, const char *arg, struct argp_state *st)
{
	char buf[4096], *rest = buf, *tok;
	int pid, e;

	if (strlen(arg) >= sizeof(buf)) {
		argp_error(st, "-p: the list is too long");
		return EINVAL;
	}
	snprintf(buf, sizeof(buf), "%s", arg);
	while ((tok = strsep(&rest, ","))) {
		if (!*tok) {
			argp_error(st, "invalid value '%s' for -p: an empty process id", arg);
			return EINVAL;
		}
		e = parse_int(tok, 1, INT_MAX, &pid);
		if (e)
			return bad_value(st, "-p", tok, e);
		if (env->npids >= ENV_MAX_PIDS) {
			argp_error(st, "too many processes for -p (limit %d)", ENV_MAX_PIDS);
			return EINVAL;
		}
		env->pids[env->npids++] = pid;
	}
	if (!env->npids)
		return bad_value(st, "-p", arg, -EINVAL);
	env->pid = env->pids[0];
	return 0;
}

static int filter_uid(const char *val, uid_t *uid)
{
	struct passwd *pw;
	int u;

	if (!parse_int(val, 0, INT_MAX, &u)) {
		*uid = u;
		return 0;
	}
	pw = getpwnam(val);
	if (!pw)
		return -ENOENT;
	*uid = pw->pw_uid;
	return 0;
}

/* Every --filter's text, its values pointed to by struct env_filter. */
static char *filter_bufs[64];
static size_t nfilter_bufs;

int env_filter__parse(struct env_filter *f, const char *arg, char *err, size_t errlen)
{
	char *buf = strdup(arg), *tok, *save = NULL, *val;
	int e = 0;

	if (!buf)
		return -ENOMEM;
	for (tok = strtok_r(buf, ",", &save); tok && !e; tok = strtok_r(NULL, ",", &save)) {
		val = strchr(tok, '=');
		if (!val || !val[1]) {
			snprintf(err, errlen,
				 "--filter '%s': expected KEY=VALUE (comm, uid, cgroup)", tok);
			e = -EINVAL;
			break;
		}
		*val++ = 0;
		if (f->ncomm >= ENV_MAX_FILTER || f->nuid >= ENV_MAX_FILTER ||
		    f->ncgroup >= ENV_MAX_FILTER) {
			snprintf(err, errlen, "--filter: too many values (limit %d per key)",
				 ENV_MAX_FILTER);
			e = -E2BIG;
		} else if (!strcmp(tok, "comm")) {
			f->comm[f->ncomm++] = val;
		} else if (!strcmp(tok, "cgroup")) {
			f->cgroup[f->ncgroup++] = val;
		} else if (!strcmp(tok, "uid")) {
			if (filter_uid(val, &f->uid[f->nuid])) {
				snprintf(err, errlen, "--filter: unknown user '%s'", val);
				e = -EINVAL;
			}
			f->nuid++;
		} else {
			snprintf(err, errlen, "--filter: unknown key '%s' (comm, uid, cgroup)",
				 tok);
			e = -EINVAL;
		}
	}
	/* the values point into buf: it lives as long as the process, held
	 * here (a leak checker sees it held) */
	if (!e && nfilter_bufs == sizeof(filter_bufs) / sizeof(filter_bufs[0])) {
		snprintf(err, errlen, "--filter: given too many times");
		e = -E2BIG;
	}
	if (e) {
		free(buf);
		return e;
	}
	filter_bufs[nfilter_bufs++] = buf;
	return 0;
}

/* "NS[,PPM]": a signed offset and drift. */
static int parse_clock_skew(const char *arg, int64_t *ns, double *ppm)
{
	char buf[64], *comma;
	uint64_t mag;
	int neg;

	if (strlen(arg) >= sizeof(buf))
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", arg);
	comma = strchr(buf, ',');
	if (comma)
		*comma++ = 0;
	neg = buf[0] == '-';
	if (parse_u64(buf + neg, 0, 999999999999ULL, &mag))
		return -EINVAL;
	*ns = neg ? -(int64_t)mag : (int64_t)mag;
	*ppm = 0;
	if (!comma)
		return 0;
	/* parse_double takes no sign */
	neg = comma[0] == '-';
	if (parse_double(comma + neg, 0, 1000, ppm))
		return -EINVAL;
	*ppm = neg ? -*ppm : *ppm;
	return 0;
}

static int parse_value(struct env *env, int key, const char *arg, struct argp_state *st)
{
	uint64_t v;
	int e = 0;

	switch (key) {
	case 'p':
		return parse_pids(env, arg, st);
	case OPT_INTERVAL:
		e = parse_seconds_ns(arg, 3600ULL * 1000000000ULL, &v);
		if (!e && v < 100000000ULL)
			e = -ERANGE;
		env->interval_ms = v / 1000000;
		return e ? bad_value(st, "--interval (0.1 s or more)", arg, e) : 0;
	case 'd':
		e = parse_seconds_ns(arg, 86400ULL * 365 * 1000000000ULL, &env->duration_ns);
		return e ? bad_value(st, "--duration", arg, e) : 0;
	case OPT_BUFFER:
		e = parse_size(arg, 4096, 1ULL << 30, &env->buffer_bytes);
		if (!e && (env->buffer_bytes & (env->buffer_bytes - 1)))
			e = -EINVAL;
		return e ? bad_value(st, "--buffer-size (a power of two, 4K..1G)", arg, e) : 0;
	case OPT_INJECT:
		e = parse_u64(arg, 0, ENV_INJECT_MAX_NS, &env->inject_ns);
		return e ? bad_value(st, "--inject-delay (ns, at most 10 ms)", arg, e) : 0;
	case OPT_JOB_ID:
		if (!*arg || strlen(arg) > ENV_JOB_ID_MAX)
			return bad_value(st, "--job-id (1 to 64 characters)", arg, -EINVAL);
		env->job_id = arg;
		return 0;
	case OPT_CLOCK_SKEW:
		e = parse_clock_skew(arg, &env->skew_ns, &env->skew_ppm);
		return e ? bad_value(st, "--clock-skew (NS[,PPM], |NS| < 1000 s, |PPM| <= 1000)",
				     arg, e)
			 : 0;
	case OPT_SHARED_RING:
		env->shared_ring = 1;
		return 0;
	case OPT_SHIM:
		env->shim_given = 1;
		return 0;
	case OPT_NO_SHIM:
		env->shim_given = -1;
		return 0;
	case OPT_DRAIN:
		e = parse_int(arg, 1, 10000, &env->drain_ms);
		return e ? bad_value(st, "--drain-interval", arg, e) : 0;
	case OPT_NICE:
		e = parse_int(arg, 0, 19, &env->nice);
		return e ? bad_value(st, "--nice", arg, e) : 0;
	case OPT_MAX_LINES:
		e = parse_u64(arg, 0, UINT32_MAX, &env->max_lines);
		return e ? bad_value(st, "--max-lines", arg, e) : 0;
	case OPT_ITERATIONS:
		if (is_identifier(arg)) { /* the program's variable holding the bound */
			env->iterations_var = arg;
			return 0;
		}
		e = parse_u64(arg, 1, UINT32_MAX, &env->iterations);
		return e ? bad_value(st, "--iterations", arg, e) : 0;
	case OPT_NO_CALIBRATE:
		env->no_calibrate = 1;
		return 0;
	case OPT_RECALIBRATE:
		env->recalibrate_given = 1;
		e = parse_seconds_ns(arg, 86400ULL * 1000000000ULL, &env->recalibrate_ns);
		if (!e && env->recalibrate_ns && env->recalibrate_ns < 100000000ULL)
			e = -ERANGE;
		return e ? bad_value(st, "--recalibrate (0, or 0.1 s or more)", arg, e) : 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static int check_env(struct env *env, struct argp_state *st);

static error_t parse_opt(int key, char *arg, struct argp_state *st)
{
	struct env *env = st->input;

	switch (key) {
	case 'o':
		env->output = arg;
		return 0;
	case 'a':
		env->all = 1;
		return 0;
	case 'f':
		env->follow = 1;
		return 0;
	case OPT_FILTER: {
		char err[256];

		if (env_filter__parse(&env->filter, arg, err, sizeof(err)))
			argp_error(st, "%s", err);
		return 0;
	}
	case 'q':
		env->quiet = 1;
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
		env->classes_given = 1;
		return 0;
	}
	case 'v':
		log_set_level(log_get_level() + 1);
		return 0;
	case ARGP_KEY_INIT:
		if (!env->top) { /* top has no report options */
			st->child_inputs[0] = &env->view;
			st->child_inputs[1] = &env->approx;
		}
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
		return check_env(env, st);
	}
	return parse_value(env, key, arg, st);
}

static int has_filter(const struct env *env)
{
	return env->filter.ncomm || env->filter.nuid || env->filter.ncgroup;
}

/* --trace without barrier (and no --probe barrier): asked for, and said,
 * so that "0 phases" is no surprise. */
static void warn_no_barriers(const struct env *env)
{
	int k;

	if (!env->classes_given || (env->classes & SBT_TRACE_BARRIER))
		return;
	for (k = 0; k < env->nprobes; k++)
		if (env->probes[k].kind == SBT_PK_BARRIER ||
		    env->probes[k].kind == SBT_PK_TEAM_BARRIER)
			return;
	log_warn("--trace without barrier: no barrier is traced, the report has no phases "
		 "(--trace barrier,... for them)");
}

/* Combinations of options that make no sense. */
static int check_env(struct env *env, struct argp_state *st)
{
	if (env->list_events)
		return 0;
	if (env->top && !env->npids && !env->cmd)
		env->all = 1;
	if (env->top && env->cmd)
		argp_error(st, "top watches running processes: -a or -p PID");
	if ((!!env->npids + !!env->cmd + env->all) != 1)
		argp_error(st, "give one of -p PID, -a or -- COMMAND");
	if (env->follow && !env->npids)
		argp_error(st, "--follow is about -p PID: %s",
			   env->all
				   ? "-a traces every process already"
				   : "-- COMMAND follows the processes the command starts already");
	env->tree = env->cmd || env->follow;
	if (has_filter(env) && !env->all)
		argp_error(st, "--filter selects among every process: use it with -a");
	if (env->shim_given && !env->cmd)
		argp_error(st, "--%s is about a command sbt-bpf starts: use it with -- COMMAND",
			   env->shim_given > 0 ? "shim" : "no-shim");
	env->shim = env->cmd && env->shim_given >= 0;
	if (env->recalibrate_given && (env->no_calibrate || env->alpha_enter >= 0))
		argp_error(st,
			   "--recalibrate is about the costs a session measures itself: not with "
			   "%s",
			   env->no_calibrate ? "--no-calibrate" : "--alpha");
	/* -a: the futex tracepoints would run at every syscall of every process
	 * (measured: ~180 ns each here), so they are opt-in, like locks */
	if (env->all && !env->classes_given)
		env->classes &= ~SBT_TRACE_FUTEX;
	warn_no_barriers(env);
	{
		if (env->record && !env->output) {
			env->output = ENV_DEFAULT_OUTPUT;
			env->output_default = 1;
		}
		if (env->record && env->view.report_path)
			argp_error(st, "record writes a trace, no report: use `sbt-bpf report "
				       "--report FILE TRACE`");
		if (env->record && env->view.json)
			argp_error(
				st,
				"record writes a trace; use `sbt-bpf report --format json FILE`");
	}
	return 0;
}

/* The options `top` takes: those choosing processes, and its own. */
static const struct argp_option *top_options(void)
{
	static struct argp_option opts[sizeof(options) / sizeof(options[0]) +
				       sizeof(top_only_options) / sizeof(top_only_options[0])];
	size_t i, n = 0;

	for (i = 0; options[i].name; i++)
		if (top_option(options[i].key))
			opts[n++] = options[i];
	for (i = 0; top_only_options[i].name; i++)
		opts[n++] = top_only_options[i];
	return opts;
}

int env__parse_flags(struct env *env, int argc, char **argv, enum env_cmd cmd,
		     unsigned int argp_flags)
{
	static const struct argp_child children[] = {
		{&view_argp, 0, "Reports:", 3},
		{&approx_argp, 0, "Approximation (probe cost removed):", 4},
		{}};
	struct argp argp = {
		.children = cmd == ENV_TOP ? NULL : children,
		.options = cmd == ENV_TOP ? top_options() : options,
		.parser = parse_opt,
		.args_doc = cmd == ENV_TOP
				    ? "[-a | -p PID[,PID...]]"
				    : "[-p PID[,PID...] [--follow] | -a | -- COMMAND [ARG...]]",
		.doc = cmd == ENV_TOP	   ? top_doc
		       : cmd == ENV_RECORD ? record_doc
					   : trace_doc,
	};

	memset(env, 0, sizeof(*env));
	env->record = cmd == ENV_RECORD;
	env->top = cmd == ENV_TOP;
	env->interval_ms = 1000;
	env->buffer_bytes = 16ULL << 20;
	env->drain_ms = 20;
	env->nice = -1;
	env->max_lines = 50;
	env->classes = SBT_TRACE_DEFAULT;
	env->alpha_enter = env->alpha_exit = -1;
	env->recalibrate_ns = RECALIBRATE_DEFAULT_NS;
	view_opts__init(&env->view);
	approx_opts__init(&env->approx);
	/* argp exits with EXIT_USAGE (argp_err_exit_status) on usage errors */
	argp_err_exit_status = EXIT_USAGE;
	if (argp_check_options(&argp, argc, argv) ||
	    argp_parse(&argp, argc, argv, argp_flags, NULL, env))
		return EXIT_USAGE;
	return 0;
}

int env__parse(struct env *env, int argc, char **argv, enum env_cmd cmd)
{
	return env__parse_flags(env, argc, argv, cmd, 0);
}
