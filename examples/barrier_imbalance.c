// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth pthreads workload: worker i computes (i+1)*D ms, then waits at
 * one global barrier, PHASES times. Worker THREADS-1 is meant to be the late
 * arriver of every phase; each worker prints what it measured (its compute
 * time and the window around each barrier call) so a tracer's phase report
 * can be checked against what really happened in the run. -F: the naive
 * fork-join way, a new team created and joined for every phase, the main
 * thread working between the phases. -f: the process forks (no exec) before
 * its run, and the child runs the same phases as the parent, on its own
 * copy of the barrier, each process's main thread being its worker 0 (the
 * first thread of a forked process synchronizes); the child says when it
 * was forked and how long it lived, each worker its process. -g: the run
 * again in a child forked without exec (then in its child, ...), which
 * inherits its parent's memory as a tracer left it. -i: a thread blocked in
 * pthread_cond_wait from before the first phase to the end (a monitor or
 * I/O thread), which a tracer must not wait for. */
#define _GNU_SOURCE
#include <sys/wait.h>
#include "workload.h"

/* Global so debug info can name the barrier in a trace. */
pthread_barrier_t phase_barrier;

static unsigned long nthreads = 4, nphases = 5, unit_ns = 10 * NSEC_PER_MSEC;
static unsigned long unit_us_ns = ULONG_MAX, last_pct = 100, serial_ns = ULONG_MAX;
static int spin = 1, wait_start, balanced, fork_child, idle_waiter, main_exits;

/* Worker index's work per phase: (index + 1) units; -b: the mean of those,
 * for every worker; -l: the last worker's scaled (what-if checks, bench/whatif.py). */
static uint64_t work_of(unsigned int index)
{
	uint64_t w = balanced ? (nthreads + 1) * unit_ns / 2 : (index + 1) * unit_ns;

	return index == nthreads - 1 ? w * last_pct / 100 : w;
}

/* The phases a worker runs: all of them, or (-F) the one its team is for. */
static unsigned long phase_first, phase_count;

static void worker_main(unsigned int index)
{
	pid_t tid = get_tid();
	uint64_t work_ns = work_of(index);
	unsigned long k;

	if (fork_child) /* -f: whose worker it is, before it starts timing */
		emit("worker %u tid %d pid %d\n", index, (int)tid, (int)getpid());
	for (k = phase_first; k < phase_first + phase_count; k++) {
		struct window w;
		uint64_t t0;
		int err;

		t0 = now_ns();
		work_for_ns(work_ns, spin);
		window_open(&w);
		err = pthread_barrier_wait(&phase_barrier);
		window_close(&w);
		if (err && err != PTHREAD_BARRIER_SERIAL_THREAD) {
			fprintf(stderr, "pthread_barrier_wait: %s\n", strerror(err));
			exit(1);
		}
		/* Printed after the barrier so it never delays an arrival. */
		emit("phase %lu thread %u tid %d compute_ns %llu wait_ns %llu " WINDOW_FMT "\n", k,
		     index, (int)tid, (unsigned long long)(w.enter_ns - t0),
		     (unsigned long long)(w.leave_ns - w.enter_ns), WINDOW_ARGS(w));
	}
}

static void worker_after_main(unsigned int index)
{
	worker_main(index + 1);
}

/* The workers' run: a thread each; -f: the main thread is worker 0; -E:
 * the main thread leaves them to it (pthread_exit), the LLNL tutorial's
 * way, and the process ends with the last of them. */
static void run_team(void)
{
	struct team *t;

	if (main_exits) {
		team_start(nthreads, worker_main);
		emit("main thread exits pid %d\n", (int)getpid());
		pthread_exit(NULL);
	}
	if (!fork_child) {
		run_workers(nthreads, worker_main);
		return;
	}
	t = team_start(nthreads - 1, worker_after_main);
	worker_main(0);
	team_join(t);
}

