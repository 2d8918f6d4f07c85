// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The tracing session's life: set-up in dependency order, the drain loop
 * that feeds each record to its process's analysis (and the trace file),
 * and the finish. What is traced is the target's business (target.h); the
 * loop calls only its operations.
 */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/clock.h"
#include "lib/log.h"
#include "lib/outfile.h"
#include "user/resolve/symbolize.h"
#include "user/trace/late_bodies.h"
#include "user/trace/launch.h"
#include "user/trace/priority.h"
#include "user/trace/stops.h"
#include "user/trace/target.h"
#include "user/trace/trace_meta.h"
#include "user/resolve/variable.h"
#include "user/trace/tracer.h"

struct tracer {
	const struct env *env;
	struct trace_ctx ctx;
	struct target *tg;
	struct late_bodies late; /* region bodies probed while tracing */
	struct tf_writer *writer;
	struct trace_meta *meta; /* what of the session the trace file holds */
	int write_err;		 /* writing the trace file failed (-errno): it stopped there */
	FILE *null_out;		 /* reports nobody reads (record, top) */
	FILE *report_file;	 /* --report FILE */
	struct stops *stops;	 /* hang checks: stopped processes */
	/* the status line on a terminal */
	int tty;
	int status_shown;
	__u64 status_ns, status_events;
	/* --iterations VARIABLE: where it is in the job shown (pid 0: not looked
	 * up yet), or why it cannot be read */
	struct variable loop_var;
	int loop_var_err;
	struct priority prio; /* the drain's, --nice */
};

static volatile sig_atomic_t stop_requested;

/* The session the handler stops at once: nothing is recorded after the
 * signal, however long the loop takes to notice it. */
static struct session *volatile stop_session;

static void on_stop_signal(int sig)
{
	stop_requested = sig;
	session__stop(stop_session);
}

