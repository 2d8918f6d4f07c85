/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the replay (analyses/sim.h): the threads' programs and the replay's
 * state. sim.c builds the programs, sim_run.c replays them, sim_path.c walks
 * the critical path of a replay. Private to them.
 */
#ifndef SBT_SIM_IMPL_H
#define SBT_SIM_IMPL_H

#include <stdint.h>
#include "lib/hmap.h"
#include "analyses/sim.h"

enum item_kind {
	IT_BARRIER,
	IT_LOCK,
	IT_UNLOCK,
	IT_POST,
	IT_WAIT,
	IT_OPAQUE,
	IT_SIGNAL, /* a condvar signal or broadcast (obj: the condvar) */
	IT_CWAIT,  /* a condition wait, its mutex let go (obj: the condvar) */
	IT_ENTER,  /* a region frame entered, a mark (obj: its probe id) */
	IT_LEAVE,  /* ... and left */
	IT_CREATE, /* a thread created (obj: its index in sim.threads) */
	IT_JOIN,   /* a wait for a thread's exit (obj: its index) */
};

/* Items on a lock, semaphore or condvar (obj: an index in sim.objs). */
static inline int item_on_object(int kind)
{
	return kind != IT_BARRIER && kind != IT_OPAQUE && kind != IT_ENTER && kind != IT_LEAVE &&
	       kind != IT_CREATE && kind != IT_JOIN;
}

struct item {
	__u64 tm;     /* measured entry: the thread's program order */
	__u64 tm_end; /* measured return */
	__u64 ta, ta_end;
	__u64 obj;  /* lock, semaphore (its key); barrier: its episode; create,
		     * join: the thread's id, its index after sim__finish */
	__u64 work; /* approximated work before it, since the item before returned */
	__u64 own;  /* time it takes when it does not wait; a barrier's: its
		     * departure after the approximated last arrival */
	/* the same measured (a replay of the measured run: swapped in) */
	__u64 work_m, own_m;
	/* an acquisition that waited in the measurement: its own hand-off from
	 * the release (approximated, measured); NO_HANDOFF: it did not wait.
	 * A join: from the joined thread's exit to its return */
	__u64 hand, hand_m;
	__u32 tid;
	__u32 phase; /* the episode whose phase its work is part of; NONE after the last */
	__u64 pw;    /* its thread's work in that phase */
	/* barrier: the part of its thread's phase work done before the
	 * latest member started (serial: the others had not begun, as a
	 * master's before a fork); others: their thread's in the phase */
	__u64 serial;
	__u8 kind;
	__u8 cond_mutex; /* a lock or unlock inside a condition wait */
	__u16 region;	 /* the innermost region frame (probe id) the work before
			  * it was done in; 0: none */
	/* the last replay: when its thread asked (after the work before it),
	 * when it went on, and the item of another thread that let it go on
	 * (the last arrival, the release granting it; a join that waited: the
	 * joined thread's index; SIZE_MAX: none) */
	__u64 r_req, r_end;
	size_t r_pred;
	/* a condition wait: the signal that ended it (SIZE_MAX: none seen, it
	 * takes the time it took); a signal: the replay that made it
	 * (sim.runs), and the threads waiting for it there (a list through
	 * thread.wait_next) */
	size_t pair;
	__u32 r_run;
	size_t r_waiters;
};

#define NONE	   UINT32_MAX
#define NO_HANDOFF UINT64_MAX

struct episode {
	__u32 n, site;
	__u64 index;  /* the phase's (ph_episode.index) */
	__u64 work;   /* its members' work, all told */
	__u64 serial; /* the members' serial parts (item.serial) */
	/* replay state */
	__u32 arrived;
	__u64 last;
	size_t last_item; /* the last arrival's item */
	size_t waiting;	  /* the threads arrived: a list through thread.wait_next */
};

/* A lock or semaphore, by (pid, object). */
struct object {
	int sem;	 /* a semaphore (else a lock) */
	int called;	 /* locked or unlocked by calls of its own (not only in condition waits) */
	__u64 handoff;	 /* measured hand-off to a waiter (median), approximated */
	__u64 handoff_m; /* the same measured */
	__u64 tokens;	 /* semaphore: initial tokens (P's that took none posted) */
	/* replay state */
	int held;
	size_t owner; /* the thread holding it */
	__u64 count;
	int grant_pending;
	size_t grant_from; /* the release item that scheduled the grant */
	size_t *q;	   /* waiting threads, FIFO from head */
	size_t head, n, cap;
};

struct thread {
	__u32 tid, pid;
	size_t first, n; /* its items */
	__u64 begin_a, end_a;
	int joins; /* its process's main thread, ending after its workers */
	__u64 join_gap;
	__u64 tail;				  /* work after its last item */
	__u64 begin_m, end_m, tail_m, join_gap_m; /* the same measured */
	size_t created_at; /* its creator's IT_CREATE item; SIZE_MAX: it begins at begin_a */
	/* replay state */
	__u64 r_begin;
	size_t joiners; /* threads waiting in a join for it: a list through wait_next */
	size_t next;
	__u64 end;
	int done;
	size_t wait_next; /* the next in the list it waits in (a barrier episode's, a signal's, a
			     join's) */
};

struct sim {
	struct item *items;
	size_t nitems, cap_items;
	int too_many;
	struct episode *eps;
	size_t neps, cap_eps;
	struct thread *threads;
	size_t nthreads;
	struct object *objs;
	size_t nobjs, cap_objs;
	struct hmap obj_ix; /* (pid, object) -> index in objs */
	__u64 first_a;	    /* the run's first event */
	int finished;
	int view;    /* the view the fields hold now (enum ph_view; approximated
		      * after sim__finish) */
	__u32 runs;  /* replays made */
	int ran;     /* a replay ran: its state is in the items */
	int stalled; /* ... and stalled: it has no path */
};

#endif
