// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Crafted .sbt traces that push one reader path to its worst case: every
 * record a new thread, barrier, call site, process, lock or loss. A reader
 * whose cost per record grows with what it has seen (a list walked per
 * record, a hang report naming every thread) turns these quadratic; the
 * e2e test and bench/RESULTS.md ("Reliability") run report and export on
 * them and bound time and memory.
 *
 *   gen_hostile -k KIND -n RECORDS -o FILE
 *
 * KIND: hang (each record a thread entering a new barrier, 11 s apart: each
 * hangs), sites (a new barrier per episode), callsites (a new call site per
 * episode), idle (a new thread per episode of one barrier), inflight (half
 * the records open episodes, half complete them), lost (open episodes, then
 * losses), pids (a new process per episode), exits (threads start, lock,
 * exit; the main thread joins them), sems (a new semaphore per post), conds (a new condvar per
 * wait), regions (a parallel region from a new call site each), semgaps and condgaps (sems and
 * conds 11 s apart: each new one undecided, the records held for it released by time),
 * semruns (groups of 3 threads released by many semaphores of one poster: each semaphore's
 * runs are judged against the others'), jobs (a new process per episode, each with its JOBS
 * and THREADS entries and running to the end, between records of processes without one:
 * `report` writes a report per process).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/parse.h"
#include "lib/tracefile.h"

enum { P_PBW = 1, P_LOCK, P_UNLOCK, P_SEMW, P_POST, P_CONDW, P_SIGNAL, P_REGION, NPROBES };

#define PID   4000
#define START 1000000000ULL
#define SEC   1000000000ULL
#define SITE  0x401000ULL
#define JOB   200000  /* jobs: the pid of process 0 */
#define OTHER 1000000 /* jobs: the pid of the k-th process without a JOBS entry */

static struct tf_writer *w;
static __u64 written, t = START;
static uint64_t limit;
static __u32 njobs; /* jobs: processes with records */

static void put(__u16 type, __u16 probe, __u32 pid, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	struct sbt_event e = sbt_event_make(type, probe, pid, tid, ts, obj, site);

	if (written < limit && !tracefile__write(w, &e, 1))
		written++;
}

static void call(__u16 probe, __u32 pid, __u32 tid, __u64 ts, __u64 obj, __u64 site)
{
	put(SBT_EV_ENTER, probe, pid, tid, ts, obj, 0);
	put(SBT_EV_EXIT, probe, pid, tid, ts + 1, 0, site);
}

static void lost(__u64 ts)
{
	struct sbt_event e = sbt_event_make(SBT_EV_LOST, 0, PID, 0, ts, ts + 10, 1);

	e.lost = 1;
	if (written < limit && !tracefile__write(w, &e, 1))
		written++;
}

/* Semaphore i / 3 releases threads 1, 2, 3 of a team, posted by thread 0,
 * each held back: fitting groups of one team and one poster, many
 * semaphores at once. */
static void semruns(__u64 i)
{
	__u64 sem = 0x800000 + 64 * (i / 3);
	__u32 k;

	for (k = 1; k <= 3; k++)
		put(SBT_EV_ENTER, P_SEMW, PID, PID + k, t + k, sem, 0);
	for (k = 1; k <= 3; k++)
		call(P_POST, PID, PID, t + 10 + 2 * k, sem, SITE);
	for (k = 1; k <= 3; k++)
		put(SBT_EV_EXIT, P_SEMW, PID, PID + k, t + 20 + k, 0, SITE);
	t += 100;
}

