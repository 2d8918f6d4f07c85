/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Replay of the approximated run through the synchronization rules
 * (doc/design.md §5.7): each thread's work between its synchronization
 * calls, taken from the approximation, runs again on a simulated clock;
 * barriers release when their last member arrives, locks are granted as
 * glibc grants them (a releaser that asks again before a sleeping waiter
 * could wake re-takes the lock), semaphores hand their tokens out in order.
 * With no change it predicts the run without probes where the probes
 * changed a lock's hand-off order; with a change (sim_change) it answers
 * "what would the run take if ..." (the Load Balancing Factor's question,
 * Eom and Hollingsworth).
 *
 * Pure: fed the phase analysis's completed episodes and calls, run at the
 * end. Memory grows with the trace (one item per call and barrier arrival);
 * past SIM_MAX_ITEMS the replay is refused.
 */
#ifndef SBT_SIM_H
#define SBT_SIM_H

#include <stddef.h>
#include "analyses/phases.h"

#define SIM_MAX_ITEMS (16u << 20)

/* What a replay changes. */
enum sim_change_kind {
	SIM_AS_IS,   /* nothing: the replay of the approximated run */
	SIM_BALANCE, /* each phase's work spread evenly over its threads (site: one site) */
	SIM_SPEEDUP, /* thread tid's work (region: a region's) made factor times faster */
	SIM_MOVE,    /* a region's work moved from thread tid to thread to (0: each
		      * phase's least loaded member) */
	SIM_THREADS, /* each phase's work spread over threads threads sharing cpus CPUs */
};

struct sim_change {
	int kind;
	int measured; /* SIM_AS_IS only: replay the measured run, not the approximated */
	int any_site; /* SIM_BALANCE: every site, else site only */
	__u32 site;   /* phases__site() index */
	/* as given (balance=SITE): a site id, or text its call site, name or
	 * function contains, resolved to site by the report */
	char site_text[64];
	__u32 tid, to;
	double factor;
	__u32 threads;
	__u32 cpus; /* 0: the machine's the trace was recorded on */
	/* speedup=REGION:F, move=REGION:...: the region frames' function, as
	 * given, and the probe ids the report resolved it to (a bit each) */
	char region[64];
	unsigned char probes[SBT_MAX_PROBES / 8];
};

static inline int sim_change__has_probe(const struct sim_change *c, unsigned int id)
{
	return id < SBT_MAX_PROBES && (c->probes[id / 8] >> (id % 8)) & 1;
}

#define SIM_SPEC_HELP                                                                              \
	"as-is (the replay alone), balance (every phase's work spread evenly over its threads), "  \
	"balance=SITE (at one barrier site: its id or text of its call site), speedup=TID:F "      \
	"(thread TID's work F times faster), speedup=REGION:F (the work inside a region "          \
	"function's calls, --probe FN:region), move=REGION:FROM[:TO] (a region's work moved "      \
	"from thread FROM to TO, or to each phase's least loaded thread), threads=N[:CPUS] "       \
	"(each phase's work on N threads sharing CPUS CPUs; default the recording machine's)"

/* --what-if SPEC into *c. 0, or -EINVAL with a message in err. */
int sim_change__parse(const char *spec, struct sim_change *c, char *err, size_t n);
/* The change as the reports name it ("balance", "threads=4:2"). */
void sim_change__name(const struct sim_change *c, char *buf, size_t n);

struct sim_result {
	__u64 duration_ns; /* first thread's start to the last thread's end */
	/* blocked threads and nothing left to run: the change made the
	 * replay wait for something that never comes (a semaphore's pairing
	 * changed); duration_ns is then meaningless */
	int stalled;
	__u64 lock_barges; /* lock grants to a releaser that asked again */
};

struct sim;

struct sim *sim__new(void);
void sim__free(struct sim *s);
/* Inputs (phases_ops callbacks' data): a completed episode (its site is
 * ep->site), a completed lock, semaphore or condvar call. Partial episodes
 * and failed calls count as the threads' own time. */
void sim__episode(struct sim *s, const struct ph_episode *ep);
void sim__call(struct sim *s, const struct ph_call *c);
/* A region frame returned: the work inside it, for speedup= and move= of
 * a region. */
void sim__region(struct sim *s, const struct ph_call *c);
/* A futex wait outside the probed calls: one for another thread's id to
 * change (c->arg2) is a join of that thread, replayed as a wait for its
 * end; a thread created in the trace begins when its process's main
 * thread gets to the creation. */
void sim__futex_wait(struct sim *s, const struct ph_call *c);
/* The analysis is finished: threads' approximated starts and ends, the run's
 * first event. 0, -ENOMEM, or -E2BIG (more items than SIM_MAX_ITEMS were fed). */
int sim__finish(struct sim *s, const struct phases *p);
/* Replay with change c. 0, or -EINVAL (sim__finish() not done or failed). */
int sim__run(struct sim *s, const struct sim_change *c, struct sim_result *r);
/* The critical path of the last replay (doc/design.md §5.7): from the end
 * of the thread that ended last, back through what let each wait end (a
 * barrier's last arrival, the release that granted a lock or a token, the
 * exit of a thread joined) to a thread's start, and from a thread created
 * in the trace to its creator. Its time by thread (work and calls of that thread on it)
 * and by barrier site (work in phases of that site) and region function (the work
 * inside its frames), largest first, and the
 * synchronization on it (releases, hand-offs, a main thread's join). */
struct sim_share {
	__u32 id; /* thread id, or site index */
	__u64 ns;
};
/* A stretch of the path, in the replay's (approximated) time: a thread's
 * work, or synchronization (tid 0). */
struct sim_segment {
	__u32 tid;
	__u64 from, to;
};
#define SIM_PATH_SEGMENTS (1u << 20)
struct sim_path {
	__u64 total_ns, sync_ns;
	/* the threads' work and own calls, all told (waits left out): over
	 * total_ns, the parallelism that bounds the speedup any thread count
	 * could give (doc/design.md §5.7) */
	__u64 work_ns;
	__u64 outside_ns; /* work on it outside any barrier phase */
	struct sim_share *threads, *sites;
	size_t nthreads, nsites;
	/* the work inside region frames on it, by region probe id (the
	 * innermost frame's) */
	struct sim_share *regions;
	size_t nregions;
	/* each barrier phase's share of it, in completion order (phases the
	 * path does not cross have none): the path's time in the phase and
	 * the thread with most of it */
	struct sim_phase_share {
		__u64 index; /* the phase's */
		__u64 ns;
		__u32 tid;
		__u64 tid_ns;
	} * phases;
	size_t nphases;
	/* with segments asked: its stretches in time order (the first
	 * SIM_PATH_SEGMENTS; the others counted) */
	struct sim_segment *segs;
	size_t nsegs;
	__u64 segs_dropped;
};
/* 0, -EINVAL (no replay run), -EDEADLK (the replay stalled), -ENOMEM. */
int sim__critical_path(struct sim *s, struct sim_path *path, int segments);
void sim_path__free(struct sim_path *path);

/* Items fed, and whether the replay has barriers (balance has work to do). */
size_t sim__items(const struct sim *s);
size_t sim__episodes(const struct sim *s);

#endif
