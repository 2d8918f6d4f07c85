// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * `sbt-bpf top`: a live table of the jobs, redrawn every interval with
 * plain ANSI sequences (no curses), keys read from a raw terminal. When
 * stdout is not a terminal, each interval prints a tab-separated block
 * instead (see print_plain()).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include "analyses/efficiency.h"
#include "analyses/report.h"
#include "lib/hmap.h"
#include "user/cmd/top.h"
#include "lib/proc.h"

#define MAX_ROWS   512
#define KEEP_ENDED 10000000000ULL /* an exited job stays listed 10 s */

enum sort_key { SORT_WAIT, SORT_RATE, SORT_BAL, SORT_LOCK, SORT_PID, SORT_THREADS, SORT_NKEYS };
static const char *const sort_names[SORT_NKEYS] = {"wait%", "phases/s", "balance",
						   "lock%", "pid",	"threads"};

/* A thread's totals at the previous refresh. */
struct thread_snap {
	__u64 compute, wait, sync;
};

/* A job's totals at the previous refresh. */
struct job_snap {
	__u64 phases;
	struct hmap threads; /* tid -> struct thread_snap */
};

/* One line of the table, over the last interval. */
struct row {
	const struct job *job;
	int threads;
	__u64 phases;
	double rate, wait_pct, balance, lock_pct; /* < 0: no data this interval */
	double pe; /* parallel efficiency of the run so far (doc/design.md §5.5); < 0: none */
	__u64 drops;
	char site[160];
};

struct top {
	int interval_ms;
	int tty_out, tty_in;
	struct termios saved;
	int raw;
	__u64 last_ns;
	struct hmap snaps; /* job address -> struct job_snap */
	struct row rows[MAX_ROWS];
	int nrows;
	int sort;
	int selected;		 /* row index */
	const struct job *drill; /* per-thread view of this job; NULL: the job table */
	int dirty;		 /* a key changed the view: redraw now */
};

static struct termios *restore_on_exit;

static void restore_terminal(void)
{
	if (restore_on_exit)
		tcsetattr(STDIN_FILENO, TCSAFLUSH, restore_on_exit);
	fputs("\033[?25h\033[?1049l", stdout);
	fflush(stdout);
}

struct top *top__new(int interval_ms)
{
	struct top *tp = calloc(1, sizeof(*tp));
	struct termios raw;

	if (!tp)
		return NULL;
	tp->interval_ms = interval_ms;
	tp->tty_out = isatty(STDOUT_FILENO);
	tp->tty_in = tp->tty_out && isatty(STDIN_FILENO);
	hmap_init(&tp->snaps);
	if (tp->tty_in && !tcgetattr(STDIN_FILENO, &tp->saved)) {
		raw = tp->saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tp->raw = !tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw);
		restore_on_exit = tp->raw ? &tp->saved : NULL;
	}
	if (tp->tty_out) {
		fputs("\033[?1049h\033[?25l", stdout); /* alternate screen, no cursor */
		atexit(restore_terminal);
	}
	tp->dirty = 1;
	return tp;
}

static void free_snap(struct job_snap *s)
{
	hmap_free_values(&s->threads);
	free(s);
}

void top__free(struct top *tp)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	if (!tp)
		return;
	if (tp->tty_out)
		restore_terminal();
	restore_on_exit = NULL;
	while ((s = hmap_next(&tp->snaps, &pos)))
		free_snap(s->val);
	hmap_free(&tp->snaps);
	free(tp);
}

/* ---- the numbers ----------------------------------------------------------- */

static struct job_snap *snap_of(struct top *tp, const struct job *job)
{
	struct job_snap *s = hmap_get(&tp->snaps, (uintptr_t)job, 0);

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	hmap_init(&s->threads);
	if (hmap_put(&tp->snaps, (uintptr_t)job, 0, s)) {
		free(s);
		return NULL;
	}
	return s;
}

static struct thread_snap *thread_snap(struct job_snap *s, __u32 tid)
{
	struct thread_snap *ts = hmap_get(&s->threads, tid, 0);

	if (!ts && (ts = calloc(1, sizeof(*ts))) && hmap_put(&s->threads, tid, 0, ts)) {
		free(ts);
		ts = NULL;
	}
	return ts;
}

/* The barrier site where the job's threads waited most. */
static void worst_site(const struct job *job, char *buf, size_t n)
{
	const struct ph_site *worst = NULL;
	size_t i;

	for (i = 0; i < phases__nsites(job->ph); i++) {
		const struct ph_site *s = phases__site(job->ph, i);

		if (!worst || s->barrier_sum > worst->barrier_sum)
			worst = s;
	}
	buf[0] = 0;
	if (worst)
		report__site_where(job->report, job->pid, worst->call_site, buf, n);
}

