/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Barrier phases (doc/design.md §5.1): turns a stream of sbt_event records into
 * barrier episodes, per-site loop-barrier aggregates and per-thread totals.
 *
 * Pure and streaming: no I/O, no libbpf. Events are fed in ring-buffer order
 * (per thread in program order; a barrier's last arrival before the
 * departures it releases). Each episode is handed to the episode callback once
 * every participant has departed, then freed, so memory does not grow with
 * the length of a trace.
 */
#ifndef SBT_PHASES_H
#define SBT_PHASES_H

#include <stddef.h>
#include "sbt/format.h"

struct alpha_series;

/* Waits inside a thread's compute, by kind (analyses/waits.c): together its
 * sync_wait_ns, taken out of its useful compute (doc/design.md §5.5). */
enum ph_wait_kind { PH_WAIT_LOCK, PH_WAIT_SEM, PH_WAIT_COND, PH_WAIT_TASK, PH_WAIT_NKINDS };
struct ph_waits {
	__u64 ns[PH_WAIT_NKINDS];
};

/* Efficiency sums of one view over phases in the statistics (complete, not
 * partial), kept per site and per thread (analyses/efficiency.h). */
struct ph_eff_sums {
	__u64 phases;
	__u64 runtime_ns;      /* their spans: phase start to last arrival */
	__u64 useful_ns;       /* useful compute of their threads */
	__u64 max_useful_ns;   /* each phase's greatest useful compute, summed */
	__u64 barrier_wait_ns; /* own arrival -> last arrival (Scalasca) */
	__u64 completion_ns;   /* last arrival -> own departure */
	__u64 late_start_ns;   /* phase start -> own start (previous departure) */
	struct ph_waits waits; /* lock, semaphore, condvar, task waits */
};

struct ph_arrival {
	__u32 tid;
	__u64 arrive_ns;
	__u64 depart_ns; /* 0: departure not seen (lost record, thread gone) */
	__u64 start_ns;	 /* start of this thread's phase: its previous departure */
	__u64 site;	 /* call site (return address): from the exit record;
			  * until then, where the thread last left a barrier */
	__s64 retval;
	__u64 blocked_ns;   /* of the wait, time blocked in futex (rest: spinning) */
	__u64 sync_wait_ns; /* of the compute, time waiting on locks, semaphores, condvars */
	struct ph_waits waits, waits_a; /* the same by kind, measured and approximated */
	__u64 ctr[SBT_MAX_COUNTERS];	/* counter deltas of the compute window */
	__u32 ctr_valid;		/* the deltas are known */
	__u32 ctr_scaled;		/* multiplexed: the deltas are estimates */
	/* approximated (probe cost removed, doc/design.md §5.4) times */
	__u64 ta_start, ta_arrive, ta_depart;
	__u64 overhead_ns;  /* probe cost removed from its compute window */
	__u64 preempted_ns; /* sbt-bpf's own use of its CPU there, removed too */
	/* its phase began before the session saw it (a thread of a process
	 * attached to, in its first phase): start_ns is only a bound */
	int partial;
	/* it ran task bodies in its barrier call after another thread had left
	 * (the next phase's tasks): it leaves on its own clock at the earliest */
	int ran_late;
};