/* -F: a team per phase; the main thread's serial work after each join. */
static void fork_join(void)
{
	for (phase_first = 0, phase_count = 1; phase_first < nphases; phase_first++) {
		uint64_t t0 = now_ns();

		run_team();
		emit("team %lu created_ns %llu joined_ns %llu\n", phase_first,
		     (unsigned long long)t0, (unsigned long long)now_ns());
		t0 = now_ns();
		work_for_ns(serial_ns, spin);
		emit("serial %lu tid %d serial_ns %llu start_ns %llu end_ns %llu\n", phase_first,
		     (int)get_tid(), (unsigned long long)(now_ns() - t0), (unsigned long long)t0,
		     (unsigned long long)now_ns());
	}
}

/* -i: the idle thread's condvar, signalled when the run is done. */
static pthread_mutex_t idle_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cond = PTHREAD_COND_INITIALIZER;
static int idle_done;

static void *idle_main(void *arg)
{
	uint64_t t0 = now_ns();

	(void)arg;
	pthread_mutex_lock(&idle_mutex);
	while (!idle_done)
		pthread_cond_wait(&idle_cond, &idle_mutex);
	pthread_mutex_unlock(&idle_mutex);
	emit("idle tid %d waited_ns %llu\n", (int)get_tid(), (unsigned long long)(now_ns() - t0));
	return NULL;
}

static pthread_t idle_start(void)
{
	pthread_t th;
	int err = pthread_create(&th, NULL, idle_main, NULL);

	if (err) {
		fprintf(stderr, "pthread_create: %s\n", strerror(err));
		exit(1);
	}
	return th;
}

static void idle_stop(pthread_t th)
{
	pthread_mutex_lock(&idle_mutex);
	idle_done = 1;
	pthread_cond_signal(&idle_cond);
	pthread_mutex_unlock(&idle_mutex);
	pthread_join(th, NULL);
}

/* -g: the next generation, a child forked without exec that runs the
 * workload again. Returns in the child; the parent waits for it, says how
 * it ended and exits 0 if it exited 0, 1 otherwise. */
