// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth semaphore workload: one producer and one consumer pass ITEMS
 * items through a bounded ring of QUEUE_CAP slots guarded only by two unnamed
 * POSIX semaphores (slots free, items ready). Each thread prints how long it
 * spent in sem_wait and how many of those waits likely blocked. */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include <semaphore.h>
#include "workload.h"

#define QUEUE_CAP 4
/* A sem_wait slower than this almost certainly slept in the kernel. */
#define BLOCKED_NS (50 * 1000ULL)

/* Global so debug info can name the semaphores in a trace. */
sem_t items;
sem_t slots;

/* Single producer, single consumer: each index has one writer, and the
 * semaphores' post/wait pairs order the slot accesses between the threads. */
static unsigned long ring[QUEUE_CAP];

struct role {
	pthread_t thread;
	const char *name;
	void *(*fn)(void *);
	uint64_t wait_ns;
	unsigned long blocked;
	unsigned long done;
};

static unsigned long nitems = 200;
static uint64_t produce_ns = 100 * 1000;
static uint64_t consume_ns = 50 * 1000;

/* sem_wait with the caller's time inside it accounted. */
static void timed_sem_wait(struct role *r, sem_t *sem)
{
	uint64_t t0 = now_ns(), dt;

	while (sem_wait(sem) && errno == EINTR)
		;
	dt = now_ns() - t0;
	r->wait_ns += dt;
	if (dt > BLOCKED_NS)
		r->blocked++;
}

static void report(struct role *r, pid_t tid)
{
	emit("thread %s tid %d sem_wait_ns %llu blocked_waits %lu\n", r->name, (int)tid,
	     (unsigned long long)r->wait_ns, r->blocked);
}

static void *producer_main(void *arg)
{
	struct role *r = arg;
	unsigned long k;

	for (k = 0; k < nitems; k++) {
		work_for_ns(produce_ns, 0);
		timed_sem_wait(r, &slots);
		ring[k % QUEUE_CAP] = k;
		sem_post(&items);
		r->done++;
	}
	report(r, get_tid());
	return NULL;
}

static void *consumer_main(void *arg)
{
	struct role *r = arg;
	unsigned long k;

	for (k = 0; k < nitems; k++) {
		unsigned long item;

		timed_sem_wait(r, &items);
		item = ring[k % QUEUE_CAP];
		sem_post(&slots);
		if (item != k) {
			fprintf(stderr, "consumer: got item %lu, expected %lu\n", item, k);
			exit(1);
		}
		r->done++;
		work_for_ns(consume_ns, 0);
	}
	report(r, get_tid());
	return NULL;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-n ITEMS] [-p PRODUCE_US] [-c CONSUME_US] [-W] [-h]\n"
		"One producer and one consumer pass ITEMS items through a ring of %d slots\n"
		"guarded by two semaphores (items, slots); both threads sleep to simulate work.\n"
		"  -n ITEMS       items to pass, 1..10000000 (default 200)\n"
		"  -p PRODUCE_US  producer work per item in us, 0..1000000 (default 100)\n"
		"  -c CONSUME_US  consumer work per item in us, 0..1000000 (default 50)\n"
		"  -W             print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h             show this help\n"
		"Example: %s -n 200 -p 100 -c 50\n",
		prog, QUEUE_CAP, prog);
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	struct role roles[2] = {
		{.name = "producer", .fn = producer_main},
		{.name = "consumer", .fn = consumer_main},
	};
	int opt, wait_start = 0, err, i;
	uint64_t start;

	while ((opt = getopt(argc, argv, "n:p:c:Wh")) != -1) {
		switch (opt) {
		case 'n':
			nitems = parse_ulong_arg(prog, opt, optarg, 1, 10000000);
			break;
		case 'p':
			produce_ns = parse_ulong_arg(prog, opt, optarg, 0, 1000000) * 1000;
			break;
		case 'c':
			consume_ns = parse_ulong_arg(prog, opt, optarg, 0, 1000000) * 1000;
			break;
		case 'W':
			wait_start = 1;
			break;
		case 'h':
			usage(stdout, prog);
			return 0;
		default:
			usage(stderr, prog);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr, prog);
		return 2;
	}

	if (sem_init(&items, 0, 0) || sem_init(&slots, 0, QUEUE_CAP)) {
		perror("sem_init");
		return 1;
	}
	if (wait_start)
		wait_for_start_signal();

	start = now_ns();
	for (i = 0; i < 2; i++) {
		err = pthread_create(&roles[i].thread, NULL, roles[i].fn, &roles[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < 2; i++)
		pthread_join(roles[i].thread, NULL);
	emit("produced %lu consumed %lu\n", roles[0].done, roles[1].done);
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - start));

	sem_destroy(&items);
	sem_destroy(&slots);
	return 0;
}