struct ph_episode {
	__u64 index; /* phase number, in completion order from 0 */
	__u32 pid;
	__u64 object; /* barrier object; 0 for a team barrier */
	__u16 probe;  /* probe id of the first arrival */
	__u32 site;   /* index into phases__site() */
	__u32 n;      /* arrivals */
	size_t cap;
	struct ph_arrival *arr; /* in arrival order */
	__u64 first_arrive, last_arrive, last_depart;
	__u32 departed;
	__u32 lost; /* records lost while this episode was in flight (complete once it is) */
	__u64 tm_exit_f, ta_exit_f; /* first measured exit, and its approximation */
	__u32 exits_approximated;
	__u32 serial; /* pthread_barrier_wait returns of SERIAL_THREAD (-1) */
	/* arrivals whose phase began before the session (0: a whole episode).
	 * A partial episode is reported, marked, and left out of the site,
	 * thread and counter statistics: threads may be missing from it too
	 * (those waiting when the probes went in are not seen leaving). */
	__u32 partial;
	__u32 expect; /* arrivals it waits for before a departure releases it: a
		       * semaphore barrier's team (sembar.h); 0: none */
	int state;    /* internal: open, or released and waiting for departures */
	__u64 key;    /* internal: its key among the open episodes (the object, or
		       * a parallel region's instance) */
	int hang_reported;
	/* internal: bookkeeping that keeps each record's cost independent of
	 * how many episodes are in flight (doc/design.md §5.1, Bounds) */
	size_t inflight_ix; /* its slot in the in-flight list */
	size_t watch_ix;    /* its slot in the hang watch + 1; 0: not watched (hangs.c) */
	struct ph_thread
		*leaving; /* its threads still unlocking a condvar barrier (cond_leave.c) */
	__u64 lost_base;  /* losses in flight when it opened (episodes.c) */
	/* error band (band.c): the least and greatest approximated phase span
	 * (ph_episode_times().phase_ns) over the costs the session's
	 * calibrations allow; band_known 0: no band */
	__u64 band_lo, band_hi;
	int band_known;
};

/* Per-thread accumulated idle time at one site. */
struct ph_idle {
	__u32 tid;
	__u64 episodes;
	__u64 idle_ns;
	__u64 useful_ns[2]; /* useful compute in its episodes, per view (enum ph_view) */
};

/* A barrier site, aggregated like an SBT loop barrier. */
struct ph_site {
	__u32 id;
	__u32 pid;
	__u64 object;
	__u64 call_site; /* lowest call-site address seen in its first episode */
	__u16 probe;
	__u64 episodes;
	__u64 barrier_sum, barrier_min, barrier_max;
	double barrier_sumsq;
	__u64 phase_sum, phase_min, phase_max;
	__u64 barrier_a_sum, phase_a_sum; /* approximated */
	struct ph_idle *idle;
	__u32 nidle;
	size_t cap_idle;	     /* internal */
	__u64 ctr[SBT_MAX_COUNTERS]; /* counter deltas of its phases, all threads */
	struct ph_eff_sums eff[2];   /* per view (enum ph_view) */
};