/* One step of KIND at i (its records, then time moves on). */
static int step(const char *kind, __u64 i, __u64 half)
{
	__u32 tid = 5000 + (__u32)i;

	if (!strcmp(kind, "hang")) {
		put(SBT_EV_ENTER, P_PBW, PID, tid, t, 0x600000 + 64 * i, 0);
		t += 11 * SEC;
		return 0;
	}
	t += 1000;
	if (!strcmp(kind, "sites")) {
		put(SBT_EV_ENTER, P_PBW, PID, PID + 1, t, 0x600000 + 64 * i, 0);
		put(SBT_EV_EXIT, P_PBW, PID, PID + 1, t + 500, -1, SITE);
	} else if (!strcmp(kind, "callsites")) {
		put(SBT_EV_ENTER, P_PBW, PID, PID + 1, t, 0x600000, 0);
		put(SBT_EV_EXIT, P_PBW, PID, PID + 1, t + 500, -1, SITE + i);
	} else if (!strcmp(kind, "idle")) {
		put(SBT_EV_ENTER, P_PBW, PID, tid, t, 0x600000, 0);
		put(SBT_EV_EXIT, P_PBW, PID, tid, t + 500, -1, SITE);
	} else if (!strcmp(kind, "inflight") || !strcmp(kind, "lost")) {
		if (i < half)
			put(SBT_EV_ENTER, P_PBW, PID, tid, t, 0x600000 + 64 * i, 0);
		else if (kind[0] == 'i')
			put(SBT_EV_EXIT, P_PBW, PID, tid - (__u32)half, t, -1, SITE);
		else
			lost(t);
	} else if (!strcmp(kind, "pids")) {
		put(SBT_EV_ENTER, P_PBW, 100000 + (__u32)i, 100000 + (__u32)i, t, 0x600000, 0);
		put(SBT_EV_EXIT, P_PBW, 100000 + (__u32)i, 100000 + (__u32)i, t + 500, -1, SITE);
	} else if (!strcmp(kind, "jobs")) {
		/* started at t - 1 (its JOBS and THREADS entries: meta()) */
		if (written < limit)
			njobs++;
		put(SBT_EV_ENTER, P_PBW, JOB + (__u32)i, JOB + (__u32)i, t, 0x600000, 0);
		put(SBT_EV_ENTER, P_PBW, OTHER + (__u32)i, OTHER + (__u32)i, t + 200, 0x600000, 0);
		put(SBT_EV_EXIT, P_PBW, JOB + (__u32)i, JOB + (__u32)i, t + 500, -1, SITE);
	} else if (!strcmp(kind, "exits")) {
		if (!i) /* the main thread, joining them all */
			call(P_LOCK, PID, PID, t - 10, 0x700040, SITE);
		put(SBT_EV_THREAD_START, 0, PID, tid, t, 0x41414141, 0);
		call(P_LOCK, PID, tid, t + 1, 0x700000, SITE);
		call(P_UNLOCK, PID, tid, t + 3, 0x700000, SITE);
		put(SBT_EV_THREAD_EXIT, 0, PID, tid, t + 5, 0, 0);
	} else if (!strcmp(kind, "regions")) {
		call(P_REGION, PID, PID, t, 0x500000, SITE + i);
	} else if (!strcmp(kind, "semgaps") || !strcmp(kind, "condgaps")) {
		t += 11 * SEC;
		return step(kind[0] == 's' ? "sems" : "conds", i, half);
	} else if (!strcmp(kind, "semruns")) {
		semruns(i);
	} else if (!strcmp(kind, "sems")) {
		call(P_POST, PID, PID + 1, t, 0x800000 + 64 * i, SITE);
		call(P_SEMW, PID, tid, t + 2, 0x800000 + 64 * i, SITE);
	} else if (!strcmp(kind, "conds")) {
		put(SBT_EV_ENTER, P_CONDW, PID, tid, t, 0x900000 + 64 * i, 0x700000);
		call(P_SIGNAL, PID, PID + 1, t + 1, 0x900000 + 64 * i, SITE);
		put(SBT_EV_EXIT, P_CONDW, PID, tid, t + 3, 0, SITE);
	} else {
		return -1;
	}
	return 0;
}

