/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Inside the barrier-phase analysis (analyses/phases.h): the state its
 * modules share, and what one module calls in another. Private to them.
 *
 *   phases.c          the object: lifecycle, accessors, episode metrics
 *   feed.c            phases__feed(): a record through its thread's call stack;
 *                     records held while a condvar or a semaphore is
 *                     classified (condbar.c, sembar.c)
 *   threads.c         the thread table: first sight, start, exit, a recycled id
 *   episodes.c        arrivals grouped into episodes; settle, complete
 *   sites.c           loop-barrier sites, idle time per thread
 *   hangs.c           hangs, missing threads, the end of the trace
 *   phase_counters.c  counter deltas of the compute windows
 *   regions.c         parallel region frames
 *   implicit.c        implicit barriers of parallel regions (fork, bodies, join),
 *                     barriers tail-called by a body
 *   tasks.c           OpenMP tasks: created, waited for, run while waiting
 *   waits.c           lock, semaphore, condvar and task waits inside compute, by kind
 *   eff_sums.c        efficiency sums of sites, threads and the run (efficiency.h)
 *   cond_leave.c      when a thread leaves a condvar barrier: its unlock of the mutex
 *   approx.c          the time-based approximation (Malony-Reed §3)
 *   approx_barrier.c  barrier exits (Malony-Reed §4.2, Sarukkai-Malony §3.2)
 *   approx_handoff.c  lock, semaphore, condvar and futex hand-offs (Malony-Reed §4.3)
 *   band.c            the error band: the same records analysed at the least and the
 *                     greatest probe costs
 */
#ifndef SBT_PHASES_IMPL_H
#define SBT_PHASES_IMPL_H

#include "lib/array.h"
#include "lib/hmap.h"
#include "lib/num.h"
#include "analyses/alpha_series.h"
#include "analyses/phases.h"

struct band;
struct condbar;
struct sembar;
struct semgroups;

#define LOST_PHASES_KEPT 16

/* An OpenMP task's creation, measured and approximated (ph_proc.tasks). */
struct ph_creation {
	__u64 tm, ta;
};

/* Calls in progress a thread's stack holds at most (recursive OpenMP tasks
 * nest a body and a task wait per level): deeper ones are counted only. */
#define STACK_LIMIT 1024

/* ph_episode.state */
enum ph_state { PH_OPEN, PH_RELEASING };

/* Where a thread's next COUNTERS record belongs. */
enum { CTR_NONE, CTR_ARRIVAL, CTR_DEPARTURE };

#define PH_TEAM_SIZES_KEPT 257

struct phases {
	struct phases_config cfg;
	struct phases_ops ops;
	void *ctx;

	struct hmap threads; /* tid -> struct ph_thread */
	struct ph_thread **thread_list;
	size_t nthreads, cap_threads;

	struct hmap open;	     /* (pid, object key) -> OPEN episode */
	struct hmap bodies;	     /* (pid, region body address) -> struct ph_body */
	__u64 instances;	     /* parallel region instances started */
	int abandoning;		     /* feed__abandon_waits(): its returns are no calls made */
	__u64 concurrent_forks;	     /* workers' shares begun while two instances of
				      * their body ran (implicit.c) */
	struct hmap objects;	     /* (pid, object) -> struct obj_state */
	struct condbar *condbar;     /* which condvars are barriers (condbar.c) */
	struct sembar *sembar;	     /* which semaphores are barriers (sembar.c) */
	struct semgroups *semgroups; /* their release groups, in feed order */
	struct sbt_event *held;	     /* records held while one is undecided */
	size_t nheld, cap_held;
	void (*on_record)(void *ctx, const struct sbt_event *e, const struct phases *p);
	void *record_ctx;
	struct ph_episode **inflight; /* OPEN and RELEASING episodes */
	size_t ninflight, cap_inflight;
	/* OPEN episodes with arrivals, no departure and no hang reported: a
	 * min-heap on their latest arrival, so that a hang check looks at the
	 * oldest wait first whatever the order records came in (hangs.c) */
	struct ph_episode **watch;
	size_t nwatch, cap_watch;
	/* records lost so far, all told: a clock an episode reads at its
	 * opening and completion, the difference being the losses while it
	 * was in flight (episodes.c) */
	__u64 lost_clock;
	struct hmap procs;    /* pid -> struct ph_proc */
	struct hmap barriers; /* (pid, barrier object) -> struct ph_barrier */
	__u64 nbarriers;
	struct hmap member_set; /* (barrier id, tid) -> its struct ph_barrier */
	struct hmap site_ix;	/* (barrier id << 16 | probe, call site) -> site index */
	struct hmap idle_ix;	/* (site id, tid) -> index into the site's idle list */
	__u64 hang_timeout_ns;	/* of the latest phases__check_hangs(); 0: hangs not checked */
	/* threads of the process the caller saw stopped (phases__set_stopped()):
	 * the first PH_STOPPED_KEPT, and how many */
	__u32 stopped[PH_STOPPED_KEPT];
	int nstopped;