/* The POP parallel efficiency of the job's phases so far, measured. */
static double run_pe(const struct job *job)
{
	struct eff e;

	if (!phases__eff_phases(job->ph))
		return -1;
	eff_run(job->ph, PH_MEASURED, &e);
	return e.parallel_efficiency;
}

/* Interval figures of a job, and the snapshot moved to now. */
static void measure(struct top *tp, const struct tracer *t, const struct job *job, double dt,
		    struct row *r)
{
	struct job_snap *s = snap_of(tp, job);
	__u64 busy = 0, wait = 0, sync = 0, max_c = 0, sum_c = 0;
	int ncomp = 0;
	size_t i;

	memset(r, 0, sizeof(*r));
	r->job = job;
	r->phases = phases__completed(job->ph);
	r->rate = r->wait_pct = r->balance = r->lock_pct = -1;
	for (i = 0; i < phases__nthreads(job->ph); i++) {
		const struct ph_thread *th = phases__thread(job->ph, i);
		struct thread_snap *ts = s ? thread_snap(s, th->tid) : NULL;
		__u64 dc, dw;

		if (!th->exit_ns)
			r->threads++;
		if (!ts)
			continue;
		dc = th->compute_ns - ts->compute;
		dw = th->wait_ns - ts->wait;
		sync += th->sync_wait_ns - ts->sync;
		busy += dc + dw;
		wait += dw;
		if (dc + dw) {
			sum_c += dc;
			max_c = dc > max_c ? dc : max_c;
			ncomp++;
		}
		*ts = (struct thread_snap){th->compute_ns, th->wait_ns, th->sync_wait_ns};
	}
	if (s && dt > 0) {
		r->rate = (r->phases - s->phases) / dt;
		s->phases = r->phases;
	}
	if (busy)
		r->wait_pct = 100.0 * wait / busy;
	if (max_c)
		r->balance = (double)sum_c / ncomp / max_c;
	if (dt > 0 && r->threads)
		r->lock_pct = 100.0 * sync / (dt * 1e9 * r->threads);
	r->drops = tracer__job_lost(t, job);
	r->pe = run_pe(job);
	worst_site(job, r->site, sizeof(r->site));
}

static double sort_value(const struct row *r, int key)
{
	switch (key) {
	case SORT_WAIT:
		return r->wait_pct;
	case SORT_RATE:
		return r->rate;
	case SORT_BAL: /* the worst balanced first */
		return r->balance < 0 ? -2 : -r->balance;
	case SORT_LOCK:
		return r->lock_pct;
	case SORT_PID:
		return -(double)r->job->pid;
	}
	return r->threads;
}

static int by_key(const void *a, const void *b, void *key)
{
	double x = sort_value(a, *(int *)key), y = sort_value(b, *(int *)key);
	const struct row *ra = a, *rb = b;

	if (x != y)
		return x < y ? 1 : -1;
	return ra->job->pid < rb->job->pid ? -1 : ra->job->pid > rb->job->pid;
}

static void sort_rows(struct top *tp)
{
	qsort_r(tp->rows, tp->nrows, sizeof(tp->rows[0]), by_key, &tp->sort);
}

/* Rows of the jobs to show: those that synchronized, exited ones for a
 * while. */
static void collect(struct top *tp, const struct tracer *t, __u64 now, double dt)
{
	size_t i;

	tp->nrows = 0;
	for (i = 0; i < jobs__count(tracer__jobs(t)) && tp->nrows < MAX_ROWS; i++) {
		const struct job *job = jobs__at(tracer__jobs(t), i);

		if (!job__active(job) || (job->end_ns && now > job->end_ns + KEEP_ENDED))
			continue;
		measure(tp, t, job, dt, &tp->rows[tp->nrows++]);
	}
	sort_rows(tp);
	if (tp->selected >= tp->nrows)
		tp->selected = tp->nrows ? tp->nrows - 1 : 0;
}

/* ---- drawing ------------------------------------------------------------------ */

static void fmt_num(char *buf, size_t n, double v, const char *fmt)
{
	if (v < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, fmt, v);
}

/* A row's figures as text ("-": no data this interval). */
struct row_text {
	char rate[32], wait[32], bal[32], lock[32], pe[32];
};

static void row_text(const struct row *r, struct row_text *x)
{
	fmt_num(x->rate, sizeof(x->rate), r->rate, "%.1f");
	fmt_num(x->wait, sizeof(x->wait), r->wait_pct, "%.1f");
	fmt_num(x->bal, sizeof(x->bal), r->balance, "%.2f");
	fmt_num(x->lock, sizeof(x->lock), r->lock_pct, "%.1f");
	fmt_num(x->pe, sizeof(x->pe), r->pe, "%.2f");
}