static void install_signals(void)
{
	struct sigaction sa = {.sa_handler = on_stop_signal};

	/* No SA_RESTART: the drain wait returns at once on Ctrl-C. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* The default trace file never overwrites silently: the previous one
 * becomes FILE.old (as perf does with perf.data). */
static int keep_old(const char *path)
{
	char old[PATH_MAX];

	if (access(path, F_OK))
		return 0;
	snprintf(old, sizeof(old), "%s.old", path);
	if (rename(path, old)) {
		log_err("cannot keep the previous %s as %s: %s", path, old, strerror(errno));
		return -1;
	}
	fprintf(stderr, "sbt-bpf: kept the previous %s as %s\n", path, old);
	return 0;
}

/* ---- the status line ---------------------------------------------------------- */

static void clear_status(struct tracer *t)
{
	if (t->status_shown) {
		fputs("\r\033[K", stderr);
		t->status_shown = 0;
	}
}

static void on_report_output(void *ctx)
{
	clear_status(ctx);
}

/* --iterations VARIABLE: the bound the job's program holds now; 0 when it
 * cannot be read (said once). */
static __u64 loop_bound(struct tracer *t, const struct job *job)
{
	char err[256];
	uint64_t n;

	if (t->loop_var.pid != (pid_t)job->pid) {
		t->loop_var_err = variable__find(&t->loop_var, job->pid, t->env->iterations_var,
						 err, sizeof(err));
		if (t->loop_var_err) {
			clear_status(t);
			log_warn("--iterations %s: %s", t->env->iterations_var, err);
		}
	}
	if (t->loop_var_err || variable__read(&t->loop_var, &n))
		return 0;
	return n;
}

/* --iterations N|VARIABLE: the first job whose outer loop is found, its
 * iteration and the time left at its mean iteration (doc/design.md §5.6). */
static void show_eta(struct tracer *t)
{
	__u64 n = t->env->iterations, k;
	double mean;
	size_t i;

	for (i = 0; (n || t->env->iterations_var) && i < jobs__count(t->ctx.jobs); i++) {
		const struct job *job = jobs__at(t->ctx.jobs, i);

		if (!job->report || report__iteration_now(job->report, &k, &mean))
			continue;
		if (t->env->iterations_var && !(n = loop_bound(t, job)))
			return;
		fprintf(stderr, ", iteration %llu of %llu", (unsigned long long)k,
			(unsigned long long)n);
		if (mean > 0 && k <= n)
			fprintf(stderr, ", %.1f s left", mean * (n - k + 1) / 1e9);
		return;
	}
}

static void show_status(struct tracer *t, __u64 now)
{
	__u64 phases, events, lost;

	if (!t->tty || now - t->status_ns < 1000000000ULL)
		return;
	events = tracer__events(t, &phases);
	lost = tracer__lost(t);
	fprintf(stderr, "\r\033[K[sbt-bpf] %.0f events/s, %llu lost, %llu phases",
		(events - t->status_events) * 1e9 / (now - t->status_ns), (unsigned long long)lost,
		(unsigned long long)phases);
	if (tracer__several(t))
		fprintf(stderr, ", %zu processes", tracer__njobs(t));
	show_eta(t);
	t->status_shown = 1;
	t->status_ns = now;
	t->status_events = events;
}

/* ---- setting up ------------------------------------------------------------ */

/* -e: before the target starts, so that a bad event costs nothing. */
static int open_counters(struct tracer *t)
{
	struct counter_set *cs = &t->ctx.counters;
	char err[256];

	if (!t->env->events)
		return 0;
	if (counters__parse(t->env->events, cs, err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_USAGE;
	}
	if (counters__open(cs, err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	if (cs->notice[0])
		log_warn("counters: %s", cs->notice);
	return 0;
}

/* The BPF side: programs, ring buffer, tracepoints. */
static int open_session(struct tracer *t)
{
	const struct env *env = t->env;
	struct session_opts so = {.ringbuf_bytes = env->buffer_bytes,
				  .shared_ring = env->shared_ring,
				  .single_target = t->tg->pid,
				  .futex = !!(env->classes & SBT_TRACE_FUTEX),
				  .counters = t->ctx.counters.n ? &t->ctx.counters : NULL,
				  .system_wide = env->all,
				  .follow = env->tree,
				  .inject_ns = env->inject_ns};
	char err[512] = "";

	t->ctx.session = session__open(&so, err, sizeof(err));
	if (!t->ctx.session) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	return 0;
}

/* Where reports go: stdout or --report FILE, or nowhere when nobody reads
 * them (record, top: the analyses still run, for the trace summary and the
 * table). */
static FILE *report_out(struct tracer *t)
{
	const char *path = t->env->view.report_path;

	if (path && !t->env->record && !t->env->top) {
		t->report_file = outfile__fopen(path);
		if (!t->report_file)
			log_err("cannot create %s: %s", path, outfile__why(errno));
		return t->report_file;
	}
	if (!t->env->record && !t->env->top)
		return stdout;
	if (!t->null_out)
		t->null_out = fopen("/dev/null", "we");
	return t->null_out;
}

/* What the reports show, and where. */
static struct report_opts report_opts(struct tracer *t)
{
	const struct env *env = t->env;

	return (struct report_opts){.format = env->view.json ? REPORT_JSON : REPORT_TEXT,
				    .episode_lines = !env->quiet && !env->record && !env->top,
				    .watch = env->view.watch,
				    .nwatch = env->view.nwatch,
				    .watch_all = env->view.watch_all,
				    .what_if = env->view.what_if,
				    .nwhat_if = env->view.nwhat_if,
				    .critical_path = env->view.critical_path,
				    .sort = env->view.sort,
				    .view = env->approx.view,
				    .warn_ns = env->view.warn_ns,
				    .max_lines_per_s = env->max_lines,
				    .max_phases = env->view.phases,
				    .out = report_out(t),
				    .before_output = on_report_output,
				    .hook_ctx = t};
}

/* What the analyses read: the probe table and costs, the model, names. */
static struct report_src report_src(const struct tracer *t)
{
	const struct probe_costs *pc = &t->ctx.costs;

	return (struct report_src){.phases = {.probes = pc->infos,
					      .nprobes = SBT_MAX_PROBES,
					      .ncounters = t->ctx.counters.n,
					      .alpha_enter = pc->alpha_enter,
					      .alpha_exit = pc->alpha_exit,
					      .alpha_counters = pc->alpha_counters,
					      .alpha_series = pc->series,
					      .inject_ns = t->env->inject_ns,
					      .model = t->env->approx.model,
					      .exit_order = t->env->approx.exit_order,
					      .error_band = t->env->approx.band},
				   .names = t->ctx.names,
				   .realtime_offset_ns = t->ctx.realtime_offset_ns,
				   .costs_source = pc->source,
				   .counters = t->ctx.counters.info};
}

/* One analysis per process (the names they share), and the trace file. */
static int open_jobs(struct tracer *t)
{
	const struct env *env = t->env;
	struct jobs_config c;

	t->ctx.names = names__new();
	if (!t->ctx.names)
		return EXIT_RUNTIME;
	/* before the target runs: libdw loaded 30 libraries in 26 ms at the
	 * first call site it named, while the target ran (bench/RESULTS.md,
	 * issue 17) */
	symbolizer__warm();
	c = (struct jobs_config){
		.ro = report_opts(t),
		.src = report_src(t),
		/* several processes: a report each, printed whole */
		.separate = t->tg->several && !env->record && !env->top,
		.show_idle = !env->all,
		/* a followed tree: one process's report while one synchronizes
		 * (which also chooses the jobs a trace file holds) */
		.live_first = env->tree,
	};
	if (!c.ro.out)
		return EXIT_RUNTIME;
	if (env->output_default && keep_old(env->output))
		return EXIT_RUNTIME;
	if (env->output) {
		t->writer = tracefile__create(env->output);
		if (!t->writer) {
			log_err("cannot create %s: %s", env->output, outfile__why(errno));
			return EXIT_RUNTIME;
		}
		t->meta = trace_meta__new();
		if (!t->meta)
			return EXIT_RUNTIME;
	}
	t->ctx.jobs = jobs__new(&c);
	return t->ctx.jobs ? 0 : EXIT_RUNTIME;
}

static int check_privileges(void)
{
	char err[256];

	if (session__check_privileges(err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	return 0;
}

/* Set-up in dependency order; the first failure stops it. */
static int set_up(struct tracer *t)
{
	const struct env *env = t->env;
	int rc = check_privileges();

	if (!rc)
		rc = open_counters(t);
	if (!rc && probe_costs__init(&t->ctx.costs, env, t->ctx.counters.n))
		rc = EXIT_RUNTIME;
	if (!rc) {
		t->tg = env->all || env->npids > 1 || env->tree ? target_many__new(&t->ctx)
								: target_one__new(&t->ctx);
		rc = t->tg ? t->tg->ops->prepare(t->tg) : EXIT_RUNTIME;
	}
	if (!rc)
		rc = open_session(t);
	if (!rc)
		rc = open_jobs(t);
	if (!rc)
		rc = t->tg->ops->attach(t->tg);
	return rc;
}

/* ---- the trace file ------------------------------------------------------------- */

/* Before each flush of the trace file: what its records refer to, ahead of them. */
static void put_meta(void *ctx, struct tf_writer *w)
{
	struct tracer *t = ctx;

	trace_meta__put(t->meta, w, t->tg, 0);
}

/* A failed write (the disk full): the file keeps what it holds, readable; nothing more is
 * written. `record` stops there: there is nothing left to do. */
static void trace_file_failed(struct tracer *t, int err)
{
	const char *path = t->env->output;
	__u64 n = tracefile__records_written(t->writer);

	if (n)
		log_err("writing %s: %s: the trace stops after %llu records (`sbt-bpf report %s` "
			"reads them)",
			path, strerror(-err), (unsigned long long)n, path);
	else
		log_err("writing %s: %s: the trace holds no record", path, strerror(-err));
	tracefile__on_flush(t->writer, NULL, NULL);
	tracefile__finish(t->writer, NULL); /* writes nothing more after a failure: closes */
	t->writer = NULL;
	t->write_err = err;
}

/* What is buffered goes to the file after each drain: a recorder killed loses at most
 * one drain interval of records. */
static void flush_trace_file(struct tracer *t)
{
	int err = t->writer ? tracefile__flush(t->writer) : 0;

	if (err)
		trace_file_failed(t, err);
}

int tracer__open(const struct env *env, struct tracer **out)
{
	struct tracer *t = calloc(1, sizeof(*t));
	int rc;

	*out = t;
	if (!t)
		return EXIT_RUNTIME;
	t->env = env;
	t->ctx.env = env;
	late_bodies__init(&t->late);
	t->ctx.realtime_offset_ns = (__s64)(clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_MONOTONIC));
	rc = set_up(t);
	if (rc)
		return rc;
	if (t->writer) {
		/* what the records need goes ahead of them (doc/design.md §6) */
		tracefile__on_flush(t->writer, put_meta, t);
		flush_trace_file(t);
	}
	stop_session = t->ctx.session;
	install_signals();
	jobs__begin(t->ctx.jobs);
	return 0;
}

/* ---- the drain loop ---------------------------------------------------------- */

/* Into the trace file and the process's analysis. */
static void feed(struct tracer *t, const struct sbt_event *e)
{
	int err;

	if (t->writer && (err = tracefile__write(t->writer, e, 1)))
		trace_file_failed(t, err);
	jobs__feed(t->ctx.jobs, e);
}

/* A region forked: its body is probed from now on if it was not. */
static void see_region(struct tracer *t, const struct sbt_event *e)
{
	struct sbt_event armed;

	if (e->type != SBT_EV_ENTER || e->probe >= SBT_MAX_PROBES ||
	    t->ctx.costs.infos[e->probe].kind != SBT_PK_REGION || !t->tg->table)
		return;
	if (late_bodies__see(&t->late, &t->ctx, t->tg->table, t->tg->every_process, e, &armed) > 0)
		feed(t, &armed);
}

/* --clock-skew: the record as a node whose clock is off would stamp it. */
static const struct sbt_event *skewed(const struct tracer *t, const struct sbt_event *e,
				      struct sbt_event *copy)
{
	if (!t->env->skew_ns && !t->env->skew_ppm)
		return e;
	*copy = *e;
	copy->ts = trace_ctx__stamp(&t->ctx, e->ts);
	return copy;
}

static int on_event(void *ctx, const struct sbt_event *rec)
{
	struct tracer *t = ctx;
	struct target *tg = t->tg;
	struct sbt_event copy;
	const struct sbt_event *e = skewed(t, rec, &copy);
	struct job *job;

	if (tg->ops->record && tg->ops->record(tg, e))
		return 0;
	job = jobs__find(t->ctx.jobs, e->pid);
	if (!job)
		return 0; /* a process that is not (or no longer) traced */
	trace_ctx__name_record(&t->ctx, job, e);
	feed(t, e);
	see_region(t, e);
	if (job->end_ns)
		tg->ops->job_exited(tg, job);
	return 0;
}

/* The CPUs the traced processes may run on (at most the first 64 of them
 * looked at): a calibration while tracing runs elsewhere if it can. */
static void busy_cpus(const struct tracer *t, cpu_set_t *busy)
{
	size_t i, n = jobs__count(t->ctx.jobs);
	cpu_set_t set;

	CPU_ZERO(busy);
	for (i = 0; i < n && i < 64; i++) {
		const struct job *job = jobs__at(t->ctx.jobs, i);

		if (job->ended || sched_getaffinity(job->pid, sizeof(set), &set))
			continue;
		CPU_OR(busy, busy, &set);
	}
}

/* The probe costs measured again, when due (doc/design.md §5.4): between two
 * drains, so that every record read after it is charged the calibration in
 * force at its own time. */
static void recalibrate(struct tracer *t, __u64 now)
{
	cpu_set_t busy;

	if (!probe_costs__due(&t->ctx.costs, now))
		return;
	busy_cpus(t, &busy);
	/* a calibration timed at low priority would time the job's slices */
	priority__raise(&t->prio);
	probe_costs__recalibrate(&t->ctx.costs, now, &busy);
}

/* Records held for a condvar's or semaphore's classification wait at most
 * this long live: the view and the hang checks would wait with them. */
#define LIVE_HOLD_MAX_NS (1000ULL * 1000 * 1000)

static void release_stale(struct tracer *t, __u64 now)
{
	size_t i;

	for (i = 0; i < jobs__count(t->ctx.jobs); i++) {
		struct job *job = jobs__at(t->ctx.jobs, i);

		if (!job->ended && job->ph)
			phases__release_stale(job->ph, now, LIVE_HOLD_MAX_NS);
	}
}

static void check_hangs(struct tracer *t, __u64 now)
{
	size_t i;

	if (!t->stops && !(t->stops = stops__new()))
		return;
	for (i = 0; i < jobs__count(t->ctx.jobs); i++) {
		struct job *job = jobs__at(t->ctx.jobs, i);

		if (!job->ended)
			stops__check_hangs(t->stops, job, now, t->env->view.hang_ns);
	}
}

int tracer__run(struct tracer *t, tracer_tick_fn tick, void *ctx)
{
	const struct env *env = t->env;
	struct target *tg = t->tg;
	__u64 now;
	int rc = tg->ops->release(tg);

	if (rc)
		return rc;
	t->tty = isatty(STDERR_FILENO) && !env->view.json && !env->top;
	t->status_ns = t->ctx.start_ns;
	/* after the release: a launched command was forked at normal priority */
	priority__begin(&t->prio, env->nice);
	while (!stop_requested && !(env->record && t->write_err)) {
		session__drain(t->ctx.session, env->drain_ms, on_event, t);
		priority__adjust(&t->prio, session__fill(t->ctx.session));
		flush_trace_file(t);
		fflush(stdout);
		if (tg->ops->rescan)
			tg->ops->rescan(tg);
		now = clock_ns(CLOCK_MONOTONIC);
		release_stale(t, now);
		if (env->view.hang_ns && !env->top)
			check_hangs(t, now);
		show_status(t, now);
		recalibrate(t, now);
		if (tick && tick(ctx, t, now))
			break;
		if (env->duration_ns && now - t->ctx.start_ns >= env->duration_ns)
			break;
		if (tg->ops->gone(tg))
			break;
	}
	clear_status(t);
	/* the final flush and report at the normal priority */
	priority__raise(&t->prio);
	if (env->record && t->write_err)
		log_warn("recording stopped; %s left running, untraced",
			 tg->several ? "the processes are" : "the target is");
	return 0;
}

/* ---- finishing ------------------------------------------------------------------ */

/* The end of the recording, then the END mark. */
static int finish_trace_file(struct tracer *t, __u64 end_ns)
{
	__u64 records = tracefile__records(t->writer), written;
	const char *path = t->env->output;
	int e;

	/* a failure here is the writer's, and tracefile__finish() returns it */
	trace_meta__put(t->meta, t->writer, t->tg, end_ns);
	written = tracefile__records_written(t->writer);
	e = tracefile__finish(t->writer, NULL);
	t->writer = NULL;
	if (e) {
		log_err("writing %s: %s: the trace stops after %llu records, without its end "
			"(`sbt-bpf report %s` reads them)",
			path, strerror(-e), (unsigned long long)written, path);
		return EXIT_RUNTIME;
	}
	fprintf(stderr, "sbt-bpf: wrote %s (%llu records)\n", path, (unsigned long long)records);
	return 0;
}

struct drops_ctx {
	const struct tracer *t;
	struct report_drops all; /* the session's, per CPU */
};

/* One process owns every loss of the session, per CPU too; with several,
 * only each one's total is known. */
static void drops_of(void *ctx, const struct job *job, struct report_drops *d)
{
	struct drops_ctx *dc = ctx;

	if (tracer__several(dc->t))
		d->total = tracer__job_lost(dc->t, job);
	else
		*d = dc->all;
}

/* How a launched command ended goes into the summary of the first process
 * reported (the command itself, or the one of its tree shown live). */
static void note_command_end(struct tracer *t)
{
	char end[64];
	size_t k;
	int ws;

	if (!tracer__target_ended(t, &ws))
		return;
	launch__describe_end(ws, end, sizeof(end));
	for (k = 0; k < jobs__count(t->ctx.jobs); k++) {
		struct job *job = jobs__at(t->ctx.jobs, k);

		if (!jobs__reported(t->ctx.jobs, job))
			continue;
		/* a wrapper's child reported as it exited, before the command
		 * (the wrapper) ended, live or kept aside for the end: the
		 * line after its report */
		if (job->ended && (job->live || job->aside) && !t->env->view.json &&
		    !t->env->record && !report__command_end(job->report)[0])
			fprintf(job->out, "Command: %s\n", end);
		report__set_command_end(job->report, end);
		return;
	}
}

/* The reports were written whole (stdout, or --report FILE): a full disk
 * or a closed pipe is an error the user sees, with the exit status. */
static int close_reports(struct tracer *t)
{
	FILE *out = t->report_file ? t->report_file : stdout;
	int err;

	if (t->env->record || t->env->top)
		return 0;
	err = outfile__close(out);
	t->report_file = NULL;
	if (err)
		log_err("writing %s: %s",
			t->env->view.report_path ? t->env->view.report_path : "the report",
			strerror(-err));
	return err;
}

int tracer__finish(struct tracer *t)
{
	int ncpus = session__ncpus(), rc = 0, ws;
	__u64 *per_cpu = calloc(ncpus, sizeof(__u64)), end_ns;
	struct drops_ctx dc = {.t = t, .all = {.per_cpu = per_cpu, .ncpus = per_cpu ? ncpus : 0}};

	/* Stop recording (a signal did already), detach: the targets stop
	 * paying for probes. Then take what is still in the ring buffer. */
	end_ns = clock_ns(CLOCK_MONOTONIC);
	session__stop(t->ctx.session);
	session__detach(t->ctx.session);
	session__flush(t->ctx.session, on_event, t);
	if (stop_requested && t->tg->ops->interrupted)
		t->tg->ops->interrupted(t->tg, end_ns);
	if (session__late(t->ctx.session))
		log_warn("%llu records reached sbt-bpf after later ones of other CPUs had been "
			 "analysed: their order may be off",
			 (unsigned long long)session__late(t->ctx.session));
	dc.all.total = session__drops(t->ctx.session, per_cpu, dc.all.ncpus);
	/* nothing of the session is attached any more: the last calibration,
	 * before the reports say what the costs were */
	probe_costs__finish(&t->ctx.costs);
	note_command_end(t);
	jobs__end_all(t->ctx.jobs, drops_of, &dc);
	if (t->tg->ops->finish)
		t->tg->ops->finish(t->tg);
	if (dc.all.total)
		log_warn("%llu records lost: the ring buffer was full (try --buffer-size)",
			 (unsigned long long)dc.all.total);
	if (t->writer)
		rc = finish_trace_file(t, end_ns);
	else if (t->write_err)
		rc = EXIT_RUNTIME;
	if (close_reports(t) && !rc)
		rc = EXIT_RUNTIME;
	if (jobs__failed(t->ctx.jobs) && !rc) /* processes left out: jobs__end_all() said */
		rc = EXIT_RUNTIME;
	if (stop_requested && tracer__target_ended(t, &ws))
		log_info("stopped by signal %d; the command ended meanwhile", (int)stop_requested);
	else if (stop_requested)
		log_info("stopped by signal %d; %s left running", (int)stop_requested,
			 tracer__several(t) ? "processes" : "target");
	else if (t->write_err && t->env->record)
		log_info("recording stopped; %s left running",
			 tracer__several(t) ? "processes" : "target");
	free(per_cpu);
	return rc;
}

void tracer__free(struct tracer *t)
{
	size_t i;

	if (!t)
		return;
	if (t->writer) { /* set-up failed half-way */
		tracefile__on_flush(t->writer, NULL, NULL);
		tracefile__finish(t->writer, NULL);
	}
	trace_meta__free(t->meta);
	stops__free(t->stops);
	late_bodies__free(&t->late);
	/* before the session closes: a target may have processes to resume */
	if (t->tg)
		t->tg->ops->free(t->tg);
	stop_session = NULL;
	session__close(t->ctx.session);
	for (i = 0; t->ctx.jobs && i < jobs__count(t->ctx.jobs); i++)
		trace_ctx__job_free_names(jobs__at(t->ctx.jobs, i));
	jobs__free(t->ctx.jobs);
	names__free(t->ctx.names);
	counters__close(&t->ctx.counters);
	probe_costs__free(&t->ctx.costs);
	if (t->null_out)
		fclose(t->null_out);
	if (t->report_file)
		fclose(t->report_file);
	free(t);
}

/* ---- what a running session knows ---------------------------------------------- */

const struct jobs *tracer__jobs(const struct tracer *t)
{
	return t->ctx.jobs;
}

const struct names *tracer__names(const struct tracer *t)
{
	return t->ctx.names;
}

__u64 tracer__lost(const struct tracer *t)
{
	return session__drops(t->ctx.session, NULL, 0);
}

__u64 tracer__job_lost(const struct tracer *t, const struct job *job)
{
	return t->tg->ops->job_drops(t->tg, job);
}

__u64 tracer__events(const struct tracer *t, __u64 *phases)
{
	__u64 events = 0;
	size_t i;

	*phases = 0;
	for (i = 0; i < jobs__count(t->ctx.jobs); i++) {
		const struct job *job = jobs__at(t->ctx.jobs, i);

		events += phases__events(job->ph);
		*phases += phases__completed(job->ph);
	}
	return events;
}

int tracer__several(const struct tracer *t)
{
	return t->tg->several || (t->env->tree && jobs__nsynced(t->ctx.jobs) > 1);
}

size_t tracer__njobs(const struct tracer *t)
{
	size_t i, n = 0;

	for (i = 0; i < jobs__count(t->ctx.jobs); i++)
		n += jobs__reported(t->ctx.jobs, jobs__at(t->ctx.jobs, i));
	return n;
}

int tracer__target_ended(const struct tracer *t, int *wstatus)
{
	return t->tg && t->tg->ops->ended && t->tg->ops->ended(t->tg, wstatus);
}
