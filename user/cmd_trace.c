// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Live tracing (`sbt-bpf -p PID`, `sbt-bpf -- CMD`) and `sbt-bpf record`:
 * find the target, resolve and attach probes, drain records into the phase
 * analysis (and the trace file), report, detach.
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
#include "calibrate.h"
#include "cmds.h"
#include "counters.h"
#include "env.h"
#include "launch.h"
#include "log.h"
#include "names.h"
#include "phases.h"
#include "probes.h"
#include "report.h"
#include "session.h"
#include "symbolize.h"
#include "sync.h"
#include "tracefile.h"

#define SBT_VERSION "0.1.0"

struct tracer {
	struct env env;
	pid_t pid;
	int launched;
	char command[1024];
	struct probe_table probes;
	struct sbt_probe_info *infos; /* indexed by probe id */
	struct session *session;
	struct symbolizer *sym;
	struct names *names;
	struct phases *ph;
	struct sync *sync;
	struct counter_set counters;
	__u64 *alpha_enter, *alpha_exit; /* by probe id */
	__u64 alpha_counters;		 /* per counter record */
	struct report *report;
	struct tf_writer *writer;
	__u64 start_ns;
	__s64 realtime_offset_ns;
	int target_gone;
	int child_status;
	/* status line */
	int tty;
	int status_shown;
	__u64 status_ns, status_events;
};

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

static __u64 mono_ns(clockid_t clk)
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

static void name_thread(struct tracer *t, __u32 pid, __u32 tid)
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
static void name_object(struct tracer *t, __u32 pid, __u64 obj)
{
	char buf[SBT_SYMBOL_MAX * 2];

	if (!obj || names__get(t->names, pid, obj))
		return;
	if (symbolizer__data(t->sym, obj, buf, sizeof(buf)))
		buf[0] = 0;
	names__set(t->names, pid, obj, buf);
}

static void name_call(struct tracer *t, const struct sbt_event *e)
{
	char buf[SBT_SYMBOL_MAX * 2];

	if (e->type == SBT_EV_EXIT && !names__get(t->names, e->pid, e->site)) {
		symbolizer__code(t->sym, e->site, buf, sizeof(buf));
		names__set(t->names, e->pid, e->site, buf);
	}
	if (e->type == SBT_EV_ENTER && names_object(t->infos[e->probe].kind))
		name_object(t, e->pid, e->obj);
}

static int on_event(void *ctx, const struct sbt_event *e)
{
	struct tracer *t = ctx;

	if ((e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT) && e->probe < t->probes.n)
		name_call(t, e);
	else if (e->type == SBT_EV_FUTEX_ENTER)
		name_object(t, e->pid, e->obj);
	if (e->type == SBT_EV_THREAD_START || e->type == SBT_EV_THREAD_EXIT) {
		char comm[17] = {0};

		memcpy(comm, &e->obj, 8);
		memcpy(comm + 8, &e->site, 8);
		if (comm[0])
			names__set_comm(t->names, e->tid, comm);
	} else {
		name_thread(t, e->pid, e->tid);
	}
	if (t->writer && tracefile__write(t->writer, e, 1)) {
		log_err("writing %s: %s; recording stops here", t->env.output, strerror(errno));
		tracefile__finish(t->writer, NULL);
		t->writer = NULL;
	}
	phases__feed(t->ph, e);
	if (e->type == SBT_EV_THREAD_EXIT && e->probe && (pid_t)e->pid == t->pid)
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

static void read_cmdline(pid_t pid, char *buf, size_t n)
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
	for (i = 0; i + 1 < len; i++)
		if (!buf[i])
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

static int proc_tgid(pid_t pid)
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
	int i;

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
	t->infos = calloc(t->probes.n, sizeof(*t->infos));
	if (!t->infos)
		return EXIT_RUNTIME;
	for (i = 0; i < t->probes.n; i++)
		t->infos[i] = t->probes.probes[i].info;
	return 0;
}

/* Threads that exist before tracing: their phase 0 starts with the session. */
static void add_existing_threads(struct tracer *t)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int tid;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)t->pid);
	dir = opendir(path);
	if (!dir)
		return;
	while ((d = readdir(dir)))
		if ((tid = atoi(d->d_name)) > 0) {
			phases__add_thread(t->ph, t->pid, tid, t->start_ns);
			name_thread(t, t->pid, tid);
		}
	closedir(dir);
}

