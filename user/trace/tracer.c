// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tracing (`sbt-bpf -p PID`, `sbt-bpf -- CMD`, `-a`), `sbt-bpf record`
 * and `sbt-bpf top`: find the targets, resolve and attach probes, drain
 * records into one analysis per process (and the trace file), report,
 * detach. Several processes are set up by system.c.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "user/cmd/cmds.h"
#include "user/cmd/env_args.h"
#include "user/trace/launch.h"
#include "lib/log.h"
#include "user/resolve/symbolize.h"
#include "user/trace/tracer.h"

#define SBT_VERSION "0.1.0"

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	stop_requested = sig;
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

__u64 mono_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* ---- naming what the records refer to ---------------------------------------- */

static void read_comm(pid_t pid, __u32 tid, char *buf, size_t n)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", (int)pid, tid);
	f = fopen(path, "re");
	buf[0] = 0;
	if (f) {
		if (fgets(buf, n, f))
			buf[strcspn(buf, "\n")] = 0;
		fclose(f);
	}
	if (!buf[0])
		snprintf(buf, n, "?");
}

void tracer__name_thread(struct tracer *t, __u32 pid, __u32 tid)
{
	char comm[32];

	if (names__comm(t->names, tid))
		return;
	read_comm(pid, tid, comm, sizeof(comm));
	names__set_comm(t->names, tid, comm);
}

/* Probe kinds whose first argument is a synchronization object. */
static int names_object(int kind)
{
	return kind == SBT_PK_BARRIER || kind >= SBT_PK_LOCK;
}

/* The global variable holding a barrier, lock, semaphore, condvar or futex
 * word; "" (looked up, not found) for other memory, so that the lookup is
 * not repeated. */
static void name_object(struct tracer *t, struct job *job, __u64 obj)
{
	char buf[SBT_SYMBOL_MAX * 2];

	if (!obj || names__get(t->names, job->pid, obj))
		return;
	if (symbolizer__data(job->user, obj, buf, sizeof(buf)))
		buf[0] = 0;
	names__set(t->names, job->pid, obj, buf);
}

static void name_call(struct tracer *t, struct job *job, const struct sbt_event *e)
{
	char buf[SBT_SYMBOL_MAX * 2];

	if (e->type == SBT_EV_EXIT && !names__get(t->names, e->pid, e->site)) {
		symbolizer__code(job->user, e->site, buf, sizeof(buf));
		names__set(t->names, e->pid, e->site, buf);
	}
	if (e->type == SBT_EV_ENTER && names_object(t->infos[e->probe].kind))
		name_object(t, job, e->obj);
}

static void name_record(struct tracer *t, struct job *job, const struct sbt_event *e)
{
	if ((e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT) && e->probe < SBT_MAX_PROBES)
		name_call(t, job, e);
	else if (e->type == SBT_EV_FUTEX_ENTER)
		name_object(t, job, e->obj);
	if (e->type == SBT_EV_THREAD_START || e->type == SBT_EV_THREAD_EXIT) {
		char comm[SBT_COMM_LEN];

		event_comm(e, comm);
		if (comm[0])
			names__set_comm(t->names, e->tid, comm);
	} else {
		tracer__name_thread(t, e->pid, e->tid);
	}
}

static int on_event(void *ctx, const struct sbt_event *e)
{
	struct tracer *t = ctx;
	struct job *job;

	if (t->multi && system__record(t, e))
		return 0;
	job = jobs__find(t->jobs, e->pid);
	if (!job)
		return 0; /* a process that is not (or no longer) traced */
	name_record(t, job, e);
	if (t->writer && tracefile__write(t->writer, e, 1)) {
		log_err("writing %s: %s; recording stops here", t->env.output, strerror(errno));
		tracefile__finish(t->writer, NULL);
		t->writer = NULL;
	}
	jobs__feed(t->jobs, e);
	if (job->end_ns && t->multi)
		system__job_exited(t, job);
	else if (job->end_ns)
		t->target_gone = 1;
	return 0;
}