/* Not a terminal: a block per interval, tab-separated, for scripts:
 *   # time=<unix s> jobs=<n> lost=<n>
 *   pid threads phase phases_per_s wait_pct balance lock_pct drops state site command
 *   parallel_eff
 *   ...one line per job...
 *   (empty line) */
static void print_plain(struct top *tp, const struct tracer *t)
{
	struct timespec now;
	int i;

	clock_gettime(CLOCK_REALTIME, &now);
	printf("# time=%lld.%03ld jobs=%d lost=%llu\n", (long long)now.tv_sec,
	       now.tv_nsec / 1000000, tp->nrows, (unsigned long long)tracer__lost(t));
	printf("pid\tthreads\tphase\tphases_per_s\twait_pct\tbalance\tlock_pct\tdrops\tstate\tsite"
	       "\tcommand\tparallel_eff\n");
	for (i = 0; i < tp->nrows; i++) {
		const struct row *r = &tp->rows[i];
		struct row_text x;

		row_text(r, &x);
		printf("%u\t%d\t%llu\t%s\t%s\t%s\t%s\t%llu\t%s\t%s\t%s\t%s\n", r->job->pid,
		       r->threads, (unsigned long long)r->phases, x.rate, x.wait, x.bal, x.lock,
		       (unsigned long long)r->drops, r->job->end_ns ? "exited" : "running",
		       r->site[0] ? r->site : "-", r->job->command, x.pe);
	}
	printf("\n");
	fflush(stdout);
}

static void term_size(int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 100;
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}

/* One screen line, cut at the terminal width. */
static void line(int cols, int inverse, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if ((int)strlen(buf) > cols)
		buf[cols > 0 ? cols : 0] = 0;
	printf("%s%s\033[K%s\n", inverse ? "\033[7m" : "", buf, inverse ? "\033[0m" : "");
}

#define SITE_COLS 32

/* A call site in the table's column: "function (file:line)" whole when it
 * fits, else the file:line (what a user looks up), else its end. */
static const char *fit_site(const char *site, char *buf, size_t n)
{
	const char *open = strstr(site, " (");
	size_t len = strlen(site);

	if (!len)
		return "-";
	if (len <= SITE_COLS)
		return site;
	if (open && site[len - 1] == ')') {
		snprintf(buf, n, "%.*s", (int)(len - (open - site) - 3), open + 2);
		if (strlen(buf) <= SITE_COLS)
			return buf;
		site = buf;
		len = strlen(buf);
	}
	snprintf(buf, n, "~%s", site + len - (SITE_COLS - 1));
	return buf;
}

static void draw_jobs(struct top *tp, const struct tracer *t, int rows, int cols)
{
	int i;

	line(cols, 0, "sbt-bpf top - %d jobs, %llu records lost, sort: %s, every %.1f s", tp->nrows,
	     (unsigned long long)tracer__lost(t), sort_names[tp->sort], tp->interval_ms / 1000.0);
	line(cols, 0, "keys: up/down select  Enter threads  s sort (w r b l p t)  q quit");
	line(cols, 1, "%7s %4s %8s %8s %6s %5s %5s %6s %6s  %-32s %s", "PID", "THR", "PHASE",
	     "PH/S", "WAIT%", "BAL", "PE", "LOCK%", "DROPS", "WORST SITE", "COMMAND");
	for (i = 0; i < tp->nrows && i < rows - 4; i++) {
		const struct row *r = &tp->rows[i];
		char site[sizeof(r->site)];
		struct row_text x;

		row_text(r, &x);
		line(cols, i == tp->selected,
		     "%7u %4d %8llu %8s %6s %5s %5s %6s %6llu  %-32.32s %s%s", r->job->pid,
		     r->threads, (unsigned long long)r->phases, x.rate, x.wait, x.bal, x.pe, x.lock,
		     (unsigned long long)r->drops, fit_site(r->site, site, sizeof(site)),
		     r->job->end_ns ? "[exited] " : "", r->job->command);
	}
	if (!tp->nrows)
		line(cols, 0, "(no process has synchronized at a barrier yet)");
}

/* What a thread is doing now: at a barrier (the trace says so), else what
 * the kernel says: on a CPU, or blocked (a join, a lock, I/O, a sleep). */