struct ph_thread {
	__u32 pid, tid;
	__u64 start_ns;	   /* first seen, created, or session start */
	__u64 ta_begin;	   /* its approximated start (creation, declaration) */
	int start_unknown; /* it ran before the session (attached to) */
	__u64 exit_ns;	   /* 0 while alive */
	__u64 last_depart; /* its previous barrier departure (start of its phase) */
	__u64 last_site;   /* call site of that departure */
	__u64 episodes;
	__u64 compute_ns, wait_ns;
	__u64 compute_a_ns, wait_a_ns; /* approximated */
	/* internal: calls in progress (stack_cap held: deeper ones are counted
	 * in depth only) and the episode the thread waits in */
	struct ph_frame {
		__u16 probe;
		__u32 futex_waits;
		__u64 ts, obj, arg2;
		__u64 blocked_ns;
		__u64 ta;	      /* approximated time of the entry */
		__u64 inst;	      /* region frame or body: its instance (implicit.c);
				       * call on a barrier semaphore: its group's episode
				       * key (semgroups.h); 0 none */
		__u64 ran_ns;	      /* task wait: task bodies it ran meanwhile (tasks.c) */
		__u64 nested_wait_ns; /* outermost task wait: its nested waits' waiting */
	} * stack;
	int depth, stack_cap;
	struct {
		int active;
		__u32 op, val; /* val: the value it waits to change */
		__u64 uaddr, ts;
		__u64 ta; /* approximated time of the call */
	} futex;
	/* a wait for this thread's id to change (a join) returned at
	 * join_return_ns, on word join_uaddr, before this thread's exit record:
	 * the kernel wakes the joiner before that record is made */
	__u64 join_uaddr, join_return_ns;
	__u64 sync_wait_ns; /* cumulative lock/semaphore/condvar/task wait */
	struct ph_waits waits_total, waits_total_a; /* the same by kind, and approximated */
	struct ph_waits waits_mark, waits_mark_a;   /* those at its last barrier departure */
	struct ph_eff_sums eff[2];		    /* its phases in the statistics, per view */
	/* OpenMP tasks (tasks.c): created; taskwait/taskgroup waits, their time
	 * waiting, and the task bodies the thread ran inside them */
	__u64 tasks_created, task_waits, task_wait_ns, task_run_ns;
	__u64 tasks_run; /* task bodies it ran: a taskloop's too, which the runtime creates */
	int had_share;	 /* it ran a share of a region instance (implicit.c) */
	__u64 sync_mark; /* sync_wait_ns at its last barrier departure */
	/* records of its process were lost up to loss_after: its next
	 * loss_marks arrivals after that may pair with the wrong call (its
	 * own entry or return among those lost) and mark their episodes */
	int loss_marks;
	__u64 loss_after;
	/* counters: values at its last barrier departure, and where the next
	 * COUNTERS record goes (arrival or departure) */
	__u64 ctr_depart[SBT_MAX_COUNTERS];
	int ctr_depart_valid;
	int ctr_target;
	__u64 ctr_total[SBT_MAX_COUNTERS]; /* sum of its phase deltas */
	/* approximation: t_a(e) = base_a + (t_m(e) - base_m) - ovh, where ovh
	 * is the probe cost since the last perturbation boundary (a barrier
	 * exit re-bases the thread) */
	__u64 base_m, base_a, ovh;
	__u64 ta_prev;	 /* its latest approximated time (order check) */
	__u64 tm_prev;	 /* the measured time of that event */
	__u64 ta_depart; /* approximated start of its next phase */
	__u64 ovh_mark;	 /* ovh at its last departure */
	__u64 prm_mark;	 /* preempted_total then */
	/* main thread: the greatest approximated worker exit, the latest measured one */
	__u64 join_ta, join_tm;
	__u64 overhead_total;
	__u64 preempted_total; /* ns charged for sbt-bpf's own use of its CPU */
	/* self-timed hits (approx.c): what was charged for its latest one until
	 * the next brings the measured cost (pending_set); whether that charge
	 * is still in ovh (no re-basing since) and can still grow (its COUNTERS
	 * records) */
	__u64 pending;
	int pending_set, pending_in_ovh, pending_open;
	/* its share of time in probe hits lately, at duty_ts (approx_conc.c) */
	double duty;
	__u64 duty_ts;
	struct ph_episode *waiting;
	__u32 waiting_idx;
	/* the last arrival at a semaphore barrier leaves when its burst of
	 * posts ends (feed.c): the semaphore, and its latest post's return */
	__u64 burst_sem, burst_end_ns, burst_site;
	/* a thread leaving a condvar barrier leaves when it has unlocked the
	 * barrier's mutex (feed.c): the mutex, its departure so far, and how
	 * far the unlock has come (enum cbar_step) */
	__u64 cbar_mutex, cbar_end_ns, cbar_site, cbar_blocked_ns;
	int cbar_step;
	/* libomp's reduction returned 1 or 2 from __kmpc_reduce: the thread
	 * waits on in __kmpc_end_reduce (feed.c), its wait so far blocked */
	int reduce_open;
	__u64 reduce_blocked_ns, reduce_site;
	struct ph_thread *leaving_next; /* in its episode's list of those (ph_episode.leaving) */
	/* internal: its process's live threads (threads.c), and the latest
	 * loss of its process it has taken in (episodes.c) */
	struct ph_thread *live_prev, *live_next;
	int live_linked;
	__u64 loss_seq;
};

/* Parallel region frames (GOMP_parallel, __kmpc_fork_call, --probe :region)
 * per call site: a `parallel for` ends in the runtime's join barrier, which
 * no exported function shows, so the region is the phase there. */
struct ph_region_site {
	__u32 pid;
	__u64 site;
	__u16 probe;
	__u64 count, total_ns, min_ns, max_ns;
	__u64 unprobed; /* instances forked before their body's probe went in */
};

struct ph_region_stats {
	__u64 count;
	__u64 total_ns;
	struct ph_region_site *sites;
	__u32 nsites;
};

/* A completed call of a lock, semaphore or condition-variable function,
 * measured and approximated (0 when not approximating). */