static void clear_status(struct tracer *t);

static void on_report_output(void *ctx)
{
	clear_status(ctx);
}

static int open_outputs(struct tracer *t)
{
	/* first: the report and the analysis below both refer to it */
	t->sync = sync__new(t->infos, t->probes.n);
	struct report_opts ro = {
		.format = t->env.json ? REPORT_JSON : REPORT_TEXT,
		.episode_lines = !t->env.quiet && !t->env.record,
		.watch = t->env.watch,
		.nwatch = t->env.nwatch,
		.watch_all = t->env.watch_all,
		.sort = t->env.sort,
		.view = t->env.approx.view,
		.warn_ns = t->env.warn_ns,
		.max_lines_per_s = t->env.max_lines,
		.out = stdout,
		.before_output = on_report_output,
		.hook_ctx = t,
	};
	struct report_src src = {
		.probes = t->infos,
		.nprobes = t->probes.n,
		.names = t->names,
		.start_ns = t->start_ns,
		.realtime_offset_ns = t->realtime_offset_ns,
		.command = t->command,
		.sync = t->sync,
		.counters = t->counters.info,
		.ncounters = t->counters.n,
		.alpha_enter = t->alpha_enter,
		.alpha_exit = t->alpha_exit,
		.alpha_counters = t->alpha_counters,
		.model = t->env.approx.model,
		.exit_order = t->env.approx.exit_order,
	};
	struct phases_config pc = {.probes = t->infos,
				   .nprobes = t->probes.n,
				   .start_ns = t->start_ns,
				   .sync = t->sync,
				   .ncounters = t->counters.n,
				   .alpha_enter = t->alpha_enter,
				   .alpha_exit = t->alpha_exit,
				   .alpha_counters = t->alpha_counters,
				   .model = t->env.approx.model,
				   .exit_order = t->env.approx.exit_order};

	if (t->env.output) {
		t->writer = tracefile__create(t->env.output);
		if (!t->writer) {
			log_err("cannot create %s: %s", t->env.output, strerror(errno));
			return EXIT_RUNTIME;
		}
	}
	t->report = report__new(&ro, &src);
	t->ph = phases__new(&pc, &report_phases_ops, t->report);
	if (!t->report || !t->ph)
		return EXIT_RUNTIME;
	report__attach(t->report, t->ph);
	return 0;
}

