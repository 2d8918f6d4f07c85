// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The load soak's workload (bench/soak.sh): T threads hammer one mutex and
 * one barrier for S seconds: per round, each thread locks and unlocks the
 * shared mutex K times, then waits at the shared barrier. Thread 0 decides
 * when time is up (a flag read after the barrier), so every thread does the
 * same number of rounds. Prints the rounds and lock calls made.
 *
 *   hammer [-t THREADS] [-k LOCKS_PER_ROUND] [-s SECONDS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;
static volatile int stop;
static unsigned long counter, rounds;
static int nthreads = 64, locks = 4;
static double seconds = 10;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *worker(void *arg)
{
	long id = (long)arg;
	double end = now_s() + seconds;
	int k;

	for (;;) {
		for (k = 0; k < locks; k++) {
			pthread_mutex_lock(&lock);
			counter++;
			pthread_mutex_unlock(&lock);
		}
		if (id == 0) {
			rounds++;
			stop = now_s() >= end;
		}
		pthread_barrier_wait(&barrier); /* thread 0's verdict is seen by all */
		if (stop)
			break;
		pthread_barrier_wait(&barrier); /* nobody reads it while it changes */
	}
	return NULL;
}

static int number(const char *s, long lo, long hi, long *v)
{
	char *end;

	*v = strtol(s, &end, 10);
	return *s && !*end && *v >= lo && *v <= hi;
}

int main(int argc, char **argv)
{
	pthread_t t[1024];
	long v;
	int c, i;

	while ((c = getopt(argc, argv, "t:k:s:")) != -1) {
		if (c == 't' && number(optarg, 1, 1024, &v))
			nthreads = (int)v;
		else if (c == 'k' && number(optarg, 0, 1000000, &v))
			locks = (int)v;
		else if (c == 's' && number(optarg, 1, 86400, &v))
			seconds = (double)v;
		else {
			fprintf(stderr, "usage: hammer [-t THREADS] [-k LOCKS] [-s SECONDS]\n");
			return 2;
		}
	}
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(long)i)) {
			perror("pthread_create");
			return 1;
		}
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	printf("rounds %lu locks %lu threads %d\n", rounds, counter, nthreads);
	return counter == rounds * (unsigned long)nthreads * (unsigned long)locks ? 0 : 1;
}
