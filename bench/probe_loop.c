// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The probed-function loop of the benchmarks: T threads each call
 * pthread_barrier_wait on their own count-1 barrier (it returns at once), so
 * each iteration is one enter/exit pair of a probed function and nothing
 * else; or, with -f mutex, lock and unlock their own private mutex (two
 * pairs per iteration, never contended); -f sem, post and wait their own
 * semaphore (two pairs); -f gomp, call GOMP_barrier outside a parallel
 * region (it returns at once; libgomp loaded at run time, the call bound
 * the way the program's own would be, so a preloaded wrapper takes it).
 * Prints the mean cost per iteration.
 *
 *   probe_loop [-f barrier|mutex|sem|gomp] [-t THREADS] [-n CALLS_PER_THREAD | -s SECONDS] [-W]
 */
#include <dlfcn.h>
#include <semaphore.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { F_BARRIER, F_MUTEX, F_SEM, F_GOMP };
static int func;
static void (*gomp_barrier)(void);

struct worker {
	pthread_t thread;
	pthread_barrier_t barrier;
	pthread_mutex_t mutex;
	sem_t sem;
	unsigned long calls;
	unsigned long limit;
	double seconds;
	double elapsed_ns;
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static inline void one_call(struct worker *w)
{
	switch (func) {
	case F_MUTEX:
		pthread_mutex_lock(&w->mutex);
		pthread_mutex_unlock(&w->mutex);
		break;
	case F_SEM:
		sem_post(&w->sem);
		sem_wait(&w->sem);
		break;
	case F_GOMP:
		gomp_barrier();
		break;
	default:
		pthread_barrier_wait(&w->barrier);
	}
}

/* -f name: 0, or -1 when unknown or libgomp is missing. */
static int choose(const char *name)
{
	static const char *const names[] = {"barrier", "mutex", "sem", "gomp"};
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(name, names[i]))
			func = i;
	if (strcmp(name, names[func]))
		return -1;
	if (func == F_GOMP) {
		/* RTLD_GLOBAL, then the global lookup: a preloaded wrapper first */
		if (!dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL))
			return -1;
		gomp_barrier = (void (*)(void))dlsym(RTLD_DEFAULT, "GOMP_barrier");
	}
	return func == F_GOMP && !gomp_barrier ? -1 : 0;
}

static void *run(void *arg)
{
	struct worker *w = arg;
	double start = now_ns(), deadline = start + w->seconds * 1e9;

	if (w->limit) {
		for (w->calls = 0; w->calls < w->limit; w->calls++)
			one_call(w);
	} else {
		/* check the clock every 1024 calls: it costs more than a call */
		while (now_ns() < deadline)
			for (int i = 0; i < 1024; i++, w->calls++)
				one_call(w);
	}
	w->elapsed_ns = now_ns() - start;
	return NULL;
}

static unsigned long number(const char *s, const char *opt)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-') {
		fprintf(stderr, "probe_loop: invalid value '%s' for %s\n", s, opt);
		exit(2);
	}
	return v;
}

static void wait_start_signal(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	sigwait(&set, &sig);
}

int main(int argc, char **argv)
{
	unsigned long threads = 2, limit = 1000000, total = 0;
	double seconds = 0, ns = 0;
	struct worker *w;
	int opt, wait_start = 0;
	unsigned long i;

	while ((opt = getopt(argc, argv, "f:t:n:s:W")) != -1) {
		switch (opt) {
		case 'f':
			if (choose(optarg)) {
				fprintf(stderr, "probe_loop: -f barrier, mutex, sem or gomp "
						"(libgomp.so.1 installed)\n");
				return 2;
			}
			break;
		case 't':
			threads = number(optarg, "-t");
			break;
		case 'n':
			limit = number(optarg, "-n");
			break;
		case 's':
			seconds = number(optarg, "-s");
			limit = 0;
			break;
		case 'W':
			wait_start = 1;
			break;
		default:
			fprintf(stderr,
				"usage: probe_loop [-t THREADS] [-n CALLS | -s SECONDS] [-W]\n");
			return 2;
		}
	}
	if (!threads || threads > 256 || (!limit && !seconds)) {
		fprintf(stderr, "probe_loop: need 1..256 threads and -n > 0 or -s > 0\n");
		return 2;
	}
	if (wait_start)
		wait_start_signal();
	w = calloc(threads, sizeof(*w));
	for (i = 0; i < threads; i++) {
		pthread_barrier_init(&w[i].barrier, NULL, 1);
		pthread_mutex_init(&w[i].mutex, NULL);
		sem_init(&w[i].sem, 0, 0);
		w[i].limit = limit;
		w[i].seconds = seconds;
		pthread_create(&w[i].thread, NULL, run, &w[i]);
	}
	for (i = 0; i < threads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].calls;
		ns += w[i].elapsed_ns;
	}
	printf("calls %lu ns_per_call %.1f\n", total, ns / total);
	return 0;
}
