// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Ground-truth workload for fork-join steps, written the way Phoenix's
 * word count is: no barrier, no lock; every step creates its worker threads
 * with pthread_create and joins them with pthread_join. A text of LINES
 * lines whose lengths grow along it is split by line count, as Phoenix
 * splits its input, so the last map worker gets the most bytes: the step's
 * load imbalance comes from the data. Map: each worker counts the words of
 * its share into a histogram of its own. Reduce: a merge tree, THREADS / 2
 * workers adding pairs of histograms, then half as many, down to one (a
 * step of one thread). ITERATIONS times over.
 *
 * Ground truth, in lines the tests read, printed by the main thread after
 * each step's joins (a worker that printed would be timed printing): every
 * worker's step, index, thread id, and CLOCK_MONOTONIC times just before
 * its pthread_create, at its first instruction and at its last ("step K
 * thread I tid T create NS start NS end NS"); each step's times just before
 * its first pthread_create and just after its last pthread_join ("step K
 * threads N create NS joined NS"). */
#define _GNU_SOURCE
#include "workload.h"

#define BUCKETS 4096

static unsigned long nthreads = 4, iterations = 2, nlines = 20000, avg_bytes = 1000;
static int wait_start;
static char *text;
static size_t *line_start; /* nlines + 1 offsets into text */
static unsigned (*hist)[BUCKETS];

struct job {
	unsigned long step, index;
	unsigned long first, last; /* map: lines; reduce: histograms a, b */
	pthread_t thread;
	int tid;
	uint64_t create_ns, start_ns, end_ns;
};

/* Line i is 1 + 2 * avg_bytes * i / nlines bytes long: the lines grow along
 * the text, words of 1-8 letters between spaces. */
static void make_text(void)
{
	unsigned long i, len, k;
	size_t total = 0;
	unsigned seed = 12345;

	line_start = malloc((nlines + 1) * sizeof(*line_start));
	for (i = 0; line_start && i < nlines; i++) {
		line_start[i] = total;
		total += 1 + 2 * avg_bytes * i / nlines;
	}
	text = line_start ? malloc(total + 1) : NULL;
	hist = calloc(nthreads, sizeof(*hist));
	if (!text || !hist) {
		perror("malloc");
		exit(1);
	}
	line_start[nlines] = total;
	for (i = 0; i < nlines; i++) {
		len = line_start[i + 1] - line_start[i];
		for (k = 0; k < len; k++) {
			seed = seed * 1103515245 + 12345;
			text[line_start[i] + k] = (seed >> 16) % 6 ? 'a' + (seed >> 8) % 26 : ' ';
		}
	}
}

static void count_words(unsigned *h, size_t from, size_t to)
{
	unsigned word = 0;
	size_t i;

	for (i = from; i < to; i++) {
		if (text[i] == ' ') {
			if (word)
				h[word % BUCKETS]++;
			word = 0;
		} else {
			word = word * 31 + (unsigned char)text[i];
		}
	}
	if (word)
		h[word % BUCKETS]++;
}

static void *map_worker(void *arg)
{
	struct job *j = arg;

	j->start_ns = now_ns();
	j->tid = (int)get_tid();
	memset(hist[j->index], 0, sizeof(hist[0]));
	count_words(hist[j->index], line_start[j->first], line_start[j->last]);
	j->end_ns = now_ns();
	return NULL;
}

static void *reduce_worker(void *arg)
{
	struct job *j = arg;
	unsigned long b;

	j->start_ns = now_ns();
	j->tid = (int)get_tid();
	for (b = 0; b < BUCKETS; b++)
		hist[j->first][b] += hist[j->last][b];
	j->end_ns = now_ns();
	return NULL;
}

/* One step: n workers of fn created, then joined. */
static void run_step(unsigned long step, struct job *jobs, unsigned long n, void *(*fn)(void *))
{
	uint64_t create = now_ns();
	unsigned long i;
	int err;

	for (i = 0; i < n; i++) {
		jobs[i].step = step;
		jobs[i].index = i;
		jobs[i].create_ns = now_ns();
		err = pthread_create(&jobs[i].thread, NULL, fn, &jobs[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			exit(1);
		}
	}
	for (i = 0; i < n; i++)
		pthread_join(jobs[i].thread, NULL);
	emit("step %lu threads %lu create %llu joined %llu\n", step, n, (unsigned long long)create,
	     (unsigned long long)now_ns());
	for (i = 0; i < n; i++)
		emit("step %lu thread %lu tid %d create %llu start %llu end %llu\n", step, i,
		     jobs[i].tid, (unsigned long long)jobs[i].create_ns,
		     (unsigned long long)jobs[i].start_ns, (unsigned long long)jobs[i].end_ns);
}

/* Map, then the merge tree; returns the next step's number. */
static unsigned long word_count(unsigned long step, struct job *jobs)
{
	unsigned long i, n, stride;

	for (i = 0; i < nthreads; i++) {
		jobs[i].first = nlines * i / nthreads;
		jobs[i].last = nlines * (i + 1) / nthreads;
	}
	run_step(step++, jobs, nthreads, map_worker);
	for (stride = 1; stride < nthreads; stride *= 2) {
		for (n = 0, i = 0; i + stride < nthreads; i += 2 * stride, n++) {
			jobs[n].first = i;
			jobs[n].last = i + stride;
		}
		run_step(step++, jobs, n, reduce_worker);
	}
	return step;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [-t THREADS] [-n ITERATIONS] [-l LINES] [-b BYTES] [-W] [-h]\n"
		"Word count the Phoenix way: every step creates its threads and joins them\n"
		"(no barrier, no lock). Map: THREADS workers count the words of equal numbers\n"
		"of lines whose lengths grow along the text (the last worker gets the most\n"
		"bytes); reduce: a merge tree of histograms, THREADS / 2 workers, then half\n"
		"as many, down to one. After each step the main thread prints its creation and\n"
		"join times, and each worker's creation, start and end times.\n"
		"  -t THREADS     map workers, 2..64 (default 4)\n"
		"  -n ITERATIONS  word counts, 1..1000 (default 2)\n"
		"  -l LINES       lines of the text, 64..10000000 (default 20000)\n"
		"  -b BYTES       mean line length, 1..100000 (default 1000)\n"
		"  -W             print 'ready PID', wait for SIGUSR1 before creating threads\n"
		"  -h             show this help\n"
		"Example: %s -t 4 -n 3\n",
		prog, prog);
}

int main(int argc, char **argv)
{
	const struct wl_opt opts[] = {
		OPT_NUM('t', nthreads, 2, 64, 1),
		OPT_NUM('n', iterations, 1, 1000, 1),
		OPT_NUM('l', nlines, 64, 10000000, 1),
		OPT_NUM('b', avg_bytes, 1, 100000, 1),
		OPT_FLAG('W', wait_start),
		{0},
	};
	unsigned long it, step = 0, b, words = 0;
	struct job *jobs;
	uint64_t start;

	parse_options(argc, argv, opts, usage);
	make_text();
	jobs = calloc(nthreads, sizeof(*jobs));
	if (!jobs) {
		perror("calloc");
		return 1;
	}
	start = begin_run(wait_start);
	for (it = 0; it < iterations; it++)
		step = word_count(step, jobs);
	for (b = 0; b < BUCKETS; b++)
		words += hist[0][b];
	emit("words %lu\n", words);
	end_run(start);
	free(jobs);
	free(hist);
	free(text);
	free(line_start);
	return 0;
}