struct ph_call {
	__u32 pid, tid;
	__u16 probe;
	int kind; /* SBT_PK_* */
	__u64 obj;
	__s64 retval;
	__u64 enter_ns, exit_ns;
	__u64 enter_a, exit_a;
	__u64 arg2; /* a condition wait's mutex; a futex wait: the value it waited to change */
	/* a P that took a V's token: the V (v_tid 0: an initial token) */
	__u32 v_tid;
	__u64 v_ns, v_a;
};

/* The threads a hang waits for: how many, and the first PH_HANG_LISTED. A
 * hang costs the same however many threads a trace has. */
#define PH_HANG_LISTED 32
struct ph_missing {
	__u32 n;
	int listed;
	__u32 tids[PH_HANG_LISTED];
};

struct phases_ops {
	/* An episode completed: all its participants departed. */
	void (*episode)(void *ctx, const struct ph_episode *ep);
	/* An episode has had arrivals and no release for the hang timeout;
	 * the threads expected but not arrived (ph_missing). */
	void (*hang)(void *ctx, const struct ph_episode *ep, const struct ph_missing *m);
	/* A synchronization call returned (may be NULL). */
	void (*call)(void *ctx, const struct ph_call *c);
	/* A futex wait that blocked, outside any probed call (pthread_join, a
	 * lock the probes do not see), returned: kind and probe 0, obj the
	 * futex word (may be NULL). */
	void (*futex_wait)(void *ctx, const struct ph_call *c);
	/* A region frame returned (a parallel region's, GOMP_parallel; a
	 * --probe FN:region function's): kind SBT_PK_REGION (may be NULL). */
	void (*region)(void *ctx, const struct ph_call *c);
};

struct sync;

/* Perturbation models (doc/design.md §5.4). All remove each thread's own probe
 * cost (time-based, Malony-Reed §3); they differ at synchronization. */
enum ph_model {
	PH_MODEL_MR,   /* barrier exits re-based on the approximated last arrival
			* (Malony-Reed §4.2); lock/semaphore/condvar hand-offs */
	PH_MODEL_SM,   /* as MR, exits spaced by beta (Sarukkai-Malony §3.2) */
	PH_MODEL_TIME, /* time-based only: no event-based correction */
};
/* Which thread leaves a barrier first in the Sarukkai-Malony model. */
enum ph_exit_order {
	PH_EXIT_RANK,	 /* the measured exit order */
	PH_EXIT_REVERSE, /* reverse approximated arrival order (the paper's) */
};

/* Invariant repairs and violations found while approximating. */
enum ph_violation_kind {
	PH_VIOL_SEM_CASE_C, /* two V's approximated before the P the first one
			     * satisfied (Malony-Reed §4.3.2 case C): the
			     * second V is moved just after that P */
	PH_VIOL_ORDER,	    /* a synchronization rule would have moved a thread
			     * before its previous event: held there */
	PH_VIOL_BARRIER,    /* an exit before the approximated last arrival */
	PH_VIOL_NKINDS,
};
#define PH_VIOLATIONS_KEPT 16
struct ph_violation {
	int kind;
	__u32 pid, tid;
	__u64 object;
	__u64 ts;    /* measured time of the event that was moved */
	__u64 shift; /* how far it was moved, ns */
};

struct phases_config {
	const struct sbt_probe_info *probes; /* indexed by probe id */
	int nprobes;
	__u64 start_ns;	   /* session start: phase 0 begins here */
	struct sync *sync; /* receives lock/semaphore/condvar/futex calls; may be NULL */
	int ncounters;	   /* values in SBT_EV_COUNTERS records */
	/* probe cost per hit (calibrated), indexed by probe id; NULL: no
	 * approximation */
	const __u64 *alpha_enter, *alpha_exit;
	__u64 alpha_counters; /* cost of one COUNTERS record; 0: not charged */
	/* the costs measured during the session, each in force from its time
	 * (alpha_series.h); a probe bound to an entry of it is charged from
	 * there, any other from the tables above. NULL: the tables alone */
	const struct alpha_series *alpha_series;
	/* --inject-delay: spun in every uprobe hit (probe ids from 1); in the
	 * tables above already, added to what the series charges */
	__u64 inject_ns;
	int model;	/* enum ph_model */
	int exit_order; /* enum ph_exit_order, for PH_MODEL_SM */
	/* error band (doc/design.md §5.4): two more analyses run beside this
	 * one, each probe charged its least and its greatest cost over the
	 * session (alpha_series__range()); their approximations bound this
	 * one's (ph_episode.band_*, phases__band(), phases__thread_band()).
	 * Needs alpha_series; triples the analysis's work */
	int error_band;
	/* the error band's least side: every hand-off (a barrier's release and
	 * exit spacing, a lock, condvar, semaphore or futex hand-off) taken at
	 * the least measured at its object so far (approx__handoff()) */
	int least_handoffs;
	/* condvars and semaphores are never barriers: no record is held back
	 * while one is classified (condbar.h, sembar.h) */
	int no_sync_barriers;
};