/* ---- setting up ------------------------------------------------------------ */

static void join_argv(char *const *argv, char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = 0;
	for (; *argv && len < n; argv++)
		len += snprintf(buf + len, n - len, "%s%s", len ? " " : "", *argv);
}

void event_comm(const struct sbt_event *e, char comm[SBT_COMM_LEN])
{
	memcpy(comm, &e->obj, 8);
	memcpy(comm + 8, &e->site, 8);
	comm[SBT_COMM_LEN - 1] = 0;
}

void read_cmdline(pid_t pid, char *buf, size_t n)
{
	char path[64];
	size_t len = 0, i;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	f = fopen(path, "re");
	if (f) {
		len = fread(buf, 1, n - 1, f);
		fclose(f);
	}
	/* arguments are NUL-separated; a heading must stay on one line */
	for (i = 0; i + 1 < len; i++)
		if ((unsigned char)buf[i] < 0x20)
			buf[i] = ' ';
	buf[len] = 0;
}

/* Tgid and state of a task from /proc/PID/status; -1 when unreadable. */
static int proc_status(pid_t pid, char *state)
{
	char path[64], line[128];
	int tgid = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (state)
			sscanf(line, "State: %c", state);
		sscanf(line, "Tgid: %d", &tgid);
	}
	fclose(f);
	return tgid;
}

int proc_tgid(pid_t pid)
{
	return proc_status(pid, NULL);
}

static int start_target(struct tracer *t)
{
	char err[512] = "";
	int tgid;

	if (t->env.cmd) {
		t->pid = launch__start(t->env.cmd, err, sizeof(err));
		if (t->pid < 0) {
			log_err("%s", err);
			return EXIT_RUNTIME;
		}
		t->launched = 1;
		join_argv(t->env.cmd, t->command, sizeof(t->command));
		return 0;
	}
	t->pid = t->env.pid;
	if (kill(t->pid, 0) && errno == ESRCH) {
		log_err("no such process: %d", (int)t->pid);
		return EXIT_RUNTIME;
	}
	tgid = proc_tgid(t->pid);
	if (tgid > 0 && tgid != t->pid) {
		log_warn("%d is a thread of process %d: tracing the process", (int)t->pid, tgid);
		t->pid = tgid;
	}
	read_cmdline(t->pid, t->command, sizeof(t->command));
	return 0;
}

