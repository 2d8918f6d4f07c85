// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth condition-variable workload: the main thread pushes ITEMS items
 * onto a queue guarded by queue_lock, signalling queue_nonempty once per push,
 * then sets a done flag and broadcasts once. WORKERS threads wait on the
 * condition variable, take items and sleep WORK_US each. Every worker prints
 * how many items it took and how many times it called pthread_cond_wait. */
#define _GNU_SOURCE
#include <getopt.h>
#include <pthread.h>
#include "workload.h"

#define PUSH_GAP_NS (50 * 1000ULL)

/* Global so debug info can name the lock and condition variable in a trace. */
pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t queue_nonempty = PTHREAD_COND_INITIALIZER;

/* FIFO of item numbers; every item is pushed once, so ITEMS slots suffice.
 * All fields are only touched under queue_lock. */
static struct {
	unsigned long *slot;
	unsigned long head, tail;
	int done;
} queue;

struct worker {
	pthread_t thread;
	unsigned int index;
	unsigned long items;
	unsigned long cond_waits;
};

static unsigned long nitems = 300;
static uint64_t work_ns = 200 * 1000;

/* Returns 0 once the queue is drained and closed, else 1 with *item set. */
static int take_item(struct worker *w, unsigned long *item)
{
	int got = 0;

	pthread_mutex_lock(&queue_lock);
	while (queue.head == queue.tail && !queue.done) {
		pthread_cond_wait(&queue_nonempty, &queue_lock);
		w->cond_waits++;
	}
	if (queue.head != queue.tail) {
		*item = queue.slot[queue.head++];
		got = 1;
	}
	pthread_mutex_unlock(&queue_lock);
	return got;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long item;

	while (take_item(w, &item)) {
		w->items++;
		work_for_ns(work_ns, 0);
	}
	emit("thread %u tid %d items %lu cond_waits %lu\n", w->index, (int)get_tid(), w->items,
	     w->cond_waits);
	return NULL;
}

/* Producer side, run by the main thread; returns the number of signals. */
static unsigned long push_all(void)
{
	unsigned long k;

	for (k = 0; k < nitems; k++) {
		pthread_mutex_lock(&queue_lock);
		queue.slot[queue.tail++] = k;
		pthread_cond_signal(&queue_nonempty);
		pthread_mutex_unlock(&queue_lock);
		work_for_ns(PUSH_GAP_NS, 0);
	}
	/* One broadcast releases every worker still waiting once the queue empties. */
	pthread_mutex_lock(&queue_lock);
	queue.done = 1;
	pthread_cond_broadcast(&queue_nonempty);
	pthread_mutex_unlock(&queue_lock);
	return nitems;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t WORKERS] [-n ITEMS] [-w WORK_US] [-W] [-h]\n"
		"The main thread pushes ITEMS items (50 us apart) onto a queue guarded by\n"
		"queue_lock, signalling queue_nonempty per push and broadcasting once at the\n"
		"end; WORKERS threads take items and sleep WORK_US us for each.\n"
		"  -t WORKERS  worker threads, 1..256 (default 3)\n"
		"  -n ITEMS    items to push, 1..10000000 (default 300)\n"
		"  -w WORK_US  work per item in us, 0..1000000 (default 200)\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 3 -n 300 -w 200\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const char *prog = prog_name(argv[0]);
	unsigned long nworkers = 3, i, processed = 0, signals;
	struct worker *workers;
	int opt, wait_start = 0, err;
	uint64_t start;

	while ((opt = getopt(argc, argv, "t:n:w:Wh")) != -1) {
		switch (opt) {
		case 't':
			nworkers = parse_ulong_arg(prog, opt, optarg, 1, 256);
			break;
		case 'n':
			nitems = parse_ulong_arg(prog, opt, optarg, 1, 10000000);
			break;
		case 'w':
			work_ns = parse_ulong_arg(prog, opt, optarg, 0, 1000000) * 1000;
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

	workers = calloc(nworkers, sizeof(*workers));
	queue.slot = calloc(nitems, sizeof(*queue.slot));
	if (!workers || !queue.slot) {
		perror("calloc");
		return 1;
	}
	if (wait_start)
		wait_for_start_signal();

	start = now_ns();
	for (i = 0; i < nworkers; i++) {
		workers[i].index = i;
		err = pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	signals = push_all();
	for (i = 0; i < nworkers; i++) {
		pthread_join(workers[i].thread, NULL);
		processed += workers[i].items;
	}
	emit("pushed %lu processed %lu signals %lu broadcasts %d\n", nitems, processed, signals, 1);
	emit("total_ns %llu\n", (unsigned long long)(now_ns() - start));

	free(queue.slot);
	free(workers);
	return 0;
}