struct phases;

struct phases *phases__new(const struct phases_config *cfg, const struct phases_ops *ops,
			   void *ctx);
void phases__free(struct phases *p);
/* Self-timed probe hits (approx.c): costs measured and charged, measured
 * costs refused as preempted, and what the calibration would have charged
 * for the hits measured. */
struct ph_timed {
	__u64 hits, measured_ns, calibrated_ns, refused;
};

/* Times a traced thread lost its CPU to sbt-bpf itself (PREEMPTED records)
 * and their total, charged as perturbation when approximating. */
struct ph_preempted {
	__u64 count, ns;
};

/* Feed one record. Returns 0, or -EINVAL for a record that makes no sense
 * (unknown type or probe id); such records are counted and skipped. */
int phases__feed(struct phases *p, const struct sbt_event *e);
/* fn(ctx, e, p) after the analysis took record e (records held while a
 * condvar is classified come later than they were fed). */
void phases__on_record(struct phases *p,
		       void (*fn)(void *ctx, const struct sbt_event *e, const struct phases *p),
		       void *ctx);
/* Declare a thread known before tracing began (from /proc), started at
 * start_ns; 0: before the session, at an unknown time (a process attached
 * to): its first phase is partial (doc/design.md §5.1). */
void phases__add_thread(struct phases *p, __u32 pid, __u32 tid, __u64 start_ns);
/* Report episodes waiting longer than timeout_ns at time now_ns (once each). */
void phases__check_hangs(struct phases *p, __u64 now_ns, __u64 timeout_ns);
/* Live: records held back for a condvar's or semaphore's classification
 * (doc/design.md §5.1) longer than max_ns by now_ns are analysed now, the
 * classification left for later waits. */
void phases__release_stale(struct phases *p, __u64 now_ns, __u64 max_ns);
/* How long the longest wait not yet reported as a hang (arrivals, no
 * departure) has lasted at now_ns; 0: none. */
__u64 phases__longest_wait(const struct phases *p, __u64 now_ns);
/* Stopped threads of the process (SIGSTOP, a debugger), as the caller last
 * saw them (/proc): n in all, the first of them in tids. A hang found while
 * n > 0 is a stop, not a hang: the hang callback reads them with
 * phases__stopped(). n = 0: none stopped. */
#define PH_STOPPED_KEPT 16
void phases__set_stopped(struct phases *p, const __u32 *tids, int n);
/* How many threads were last set stopped; the first PH_STOPPED_KEPT of them
 * in *tids. */
int phases__stopped(const struct phases *p, const __u32 **tids);
/* End of stream: records held for undecided condvars are analysed (those
 * are no barriers); complete episodes that were released but miss departures.
 * Episodes still open (never released) are reported through the hang
 * callback if they have not been already. */
void phases__finish(struct phases *p);

size_t phases__nsites(const struct phases *p);
const struct ph_site *phases__site(const struct phases *p, size_t i);
size_t phases__nthreads(const struct phases *p);
const struct ph_thread *phases__thread(const struct phases *p, size_t i);
const struct ph_region_stats *phases__regions(const struct phases *p);
/* Fork-join steps (analyses/forkjoin.h); NULL: none kept (no memory). */
const struct forkjoin *phases__forkjoin(const struct phases *p);
__u64 phases__completed(const struct phases *p);
/* Completed episodes that were partial (counted in phases__completed()). */
__u64 phases__partial(const struct phases *p);
__u64 phases__events(const struct phases *p);
__u64 phases__bad_records(const struct phases *p);
__u64 phases__lost(const struct phases *p);
/* Completed pthread_barrier_wait episodes where not exactly one thread got
 * PTHREAD_BARRIER_SERIAL_THREAD: the grouping into episodes was wrong (or a
 * departure record was lost). */