	struct ph_site *sites;
	size_t nsites, cap_sites;

	struct ph_region_stats regions;
	size_t cap_region_sites;
	struct hmap region_ix; /* (pid << 16 | probe, call site) -> index in regions.sites */
	__u64 completed, partial, events, bad, lost, grouping_errors;
	__u64 newest_ts, out_of_order; /* records older than one before them */
	__u64 first_ts, last_ts;
	__u64 lost_phases, lost_first[LOST_PHASES_KEPT];
	/* losses (SBT_EV_LOST): barrier arrivals among them; an episode
	 * beginning up to loss_until may have lost some of its records */
	__u64 lost_arrivals, loss_until;
	/* arrivals seen; complete unmarked episodes by their number of threads */
	__u64 arrivals, team_sizes[PH_TEAM_SIZES_KEPT];
	__u64 ta_last, ta_last_tm; /* approximated and measured time of the last event */
	__u64 violations[PH_VIOL_NKINDS];
	__u64 clamped; /* events held at their thread's previous approximation */
	/* phases in the statistics, and the earliest start among them, per
	 * view: where the run's runtime begins (efficiency.h) */
	__u64 eff_phases, eff_start[2];
	struct ph_timed timed;
	struct ph_preempted preempted;
	struct ph_violation violation_list[PH_VIOLATIONS_KEPT];
	size_t nviolation_list;
	/* where the last lookup of each entry of cfg.alpha_series landed */
	__u32 alpha_hint[ALPHA_SERIES_MAX_ENTRIES];
	/* hits beside each other (approx_conc.c): the threads' duties summed at
	 * duty_ts; the factor on the record being fed's costs; the all-CPUs
	 * entry (-1: none) and its threads, as of the series' generation
	 * conc_gen - 1 */
	double duty_sum, conc_k;
	__u64 duty_ts, conc_gen;
	int conc_entry;
	unsigned int conc_threads;
	struct band *band;	   /* the error band's analyses (band.c); NULL: none */
	struct forkjoin *forkjoin; /* fork-join steps (forkjoin.h); NULL: no memory */
};

/* A process: its live threads, and its latest loss of records. */
struct ph_proc {
	struct ph_thread *live, *live_tail; /* through ph_thread.live_next, oldest first */
	__u32 nlive;
	__u64 loss_seq;	  /* LOST records of it so far */
	__u64 loss_after; /* the latest one's end */
	/* OpenMP tasks created and not begun yet: the creations' measured and
	 * approximated times (struct ph_creation), oldest first (tasks.c) */
	struct array_fifo tasks;
};

/* A barrier object of a process, once an episode of it completed: the
 * threads that took part in its complete episodes (at any of its sites),
 * in order of first participation. */
struct ph_barrier {
	__u64 id; /* in order of first completion */
	__u32 *tids;
	size_t n, cap;
};

/* Per synchronization object state of the approximation. */
struct obj_state {
	/* locks, condvars: the latest release (unlock, signal) */
	__u64 tm, ta;
	__u16 probe;
	/* barriers: measured exit spacing of the last complete episode + 1
	 * (0: none yet) */
	__u64 beta1;
	/* least_handoffs: the least hand-off and barrier exit spacing measured
	 * at the object so far, + 1 (0: none yet) */
	__u64 handoff1, spacing1;
	/* locks: the earliest approximated request since the latest release,
	 * + 1 (0: none yet), and who asked (approx_handoff.c) */
	__u64 ask_ta1;
	__u32 ask_tid;
	/* semaphores: V's not yet taken by a P (measured), and the
	 * approximated time of the latest P that took one */
	__u64 outstanding, ta_last_p;
};

static inline __u64 max_u64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

static inline int ph_is_release(int kind)
{
	return kind == SBT_PK_UNLOCK || kind == SBT_PK_SEM_POST || kind == SBT_PK_COND_SIGNAL;
}