static int resolve_probes(struct tracer *t)
{
	char err[1024], known[2048];

	if (probes__resolve(t->pid, t->env.classes, t->env.probes, t->env.nprobes, &t->probes, err,
			    sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	if (!t->probes.used && !t->env.force) {
		probes__known(t->env.classes, known, sizeof(known));
		log_err("process %d (%s) calls none of the functions sbt-bpf traces.\n"
			"  searched %d mapped objects for: %s\n"
			"  declare the program's own barrier with --probe BINARY:SYMBOL:barrier "
			"(or :team, :lock, ...), widen --trace, or use --force to trace anyway",
			(int)t->pid, t->command, t->probes.files_searched, known);
		return EXIT_RUNTIME;
	}
	if (t->probes.unprobeable)
		log_warn("not traced: %s (the first instruction has a lock prefix, which uprobes "
			 "cannot take)",
			 t->probes.unprobeable_names);
	tracer__set_probes(t, t->probes.probes + 1, 1, t->probes.n - 1);
	return 0;
}

/* Threads that exist before tracing: their phase 0 starts with the job (or
 * when system.c saw them created). */
void tracer__add_threads(struct tracer *t, struct job *job)
{
	struct pending_thread *pt;
	char path[64];
	struct dirent *d;
	DIR *dir;
	int tid;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)job->pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if ((tid = atoi(d->d_name)) > 0) {
			pt = hmap_del(&t->pending, tid, 0);
			phases__add_thread(job->ph, job->pid, tid,
					   pt && pt->start_ns > job->start_ns ? pt->start_ns
									      : job->start_ns);
			if (pt && pt->comm[0])
				names__set_comm(t->names, tid, pt->comm);
			free(pt);
			tracer__name_thread(t, job->pid, tid);
		}
	closedir(dir);
}

static void clear_status(struct tracer *t);

static void on_report_output(void *ctx)
{
	clear_status(ctx);
}

/* Where reports go: stdout, or nowhere when nobody reads them (record,
 * top: the analyses still run, for the trace summary and the table). */
static FILE *report_out(struct tracer *t)
{
	if (!t->env.record && !t->env.top)
		return stdout;
	if (!t->null_out)
		t->null_out = fopen("/dev/null", "we");
	return t->null_out;
}

/* One analysis per process; the templates every job's analysis copies. */
static int open_jobs(struct tracer *t)
{
	struct jobs_config c = {
		.ro = {.format = t->env.json ? REPORT_JSON : REPORT_TEXT,
		       .episode_lines = !t->env.quiet && !t->env.record && !t->env.top,
		       .watch = t->env.watch,
		       .nwatch = t->env.nwatch,
		       .watch_all = t->env.watch_all,
		       .sort = t->env.sort,
		       .view = t->env.approx.view,
		       .warn_ns = t->env.warn_ns,
		       .max_lines_per_s = t->env.max_lines,
		       .out = report_out(t),
		       .before_output = on_report_output,
		       .hook_ctx = t},
		.src = {.phases = {.probes = t->infos,
				   .nprobes = SBT_MAX_PROBES,
				   .ncounters = t->counters.n,
				   .alpha_enter = t->alpha_enter,
				   .alpha_exit = t->alpha_exit,
				   .alpha_counters = t->alpha_counters,
				   .model = t->env.approx.model,
				   .exit_order = t->env.approx.exit_order},
			.names = t->names,
			.realtime_offset_ns = t->realtime_offset_ns,
			.counters = t->counters.info},
		/* several processes: a report each, printed whole */
		.separate = t->multi && !t->env.record && !t->env.top,
		.show_idle = !t->env.all,
	};

	if (!c.ro.out)
		return EXIT_RUNTIME;
	if (t->env.output) {
		t->writer = tracefile__create(t->env.output);
		if (!t->writer) {
			log_err("cannot create %s: %s", t->env.output, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	t->jobs = jobs__new(&c);
	return t->jobs ? 0 : EXIT_RUNTIME;
}

/* The BPF side: programs, ring buffer, tracepoints. */
static int open_session(struct tracer *t)
{
	struct session_opts so = {.ringbuf_bytes = t->env.buffer_bytes,
				  .single_target = t->multi ? 0 : t->pid,
				  .futex = !!(t->env.classes & SBT_TRACE_FUTEX),
				  .counters = t->counters.n ? &t->counters : NULL,
				  .system_wide = t->env.all};
	char err[512] = "";

	t->session = session__open(&so, err, sizeof(err));
	if (!t->session) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	t->names = names__new();
	return t->names ? 0 : EXIT_RUNTIME;
}

/* Single mode: the one target's probes and its job. */
static int attach(struct tracer *t)
{
	__u64 t0 = mono_ns(CLOCK_MONOTONIC), t1;
	char err[512] = "";
	struct job *job;

	if (open_session(t))
		return EXIT_RUNTIME;
	if (session__add_target(t->session, t->pid) ||
	    session__attach(t->session, &t->probes, t->pid, err, sizeof(err))) {
		log_err("%s", err[0] ? err : "cannot add the target to the BPF filter");
		return EXIT_RUNTIME;
	}
	t1 = mono_ns(CLOCK_MONOTONIC);
	/* A running process produces records while the probes go in: its
	 * session starts before them. A launched one runs only once released. */
	t->start_ns = t->launched ? t1 : t0;
	t->realtime_offset_ns = (__s64)(mono_ns(CLOCK_REALTIME) - t->start_ns);
	if (open_jobs(t))
		return EXIT_RUNTIME;
	job = jobs__start(t->jobs, t->pid, t->start_ns, t->command);
	if (!job)
		return EXIT_RUNTIME;
	job->user = symbolizer__new(t->pid);
	tracer__add_threads(t, job);
	fprintf(stderr,
		"sbt-bpf: tracing pid %d (%s): %d probes in %d objects, attached in %.1f ms; "
		"Ctrl-C to stop\n",
		(int)t->pid, t->command, t->probes.n - 1, t->probes.files_searched,
		(t1 - t0) / 1e6);
	return 0;
}

/* ---- the drain loop ---------------------------------------------------------- */

static int target_exited(struct tracer *t)
{
	int status;

	if (t->launched) {
		if (waitpid(t->pid, &status, WNOHANG) == t->pid) {
			t->child_status = status;
			return 1;
		}
		return 0;
	}
	{
		char state = 0;

		/* a zombie still answers kill(pid, 0) */
		if (proc_status(t->pid, &state) < 0 || state == 'Z')
			return 1;
	}
	return t->target_gone || (kill(t->pid, 0) && errno == ESRCH);
}

static void clear_status(struct tracer *t)
{
	if (t->status_shown) {
		fputs("\r\033[K", stderr);
		t->status_shown = 0;
	}
}

static __u64 total_events(struct tracer *t, __u64 *phases)
{
	__u64 events = 0;
	size_t i;

	*phases = 0;
	for (i = 0; i < jobs__count(t->jobs); i++) {
		struct job *job = jobs__at(t->jobs, i);

		events += phases__events(job->ph);
		*phases += phases__completed(job->ph);
	}
	return events;
}

static void show_status(struct tracer *t, __u64 now)
{
	__u64 phases, events, lost;

	if (!t->tty || now - t->status_ns < 1000000000ULL)
		return;
	events = total_events(t, &phases);
	lost = session__drops(t->session, NULL, 0);
	fprintf(stderr, "\r\033[K[sbt-bpf] %.0f events/s, %llu lost, %llu phases",
		(events - t->status_events) * 1e9 / (now - t->status_ns), (unsigned long long)lost,
		(unsigned long long)phases);
	if (t->multi)
		fprintf(stderr, ", %zu processes", jobs__count(t->jobs));
	t->status_shown = 1;
	t->status_ns = now;
	t->status_events = events;
}

static void check_hangs(struct tracer *t, __u64 now)
{
	size_t i;

	for (i = 0; i < jobs__count(t->jobs); i++) {
		struct job *job = jobs__at(t->jobs, i);

		if (!job->ended)
			phases__check_hangs(job->ph, now, t->env.hang_ns);
	}
}

/* Single mode: the target is gone; -p with several: all are; -a: never. */
static int targets_gone(struct tracer *t)
{
	if (t->env.all)
		return 0;
	if (t->multi)
		return t->running == 0;
	return target_exited(t);
}

static void drain_loop(struct tracer *t)
{
	__u64 now;

	t->tty = isatty(STDERR_FILENO) && !t->env.json && !t->env.top;
	t->status_ns = t->start_ns;
	while (!stop_requested) {
		session__drain(t->session, t->env.drain_ms, on_event, t);
		fflush(stdout);
		if (t->multi)
			system__rescan(t);
		now = mono_ns(CLOCK_MONOTONIC);
		if (t->env.hang_ns && !t->env.top)
			check_hangs(t, now);
		show_status(t, now);
		if (t->top && top__tick(t->top, t, now))
			break;
		if (t->env.duration_ns && now - t->start_ns >= t->env.duration_ns)
			break;
		if (targets_gone(t))
			break;
	}
	clear_status(t);
}

/* ---- finishing ------------------------------------------------------------------ */

static const struct probe_table *probe_table(const struct tracer *t)
{
	return t->multi ? &t->disc.table : &t->probes;
}

static void fill_threads(struct tracer *t, struct tf_meta *m)
{
	size_t i, k, n = 0;

	for (k = 0; k < jobs__count(t->jobs); k++)
		n += phases__nthreads(jobs__at(t->jobs, k)->ph);
	m->threads = calloc(n + 1, sizeof(*m->threads));
	for (k = 0; m->threads && k < jobs__count(t->jobs); k++) {
		const struct phases *ph = jobs__at(t->jobs, k)->ph;

		for (i = 0; i < phases__nthreads(ph); i++) {
			const struct ph_thread *th = phases__thread(ph, i);
			const char *comm = names__comm(t->names, th->tid);
			struct tf_thread *tt = &m->threads[m->nthreads++];

			*tt = (struct tf_thread){.pid = th->pid,
						 .tid = th->tid,
						 .start_ns = th->start_ns,
						 .exit_ns = th->exit_ns};
			snprintf(tt->comm, sizeof(tt->comm), "%s", comm ? comm : "?");
		}
	}
}

static void fill_jobs(struct tracer *t, struct tf_meta *m)
{
	size_t k, n = jobs__count(t->jobs);

	m->jobs = calloc(n + 1, sizeof(*m->jobs));
	for (k = 0; m->jobs && k < n; k++) {
		const struct job *job = jobs__at(t->jobs, k);

		m->jobs[k] =
			(struct tf_job){.pid = job->pid,
					.start_ns = job->start_ns,
					.end_ns = job->end_ns,
					.drops = t->multi ? system__job_drops(t, job)
							  : session__drops(t->session, NULL, 0),
					.command = strdup(job->command)};
		m->njobs++;
	}
}

static void fill_meta(struct tracer *t, struct tf_meta *m, __u64 end_ns, __u64 *per_cpu, int ncpus)
{
	int nprobes = probe_table(t)->n;
	struct utsname u;
	char kernel[512] = "";
	size_t i, n;

	if (!uname(&u))
		snprintf(kernel, sizeof(kernel), "%s %s %s %s", u.sysname, u.release, u.version,
			 u.machine);
	memset(m, 0, sizeof(*m));
	m->kernel = strdup(kernel);
	m->host = strdup(uname(&u) ? "" : u.nodename);
	m->command = strdup(t->command);
	m->clock = strdup("CLOCK_MONOTONIC");
	m->sbt_version = strdup(SBT_VERSION);
	m->start_ns = t->start_ns;
	m->end_ns = end_ns;
	m->realtime_offset_ns = t->realtime_offset_ns;
	/* id 0 is not a probe: not written */
	m->probes = calloc(nprobes, sizeof(*m->probes));
	if (m->probes) {
		memcpy(m->probes, t->infos + 1, (nprobes - 1) * sizeof(*m->probes));
		m->nprobes = nprobes - 1;
	}
	n = names__count(t->names);
	m->symbols = calloc(n + 1, sizeof(*m->symbols));
	for (i = 0; m->symbols && i < n; i++) {
		const char *s = names__at(t->names, i, &m->symbols[i].pid, &m->symbols[i].addr);

		m->symbols[i].name = strdup(s);
		m->nsymbols++;
	}
	fill_threads(t, m);
	fill_jobs(t, m);
	m->drops_per_cpu = calloc(ncpus, sizeof(__u64));
	if (m->drops_per_cpu) {
		memcpy(m->drops_per_cpu, per_cpu, ncpus * sizeof(__u64));
		m->ncpus = ncpus;
	}
	m->drops_total = session__drops(t->session, NULL, 0);
	memcpy(m->counters, t->counters.info, sizeof(m->counters));
	m->ncounters = t->counters.n;
	m->alpha_enter = calloc(nprobes, sizeof(__u64));
	m->alpha_exit = calloc(nprobes, sizeof(__u64));
	if (m->alpha_enter && m->alpha_exit && t->alpha_enter) {
		memcpy(m->alpha_enter, t->alpha_enter, nprobes * sizeof(__u64));
		memcpy(m->alpha_exit, t->alpha_exit, nprobes * sizeof(__u64));
		m->nalpha = nprobes;
		m->alpha_counters = t->alpha_counters;
	}
}

static int finish_trace_file(struct tracer *t, __u64 end_ns, __u64 *per_cpu, int ncpus)
{
	struct tf_meta meta;
	__u64 records = tracefile__records(t->writer);
	int e;

	fill_meta(t, &meta, end_ns, per_cpu, ncpus);
	e = tracefile__finish(t->writer, &meta);
	t->writer = NULL;
	tf_meta_free(&meta);
	if (e) {
		log_err("writing %s: %s", t->env.output, strerror(-e));
		return EXIT_RUNTIME;
	}
	fprintf(stderr, "sbt-bpf: wrote %s (%llu records)\n", t->env.output,
		(unsigned long long)records);
	return 0;
}

struct drops_ctx {
	struct tracer *t;
	struct report_drops all; /* single mode: the session's, per CPU */
};

static void drops_of(void *ctx, const struct job *job, struct report_drops *d)
{
	struct drops_ctx *dc = ctx;

	if (dc->t->multi)
		d->total = system__job_drops(dc->t, job);
	else
		*d = dc->all;
}

static int finish(struct tracer *t)
{
	int ncpus = session__ncpus(), rc = 0;
	__u64 *per_cpu = calloc(ncpus, sizeof(__u64)), end_ns, phases, events;
	struct drops_ctx dc = {.t = t, .all = {.per_cpu = per_cpu, .ncpus = per_cpu ? ncpus : 0}};

	/* Detach first: the targets stop paying for probes at once. Then take
	 * what is still in the ring buffer. */
	end_ns = mono_ns(CLOCK_MONOTONIC);
	session__detach(t->session);
	while (session__drain(t->session, 0, on_event, t) > 0)
		;
	top__free(t->top);
	t->top = NULL;
	dc.all.total = session__drops(t->session, per_cpu, dc.all.ncpus);
	jobs__end_all(t->jobs, drops_of, &dc);
	events = total_events(t, &phases);
	if (t->env.record)
		printf("recorded %llu events, %llu phases, %llu lost\n", (unsigned long long)events,
		       (unsigned long long)phases, (unsigned long long)dc.all.total);
	if (t->env.record && t->multi)
		printf("%zu process%s\n", jobs__count(t->jobs),
		       jobs__count(t->jobs) == 1 ? "" : "es");
	if (dc.all.total)
		log_warn("%llu records lost: the ring buffer was full (try --buffer-size)",
			 (unsigned long long)dc.all.total);
	if (t->writer)
		rc = finish_trace_file(t, end_ns, per_cpu, ncpus);
	if (stop_requested)
		log_info("stopped by signal %d; %s left running", (int)stop_requested,
			 t->multi ? "processes" : "target");
	free(per_cpu);
	return rc;
}

static void cleanup(struct tracer *t)
{
	size_t i;

	if (t->writer)
		tracefile__finish(t->writer, NULL);
	top__free(t->top);
	session__close(t->session);
	for (i = 0; t->jobs && i < jobs__count(t->jobs); i++)
		symbolizer__free(jobs__at(t->jobs, i)->user);
	jobs__free(t->jobs);
	if (t->multi)
		system__free(t);
	names__free(t->names);
	probes__free(&t->probes);
	counters__close(&t->counters);
	free(t->alpha_enter);
	free(t->alpha_exit);
	free(t->infos);
	if (t->null_out)
		fclose(t->null_out);
}

/* -e: before the target starts, so that a bad event costs nothing. */
static int open_counters(struct tracer *t)
{
	char err[256];

	if (!t->env.events)
		return 0;
	if (counters__parse(t->env.events, &t->counters, err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_USAGE;
	}
	if (counters__open(&t->counters, err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	if (t->counters.notice[0])
		log_warn("counters: %s", t->counters.notice);
	return 0;
}

/* The probe table by id and the costs: room for every id, since probes
 * found later (other processes, dlopen) are added in place. */
static int load_costs(struct tracer *t)
{
	const struct alpha *a;
	char err[512];
	int measured;

	t->infos = calloc(SBT_MAX_PROBES, sizeof(*t->infos));
	t->alpha_enter = calloc(SBT_MAX_PROBES, sizeof(__u64));
	t->alpha_exit = calloc(SBT_MAX_PROBES, sizeof(__u64));
	if (!t->infos || !t->alpha_enter || !t->alpha_exit)
		return EXIT_RUNTIME;
	if (t->env.alpha_enter >= 0)
		return 0;
	if (calibration__get(&t->cal, &measured, err, sizeof(err))) {
		log_warn("calibration failed (%s): no approximation", err);
		return 0;
	}
	t->cal_ok = 1;
	if (measured)
		log_info("calibrated the probe costs (cached in %s)", CALIBRATION_CACHE);
	/* probe id 0 is no uprobe: the futex records' tracepoints */
	a = calibration__find(&t->cal, CAL_FUTEX);
	if (a && (t->env.classes & SBT_TRACE_FUTEX)) {
		t->alpha_enter[0] = a->entry_ns;
		t->alpha_exit[0] = a->exit_ns;
	}
	a = calibration__find(&t->cal, CAL_COUNTERS);
	if (a && t->counters.n)
		t->alpha_counters = a->entry_ns;
	return 0;
}

/* α of a probe: the calibrated cost of its function, else (a --probe
 * function) that of a calibrated function whose first instruction the
 * kernel handles the same way; --alpha overrides everything. */
static void probe_cost(struct tracer *t, const struct probe *p, __u64 *enter, __u64 *exit)
{
	const struct alpha *a;

	if (t->env.alpha_enter >= 0) {
		*enter = t->env.alpha_enter;
		*exit = t->env.alpha_exit;
		return;
	}
	if (!t->cal_ok)
		return;
	a = calibration__find(&t->cal, p->info.symbol);
	if (!a)
		a = calibration__for_class(&t->cal, insn_class__of(p->open_path, p->info.offset));
	if (!a)
		a = calibration__find(&t->cal, "pthread_barrier_wait");
	*enter = a ? a->entry_ns : 0;
	*exit = a ? a->exit_ns : 0;
}

void tracer__set_probes(struct tracer *t, const struct probe *p, int first, int n)
{
	int i;

	for (i = 0; i < n && first + i < SBT_MAX_PROBES; i++) {
		t->infos[first + i] = p[i].info;
		probe_cost(t, &p[i], &t->alpha_enter[first + i], &t->alpha_exit[first + i]);
	}
}

static int setup_single(struct tracer *t)
{
	int rc = start_target(t);

	if (!rc)
		rc = resolve_probes(t);
	if (!rc)
		rc = attach(t);
	return rc;
}

static int run(struct tracer *t)
{
	char err[256];
	int rc;

	if (session__check_privileges(err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	t->multi = t->env.all || t->env.npids > 1;
	rc = open_counters(t);
	if (!rc)
		rc = load_costs(t);
	if (!rc && t->multi) {
		/* running processes produce records while the probes go in */
		t->start_ns = mono_ns(CLOCK_MONOTONIC);
		t->realtime_offset_ns = (__s64)(mono_ns(CLOCK_REALTIME) - t->start_ns);
		rc = open_session(t) || open_jobs(t) ? EXIT_RUNTIME : system__attach(t);
	} else if (!rc)
		rc = setup_single(t);
	if (rc) {
		if (t->launched)
			launch__abort(t->pid);
		return rc;
	}
	install_signals();
	jobs__begin(t->jobs);
	if (t->launched && launch__release(t->pid)) {
		log_err("cannot start '%s': %s", t->command, strerror(errno));
		launch__abort(t->pid);
		return EXIT_RUNTIME;
	}
	if (t->env.top && !(t->top = top__new(t->env.interval_ms)))
		return EXIT_RUNTIME;
	drain_loop(t);
	return finish(t);
}

int cmd_trace(int argc, char **argv, int cmd)
{
	struct tracer t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = env__parse(&t.env, argc, argv, (enum env_cmd)cmd);
	if (rc)
		return rc;
	if (t.env.list_events) {
		counters__list(stdout);
		return EXIT_OK;
	}
	rc = run(&t);
	cleanup(&t);
	return rc;
}
