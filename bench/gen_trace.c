// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A synthetic .sbt trace of N records: T threads meeting at one
 * pthread_barrier_wait, thread i computing (i+1) us per phase, each thread
 * also taking a mutex once per phase. For the export benchmark and the
 * bounded-memory test: no tracing needed, any size.
 *
 *   gen_trace -n RECORDS [-t THREADS] -o FILE
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/parse.h"
#include "lib/tracefile.h"

enum { P_PBW = 1, P_LOCK, P_UNLOCK, NPROBES };

#define PID   4000
#define START 1000000000ULL
#define BAR   0x601000
#define MTX   0x602000
#define SITE  0x401234

static struct tf_writer *w;
static __u64 written, limit;

static void put(__u16 type, __u16 probe, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, PID, tid, ts, obj, site);

	if (written < limit && !tracefile__write(w, &e, 1))
		written++;
}

/* One phase: each thread locks, computes, arrives; then all depart. */
static __u64 phase(__u64 t, int nthreads)
{
	__u64 last = t;
	int i;

	for (i = 0; i < nthreads; i++) {
		__u64 a = t + 1000ULL * (i + 1);

		put(SBT_EV_ENTER, P_LOCK, PID + 1 + i, t + 100 + i * 10, MTX, 0);
		put(SBT_EV_EXIT, P_LOCK, PID + 1 + i, t + 200 + i * 10, 0, SITE);
		put(SBT_EV_ENTER, P_UNLOCK, PID + 1 + i, t + 300 + i * 10, MTX, 0);
		put(SBT_EV_EXIT, P_UNLOCK, PID + 1 + i, t + 350 + i * 10, 0, SITE);
		put(SBT_EV_ENTER, P_PBW, PID + 1 + i, a, BAR, 0);
		last = a;
	}
	for (i = 0; i < nthreads; i++)
		put(SBT_EV_EXIT, P_PBW, PID + 1 + i, last + 500 + i * 50, i == 0 ? (__u64)-1 : 0,
		    SITE);
	return last + 500 + nthreads * 50;
}

static void meta(struct tf_meta *m, int nthreads, __u64 end)
{
	static const char *const sym[NPROBES] = {"", "pthread_barrier_wait", "pthread_mutex_lock",
						 "pthread_mutex_unlock"};
	static const __u16 kind[NPROBES] = {0, SBT_PK_BARRIER, SBT_PK_LOCK, SBT_PK_UNLOCK};
	int i;

	memset(m, 0, sizeof(*m));
	m->kernel = strdup("synthetic");
	m->host = strdup("gen_trace");
	m->command = strdup("gen_trace");
	m->clock = strdup("CLOCK_MONOTONIC");
	m->sbt_version = strdup("gen");
	m->start_ns = START;
	m->end_ns = end;
	m->probes = calloc(NPROBES - 1, sizeof(*m->probes));
	m->threads = calloc(nthreads, sizeof(*m->threads));
	m->alpha_enter = calloc(NPROBES, sizeof(__u64));
	m->alpha_exit = calloc(NPROBES, sizeof(__u64));
	if (!m->probes || !m->threads || !m->alpha_enter || !m->alpha_exit) {
		fprintf(stderr, "gen_trace: out of memory\n");
		exit(1);
	}
	for (i = 1; i < NPROBES; i++) {
		m->probes[i - 1].id = i;
		m->probes[i - 1].kind = kind[i];
		snprintf(m->probes[i - 1].symbol, SBT_SYMBOL_MAX, "%s", sym[i]);
		snprintf(m->probes[i - 1].object, SBT_PATH_MAX, "/usr/lib/libc.so.6");
		m->alpha_enter[i] = 20;
		m->alpha_exit[i] = 10;
	}
	m->nprobes = NPROBES - 1;
	m->nalpha = NPROBES;
	for (i = 0; i < nthreads; i++) {
		m->threads[i] =
			(struct tf_thread){.pid = PID, .tid = PID + 1 + i, .start_ns = START};
		snprintf(m->threads[i].comm, sizeof(m->threads[i].comm), "worker%d",
			 (int)(i % 10000));
	}
	m->nthreads = nthreads;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	uint64_t n = 0, nthreads = 8;
	struct tf_meta m;
	__u64 t = START + 1000;
	int opt;

	while ((opt = getopt(argc, argv, "n:t:o:")) != -1) {
		if (opt == 'n' && !parse_u64(optarg, 1, 1ULL << 40, &n))
			continue;
		if (opt == 't' && !parse_u64(optarg, 1, 1024, &nthreads))
			continue;
		if (opt == 'o') {
			out = optarg;
			continue;
		}
		fprintf(stderr, "usage: %s -n RECORDS [-t THREADS] -o FILE\n", argv[0]);
		return 2;
	}
	if (!n || !out) {
		fprintf(stderr, "usage: %s -n RECORDS [-t THREADS] -o FILE\n", argv[0]);
		return 2;
	}
	w = tracefile__create(out);
	if (!w) {
		fprintf(stderr, "gen_trace: %s: %s\n", out, strerror(errno));
		return 1;
	}
	limit = n;
	while (written < limit)
		t = phase(t, (int)nthreads);
	meta(&m, (int)nthreads, t + 1000);
	if (tracefile__finish(w, &m)) {
		fprintf(stderr, "gen_trace: %s: cannot finish the trace\n", out);
		return 1;
	}
	tf_meta_free(&m);
	printf("%llu records\n", (unsigned long long)written);
	return 0;
}
