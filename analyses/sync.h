/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Locks, semaphores, condition variables and futexes (doc/design.md §5.2): per
 * object counts, wait and hold times, per-thread and per-call-site shares.
 * Fed by the phase analysis with completed calls (it matches entries with
 * returns and splits waits with the futex records) and with futex waits.
 * Pure C, no I/O.
 */
#ifndef SBT_SYNC_H
#define SBT_SYNC_H

#include <stddef.h>
#include "lib/array.h"
#include "sbt/events.h"

struct sbt_probe_info;

/* One completed call of a probed synchronization function. */
struct sync_call {
	__u32 pid, tid;
	__u16 probe;
	__u64 enter_ns, exit_ns;
	__u64 obj;  /* first argument */
	__u64 arg2; /* second argument (the mutex of a condition wait) */
	__s64 retval;
	__u64 site;	  /* call site */
	__u64 blocked_ns; /* time in futex waits during the call */
	__u32 futex_waits;
	int barrier;	      /* a wait at a condvar or semaphore that is a barrier
			       * (condbar.h, sembar.h) */
	int same_broadcaster; /* a condvar wait: condbar__same_broadcaster() */
};

/* Per-thread share of an object. */
struct sync_share {
	__u32 tid;
	__u64 count; /* acquisitions, P operations or waits */
	__u64 wait_ns;
	__u64 hold_ns;
	/* other threads' waits this one caused (doc/design.md §5.5): a lock's
	 * acquisitions while it held the lock, a semaphore's P's until its V
	 * came, a condvar's waits until its signal came */
	__u64 caused_ns;
	int waiting;	/* locks: inside an acquire now (sync_caused.c) */
	int found_held; /* locks: its acquire in progress found another holder */
};

/* Per-call-site share of an object. */
struct sync_site {
	__u64 site;
	__u64 count;
	__u64 wait_ns;
};

enum sync_kind { SYNC_LOCK, SYNC_SEM, SYNC_COND, SYNC_FUTEX, SYNC_NKINDS };

/* A V (sem_post) not yet consumed by a P. */
struct sync_post {
	__u32 tid;
	__u64 ts;
	__u64 ta; /* its approximated time, when the phase analysis approximates */
	__u16 probe;
};

struct sync_obj {
	int kind; /* enum sync_kind */
	__u32 pid;
	__u64 addr;
	__u16 probe; /* a probe that named it (its function family) */
	/* locks: acquisitions; semaphores: P done; condvars: waits; futex: waits */
	__u64 count;
	__u64 contended;   /* locks: acquisitions that found it held or blocked; semaphores:
			    * P_w (blocked P) */
	__u64 failed;	   /* trylock / trywait failures */
	__u64 timeouts;	   /* ETIMEDOUT of timed variants */
	__u64 interrupted; /* EINTR and other errors */
	__u64 nested;	  /* locks: a recursive mutex locked again by its holder (no acquisition) */
	__u64 posts;	  /* semaphores: V; condvars: signals; futex: wake calls */
	__u64 broadcasts; /* condvars: broadcasts; futex: threads woken */
	__u64 wait_ns, max_wait_ns;
	__u64 hold_ns, max_hold_ns; /* locks only */
	__u64 holds;
	__u64 blocked_ns;     /* of wait_ns, the time blocked in the kernel */
	__u64 outside;	      /* futex: waits outside any probed function */
	__u32 joined_tid;     /* futex: the thread whose exit a wait on it joined (its tid word) */
	__u32 joined;	      /* futex: threads joined there (a thread stack reused: several) */
	int barrier;	      /* condvars, semaphores: a barrier, its waits barrier time */
	int same_broadcaster; /* condvars: released by one thread's broadcast every
			       * time, unlocks not probed: a barrier or not? */
	__u64 outside_ns;
	struct sync_share *threads;
	__u32 nthreads;
	struct sync_site *sites;
	__u32 nsites;
	size_t cap_threads, cap_sites; /* internal */
	/* semaphores: V's waiting for their P (struct sync_post), FIFO;
	 * pairing statistics */
	struct array_fifo posts_q;
	__u64 paired;	      /* P's matched with a V */
	__u64 initial_tokens; /* P's that found no V: the semaphore's initial count */
	__u64 handoff_ns;     /* sum over blocked P's of P_e - matching V */
	__u64 caused_ns;      /* the shares' caused_ns, summed */
	/* locks: threads inside an acquire now, and the time integral of
	 * their number up to waited_ts (each hold takes its part) */
	__u32 nwaiting;
	__u64 waited_ns, waited_ts;
	__u32 holding;	 /* locks: threads holding it now (rwlock readers: several) */
	__u32 exclusive; /* of them, not as readers */
	/* condvars: the latest signal or broadcast */
	__u32 signal_tid;
	__u64 signal_ts;
};