/* feed.c: the records held for undecided condvars and semaphores, analysed
 * now (those still undecided are no barriers). */
void phases__release_held(struct phases *p);

/* feed.c: thread t's burst of posts at a semaphore barrier ended: it
 * leaves the barrier at its last post's return. */
void feed__burst_done(struct phases *p, struct ph_thread *t);
/* Thread t exits at ts inside lock, semaphore or condvar waits that will
 * never return (cancelled, or killed by its process's exit): each ends
 * there, failed (feed.c). */
void feed__abandon_waits(struct phases *p, struct ph_thread *t, __u64 ts);

/* cond_leave.c: thread t's wait at, or broadcast of, condvar barrier cv
 * returned at ts; it leaves when it has unlocked the barrier's mutex, as
 * far as its next records show (the return where none do). _before() and
 * _after() take each record of t around its dispatch; _done() settles at
 * the departure known so far; _others() settles the threads of ep still
 * unlocking that left by depart_ns, before thread t leaves ep then (exits
 * are approximated in the order they are settled), earliest first;
 * _finish() settles every thread still unlocking. */
void cond_leave__begin(struct phases *p, struct ph_thread *t, __u64 cv, __u64 ts, __u64 site,
		       __u64 blocked_ns);
void cond_leave__before(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void cond_leave__after(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void cond_leave__done(struct phases *p, struct ph_thread *t);
void cond_leave__others(struct phases *p, const struct ph_episode *ep, const struct ph_thread *t,
			__u64 depart_ns);
void cond_leave__finish(struct phases *p);

/* threads.c: thread tid, added on first sight (NULL: no memory); its
 * THREAD_START (a recycled id starts afresh) and THREAD_EXIT records. */
struct ph_thread *threads__get(struct phases *p, __u32 pid, __u32 tid);
/* Room in t's stack for a frame at depth d (up to STACK_LIMIT): 1, or 0 (the
 * call is counted in depth only). */
int threads__hold_frame(struct ph_thread *t, int d);
/* The state of process pid, made on first use (NULL: no memory). */
struct ph_proc *threads__proc(struct phases *p, __u32 pid);
/* creator: the thread that created t (0: not known) */
void threads__start(struct phases *p, struct ph_thread *t, __u32 creator, __u64 ts);
void threads__exit(struct phases *p, struct ph_thread *t, __u64 ts);
/* A futex wait of t outside any probed call, not a join that the exit ended,
 * returned at ts with ret (threads.c). */
void threads__futex_returned(struct phases *p, const struct ph_thread *t, __u64 ts, __s64 ret);
/* The thread whose exit ended t's futex wait, returned at return_ns: a
 * join (glibc's pthread_join waits on the joined thread's tid word for the
 * value of its tid, and the kernel wakes it when that thread exits); NULL
 * for any other wait. */
const struct ph_thread *threads__joined(const struct phases *p, const struct ph_thread *t,
					__u64 return_ns);

/* episodes.c: thread t arrives at a barrier (object 0: its team's), in the
 * open episode of key (the object, or a region instance: implicit.c). */
void episodes__arrive(struct phases *p, struct ph_thread *t, const struct sbt_event *e, __u64 key,
		      __u64 object);
/* Thread t's arrival was no wait after all (GOMP_single_copy_start returned
 * NULL at ts: the thread runs the single, and waits in
 * GOMP_single_copy_end): taken back while nobody has left its episode, its
 * compute window going on; settled at ts after that. */
void episodes__withdraw(struct phases *p, struct ph_thread *t, __u64 ts);
/* A task body returned (record e) inside the barrier wait of thread t: the
 * thread worked until then, and its arrival moves there. */
void episodes__task_ran(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
/* Thread t's arrival in its episode is settled: departed at depart_ns, or
 * never (depart_ns == 0). Completes the episode when it was the last. */
void episodes__settle(struct phases *p, struct ph_thread *t, __u64 depart_ns, __s64 retval,
		      __u64 site, __u64 blocked_ns);
/* The open episode of key expects n arrivals (a semaphore barrier's team,
 * semgroups.h): no departure releases it before they came. */
void episodes__expect(struct phases *p, __u32 pid, __u64 key, __u32 n);
/* No more arrivals are coming to ep (or to the open episode of key). */
void episodes__stop_expecting(struct phases *p, struct ph_episode *ep);
void episodes__stop_expecting_key(struct phases *p, __u32 pid, __u64 key);
/* Records lost: every episode in flight is marked (older traces, where
 * the count came in a record and nothing says when they were lost). */
void episodes__lost(struct phases *p, __u32 lost);
/* A LOST record: n records lost between e->ts and e->obj, `arrivals` of them
 * at barriers. Every episode in flight, and every episode beginning before
 * the last loss, is marked. */
void episodes__lost_window(struct phases *p, const struct sbt_event *e);
void episode__free(struct ph_episode *ep);

/* hangs.c: the hang watch. ep may hang from its latest arrival on (it is
 * OPEN, with arrivals, no departure, no hang reported): watched, or placed
 * anew when its latest arrival moved; or it can no longer hang: unwatched
 * (a no-op when it is not watched). O(log n) each. */
void hangs__watch(struct phases *p, struct ph_episode *ep);
void hangs__unwatch(struct phases *p, struct ph_episode *ep);

/* sites.c: the site of a completed episode (NULL: no memory), and its
 * aggregates with the episode added (its threads become members of the
 * barrier). */
struct ph_site *sites__get(struct phases *p, const struct ph_episode *ep);
void sites__account(struct phases *p, struct ph_site *s, const struct ph_episode *ep);

/* phase_counters.c: a COUNTERS record of thread t. */
void phase_counters__record(struct phases *p, struct ph_thread *t, const struct sbt_event *e);

/* regions.c: a parallel region frame of ns returned (record e). */
/* A region frame returned after ns; unprobed: its body was probed after it
 * forked (implicit__unprobed()). */
void regions__done(struct phases *p, const struct sbt_event *e, __u64 ns, int unprobed);

/* implicit.c: the implicit barriers of parallel regions. A region frame
 * (at stack depth d of thread t) forks an instance; a body entry starts a
 * thread's share of it; the body's return is an arrival; the frame's
 * return releases the instance. */
void implicit__fork(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e);
void implicit__armed(struct phases *p, const struct sbt_event *e);
/* The region frame at depth d of t forked before its body was probed. */
int implicit__unprobed(const struct phases *p, const struct ph_thread *t, int d);
/* The region instance body entry e starts a share of at depth d; 0: none
 * (a task's body). */
__u64 implicit__instance_of(const struct phases *p, const struct ph_thread *t, int d,
			    const struct sbt_event *e);
void implicit__before_body(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void implicit__body(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e);
void implicit__arrive(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e);
void implicit__release(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e);
/* Where the program called barrier call d of thread t (returned: record e):
 * the body that tail-called it, else the call site. */
__u64 implicit__barrier_site(const struct phases *p, const struct ph_thread *t, int d,
			     const struct sbt_event *e);

/* tasks.c: OpenMP tasks. A task is created (entry e of thread t); task
 * wait d of thread t returned (record e); a region body's call d returned:
 * a task body run inside a task wait. */
void tasks__created(struct phases *p, struct ph_thread *t, __u64 tm, __u64 ta);
void tasks__before_body(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void tasks__wait_done(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e);
void tasks__body_done(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e);

/* waits.c: the kind of wait (enum ph_wait_kind) a call of probe kind
 * probe_kind is, -1 none; the approximated time of thread t's event at tm
 * after the models re-timed it (0: not approximating), without counting it;
 * a wait of kind that took ns (ns_a approximated) ended; arrival a takes
 * the waits of its compute window; a departure starts the next window. */
int waits__kind(int probe_kind);
__u64 waits__approx_end(const struct phases *p, const struct ph_thread *t, __u64 tm);
void waits__add(struct ph_thread *t, int kind, __u64 ns, __u64 ns_a);
void waits__arrival(const struct ph_thread *t, struct ph_arrival *a);
void waits__mark(struct ph_thread *t);

/* eff_sums.c: a complete episode in the statistics, at site s: its
 * efficiency sums added to s, its threads and the run. */
void eff_sums__episode(struct phases *p, struct ph_site *s, const struct ph_episode *ep);

/* approx.c: the probe costs are known (phases__new() got them). */
int approx__enabled(const struct phases *p);
/* Synchronization re-times events (the time-based model alone does not). */
int approx__event_based(const struct phases *p);
/* The time-based approximation of thread t's event at tm, unchecked. */
__u64 approx__time_based(const struct ph_thread *t, __u64 tm);
/* The approximated time of thread t's event at tm: its latest. */
__u64 approx__time(struct phases *p, struct ph_thread *t, __u64 tm);
/* A synchronization event moved thread t's approximation to ta at tm. */
void approx__rebase(struct phases *p, struct ph_thread *t, __u64 tm, __u64 ta);
/* Thread t's approximation starts afresh at ta, measured tm. */
void approx__restart(struct ph_thread *t, __u64 tm, __u64 ta);
/* The cost of this record's probe hit (type, probe id) or counter read
 * counts against thread t's later events. */
void approx__pay(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void approx__measured(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void approx__pay_counters(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void approx__preempted(struct phases *p, const struct sbt_event *e);
/* α of probe's entry (exit = 0) or return hit at measured time ts: the cost
 * in force then (doc/design.md §5.4). */
__u64 approx__alpha(struct phases *p, __u16 probe, int exit, __u64 ts);
__u64 approx__injected(const struct phases *p, __u16 probe);
void approx__violation(struct phases *p, int kind, __u32 pid, __u32 tid, __u64 object, __u64 ts,
		       __u64 shift);
/* The state of object (pid, obj), created on first use; NULL: no memory. */
struct obj_state *approx__obj(struct phases *p, __u64 pid, __u64 obj);
__u64 approx__handoff(const struct phases *p, __u64 *least1, __u64 measured);
/* approx_conc.c: the factor on the costs of the hits around ts of thread t
 * (p->conc_k), and a hit of t that cost ns */
void approx_conc__at(struct phases *p, struct ph_thread *t, __u64 ts);
void approx_conc__hit(struct phases *p, struct ph_thread *t, __u64 ts, __u64 ns);
__u64 approx_conc__scaled(const struct phases *p, __u64 ns);
/* Thread t was created at tm by thread creator (0: not known, the main
 * thread) (fork), or exited at tm (join). */
void approx__fork(struct phases *p, struct ph_thread *t, __u32 creator, __u64 tm);
void approx__join(struct phases *p, struct ph_thread *t, __u64 tm);
/* Thread t is its process's main thread and every other thread of the
 * process has exited: the release its join waits end on (*ta, at the
 * measured *tm) is the join rule's, not one worker's exit. Returns 0
 * otherwise. */
int approx__join_release(const struct phases *p, const struct ph_thread *t, __u64 *tm, __u64 *ta);

/* approx_barrier.c: approximated departure at tm of thread t, arrival a of
 * episode ep, through the return of probe. */
__u64 approx_barrier__exit(struct phases *p, struct ph_thread *t, struct ph_episode *ep,
			   struct ph_arrival *a, __u64 tm, __u16 probe);
/* A completed episode: its measured exit spacing, for the next one. */
void approx_barrier__note_beta(struct phases *p, const struct ph_episode *ep);

struct sync_post;
/* approx_handoff.c: the approximated time of a call's entry (record e, of
 * probe kind kind): a release takes effect there. */
__u64 approx_handoff__entry(struct phases *p, struct ph_thread *t, const struct sbt_event *e,
			    int kind);
/* Call d of thread t returned (record e, of probe kind kind); paired: a P
 * that took the V in *v. */
void approx_handoff__returned(struct phases *p, struct ph_thread *t, int d,
			      const struct sbt_event *e, int kind, int paired,
			      const struct sync_post *v);
/* Futex wake (record e: entry), and the return of a wait outside probed
 * calls. */
void approx_handoff__futex_wake(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
void approx_handoff__futex_woken(struct phases *p, struct ph_thread *t, const struct sbt_event *e);
int approx_handoff__joined(struct phases *p, struct ph_thread *t, const struct sbt_event *e,
			   const struct ph_thread *w);

/* band.c: the error band's two analyses, made when cfg.error_band asks and
 * the costs come from a calibration series (NULL: no band); side i of them
 * (NULL past the last: `for (i = 0; (s = band__side(b, i)); i++)`); a
 * completed episode takes its bounds from them (they complete it first). */
struct band *band__new(struct phases *p);
void band__free(struct band *b);
struct phases *band__side(struct band *b, int i);
/* The same, for feeding a record: the sides' costs follow calibrations added
 * to p's series since the last record. */
struct phases *band__feed_side(struct band *b, const struct phases *p, int i);
void band__episode(struct band *b, struct ph_episode *ep);

#endif /* SBT_PHASES_IMPL_H */