/* jobs: process k (pid JOB + k, one thread) started at step k's time - 1 and ran to the end. */
static int meta_jobs(struct tf_meta *m)
{
	char cmd[32];
	__u32 k;

	m->jobs = calloc(njobs, sizeof(*m->jobs));
	m->threads = calloc(njobs, sizeof(*m->threads));
	if (!m->jobs || !m->threads)
		return -ENOMEM;
	for (k = 0; k < njobs; k++) {
		__u64 start = START + (__u64)(k + 1) * 1000 - 1;

		snprintf(cmd, sizeof(cmd), "job %u", k);
		m->jobs[k] =
			(struct tf_job){.pid = JOB + k, .start_ns = start, .command = strdup(cmd)};
		m->threads[k] =
			(struct tf_thread){.pid = JOB + k, .tid = JOB + k, .start_ns = start};
		snprintf(m->threads[k].comm, sizeof(m->threads[k].comm), "job");
		m->njobs = m->nthreads = k + 1;
		if (!m->jobs[k].command)
			return -ENOMEM;
	}
	return 0;
}

static int meta(struct tf_meta *m)
{
	static const char *const sym[NPROBES] = {"",
						 "pthread_barrier_wait",
						 "pthread_mutex_lock",
						 "pthread_mutex_unlock",
						 "sem_wait",
						 "sem_post",
						 "pthread_cond_wait",
						 "pthread_cond_signal",
						 "GOMP_parallel"};
	static const __u16 kind[NPROBES] = {0,
					    SBT_PK_BARRIER,
					    SBT_PK_LOCK,
					    SBT_PK_UNLOCK,
					    SBT_PK_SEM_WAIT,
					    SBT_PK_SEM_POST,
					    SBT_PK_COND_WAIT,
					    SBT_PK_COND_SIGNAL,
					    SBT_PK_REGION};
	__u32 i;

	memset(m, 0, sizeof(*m));
	m->kernel = strdup("synthetic");
	m->host = strdup("gen_hostile");
	m->command = strdup("gen_hostile");
	m->clock = strdup("CLOCK_MONOTONIC");
	m->sbt_version = strdup("gen");
	m->start_ns = START;
	m->end_ns = t + SEC;
	m->probes = calloc(NPROBES - 1, sizeof(*m->probes));
	m->alpha_enter = calloc(NPROBES, sizeof(__u64));
	m->alpha_exit = calloc(NPROBES, sizeof(__u64));
	if (!m->kernel || !m->host || !m->command || !m->clock || !m->sbt_version || !m->probes ||
	    !m->alpha_enter || !m->alpha_exit)
		return -ENOMEM;
	for (i = 1; i < NPROBES; i++) {
		m->probes[i - 1].id = i;
		m->probes[i - 1].kind = kind[i];
		snprintf(m->probes[i - 1].symbol, SBT_SYMBOL_MAX, "%s", sym[i]);
		snprintf(m->probes[i - 1].object, SBT_PATH_MAX, "/usr/lib/libc.so.6");
		m->alpha_enter[i] = 100; /* the approximation runs too */
		m->alpha_exit[i] = 100;
	}
	m->nprobes = NPROBES - 1;
	m->nalpha = NPROBES;
	return njobs ? meta_jobs(m) : 0;
}

static int usage(const char *prog)
{
	fprintf(stderr, "usage: %s -k KIND -n RECORDS -o FILE\n", prog);
	return 2;
}

int main(int argc, char **argv)
{
	const char *out = NULL, *kind = NULL;
	struct tf_meta m;
	__u64 i;
	int opt;

	while ((opt = getopt(argc, argv, "k:n:o:")) != -1) {
		if (opt == 'k')
			kind = optarg;
		else if (opt == 'o')
			out = optarg;
		else if (opt != 'n' || parse_u64(optarg, 1, 1ULL << 32, &limit))
			return usage(argv[0]);
	}
	if (!kind || !out || !limit)
		return usage(argv[0]);
	w = tracefile__create(out);
	if (!w) {
		fprintf(stderr, "gen_hostile: %s: %s\n", out, strerror(errno));
		return 1;
	}
	for (i = 0; written < limit; i++) {
		if (step(kind, i, limit / 2) < 0) {
			fprintf(stderr, "gen_hostile: unknown kind '%s'\n", kind);
			return usage(argv[0]);
		}
	}
	if (meta(&m) || tracefile__finish(w, &m)) {
		fprintf(stderr, "gen_hostile: %s: cannot finish the trace\n", out);
		return 1;
	}
	tf_meta_free(&m);
	printf("%llu records\n", (unsigned long long)written);
	return 0;
}