static int attach(struct tracer *t)
{
	struct session_opts so = {.ringbuf_bytes = t->env.buffer_bytes,
				  .single_target = t->pid,
				  .futex = !!(t->env.classes & SBT_TRACE_FUTEX),
				  .counters = t->counters.n ? &t->counters : NULL};
	__u64 t0 = mono_ns(CLOCK_MONOTONIC), t1;
	char err[512] = "";

	t->session = session__open(&so, err, sizeof(err));
	if (!t->session) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	if (session__add_target(t->session, t->pid) ||
	    session__attach(t->session, &t->probes, t->pid, err, sizeof(err))) {
		log_err("%s", err[0] ? err : "cannot add the target to the BPF filter");
		return EXIT_RUNTIME;
	}
	t->sym = symbolizer__new(t->pid);
	t->names = names__new();
	t1 = mono_ns(CLOCK_MONOTONIC);
	/* A running process produces records while the probes go in: its
	 * session starts before them. A launched one runs only once released. */
	t->start_ns = t->launched ? t1 : t0;
	t->realtime_offset_ns = (__s64)(mono_ns(CLOCK_REALTIME) - t->start_ns);
	if (!t->names || open_outputs(t))
		return EXIT_RUNTIME;
	add_existing_threads(t);
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

static void show_status(struct tracer *t, __u64 now)
{
	__u64 events = phases__events(t->ph), lost = session__drops(t->session, NULL, 0);

	if (!t->tty || now - t->status_ns < 1000000000ULL)
		return;
	fprintf(stderr, "\r\033[K[sbt-bpf] %.0f events/s, %llu lost, %llu phases",
		(events - t->status_events) * 1e9 / (now - t->status_ns), (unsigned long long)lost,
		(unsigned long long)phases__completed(t->ph));
	t->status_shown = 1;
	t->status_ns = now;
	t->status_events = events;
}

static void drain_loop(struct tracer *t)
{
	__u64 now;

	t->tty = isatty(STDERR_FILENO) && !t->env.json;
	t->status_ns = t->start_ns;
	while (!stop_requested) {
		session__drain(t->session, t->env.drain_ms, on_event, t);
		fflush(stdout);
		now = mono_ns(CLOCK_MONOTONIC);
		if (t->env.hang_ns)
			phases__check_hangs(t->ph, now, t->env.hang_ns);
		show_status(t, now);
		if (t->env.duration_ns && now - t->start_ns >= t->env.duration_ns)
			break;
		if (target_exited(t))
			break;
	}
	clear_status(t);
}

/* ---- finishing ------------------------------------------------------------------ */

static void fill_meta(struct tracer *t, struct tf_meta *m, __u64 end_ns, __u64 *per_cpu, int ncpus)
{
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
	m->probes = calloc(t->probes.n, sizeof(*m->probes));
	if (m->probes) {
		memcpy(m->probes, t->infos, t->probes.n * sizeof(*m->probes));
		/* id 0 is not a probe: drop it */
		memmove(m->probes, m->probes + 1, (t->probes.n - 1) * sizeof(*m->probes));
		m->nprobes = t->probes.n - 1;
	}
	n = names__count(t->names);
	m->symbols = calloc(n + 1, sizeof(*m->symbols));
	for (i = 0; m->symbols && i < n; i++) {
		const char *s = names__at(t->names, i, &m->symbols[i].pid, &m->symbols[i].addr);

		m->symbols[i].name = strdup(s);
		m->nsymbols++;
	}
	n = phases__nthreads(t->ph);
	m->threads = calloc(n + 1, sizeof(*m->threads));
	for (i = 0; m->threads && i < n; i++) {
		const struct ph_thread *th = phases__thread(t->ph, i);
		const char *comm = names__comm(t->names, th->tid);

		m->threads[i] = (struct tf_thread){.pid = th->pid,
						   .tid = th->tid,
						   .start_ns = th->start_ns,
						   .exit_ns = th->exit_ns};
		snprintf(m->threads[i].comm, sizeof(m->threads[i].comm), "%s", comm ? comm : "?");
		m->nthreads++;
	}
	m->drops_per_cpu = calloc(ncpus, sizeof(__u64));
	if (m->drops_per_cpu) {
		memcpy(m->drops_per_cpu, per_cpu, ncpus * sizeof(__u64));
		m->ncpus = ncpus;
	}
	m->drops_total = session__drops(t->session, NULL, 0);
	memcpy(m->counters, t->counters.info, sizeof(m->counters));
	m->ncounters = t->counters.n;
	m->alpha_enter = calloc(t->probes.n, sizeof(__u64));
	m->alpha_exit = calloc(t->probes.n, sizeof(__u64));
	if (m->alpha_enter && m->alpha_exit && t->alpha_enter) {
		memcpy(m->alpha_enter, t->alpha_enter, t->probes.n * sizeof(__u64));
		memcpy(m->alpha_exit, t->alpha_exit, t->probes.n * sizeof(__u64));
		m->nalpha = t->probes.n;
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

static int finish(struct tracer *t)
{
	int ncpus = session__ncpus(), rc = 0;
	__u64 *per_cpu = calloc(ncpus, sizeof(__u64)), end_ns;
	struct report_drops drops = {.per_cpu = per_cpu, .ncpus = per_cpu ? ncpus : 0};

	/* Detach first: the target stops paying for probes at once. Then take
	 * what is still in the ring buffer. */
	end_ns = mono_ns(CLOCK_MONOTONIC);
	session__detach(t->session);
	while (session__drain(t->session, 0, on_event, t) > 0)
		;
	drops.total = session__drops(t->session, per_cpu, drops.ncpus);
	report__at_end(t->report);
	phases__finish(t->ph);
	if (t->env.record)
		printf("recorded %llu events, %llu phases, %llu lost\n",
		       (unsigned long long)phases__events(t->ph),
		       (unsigned long long)phases__completed(t->ph),
		       (unsigned long long)drops.total);
	else
		report__end(t->report, &drops);
	if (drops.total)
		log_warn("%llu records lost: the ring buffer was full (try --buffer-size)",
			 (unsigned long long)drops.total);
	if (t->writer)
		rc = finish_trace_file(t, end_ns, per_cpu, ncpus);
	if (stop_requested)
		log_info("stopped by signal %d; target left running", (int)stop_requested);
	free(per_cpu);
	return rc;
}

static void cleanup(struct tracer *t)
{
	if (t->writer)
		tracefile__finish(t->writer, NULL);
	session__close(t->session);
	report__free(t->report);
	phases__free(t->ph);
	sync__free(t->sync);
	symbolizer__free(t->sym);
	names__free(t->names);
	probes__free(&t->probes);
	counters__close(&t->counters);
	free(t->alpha_enter);
	free(t->alpha_exit);
	free(t->infos);
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

/* α per probe id: the calibrated cost of its function, else (a --probe
 * function) that of a calibrated function whose first instruction the
 * kernel handles the same way; --alpha overrides everything. */
static int probe_costs(struct tracer *t)
{
	struct calibration cal;
	const struct alpha *a, *dflt;
	char err[512];
	int i, measured;

	t->alpha_enter = calloc(t->probes.n, sizeof(__u64));
	t->alpha_exit = calloc(t->probes.n, sizeof(__u64));
	if (!t->alpha_enter || !t->alpha_exit)
		return EXIT_RUNTIME;
	if (t->env.alpha_enter >= 0) {
		for (i = 1; i < t->probes.n; i++) {
			t->alpha_enter[i] = t->env.alpha_enter;
			t->alpha_exit[i] = t->env.alpha_exit;
		}
		return 0;
	}
	if (calibration__get(&cal, &measured, err, sizeof(err))) {
		log_warn("calibration failed (%s): no approximation", err);
		return 0;
	}
	if (measured)
		log_info("calibrated the probe costs (cached in %s)", CALIBRATION_CACHE);
	dflt = calibration__find(&cal, "pthread_barrier_wait");
	/* probe id 0 is no uprobe: the futex records' tracepoints */
	a = calibration__find(&cal, CAL_FUTEX);
	if (a && (t->env.classes & SBT_TRACE_FUTEX)) {
		t->alpha_enter[0] = a->entry_ns;
		t->alpha_exit[0] = a->exit_ns;
	}
	a = calibration__find(&cal, CAL_COUNTERS);
	if (a && t->counters.n)
		t->alpha_counters = a->entry_ns;
	for (i = 1; i < t->probes.n; i++) {
		const struct probe *p = &t->probes.probes[i];

		a = calibration__find(&cal, p->info.symbol);
		if (!a)
			a = calibration__for_class(&cal,
						   insn_class__of(p->open_path, p->info.offset));
		if (!a)
			a = dflt;
		t->alpha_enter[i] = a ? a->entry_ns : 0;
		t->alpha_exit[i] = a ? a->exit_ns : 0;
	}
	return 0;
}

static int run(struct tracer *t)
{
	char err[256];
	int rc;

	if (session__check_privileges(err, sizeof(err))) {
		log_err("%s", err);
		return EXIT_RUNTIME;
	}
	rc = open_counters(t);
	if (!rc)
		rc = start_target(t);
	if (!rc)
		rc = resolve_probes(t);
	if (!rc)
		rc = probe_costs(t);
	if (!rc)
		rc = attach(t);
	if (rc) {
		if (t->launched)
			launch__abort(t->pid);
		return rc;
	}
	install_signals();
	report__begin(t->report);
	if (t->launched && launch__release(t->pid)) {
		log_err("cannot start '%s': %s", t->command, strerror(errno));
		launch__abort(t->pid);
		return EXIT_RUNTIME;
	}
	drain_loop(t);
	return finish(t);
}

int cmd_trace(int argc, char **argv, int record)
{
	struct tracer t;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = env__parse(&t.env, argc, argv, record);
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
