// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth semaphore workload: one producer and one consumer pass ITEMS
 * items through a bounded ring of QUEUE_CAP slots guarded only by two unnamed
 * POSIX semaphores (slots free, items ready). Each thread prints how long it
 * spent in sem_wait, how many of its waits found the semaphore empty (only
 * those can block: each semaphore has one taker) and how many slept in the
 * kernel, and how long it was off its CPU unseen in its waits (there a
 * tracer's view of a call may differ from ours by as much). */
#define _GNU_SOURCE
#include <semaphore.h>
#include "workload.h"

#define QUEUE_CAP 4

/* Global so debug info can name the semaphores in a trace. */
sem_t items;
sem_t slots;
static sem_t warm;

/* Single producer, single consumer: each index has one writer, and the
 * semaphores' post/wait pairs order the slot accesses between the threads. */
static unsigned long ring[QUEUE_CAP];

struct role {
	const char *name;
	void (*fn)(struct role *r);
	unsigned long waits, empty, slept, done;
	uint64_t wait_ns, unseen_ns;
};

static unsigned long nitems = 200, produce_ns = 100 * 1000, consume_ns = 50 * 1000;
static int wait_start;

/* sem_wait with the caller's time inside it accounted. */
static void timed_sem_wait(struct role *r, sem_t *sem)
{
	struct window w;
	int tokens;

	/* The caller is the semaphore's only taker: tokens now are still
	 * there when its sem_wait looks. */
	sem_getvalue(sem, &tokens);
	window_open(&w);
	while (sem_wait(sem) && errno == EINTR)
		;
	window_close(&w);
	r->waits++;
	r->empty += tokens == 0;
	r->wait_ns += w.leave_ns - w.enter_ns;
	r->slept += usage_slept(&w.u);
	r->unseen_ns += usage_unseen_ns(&w.u, w.leave_ns - w.enter_ns);
}

static void report(struct role *r, pid_t tid)
{
	emit("thread %s tid %d sem_wait_ns %llu slept_waits %lu waits %lu empty_waits %lu "
	     "unseen_ns %llu\n",
	     r->name, (int)tid, (unsigned long long)r->wait_ns, r->slept, r->waits, r->empty,
	     (unsigned long long)r->unseen_ns);
}

static void producer_main(struct role *r)
{
	unsigned long k;

	for (k = 0; k < nitems; k++) {
		work_for_ns(produce_ns, 0);
		timed_sem_wait(r, &slots);
		ring[k % QUEUE_CAP] = k;
		sem_post(&items);
		r->done++;
	}
	report(r, get_tid());
}

static void consumer_main(struct role *r)
{
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
}

static struct role roles[2] = {
	{.name = "producer", .fn = producer_main},
	{.name = "consumer", .fn = consumer_main},
};

static void role_main(unsigned int index)
{
	roles[index].fn(&roles[index]);
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
	const struct wl_opt opts[] = {
		OPT_NUM('n', nitems, 1, 10000000, 1),
		OPT_NUM('p', produce_ns, 0, 1000000, 1000),
		OPT_NUM('c', consume_ns, 0, 1000000, 1000),
		OPT_FLAG('W', wait_start),
		{0},
	};
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	if (sem_init(&items, 0, 0) || sem_init(&slots, 0, QUEUE_CAP) || sem_init(&warm, 0, 1)) {
		perror("sem_init");
		return 1;
	}
	/* The probes' first hits in a process set up its uprobe areas under
	 * the mm lock, where another thread's hit may sleep: done here. */
	sem_wait(&warm);
	sem_post(&warm);
	start = begin_run(wait_start);
	run_workers(2, role_main);
	emit("produced %lu consumed %lu\n", roles[0].done, roles[1].done);
	end_run(start);
	sem_destroy(&items);
	sem_destroy(&slots);
	return 0;
}