static const char *thread_state(const struct ph_thread *th)
{
	struct proc_status st;

	if (th->exit_ns)
		return "exited";
	if (th->waiting)
		return "barrier";
	if (proc__status(th->tid, &st))
		return "gone";
	return st.state == 'R' ? "running" : st.state == 'Z' ? "exited" : "blocked";
}

static void draw_threads(struct top *tp, const struct tracer *t, int rows, int cols)
{
	const struct job *job = tp->drill;
	size_t i;
	int shown = 0;

	line(cols, 0, "pid %u: %s%s", job->pid, job->command, job->end_ns ? " [exited]" : "");
	line(cols, 0, "%llu phases; keys: Esc/Backspace back  q quit",
	     (unsigned long long)phases__completed(job->ph));
	line(cols, 1, "%8s %-16s %8s %12s %12s %6s %12s %s", "TID", "COMM", "EPISODES",
	     "COMPUTE ms", "BARRIER ms", "WAIT%", "LOCK ms", "STATE");
	for (i = 0; i < phases__nthreads(job->ph) && shown < rows - 4; i++, shown++) {
		const struct ph_thread *th = phases__thread(job->ph, i);
		const char *comm = names__comm(tracer__names(t), th->tid);
		__u64 busy = th->compute_ns + th->wait_ns;
		char pct[32];

		fmt_num(pct, sizeof(pct), busy ? 100.0 * th->wait_ns / busy : -1, "%.1f");
		line(cols, 0, "%8u %-16.16s %8llu %12.3f %12.3f %6s %12.3f %s", th->tid,
		     comm ? comm : "?", (unsigned long long)th->episodes, th->compute_ns / 1e6,
		     th->wait_ns / 1e6, pct, th->sync_wait_ns / 1e6, thread_state(th));
	}
}

static void draw(struct top *tp, const struct tracer *t)
{
	int rows, cols;

	term_size(&rows, &cols);
	fputs("\033[H", stdout);
	if (tp->drill)
		draw_threads(tp, t, rows, cols);
	else
		draw_jobs(tp, t, rows, cols);
	fputs("\033[J", stdout); /* clear what the previous screen left below */
	fflush(stdout);
}

/* ---- keys ------------------------------------------------------------------------ */

static const struct {
	char key;
	int sort;
} sort_keys[] = {{'w', SORT_WAIT}, {'r', SORT_RATE}, {'b', SORT_BAL},
		 {'l', SORT_LOCK}, {'p', SORT_PID},  {'t', SORT_THREADS}};

static void drill_into(struct top *tp)
{
	if (tp->selected < tp->nrows)
		tp->drill = tp->rows[tp->selected].job;
}

/* Returns 1 on quit. */
static int key(struct top *tp, const char *k, int n)
{
	size_t i;

	tp->dirty = 1;
	if (n >= 3 && k[0] == 27 && k[1] == '[') { /* arrows */
		if (k[2] == 'A' && tp->selected > 0)
			tp->selected--;
		if (k[2] == 'B' && tp->selected + 1 < tp->nrows)
			tp->selected++;
		return 0;
	}
	switch (k[0]) {
	case 'q':
	case 'Q':
		return 1;
	case 27:
	case 127:
	case 8:
		tp->drill = NULL;
		return 0;
	case '\r':
	case '\n':
		drill_into(tp);
		return 0;
	case 'k':
		tp->selected -= tp->selected > 0;
		return 0;
	case 'j':
		tp->selected += tp->selected + 1 < tp->nrows;
		return 0;
	case 's':
		tp->sort = (tp->sort + 1) % SORT_NKEYS;
		return 0;
	}
	for (i = 0; i < sizeof(sort_keys) / sizeof(sort_keys[0]); i++)
		if (k[0] == sort_keys[i].key && !tp->drill)
			tp->sort = sort_keys[i].sort;
	return 0;
}

static int read_keys(struct top *tp)
{
	char buf[16];
	ssize_t n;

	if (!tp->raw)
		return 0;
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) > 0)
		if (key(tp, buf, n))
			return 1;
	return 0;
}

int top__tick(struct top *tp, const struct tracer *t, __u64 now)
{
	double dt = tp->last_ns ? (now - tp->last_ns) / 1e9 : 0;

	if (read_keys(tp))
		return 1;
	if (tp->last_ns && now - tp->last_ns < (__u64)tp->interval_ms * 1000000ULL) {
		if (tp->dirty && tp->tty_out) {
			sort_rows(tp);
			draw(tp, t);
		}
		tp->dirty = 0;
		return 0;
	}
	collect(tp, t, now, dt);
	tp->last_ns = now;
	tp->dirty = 0;
	if (tp->tty_out)
		draw(tp, t);
	else if (dt > 0)
		print_plain(tp, t);
	return 0;
}