__u64 phases__grouping_errors(const struct phases *p);
/* Workers' shares of a parallel region begun while two instances of its
 * body ran (teams started by several threads at once, nested active
 * levels): matched to the latest fork, the teams' implicit barriers may mix
 * threads. */
__u64 phases__concurrent_forks(const struct phases *p);
/* Records fed older than one fed before them: the recording's rings were
 * not merged back into time order there (user/bpf/rings.h). */
__u64 phases__out_of_order(const struct phases *p);
__u64 phases__first_ts(const struct phases *p);
/* Phases in the statistics (complete, not partial), and the earliest start
 * among them in a view (enum ph_view); 0 when none. */
__u64 phases__eff_phases(const struct phases *p);
__u64 phases__eff_start(const struct phases *p, int view);
/* Approximated time of the last event (probe cost removed). */
__u64 phases__approx_last_ts(const struct phases *p);
/* The approximated run: its first event to its approximated last. */
__u64 phases__approx_duration(const struct phases *p);
__u64 phases__last_ts(const struct phases *p);
/* Violations found by the approximation: total of a kind (-1: all kinds),
 * and the first PH_VIOLATIONS_KEPT in *first. */
__u64 phases__violations(const struct phases *p, int kind);
size_t phases__violation_list(const struct ph_violation **first, const struct phases *p);
const char *ph_violation_name(int kind);
/* Events whose time-based approximation fell before their thread's previous
 * event (closer together than the probe cost charged between them) and were
 * held there: not a violation, a sign of the calibration's granularity. */
__u64 phases__clamped(const struct phases *p);
const struct ph_timed *phases__timed(const struct phases *p);
const struct ph_preempted *phases__preempted(const struct phases *p);
/* The approximated time of thread tid's latest event (after phases__feed()
 * of that event); 0 when unknown or not approximating. */
__u64 phases__thread_approx(const struct phases *p, __u32 tid);
/* When thread tid exited (its exit record), 0 while alive or unknown. */
__u64 phases__thread_exit(const struct phases *p, __u32 tid);
/* The cost of record e's probe hit (a call's entry or return, a futex
 * tracepoint, a counter read) as the approximation charges it at its time
 * (the calibrated cost in force), or the CPU time sbt-bpf took from its
 * thread (a PREEMPTED record); 0 when not approximating. */
__u64 phases__record_cost(struct phases *p, const struct sbt_event *e);
/* Phases affected by lost records: count and the first few indices. */
__u64 phases__lost_phases(const struct phases *p, __u64 *first, int max);
/* Phases whose records were all lost, estimated: the barrier arrivals seen
 * and lost (SBT_EV_LOST counts them), over the usual number of threads of
 * an episode, less the episodes seen. 0 when nothing was lost. */
__u64 phases__missing_phases(const struct phases *p);

/* The error band of an approximated figure: its least and greatest value
 * over the analyses charging the least costs and the greatest (with the
 * least hand-offs, cfg.least_handoffs), and this analysis's own (which
 * they contain). */
struct ph_band {
	__u64 lo, hi;
};
/* The approximated run's duration (phases__approx_last_ts() less the first
 * event), bounded. 1, or 0 without a band (cfg.error_band not set, no
 * calibration series, or no memory). */
int phases__band(const struct phases *p, struct ph_band *duration);
/* Thread tid's approximated compute and latest event (from the run's
 * first), bounded. 1, or 0 without a band or without the thread. */
int phases__thread_band(const struct phases *p, __u32 tid, struct ph_band *compute,
			struct ph_band *end);

