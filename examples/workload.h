/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the example workloads: timing, simulated work, strict
 * argument parsing, atomic line output, the SIGUSR1 start handshake, worker
 * threads, and the windows a workload measures around its own
 * synchronization calls. Include after defining _GNU_SOURCE. */
#ifndef SBT_EXAMPLES_WORKLOAD_H
#define SBT_EXAMPLES_WORKLOAD_H

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC  1000000000ULL

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Spin keeps the thread on-CPU (compute-bound work); sleep takes it off-CPU.
 * Both aim at an absolute deadline so interruptions do not stretch the work. */
static inline void work_for_ns(uint64_t ns, int spin)
{
	uint64_t deadline = now_ns() + ns;
	struct timespec ts;

	if (!ns)
		return;
	if (spin) {
		while (now_ns() < deadline)
			__asm__ __volatile__("" ::: "memory");
		return;
	}
	ts.tv_sec = (time_t)(deadline / NSEC_PER_SEC);
	ts.tv_nsec = (long)(deadline % NSEC_PER_SEC);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static inline pid_t get_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static inline const char *prog_name(const char *argv0)
{
	const char *slash = strrchr(argv0, '/');

	return slash ? slash + 1 : argv0;
}

static inline void __attribute__((noreturn)) bad_value(const char *prog, int opt, const char *s)
{
	fprintf(stderr, "%s: invalid value '%s' for -%c\n", prog, s, opt);
	exit(2);
}

/* strtoul skips blanks and silently negates "-1", so insist on a leading digit
 * and on the whole string being consumed. */
static inline unsigned long parse_ulong_arg(const char *prog, int opt, const char *s,
					    unsigned long min, unsigned long max)
{
	unsigned long v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		bad_value(prog, opt, s);
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		bad_value(prog, opt, s);
	return v;
}

/* Returns 1 for "spin", 0 for "sleep". */
static inline int parse_mode_arg(const char *prog, int opt, const char *s)
{
	if (!strcmp(s, "spin"))
		return 1;
	if (!strcmp(s, "sleep"))
		return 0;
	bad_value(prog, opt, s);
}

/* Tests read our output through pipes and files while we run (or after they
 * kill us), so every line is formatted whole, written under the stdio lock
 * (no interleaving between threads) and flushed at once. */
static inline __attribute__((format(printf, 1, 2))) void emit(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	flockfile(stdout);
	fputs(buf, stdout);
	fflush(stdout);
	funlockfile(stdout);
}

/* Must run before any thread exists (including an OpenMP runtime's): threads
 * inherit the mask, so a SIGUSR1 sent at any time stays pending for sigwait
 * instead of killing the process with the default action. */
static inline void block_start_signal(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Lets a test start us, attach a tracer, then "kill -USR1 PID" to begin. */
static inline void wait_for_start_signal(void)
{
	sigset_t set;
	int sig = 0;

	block_start_signal();
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	emit("ready %d\n", (int)getpid());
	while (sigwait(&set, &sig) || sig != SIGUSR1)
		;
}

/* ---- options -------------------------------------------------------------- */

enum wl_opt_kind {
	WL_NUM,	 /* unsigned long in [min, max], stored times scale */
	WL_MODE, /* "spin" or "sleep", stored as int 1 / 0 */
	WL_FLAG, /* no value; the int is set to 1 */
	WL_EXEC, /* no value; the operands, a command, are stored (char **) */
};

/* One option of a workload's command line; a table of them ends with {0}. */
struct wl_opt {
	char name;
	enum wl_opt_kind kind;
	unsigned long min, max, scale;
	void *dst; /* unsigned long * for WL_NUM, char *** for WL_EXEC, int * otherwise */
};

#define OPT_NUM(c, var, lo, hi, sc)                                                                \
	{                                                                                          \
		(c), WL_NUM, (lo), (hi), (sc), &(var)                                              \
	}
#define OPT_MODE(c, var)                                                                           \
	{                                                                                          \
		(c), WL_MODE, 0, 0, 0, &(var)                                                      \
	}
#define OPT_FLAG(c, var)                                                                           \
	{                                                                                          \
		(c), WL_FLAG, 0, 0, 0, &(var)                                                      \
	}
/* The operands are a command the workload execs when it is done
 * (exec_when_done()): its options are its own, the workload's end at the
 * first operand. */
#define OPT_EXEC(c, var)                                                                           \
	{                                                                                          \
		(c), WL_EXEC, 0, 0, 0, &(var)                                                      \
	}

typedef void (*wl_usage_fn)(FILE *f, const char *prog);

/* getopt over the table, plus -h; options end at the first operand. Tests
 * and scripts depend on the exit codes: -h prints the usage to stdout and
 * exits 0; a bad option, a bad value or a stray operand (any, unless a
 * WL_EXEC option was given; none after one) prints it (or the value error)
 * to stderr and exits 2. Returns the program name for messages. */
static inline const char *parse_options(int argc, char **argv, const struct wl_opt *opts,
					wl_usage_fn usage)
{
	const char *prog = prog_name(argv[0]);
	char spec[64];
	size_t n = 0;
	const struct wl_opt *o, *exec = NULL;
	int c;

	spec[n++] = '+';
	for (o = opts; o->name && n + 3 < sizeof(spec); o++) {
		spec[n++] = o->name;
		if (o->kind != WL_FLAG && o->kind != WL_EXEC)
			spec[n++] = ':';
	}
	spec[n++] = 'h';
	spec[n] = '\0';
	while ((c = getopt(argc, argv, spec)) != -1) {
		if (c == 'h') {
			usage(stdout, prog);
			exit(0);
		}
		for (o = opts; o->name && o->name != c; o++)
			;
		if (!o->name) {
			usage(stderr, prog);
			exit(2);
		}
		if (o->kind == WL_NUM)
			*(unsigned long *)o->dst =
				parse_ulong_arg(prog, c, optarg, o->min, o->max) * o->scale;
		else if (o->kind == WL_MODE)
			*(int *)o->dst = parse_mode_arg(prog, c, optarg);
		else if (o->kind == WL_EXEC)
			exec = o;
		else
			*(int *)o->dst = 1;
	}
	if (exec ? optind == argc : optind != argc) {
		usage(stderr, prog);
		exit(2);
	}
	if (exec)
		*(char ***)exec->dst = argv + optind;
	return prog;
}

/* A WL_EXEC option's command, run in place of the workload (same process,
 * threads joined): a program that synchronizes, then execs another. NULL:
 * nothing to do. Exits 127 when the command cannot be run, as a shell does. */
static inline void exec_when_done(char **argv)
{
	if (!argv)
		return;
	fflush(NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "%s: %s\n", argv[0], strerror(errno));
	exit(127);
}

/* ---- worker threads ----------------------------------------------------------- */

struct team {
	unsigned long n;
	void (*fn)(unsigned int index);
	int go; /* the futex word the members wait on until all exist */
	struct team_member {
		pthread_t thread;
		struct team *team;
		unsigned int index;
	} member[];
};

static inline void *team_trampoline(void *arg)
{
	struct team_member *m = arg;

	while (!__atomic_load_n(&m->team->go, __ATOMIC_ACQUIRE))
		syscall(SYS_futex, &m->team->go, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0);
	m->team->fn(m->index);
	return NULL;
}

/* Starts fn(0) .. fn(n-1), each in a thread of its own, all at once when
 * every thread exists: creating a thread maps its stack under the process's
 * memory lock, where a running one would stall (a page fault, a probe hit)
 * and seem to sleep in whatever call it was making. A workload that cannot
 * start its threads measures nothing: it exits. */
static inline struct team *team_start(unsigned long n, void (*fn)(unsigned int index))
{
	struct team *t = calloc(1, sizeof(*t) + n * sizeof(t->member[0]));
	unsigned long i;
	int err;

	if (!t) {
		perror("calloc");
		exit(1);
	}
	t->n = n;
	t->fn = fn;
	for (i = 0; i < n; i++) {
		t->member[i].team = t;
		t->member[i].index = (unsigned int)i;
		err = pthread_create(&t->member[i].thread, NULL, team_trampoline, &t->member[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	__atomic_store_n(&t->go, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &t->go, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
	return t;
}

static inline void team_join(struct team *t)
{
	unsigned long i;

	for (i = 0; i < t->n; i++)
		pthread_join(t->member[i].thread, NULL);
	free(t);
}

static inline void run_workers(unsigned long n, void (*fn)(unsigned int index))
{
	team_join(team_start(n, fn));
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC, for tests that relate our timestamps to
 * a tool's wall-clock times; err_ns bounds how far off the pairing may be. */
static inline void emit_clock_offset(void)
{
	struct timespec r;
	uint64_t m0, m1;

	m0 = now_ns();
	clock_gettime(CLOCK_REALTIME, &r);
	m1 = now_ns();
	emit("realtime_offset_ns %lld err_ns %llu\n",
	     (long long)((uint64_t)r.tv_sec * NSEC_PER_SEC + (uint64_t)r.tv_nsec - (m0 + m1) / 2),
	     (unsigned long long)(m1 - m0 + 1) / 2 + 1);
}

/* -W: the tests' start handshake, then our clock's offset to the wall
 * clock for the tests that read a tool's wall-clock times. Returns the
 * start of the measured run. */
static inline uint64_t begin_run(int wait_start)
{
	if (wait_start) {
		wait_for_start_signal();
		emit_clock_offset();
	}
	return now_ns();
}

static inline void end_run(uint64_t start)
{
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - start));
}

/* ---- windows around a synchronization call --------------------------------- */

/* The calling thread's CPU time: what a task-clock counter counts. */
static inline uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Per thread: /proc/thread-self names the thread that opens it. */
static __thread int schedstat_fd = -1;

/* The thread's time spent waiting on a run queue so far (0 without
 * schedstats: then a preempted window is judged by its ordering only). */
static inline uint64_t runqueue_wait_ns(void)
{
	char buf[96];
	unsigned long long run, wait;
	ssize_t n;

	if (schedstat_fd < 0)
		schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	n = schedstat_fd < 0 ? -1 : pread(schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return sscanf(buf, "%llu %llu", &run, &wait) == 2 ? wait : 0;
}

/* What the kernel tells a thread about its own scheduling: totals so far,
 * or (usage_since) what happened in between. */
struct usage {
	long vol, invol; /* voluntary (it slept), involuntary (preempted) switches */
	long majflt;	 /* page faults that waited for a read */
	uint64_t queued; /* time runnable but waiting for a CPU */
	uint64_t cpu;	 /* time on a CPU */
};

/* The switch and fault counts only: one system call. */
static inline void usage_switches(struct usage *u)
{
	struct rusage ru;

	getrusage(RUSAGE_THREAD, &ru);
	u->vol = ru.ru_nvcsw;
	u->invol = ru.ru_nivcsw;
	u->majflt = ru.ru_majflt;
}

static inline void usage_now(struct usage *u)
{
	u->queued = runqueue_wait_ns();
	usage_switches(u);
	u->cpu = thread_cpu_ns();
}

/* *d = what happened from *then to *now. */
static inline void usage_diff(struct usage *d, const struct usage *now, const struct usage *then)
{
	d->vol = now->vol - then->vol;
	d->invol = now->invol - then->invol;
	d->majflt = now->majflt - then->majflt;
	d->queued = now->queued - then->queued;
	d->cpu = now->cpu - then->cpu;
}

/* A call slept in the kernel other than for a page read from disk: for a
 * synchronization call, it waited for another thread (rarely, something
 * else on its path sleeps, with a tracer's probes on it). */
static inline int usage_slept(const struct usage *u)
{
	return u->vol > 0 && !u->majflt;
}

/* team_join, saying of each join whether it slept: waited in the kernel for
 * the thread's exit (the tests' ground truth for a join's futex wait). */
static inline void team_join_told(struct team *t)
{
	struct usage before = {0}, after = {0}, d;
	unsigned long i;

	for (i = 0; i < t->n; i++) {
		usage_switches(&before);
		pthread_join(t->member[i].thread, NULL);
		usage_switches(&after);
		usage_diff(&d, &after, &before);
		emit("joined thread %lu slept %d\n", i, usage_slept(&d));
	}
	free(t);
}

/* Of wall_ns with usage *u, how long the thread was off its CPU without
 * having slept: waiting for a CPU, or the hypervisor's. A tracer's view of
 * a call may be that much further from ours than the probes' own cost.
 * After a sleep only the run-queue wait is known. */
static inline uint64_t usage_unseen_ns(const struct usage *u, uint64_t wall_ns)
{
	if (!u->vol)
		return wall_ns > u->cpu ? wall_ns - u->cpu : 0;
	return u->invol ? u->queued : 0;
}

/*
 * The tests compare a tracer's timestamps of a call with the workload's own,
 * taken just before the call and just after it returns: the same clock
 * (CLOCK_MONOTONIC is what bpf_ktime_get_ns reads), so the probe's instants
 * must lie inside the window and close to its edges. Close only holds while
 * the thread keeps its CPU. So the window also records what the thread
 * could see of losing it there: involuntary switches and run-queue wait,
 * and its CPU time, whose difference from the wall time is the time the
 * hypervisor took when the thread did not sleep (it took 9 ms once).
 */
struct window {
	uint64_t enter_ns, leave_ns; /* CLOCK_MONOTONIC, before the call, after its return */
	struct usage u;		     /* what happened in the window */
	/* window_mark(): when the call that can block begins, what happened
	 * before it (0: not marked) */
	uint64_t pre_ns;
	struct usage pre;
};

/* Counters first, clock last: what they cost stays outside the window. */
static inline void window_open(struct window *w)
{
	w->pre_ns = 0;
	usage_now(&w->u);
	w->enter_ns = now_ns();
}

/*
 * A window that opens before calls that cannot block (sem_barrier counts
 * itself in, then posts the semaphore it uses as a mutex) marks where the
 * call that can begins (its wait at the barrier's semaphore). A tracer's
 * arrival is that call's probe, after the mark; and a sleep before the mark
 * (nothing there waits for another thread: a probe's own kernel path, a
 * page fault waiting for the memory map lock) is one no record of the
 * trace shows. So the part before the mark is judged by what the thread
 * measured there, its time off the CPU, and the rest as a window of its
 * own. Counters first, clock last, as at the window's opening.
 */
static inline void window_mark(struct window *w)
{
	struct usage now;

	usage_now(&now);
	w->pre_ns = now_ns();
	usage_diff(&w->pre, &now, &w->u);
}

static inline void window_close(struct window *w)
{
	struct usage now;

	w->leave_ns = now_ns();
	usage_now(&now);
	usage_diff(&w->u, &now, &w->u);
}

/* The fields of a window in a workload's output line. */
#define WINDOW_FMT "arrive_ns %llu depart_ns %llu nvcsw %ld nivcsw %ld delay_ns %llu cpu_ns %llu"
#define WINDOW_ARGS(w)                                                                             \
	(unsigned long long)(w).enter_ns, (unsigned long long)(w).leave_ns, (w).u.vol,             \
		(w).u.invol, (unsigned long long)(w).u.queued, (unsigned long long)(w).u.cpu
/* The mark of a marked window, and its part before the mark (usage from the
 * window's opening), after WINDOW_FMT. */
#define WINDOW_PRE_FMT " pre_ns %llu pre_nvcsw %ld pre_nivcsw %ld pre_delay_ns %llu pre_cpu_ns %llu"
#define WINDOW_PRE_ARGS(w)                                                                         \
	(unsigned long long)(w).pre_ns, (w).pre.vol, (w).pre.invol,                                \
		(unsigned long long)(w).pre.queued, (unsigned long long)(w).pre.cpu

#endif
