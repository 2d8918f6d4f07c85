/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Fork-join steps (doc/design.md §5.1, Fork-join steps): the phases of a
 * program that creates its worker threads and joins them at every step
 * (Phoenix's map and reduce, a naive fork-join loop) and may call no
 * barrier at all. A *step* of a creating thread is the threads it created
 * between two of its joins: a creation after a pthread_join call (or the
 * first) begins the next step. Until a creator is seen joining (the probe
 * not attached, or not yet: an attach; detached threads), the threads alive
 * at once: a creation while none of its earlier threads lives begins the
 * next step. A creator whose joins were probed from its start (it began in
 * the session) has those groups held until its first join, which makes them
 * one step (workers so short that the first ends before the last is
 * created), or until it waits otherwise (a barrier, a semaphore, a condvar,
 * a futex: it waited for its threads some other way) or the trace ends,
 * which keeps them apart. A step lasts from its first creation to its last exit; a
 * thread that exits before the last leaves its CPU idle until then, as it
 * would wait at a barrier.
 *
 * Pure and streaming: fed thread starts and exits in time order. A step's
 * figures are summed into its creator when its last thread exits, so memory
 * holds the creators and the threads alive, not the steps.
 */
#ifndef SBT_FORKJOIN_H
#define SBT_FORKJOIN_H

#include <stddef.h>
#include "sbt/format.h"

/* The steps with the most idle time each creator keeps. */
#define FJ_WORST_KEPT 3

/* One step, measured; start_a and end_a approximated (probe cost removed). */
struct fj_step {
	__u64 index;	      /* among its creator's steps, from 0 */
	__u64 start_ns;	      /* its first creation */
	__u64 end_ns;	      /* its last exit */
	__u64 start_a, end_a; /* the same, approximated */
	__u32 threads;
	__u64 run_sum_ns;	    /* its threads' lives (creation to exit), summed */
	__u64 run_max_ns;	    /* the longest of them */
	__u64 idle_ns;		    /* each thread's exit to the step's end, summed */
	__u32 first_tid;	    /* the thread that exited first */
	__u32 last_tid;		    /* the thread that exited last */
	__u64 exit_sum;		    /* internal: the exits summed (idle_ns from it) */
	__u64 first_exit;	    /* internal */
	__u64 creator_ns;	    /* the creator's own time from its last creation to its
				     * first join (SPLASH's way: its share of the work) */
	__u32 live;		    /* internal: its threads alive */
	struct fj_creator *creator; /* internal */
};

/* The steps of one creating thread. Sums are over steps of two threads or
 * more, but creator_ns; a thread alone in its step is only counted. */
struct fj_creator {
	__u32 pid, tid;
	__u64 steps;
	__u64 lone; /* steps of one thread */
	__u64 threads;
	__u64 span_ns, span_a_ns; /* the steps' lengths, measured and approximated */
	__u64 run_sum_ns;	  /* the threads' lives */
	__u64 mean_sum_ns;	  /* each step's mean life, summed */
	__u64 max_sum_ns;	  /* each step's longest life, summed */
	__u64 idle_ns;
	__u64 creator_ns; /* its own time between its last creations and its joins,
			   * in every step (alone ones too) */
	struct fj_step worst[FJ_WORST_KEPT]; /* the most idle first */
	__u32 nworst;
	__u32 live;	       /* its threads alive now */
	__u32 open_steps;      /* internal: its steps not yet closed */
	int watched;	       /* internal: its joins probed from its start */
	struct fj_step **held; /* internal: its groups ended before its first join */
	__u32 nheld;
	size_t cap_held;
	__u64 joins;		 /* join calls it made */
	__u64 last_create;	 /* internal: its last creation since its last join */
	struct fj_step *current; /* internal: the step its creations go to */
};

struct forkjoin;

/* NULL: no memory. */
struct forkjoin *forkjoin__new(void);
void forkjoin__free(struct forkjoin *f);
/* Thread tid of process pid was created by thread creator at ts (ta
 * approximated). creator 0: not known (a trace from before creators were
 * recorded): the process's main thread. watched: the creator began in the
 * session, its joins probed from its start. A thread's own process creation
 * (tid == pid) is no step's. */
void forkjoin__start(struct forkjoin *f, __u32 pid, __u32 creator, __u32 tid, __u64 ts, __u64 ta,
		     int watched);
/* Thread tid of process pid called pthread_join (or a variant) at ts. */
void forkjoin__join(struct forkjoin *f, __u32 pid, __u32 tid, __u64 ts);
/* Thread tid of process pid waited other than by a join (a barrier, a
 * semaphore or condvar wait, a futex wait): the groups of threads it
 * created that ended before are steps of their own. */
void forkjoin__waited(struct forkjoin *f, __u32 pid, __u32 tid);
/* Thread tid exited at ts (ta approximated). A thread whose creation was
 * not seen belongs to no step. */
void forkjoin__exit(struct forkjoin *f, __u32 tid, __u64 ts, __u64 ta);
/* The end of the trace: steps whose threads have all exited are over,
 * though their creators never joined. */
void forkjoin__finish(struct forkjoin *f);
/* The creators with at least one step of two threads or more, in order of
 * their first creation; NULL past the end. */
size_t forkjoin__ncreators(const struct forkjoin *f);
const struct fj_creator *forkjoin__creator(const struct forkjoin *f, size_t i);
/* Steps of two threads or more, over all creators; threads still alive in
 * steps not over at the end (not in any sum). */
__u64 forkjoin__steps(const struct forkjoin *f);
__u64 forkjoin__running(const struct forkjoin *f);
/* Load balance of a creator's steps: the mean thread life over the longest,
 * step by step, summed (1: every thread lived as long; 0 with no step). */
double fj_creator_balance(const struct fj_creator *c);

#endif