/* Metrics of one episode (doc/design.md §5.1); see also ph_episode_times(). */
/* Whether thread t created, waited for (--trace task) or ran OpenMP tasks. */
static inline int ph_thread_has_tasks(const struct ph_thread *t)
{
	return t->tasks_created || t->task_waits || t->tasks_run;
}

static inline __u64 ph_barrier_ns(const struct ph_episode *ep)
{
	return ep->last_arrive - ep->first_arrive;
}
/* Measured phase time: the latest start of its threads to the last arrival. */
__u64 ph_phase_ns(const struct ph_episode *ep);
/* The site an episode is reported under: the lowest call site of its
 * arrivals, stable when threads reach one barrier from several lines. */
__u64 ph_lowest_site(const struct ph_episode *ep);
static inline __u64 ph_compute_ns(const struct ph_arrival *a)
{
	return a->arrive_ns - a->start_ns;
}
static inline __u64 ph_wait_ns(const struct ph_arrival *a)
{
	return a->depart_ns ? a->depart_ns - a->arrive_ns : 0;
}
/* Approximated metrics (0 when no approximation was configured). */
static inline __u64 ph_compute_a(const struct ph_arrival *a)
{
	return a->ta_arrive > a->ta_start ? a->ta_arrive - a->ta_start : 0;
}
static inline __u64 ph_wait_a(const struct ph_arrival *a)
{
	return a->depart_ns && a->ta_depart > a->ta_arrive ? a->ta_depart - a->ta_arrive : 0;
}

/* One view of the times of an episode: as measured, or approximated. */
enum ph_view { PH_MEASURED, PH_APPROXIMATED };
struct ph_times {
	__u64 start, arrive, depart; /* depart 0: not seen */
};
static inline struct ph_times ph_times(const struct ph_arrival *a, int view)
{
	if (view == PH_APPROXIMATED)
		return (struct ph_times){a->ta_start, a->ta_arrive,
					 a->depart_ns ? a->ta_depart : 0};
	return (struct ph_times){a->start_ns, a->arrive_ns, a->depart_ns};
}
/* Episode metrics of a view (doc/design.md §5.1). */
struct ph_episode_times {
	__u64 first_arrive, last_arrive;
	/* phase start: the release of the barrier that began it, the earliest
	 * start of its threads (so a phase holds its barrier time and every
	 * thread's compute, doc/design.md §5.1) */
	__u64 start;
	__u64 phase_ns;	  /* start -> last arrival */
	__u64 barrier_ns; /* first -> last arrival */
	__u64 max_compute, mean_compute;
	__u64 imbalance_ns; /* max - mean compute */
	double lb;	    /* mean / max compute */
	__u32 critical_tid; /* the last to arrive */
};
void ph_episode_times(const struct ph_episode *ep, int view, struct ph_episode_times *m);

/* Compute time not spent waiting on locks, semaphores or condvars. */
static inline __u64 ph_useful_ns(const struct ph_arrival *a)
{
	__u64 c = ph_compute_ns(a);

	return c > a->sync_wait_ns ? c - a->sync_wait_ns : 0;
}
/* Efficiency sums (doc/design.md §5.5; analyses/efficiency.h turns them into
 * load balance and efficiencies). Useful compute of arrival a in a view:
 * its compute less its lock, semaphore, condvar and task waits. */
__u64 ph_useful(const struct ph_arrival *a, int view);
/* Arrival a's share of its phase (m: the phase's times in view) added to
 * *s: useful, wait at barrier, barrier completion, late start, waits.
 * Returns its useful compute. */
__u64 ph_eff_arrival(struct ph_eff_sums *s, const struct ph_arrival *a, int view,
		     const struct ph_episode_times *m);
/* The sums of episode ep in a view: one phase, its span, its threads'
 * shares, its greatest useful compute. */
void ph_eff_episode(const struct ph_episode *ep, int view, struct ph_eff_sums *s);
/* b added to a. */
void ph_eff_add(struct ph_eff_sums *a, const struct ph_eff_sums *b);

/* Scalasca's wait at barrier: time from this arrival to the last one. */
static inline __u64 ph_late_wait_ns(const struct ph_episode *ep, const struct ph_arrival *a)
{
	return ep->last_arrive - a->arrive_ns;
}

#endif /* SBT_PHASES_H */
