/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the example workloads: timing, simulated work, strict
 * argument parsing, atomic line output and the SIGUSR1 start handshake.
 * Include after defining _GNU_SOURCE. */
#ifndef SBT_EXAMPLES_WORKLOAD_H
#define SBT_EXAMPLES_WORKLOAD_H

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
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

#endif