/* Called for each P matched with the V that satisfied it (FIFO matching:
 * the k-th P to complete takes the oldest V not yet taken). v == NULL: the
 * P took one of the semaphore's initial tokens. */
typedef void (*sync_pair_fn)(void *ctx, const struct sync_obj *sem, const struct sync_call *p,
			     const struct sync_post *v);

struct sync;

struct sync *sync__new(const struct sbt_probe_info *probes, int nprobes);
void sync__on_pair(struct sync *s, sync_pair_fn fn, void *ctx);
void sync__free(struct sync *s);
/* A completed call of a lock, semaphore or condition-variable function. */
/* For a successful P, *v receives the V it was paired with and 1 is
 * returned; 0 otherwise (v may be NULL). */
int sync__call(struct sync *s, const struct sync_call *c, struct sync_post *v);
/* Entry of a lock acquire (a blocking one, not a trylock): the thread waits
 * for the lock from ts until the call returns (sync__call()). */
void sync__acquire(struct sync *s, __u32 pid, __u32 tid, __u16 probe, __u64 obj, __u64 ts);
/* Thread tid of process pid exited: the locks it still held are no one's. */
void sync__thread_exit(struct sync *s, __u32 pid, __u32 tid);
/* Entry of a condition wait with mutex held: the mutex is given up at ts,
 * and held again when the wait returns (sync__call()). */
void sync__cond_enter(struct sync *s, __u32 pid, __u32 tid, __u16 probe, __u64 mutex, __u64 ts);
/* Enter of an unlock, post or signal: the release is at its entry. (Their
 * return carries nothing more.) */
void sync__release(struct sync *s, __u32 pid, __u32 tid, __u16 probe, __u64 obj, __u64 ts,
		   __u64 ta);
/* A futex wait that ended (ret < 0: error, e.g. -EAGAIN when the value
 * had changed), inside a probed call or not. */
void sync__futex_wait(struct sync *s, __u32 pid, __u32 tid, __u64 uaddr, __u64 enter_ns,
		      __u64 exit_ns, int inside);
/* The futex wait at uaddr ended as thread joined_tid exited: a join on
 * that thread (its tid word). */
void sync__futex_joined(struct sync *s, __u32 pid, __u64 uaddr, __u32 joined_tid);
/* A futex wake; woken = threads woken (its return value). */
void sync__futex_wake(struct sync *s, __u32 pid, __u64 uaddr, __s64 woken);

size_t sync__count(const struct sync *s, int kind);
/* The i-th object of a kind, in first-seen order. */
const struct sync_obj *sync__obj(const struct sync *s, int kind, size_t i);

/* futex op classification, private/clock flags masked. */
int sync__futex_is_wait(__u32 op);
/* What a call of probe id's function returned (retval: its return register),
 * as pthread's functions say it: 0 succeeded (EOWNERDEAD too: a robust
 * mutex acquired from an owner that died), else an errno. OpenMP's lock
 * and critical-section functions return void (they succeed), except
 * omp_test_lock and omp_test_nest_lock: non-zero when acquired (EBUSY when
 * not). */
int sync__call_result(const struct sbt_probe_info *probes, int nprobes, __u16 probe, __s64 retval);
int sync__futex_is_wake(__u32 op);

#endif