static void fork_generation(unsigned long gen)
{
	pid_t pid, w;
	int status;

	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "fork: %s\n", strerror(errno));
		exit(1);
	}
	if (!pid) {
		emit("generation %lu pid %d\n", gen, (int)getpid());
		return;
	}
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	if (w < 0) {
		fprintf(stderr, "waitpid: %s\n", strerror(errno));
		exit(1);
	}
	if (WIFSIGNALED(status)) {
		emit("child %d killed by signal %d\n", (int)pid, WTERMSIG(status));
		exit(1);
	}
	emit("child %d exited %d\n", (int)pid, WEXITSTATUS(status));
	exit(WEXITSTATUS(status) ? 1 : 0);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n PHASES] [-d D_MS | -u D_US] [-b] [-l PCT] [-m "
		"spin|sleep] "
		"[-F SER_MS] [-f] [-g GENS] [-i] [-E] [-W] [-x COMMAND [ARG...]] [-h]\n"
		"Worker i (0-based) works (i+1)*D_MS ms, then waits at one global barrier\n"
		"(phase_barrier), PHASES times; worker THREADS-1 always arrives last.\n"
		"  -t THREADS  worker threads, 1..256 (default 4)\n"
		"  -n PHASES   barrier phases, 1..1000000 (default 5)\n"
		"  -d D_MS     work unit in ms, 0..100000 (default 10)\n"
		"  -u D_US     work unit in microseconds, 0..100000000 (instead of -d)\n"
		"  -b          balanced: every worker works the mean, (THREADS+1)*D/2\n"
		"  -l PCT      the last worker works PCT %% of its share, 1..1000 (default 100)\n"
		"  -m MODE     spin (on-CPU, default) or sleep (off-CPU)\n"
		"  -F SER_MS   fork-join: a new team created and joined for every phase, the\n"
		"              main thread working SER_MS ms after each join, 0..100000\n"
		"  -f          fork (no exec) before the run: the child runs the same phases\n"
		"              on its own copy of the barrier, in each process the main thread\n"
		"              is worker 0; the child prints 'child pid PID forked_ns NS\n"
		"              lived_ns NS' as it exits, the parent waits for it\n"
		"  -i          one more thread, blocked in pthread_cond_wait from before the\n"
		"              first phase to the end ('idle tid T waited_ns NS')\n"
		"  -E          the main thread calls pthread_exit once the workers run ('main\n"
		"              thread exits pid PID'); the process ends with the last worker\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -g GENS     when done, fork a child (no exec) that runs the workload again\n"
		"              ('generation G pid PID'), GENS generations deep, 0..100; each\n"
		"              waits for its child ('child PID exited N' or '... killed by\n"
		"              signal S') and exits 0 if it exited 0, else 1\n"
		"  -x          when done, exec the operands, a command (one process that\n"
		"              synchronizes, then runs another program; with -g the last\n"
		"              generation); the workload's options end at the command\n"
		"  -h          show this help\n"
		"Example: %s -t 4 -n 3 -d 10 -m sleep\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	char **then_exec = NULL; /* -x: the command to exec when done */
	unsigned long generations = 0, gen;
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 1, 256, 1),
		OPT_NUM('n', nphases, 1, 1000000, 1),
		OPT_NUM('d', unit_ns, 0, 100000, NSEC_PER_MSEC),
		OPT_NUM('u', unit_us_ns, 0, 100000000, 1000),
		OPT_FLAG('b', balanced),
		OPT_NUM('l', last_pct, 1, 1000, 1),
		OPT_MODE('m', spin),
		OPT_NUM('F', serial_ns, 0, 100000, NSEC_PER_MSEC),
		OPT_FLAG('f', fork_child),
		OPT_FLAG('W', wait_start),
		OPT_FLAG('i', idle_waiter),
		OPT_FLAG('E', main_exits),
		OPT_NUM('g', generations, 0, 100, 1),
		OPT_EXEC('x', then_exec),
		{0},
	};
	uint64_t start, forked_ns = 0;
	pthread_t idle = 0;
	pid_t child = -1;
	int err, st;

	parse_options(argc, argv, opts, usage);
	if (idle_waiter && (main_exits || fork_child || generations)) {
		fprintf(stderr, "-i goes with none of -E, -f, -g (a process whose idle thread "
				"would be left waiting)\n");
		return 2;
	}
	if (unit_us_ns != ULONG_MAX)
		unit_ns = unit_us_ns;
	err = pthread_barrier_init(&phase_barrier, NULL, nthreads);
	if (err) {
		fprintf(stderr, "pthread_barrier_init: %s\n", strerror(err));
		return 1;
	}
	start = begin_run(wait_start);
	if (idle_waiter)
		idle = idle_start();
	if (fork_child) {
		fflush(NULL);
		forked_ns = now_ns();
		child = fork();
		if (child < 0) {
			perror("fork");
			return 1;
		}
	}
	for (gen = 0;; gen++) {
		if (serial_ns != ULONG_MAX)
			fork_join();
		else {
			phase_count = nphases;
			run_team();
		}
		end_run(start);
		if (gen == generations)
			break;
		fork_generation(gen + 1);
		start = now_ns();
	}
	if (idle_waiter && child) /* -f's child has no idle thread */
		idle_stop(idle);
	pthread_barrier_destroy(&phase_barrier);
	if (!child) { /* -f: the child's life, fork to exit */
		emit("child pid %d forked_ns %llu lived_ns %llu\n", (int)getpid(),
		     (unsigned long long)forked_ns, (unsigned long long)(now_ns() - forked_ns));
		return 0;
	}
	if (child > 0 && (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))) {
		fprintf(stderr, "the forked child failed\n");
		return 1;
	}
	exec_when_done(then_exec);
	return 0;
}
