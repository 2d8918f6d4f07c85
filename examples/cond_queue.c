// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth condition-variable workload: the main thread pushes ITEMS items
 * onto a queue guarded by queue_lock, signalling queue_nonempty once per push
 * (or, with -B, broadcasting it: the workers that find the queue empty wait
 * again), then sets a done flag and broadcasts once. No barrier. WORKERS threads wait on the
 * condition variable, take items and sleep WORK_US each. Every worker prints
 * how many items it took and how many times it called pthread_cond_wait. */
#define _GNU_SOURCE
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
	unsigned long items;
	unsigned long cond_waits;
};

static struct worker *workers;
static unsigned long nworkers = 3, nitems = 300, work_ns = 200 * 1000;
static int wait_start, broadcast_each;

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

static void worker_main(unsigned int index)
{
	struct worker *w = &workers[index];
	unsigned long item;

	while (take_item(w, &item)) {
		w->items++;
		work_for_ns(work_ns, 0);
	}
	emit("thread %u tid %d items %lu cond_waits %lu\n", index, (int)get_tid(), w->items,
	     w->cond_waits);
}

/* Producer side, run by the main thread. */
static void push_all(void)
{
	unsigned long k;

	for (k = 0; k < nitems; k++) {
		pthread_mutex_lock(&queue_lock);
		queue.slot[queue.tail++] = k;
		if (broadcast_each)
			pthread_cond_broadcast(&queue_nonempty);
		else
			pthread_cond_signal(&queue_nonempty);
		pthread_mutex_unlock(&queue_lock);
		work_for_ns(PUSH_GAP_NS, 0);
	}
	/* One broadcast releases every worker still waiting once the queue empties. */
	pthread_mutex_lock(&queue_lock);
	queue.done = 1;
	pthread_cond_broadcast(&queue_nonempty);
	pthread_mutex_unlock(&queue_lock);
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t WORKERS] [-n ITEMS] [-w WORK_US] [-B] [-W] [-h]\n"
		"The main thread pushes ITEMS items (50 us apart) onto a queue guarded by\n"
		"queue_lock, signalling queue_nonempty per push and broadcasting once at the\n"
		"end; WORKERS threads take items and sleep WORK_US us for each.\n"
		"  -t WORKERS  worker threads, 1..256 (default 3)\n"
		"  -n ITEMS    items to push, 1..10000000 (default 300)\n"
		"  -w WORK_US  work per item in us, 0..1000000 (default 200)\n"
		"  -B          broadcast per push instead of signalling\n"
		"  -W          print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h          show this help\n"
		"Example: %s -t 3 -n 300 -w 200\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nworkers, 1, 256, 1),
		OPT_NUM('n', nitems, 1, 10000000, 1),
		OPT_NUM('w', work_ns, 0, 1000000, 1000),
		OPT_FLAG('B', broadcast_each),
		OPT_FLAG('W', wait_start),
		{0},
	};
	unsigned long i, processed = 0;
	struct team *team;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	workers = calloc(nworkers, sizeof(*workers));
	queue.slot = calloc(nitems, sizeof(*queue.slot));
	if (!workers || !queue.slot) {
		perror("calloc");
		return 1;
	}
	start = begin_run(wait_start);
	team = team_start(nworkers, worker_main);
	push_all();
	team_join(team);
	for (i = 0; i < nworkers; i++)
		processed += workers[i].items;
	emit("pushed %lu processed %lu signals %lu broadcasts %lu\n", nitems, processed,
	     broadcast_each ? 0 : nitems, broadcast_each ? nitems + 1 : 1);
	end_run(start);
	free(queue.slot);
	free(workers);
	return 0;
}
