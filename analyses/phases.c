// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Barrier episodes from enter/exit records.
 *
 * Grouping: arrivals at the same barrier key (pid + object, or pid + team for
 * barriers that name no object) join the key's OPEN episode. The first
 * departure releases it: later arrivals at the same key start a new episode,
 * even if some threads of the released one have not been seen leaving yet
 * (a fast thread can leave and arrive again before a slow one wakes up).
 * An episode completes when each of its arrivals has departed, or is known
 * never to (lost record, thread exited, end of trace).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hmap.h"
#include "analyses/phases.h"
#include "analyses/sync.h"

#define LOST_PHASES_KEPT 16

#define STACK_MAX 8 /* entries of ph_thread.stack */

/* Where a thread's next COUNTERS record belongs. */
enum { CTR_NONE, CTR_ARRIVAL, CTR_DEPARTURE };

struct phases {
	struct phases_config cfg;
	struct phases_ops ops;
	void *ctx;

	struct hmap threads; /* tid -> struct ph_thread */
	struct ph_thread **thread_list;
	size_t nthreads, cap_threads;

	struct hmap open;	      /* (pid, object key) -> OPEN episode */
	struct hmap objects;	      /* (pid, object) -> struct obj_state */
	struct ph_episode **inflight; /* OPEN and RELEASING episodes */
	size_t ninflight, cap_inflight;

	struct ph_site *sites;
	size_t nsites, cap_sites;

	struct ph_region_stats regions;
	__u64 completed, events, bad, lost, grouping_errors;
	__u64 first_ts, last_ts;
	__u64 lost_phases, lost_first[LOST_PHASES_KEPT];
	__u64 ta_last, ta_last_tm; /* approximated and measured time of the last event */
	__u64 violations[PH_VIOL_NKINDS];
	__u64 clamped; /* events held at their thread's previous approximation */
	struct ph_violation violation_list[PH_VIOLATIONS_KEPT];
	size_t nviolation_list;
};

/* Grow *arr (of *cap elements of size sz) to hold at least n elements. */
static int reserve(void **arr, size_t *cap, size_t n, size_t sz)
{
	size_t ncap = *cap ? *cap : 8;
	void *p;

	if (n <= *cap)
		return 0;
	while (ncap < n)
		ncap *= 2;
	p = realloc(*arr, ncap * sz);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

struct phases *phases__new(const struct phases_config *cfg, const struct phases_ops *ops, void *ctx)
{
	struct phases *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cfg = *cfg;
	if (ops)
		p->ops = *ops;
	p->ctx = ctx;
	hmap_init(&p->threads);
	hmap_init(&p->open);
	hmap_init(&p->objects);
	return p;
}

static void episode_free(struct ph_episode *ep)
{
	if (ep) {
		free(ep->arr);
		free(ep);
	}
}

void phases__free(struct phases *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nthreads; i++)
		free(p->thread_list[i]);
	for (i = 0; i < p->ninflight; i++)
		episode_free(p->inflight[i]);
	for (i = 0; i < p->nsites; i++)
		free(p->sites[i].idle);
	free(p->regions.sites);
	free(p->thread_list);
	free(p->inflight);
	free(p->sites);
	hmap_free(&p->threads);
	hmap_free(&p->open);
	hmap_free_values(&p->objects);
	free(p);
}

/* A new thread: its approximation starts at ta, measured tm. */
static void restart(struct ph_thread *t, __u64 tm, __u64 ta)
{
	t->base_m = tm;
	t->base_a = ta;
	t->ovh = 0;
	t->ta_prev = ta;
}

static struct ph_thread *thread_get(struct phases *p, __u32 pid, __u32 tid, __u64 seen_ns)
{
	struct ph_thread *t = hmap_get(&p->threads, tid, 0);

	if (t)
		return t;
	if (reserve((void **)&p->thread_list, &p->cap_threads, p->nthreads + 1, sizeof(t)))
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t || hmap_put(&p->threads, tid, 0, t)) {
		free(t);
		return NULL;
	}
	t->pid = pid;
	t->tid = tid;
	/* A thread first seen after the session started began no later than
	 * that; without a creation record, the session start is its best bound. */
	t->start_ns = p->cfg.start_ns;
	t->base_m = t->base_a = p->cfg.start_ns;
	(void)seen_ns;
	p->thread_list[p->nthreads++] = t;
	return t;
}

void phases__add_thread(struct phases *p, __u32 pid, __u32 tid, __u64 start_ns)
{
	struct ph_thread *t = thread_get(p, pid, tid, start_ns);

	if (t) {
		t->start_ns = start_ns;
		restart(t, start_ns, start_ns);
	}
}

/* ---- approximation (DESIGN §5.4) -------------------------------------------- */

static int approximating(const struct phases *p)
{
	return p->cfg.alpha_enter && p->cfg.alpha_exit;
}

/* Synchronization re-times events (the time-based model alone does not). */
static int event_based(const struct phases *p)
{
	return approximating(p) && p->cfg.model != PH_MODEL_TIME;
}

static __u64 sub0(__u64 a, __u64 b)
{
	return a > b ? a - b : 0;
}

static __u64 max_u64(__u64 a, __u64 b)
{
	return a > b ? a : b;
}

static void violation(struct phases *p, int kind, __u32 pid, __u32 tid, __u64 object, __u64 ts,
		      __u64 shift)
{
	p->violations[kind]++;
	if (p->nviolation_list < PH_VIOLATIONS_KEPT)
		p->violation_list[p->nviolation_list++] =
			(struct ph_violation){kind, pid, tid, object, ts, shift};
}

/* Per synchronization object state of the approximation. */
struct obj_state {
	/* locks, condvars: the latest release (unlock, signal) */
	__u64 tm, ta;
	__u16 probe;
	/* barriers: measured exit spacing of the last complete episode + 1
	 * (0: none yet) */
	__u64 beta1;
	/* semaphores: V's not yet taken by a P (measured), and the
	 * approximated time of the latest P that took one */
	__u64 outstanding, ta_last_p;
};

static struct obj_state *obj_state(struct phases *p, __u64 pid, __u64 obj)
{
	struct obj_state *o = hmap_get(&p->objects, pid, obj);

	if (o)
		return o;
	o = calloc(1, sizeof(*o));
	if (!o || hmap_put(&p->objects, pid, obj, o)) {
		free(o);
		return NULL;
	}
	return o;
}

/* The run ends at its last measured event: its approximation is the
 * approximated end (not the largest approximation seen, which may belong to
 * a thread not yet re-based). */
static void note_last(struct phases *p, __u64 tm, __u64 ta)
{
	if (tm >= p->ta_last_tm) {
		p->ta_last_tm = tm;
		p->ta_last = ta;
	}
}

/* Time-based model: the thread's measured time since its last perturbation
 * boundary, less the probe cost it paid since then. */
static __u64 time_based(const struct ph_thread *t, __u64 tm)
{
	return t->base_a + sub0(sub0(tm, t->base_m), t->ovh);
}

static __u64 approx_time(struct phases *p, struct ph_thread *t, __u64 tm)
{
	__u64 ta = time_based(t, tm);

	/* Two events closer than the probe cost charged between them (the
	 * cost is charged whole at the next event, though part of it was
	 * spent before the hit's timestamp): held at the previous event, the
	 * rest is removed at the next ones. */
	if (ta < t->ta_prev) {
		p->clamped++;
		ta = t->ta_prev;
	}
	t->ta_prev = ta;
	note_last(p, tm, ta);
	return ta;
}

/* A synchronization event moved the thread's approximation to ta at tm. */
static void rebase(struct phases *p, struct ph_thread *t, __u64 tm, __u64 ta)
{
	if (ta < t->ta_prev) {
		violation(p, PH_VIOL_ORDER, t->pid, t->tid, 0, tm, t->ta_prev - ta);
		ta = t->ta_prev;
	}
	t->ta_prev = ta;
	note_last(p, tm, ta);
	t->base_m = tm;
	t->base_a = ta;
	t->ovh = 0;
}

/* This hit's own cost counts against the thread's later events. Futex
 * records (probe id 0) cost the syscall tracepoints' hits. */
static void pay(struct phases *p, struct ph_thread *t, int type, __u16 probe)
{
	int entry = type == SBT_EV_ENTER || type == SBT_EV_FUTEX_ENTER;
	const __u64 *a = entry ? p->cfg.alpha_enter : p->cfg.alpha_exit;

	if (approximating(p) && probe < p->cfg.nprobes) {
		t->ovh += a[probe];
		t->overhead_total += a[probe];
	}
}

static __u64 max_arrival_a(const struct ph_episode *ep)
{
	__u64 max_a = 0;
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].ta_arrive > max_a)
			max_a = ep->arr[i].ta_arrive;
	return max_a;
}

/* Barrier exits (Malony-Reed §4.2): every thread is present at the
 * approximated last arrival; the barrier code then takes what it took in
 * the measurement after the measured last arrival, less the exit probe's
 * cost; later exits keep their measured spacing from the first exit, less
 * that cost too. */
static __u64 exit_malony_reed(struct ph_episode *ep, __u64 tm, __u64 alpha, __u64 max_a)
{
	if (!ep->tm_exit_f) {
		ep->tm_exit_f = tm;
		ep->ta_exit_f = max_a + sub0(sub0(tm, ep->last_arrive), alpha);
		return ep->ta_exit_f;
	}
	return ep->ta_exit_f + sub0(sub0(tm, ep->tm_exit_f), alpha);
}

/* 1-based rank of arrival a in the approximated arrival order. */
static __u32 arrival_rank(const struct ph_episode *ep, const struct ph_arrival *a)
{
	__u32 i, rank = 1;

	for (i = 0; i < ep->n; i++) {
		const struct ph_arrival *b = &ep->arr[i];

		rank += b->ta_arrive < a->ta_arrive || (b->ta_arrive == a->ta_arrive && b < a);
	}
	return rank;
}

/* Sarukkai-Malony §3.2: the thread that arrived i-th of P leaves at
 * t_a(last arrival) + (P - i + 1) beta, beta the exit spacing
 * (t_m(last exit) - t_m(first exit)) / (P - 1); or the k-th to leave in the
 * measurement at + k beta. Episodes are approximated as their exits are
 * read, before the last exit is known: beta is the previous episode's at
 * the same barrier, and the first episode of a barrier falls back to
 * Malony-Reed. Never later than measured. */
static __u64 exit_sarukkai_malony(struct phases *p, struct ph_episode *ep, struct ph_arrival *a,
				  __u64 tm, __u64 alpha, __u64 max_a)
{
	struct obj_state *o = hmap_get(&p->objects, ep->pid, ep->object);
	__u64 k, ta;

	if (!o || !o->beta1)
		return exit_malony_reed(ep, tm, alpha, max_a);
	k = p->cfg.exit_order == PH_EXIT_REVERSE ? ep->n - arrival_rank(ep, a) + 1
						 : ++ep->exits_approximated;
	ta = max_a + k * (o->beta1 - 1);
	return ta < tm ? ta : tm > max_a ? tm : max_a;
}

/* The measured exit spacing of a complete episode, for the next one. */
static void note_beta(struct phases *p, const struct ph_episode *ep)
{
	__u64 first = UINT64_MAX, last = 0;
	struct obj_state *o;
	__u32 i;

	if (p->cfg.model != PH_MODEL_SM || ep->n < 2)
		return;
	for (i = 0; i < ep->n; i++) {
		__u64 d = ep->arr[i].depart_ns;

		if (!d)
			return;
		first = d < first ? d : first;
		last = d > last ? d : last;
	}
	o = obj_state(p, ep->pid, ep->object);
	if (o)
		o->beta1 = (last - first) / (ep->n - 1) + 1;
}

/* Approximated departure of thread t from its episode. The exit is a
 * perturbation boundary: the thread is re-based on it, so errors before the
 * barrier do not carry past it. */
static __u64 approx_exit(struct phases *p, struct ph_thread *t, struct ph_episode *ep,
			 struct ph_arrival *a, __u64 tm, __u16 probe)
{
	__u64 alpha = p->cfg.alpha_exit[probe], max_a, ta;

	if (!event_based(p))
		return approx_time(p, t, tm);
	max_a = max_arrival_a(ep);
	if (p->cfg.model == PH_MODEL_SM)
		ta = exit_sarukkai_malony(p, ep, a, tm, alpha, max_a);
	else
		ta = exit_malony_reed(ep, tm, alpha, max_a);
	if (ta < max_a) /* cannot happen by construction; checked all the same */
		violation(p, PH_VIOL_BARRIER, t->pid, t->tid, ep->object, tm, max_a - ta);
	rebase(p, t, tm, ta);
	return ta;
}

/* ---- sites ---------------------------------------------------------------- */

__u64 ph_lowest_site(const struct ph_episode *ep)
{
	__u64 s = ep->n ? ep->arr[0].site : 0;
	__u32 i;

	for (i = 1; i < ep->n; i++)
		if (ep->arr[i].site < s)
			s = ep->arr[i].site;
	return s;
}

static struct ph_site *site_get(struct phases *p, const struct ph_episode *ep)
{
	__u64 call_site = ph_lowest_site(ep);
	struct ph_site *s;
	size_t i;

	for (i = 0; i < p->nsites; i++) {
		s = &p->sites[i];
		if (s->pid == ep->pid && s->object == ep->object && s->call_site == call_site &&
		    s->probe == ep->probe)
			return s;
	}
	if (reserve((void **)&p->sites, &p->cap_sites, p->nsites + 1, sizeof(*s)))
		return NULL;
	s = &p->sites[p->nsites];
	memset(s, 0, sizeof(*s));
	s->id = p->nsites++;
	s->pid = ep->pid;
	s->object = ep->object;
	s->call_site = call_site;
	s->probe = ep->probe;
	s->barrier_min = s->phase_min = UINT64_MAX;
	return s;
}

static void site_add_idle(struct ph_site *s, __u32 tid, __u64 idle_ns)
{
	struct ph_idle *idle;
	__u32 i;

	for (i = 0; i < s->nidle; i++) {
		if (s->idle[i].tid == tid) {
			s->idle[i].episodes++;
			s->idle[i].idle_ns += idle_ns;
			return;
		}
	}
	idle = realloc(s->idle, (s->nidle + 1) * sizeof(*idle));
	if (!idle)
		return;
	s->idle = idle;
	s->idle[s->nidle++] = (struct ph_idle){.tid = tid, .episodes = 1, .idle_ns = idle_ns};
}

static void site_account(struct ph_site *s, const struct ph_episode *ep)
{
	struct ph_episode_times m, a;
	__u64 b, ph;
	__u32 i;

	ph_episode_times(ep, PH_MEASURED, &m);
	ph_episode_times(ep, PH_APPROXIMATED, &a);
	b = m.barrier_ns;
	ph = m.phase_ns;
	s->barrier_a_sum += a.barrier_ns;
	s->phase_a_sum += a.phase_ns;
	s->episodes++;
	s->barrier_sum += b;
	s->barrier_sumsq += (double)b * (double)b;
	if (b < s->barrier_min)
		s->barrier_min = b;
	if (b > s->barrier_max)
		s->barrier_max = b;
	s->phase_sum += ph;
	if (ph < s->phase_min)
		s->phase_min = ph;
	if (ph > s->phase_max)
		s->phase_max = ph;
	for (i = 0; i < ep->n; i++) {
		__u32 k;

		site_add_idle(s, ep->arr[i].tid, ph_wait_ns(&ep->arr[i]));
		for (k = 0; ep->arr[i].ctr_valid && k < SBT_MAX_COUNTERS; k++)
			s->ctr[k] += ep->arr[i].ctr[k];
	}
}

/* ---- episodes ------------------------------------------------------------- */

static void inflight_remove(struct phases *p, struct ph_episode *ep)
{
	size_t i;

	for (i = 0; i < p->ninflight; i++) {
		if (p->inflight[i] == ep) {
			p->inflight[i] = p->inflight[--p->ninflight];
			return;
		}
	}
}

static int all_departed(const struct ph_episode *ep)
{
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (!ep->arr[i].depart_ns)
			return 0;
	return 1;
}

/* pthread_barrier_wait tells one thread per episode it was the serial one;
 * other barrier functions give no such check. */
static int checks_serial(const struct phases *p, const struct ph_episode *ep)
{
	return !strcmp(p->cfg.probes[ep->probe].symbol, "pthread_barrier_wait") && !ep->lost;
}

static void complete(struct phases *p, struct ph_episode *ep)
{
	struct ph_site *s = site_get(p, ep);

	ep->index = p->completed++;
	/* Two serial threads: two episodes were merged. None: only wrong when
	 * every participant was seen, and not in the first episode of a
	 * barrier, which may miss threads already waiting when we attached. */
	if (checks_serial(p, ep) &&
	    (ep->serial > 1 || (!ep->serial && all_departed(ep) && s && s->episodes > 0)))
		p->grouping_errors++;
	if (s) {
		ep->site = s->id;
		site_account(s, ep);
	}
	note_beta(p, ep);
	if (ep->lost) {
		if (p->lost_phases < LOST_PHASES_KEPT)
			p->lost_first[p->lost_phases] = ep->index;
		p->lost_phases++;
	}
	if (p->ops.episode)
		p->ops.episode(p->ctx, ep);
	inflight_remove(p, ep);
	episode_free(ep);
}

/* Thread t's arrival in its episode is settled: departed at depart_ns, or
 * never (depart_ns == 0). */
static void settle(struct phases *p, struct ph_thread *t, __u64 depart_ns, __s64 retval, __u64 site,
		   __u64 blocked_ns)
{
	struct ph_episode *ep = t->waiting;
	struct ph_arrival *a;

	if (!ep)
		return;
	t->waiting = NULL;
	if (ep->state == PH_OPEN) {
		ep->state = PH_RELEASING;
		hmap_del(&p->open, ep->pid, ep->object);
	}
	a = &ep->arr[t->waiting_idx];
	a->depart_ns = depart_ns;
	a->retval = retval;
	a->blocked_ns = blocked_ns;
	ep->serial += depart_ns && (int)retval == -1; /* an int: upper bits are garbage */
	ep->departed++;
	if (site) {
		a->site = site;
		t->last_site = site;
	}
	if (depart_ns && approximating(p)) {
		a->ta_depart =
			approx_exit(p, t, ep, a, depart_ns,
				    t->depth < STACK_MAX ? t->stack[t->depth].probe : ep->probe);
		t->ta_depart = a->ta_depart;
	}
	if (depart_ns) {
		t->ctr_target = CTR_DEPARTURE;
		if (depart_ns > ep->last_depart)
			ep->last_depart = depart_ns;
		t->last_depart = depart_ns;
		t->sync_mark = t->sync_wait_ns;
		t->episodes++;
		t->compute_ns += ph_compute_ns(a);
		t->wait_ns += ph_wait_ns(a);
		t->compute_a_ns += ph_compute_a(a);
		t->wait_a_ns += ph_wait_a(a);
	}
	if (ep->departed == ep->n)
		complete(p, ep);
}

static struct ph_episode *open_episode(struct phases *p, __u32 pid, __u64 object, __u16 probe)
{
	struct ph_episode *ep = hmap_get(&p->open, pid, object);

	if (ep)
		return ep;
	if (reserve((void **)&p->inflight, &p->cap_inflight, p->ninflight + 1, sizeof(ep)))
		return NULL;
	ep = calloc(1, sizeof(*ep));
	if (!ep || hmap_put(&p->open, pid, object, ep)) {
		free(ep);
		return NULL;
	}
	ep->pid = pid;
	ep->object = object;
	ep->probe = probe;
	ep->state = PH_OPEN;
	p->inflight[p->ninflight++] = ep;
	return ep;
}

static void arrive(struct phases *p, struct ph_thread *t, const struct sbt_event *e, __u64 object)
{
	struct ph_episode *ep;
	struct ph_arrival *a;

	/* Still waiting from an earlier arrival: its departure was lost. */
	if (t->waiting)
		settle(p, t, 0, 0, 0, 0);
	ep = open_episode(p, e->pid, object, e->probe);
	if (!ep || reserve((void **)&ep->arr, &ep->cap, ep->n + 1, sizeof(*a)))
		return;
	a = &ep->arr[ep->n];
	memset(a, 0, sizeof(*a));
	a->tid = t->tid;
	a->arrive_ns = e->ts;
	a->site = t->last_site;
	a->sync_wait_ns = t->sync_wait_ns - t->sync_mark;
	a->start_ns = t->last_depart;
	if (!a->start_ns)
		a->start_ns = t->start_ns > p->cfg.start_ns ? t->start_ns : p->cfg.start_ns;
	/* records taken while attaching can predate the session start */
	if (a->start_ns > e->ts)
		a->start_ns = e->ts;
	if (approximating(p)) {
		a->ta_arrive = approx_time(p, t, e->ts);
		a->ta_start = t->ta_depart ? t->ta_depart : a->start_ns;
		a->overhead_ns = t->overhead_total - t->ovh_mark;
		t->ovh_mark = t->overhead_total;
	}
	if (!ep->n || e->ts < ep->first_arrive)
		ep->first_arrive = e->ts;
	if (e->ts > ep->last_arrive)
		ep->last_arrive = e->ts;
	t->waiting = ep;
	t->waiting_idx = ep->n++;
	t->ctr_target = CTR_ARRIVAL;
}

/* ---- counters -------------------------------------------------------------- */

/* Counter values at the thread's arrival give its compute-window deltas
 * (departure from its previous barrier -> this arrival, as SBT counted);
 * values at a departure open the next window. A thread counted since its
 * first run in the session has a known start (0) for phase 0 too. */
static void on_counters(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	__u32 k0 = SBT_CTR_INDEX(e->probe), j;
	__u64 v[2] = {e->obj, e->site};
	struct ph_arrival *a = NULL;

	if (t->ctr_target == CTR_ARRIVAL && t->waiting)
		a = &t->waiting->arr[t->waiting_idx];
	for (j = 0; j < 2 && k0 + j < (__u32)p->cfg.ncounters && k0 + j < SBT_MAX_COUNTERS; j++) {
		__u32 k = k0 + j;

		if (t->ctr_target == CTR_DEPARTURE) {
			t->ctr_depart[k] = v[j];
			t->ctr_depart_valid = 1;
		} else if (a && (t->ctr_depart_valid || (e->probe & SBT_CTR_SINCE_START))) {
			__u64 start = t->ctr_depart_valid ? t->ctr_depart[k] : 0;

			a->ctr[k] = v[j] > start ? v[j] - start : 0;
			a->ctr_valid = 1;
			a->ctr_scaled |= !!(e->probe & SBT_CTR_SCALED);
			t->ctr_total[k] += a->ctr[k];
		}
	}
}

/* ---- record dispatch ------------------------------------------------------- */

static int is_barrier(int kind)
{
	return kind == SBT_PK_BARRIER || kind == SBT_PK_TEAM_BARRIER;
}

/* Number of barrier calls on the thread's stack below depth d. */
static int barrier_depth(const struct phases *p, const struct ph_thread *t, int d)
{
	int i, n = 0;

	for (i = 0; i < d && i < STACK_MAX; i++)
		n += is_barrier(p->cfg.probes[t->stack[i].probe].kind);
	return n;
}

/* ---- hand-offs (DESIGN §5.4, models 5-7) ---------------------------------- */

static void note_release(struct phases *p, const struct sbt_event *e, __u64 ta)
{
	struct obj_state *o = obj_state(p, e->pid, e->obj);

	if (o) {
		o->tm = e->ts;
		o->ta = ta;
		o->probe = e->probe;
	}
}

/* Probe cost between a release's timestamp and the waiter's return
 * timestamp: the rest of the release's entry hit (a single-stepped
 * instruction costs most after the handler ran) and the start of the
 * waiter's return hit. */
static __u64 handoff_alpha(const struct phases *p, __u16 wait_probe, __u16 release_probe)
{
	return p->cfg.alpha_exit[wait_probe] + p->cfg.alpha_enter[release_probe];
}

/* A lock acquired after an unlock, a condition wait ended after a signal
 * (our extension of Malony-Reed §4.3, DESIGN §5.4 model 6): the measured
 * acquisition order is kept and no acquisition is approximated before the
 * release it needed. If the thread waited for it in the measurement (the
 * release came after its call began), it leaves at the approximated release
 * plus the measured hand-off less probe cost, or at its approximated call
 * entry if the lock was already free then (the uncontended path takes tens
 * of ns, so no hand-off). If it did not wait but the release is now later
 * than its call entry, it waits for it (case A). */
static void acquired(struct phases *p, struct ph_thread *t, __u64 tm_s, __u64 ta_s,
		     const struct sbt_event *e, __u16 wait_probe, const struct obj_state *r)
{
	__u64 ta_e = max_u64(time_based(t, e->ts), ta_s), ta;

	if (r->tm > e->ts)
		return;
	if (r->tm >= tm_s) {
		ta = r->ta + sub0(e->ts - r->tm, handoff_alpha(p, wait_probe, r->probe));
		ta = ta > ta_s ? ta : ta_s;
	} else {
		ta = r->ta > ta_s ? r->ta + (ta_e - ta_s) : ta_e;
	}
	rebase(p, t, e->ts, ta);
}

static void lock_acquired(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
			  const struct obj_state *r)
{
	acquired(p, t, t->stack[d].ts, t->stack[d].ta, e, e->probe, r);
}

/* Futex words are keyed apart from the objects of the same address (a
 * mutex's word is the mutex). */
#define FUTEX_KEY(pid) ((__u64)(pid) | 1ULL << 32)

/* A futex wait outside any probed call (a hand-made barrier or lock) ended
 * by a wake (DESIGN §5.4 model 7): the same rule as a lock, the wake being
 * the release; probe id 0 holds the syscall tracepoints' cost. */
static void futex_woken(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	const struct obj_state *r = hmap_get(&p->objects, FUTEX_KEY(e->pid), t->futex.uaddr);

	if (r && r->tm)
		acquired(p, t, t->futex.ts, t->futex.ta, e, 0, r);
}

/* A futex wake: the release a waiter's return may be re-timed on. */
static void futex_wake(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	struct obj_state *o = obj_state(p, FUTEX_KEY(e->pid), e->obj);

	if (o) {
		o->tm = e->ts;
		o->ta = max_u64(time_based(t, e->ts), t->ta_prev);
		o->probe = 0;
	}
}

/* A P that took V's token (Malony-Reed §4.3.2). P_s is the call's entry,
 * P_e its return. Waited in the measurement (V after P_s): case B when the
 * approximated V precedes P_s, t_a(P_e) = t_a(P_w) + t_m(P_e) - t_m(V) with
 * P_w = P_s, else t_a(V) + t_m(P_e) - t_m(V), both less probe cost. No wait
 * measured but V approximated after P_s: case A, P_p = V and the call's own
 * time follows. Otherwise time-based. */
static void sem_acquired(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
			 const struct sync_post *v)
{
	__u64 ta_s = t->stack[d].ta, ta_e = max_u64(time_based(t, e->ts), ta_s), ta;
	struct obj_state *o;

	if (v->ts > e->ts)
		return;
	if (v->ts >= t->stack[d].ts)
		ta = (v->ta > ta_s ? v->ta : ta_s) +
		     sub0(e->ts - v->ts, handoff_alpha(p, e->probe, v->probe));
	else
		ta = v->ta > ta_s ? v->ta + (ta_e - ta_s) : ta_e;
	rebase(p, t, e->ts, ta);
	o = obj_state(p, e->pid, t->stack[d].obj);
	if (o) {
		o->outstanding -= !!o->outstanding;
		o->ta_last_p = ta;
	}
}

/* A V (sem_post), at its entry. If every earlier V had been taken when it
 * was measured, the last P to take one came before it; approximated before
 * that P, two V's would be pending where the measurement had one (case C):
 * logged, and the V moved just after that P. */
static __u64 sem_posted(struct phases *p, struct ph_thread *t, const struct sbt_event *e, __u64 ta)
{
	struct obj_state *o = obj_state(p, e->pid, e->obj);

	if (!o)
		return ta;
	if (!o->outstanding && o->ta_last_p && ta <= o->ta_last_p) {
		violation(p, PH_VIOL_SEM_CASE_C, e->pid, e->tid, e->obj, e->ts,
			  o->ta_last_p + 1 - ta);
		ta = o->ta_last_p + 1;
		rebase(p, t, e->ts, ta);
	}
	o->outstanding++;
	return ta;
}

static int is_release(int kind)
{
	return kind == SBT_PK_UNLOCK || kind == SBT_PK_SEM_POST || kind == SBT_PK_COND_SIGNAL;
}

/* Waits that take time out of a thread's compute phase. */
static int is_sync_wait(int kind)
{
	return kind == SBT_PK_LOCK || kind == SBT_PK_SEM_WAIT || kind == SBT_PK_COND_WAIT;
}

static void on_call(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	int kind = p->cfg.probes[e->probe].kind;
	int d = t->depth, i;
	__u64 ta;

	/* A barrier function does not call itself: the same probe still on
	 * the stack means its return record was lost. Unwind to it, and the
	 * thread's departure from that episode is unknown. */
	if (is_barrier(kind)) {
		for (i = 0; i < d && i < STACK_MAX; i++)
			if (t->stack[i].probe == e->probe)
				break;
		if (i < d && i < STACK_MAX) {
			t->depth = d = i;
			if (t->waiting)
				settle(p, t, 0, 0, 0, 0);
		}
	}
	if (d < STACK_MAX) {
		memset(&t->stack[d], 0, sizeof(t->stack[d]));
		t->stack[d].probe = e->probe;
		t->stack[d].ts = e->ts;
		t->stack[d].obj = e->obj;
		t->stack[d].arg2 = e->site;
	}
	t->depth++;
	ta = approximating(p) ? t->ta_prev : 0; /* approximated by phases__feed() */
	if (kind == SBT_PK_SEM_POST && event_based(p))
		ta = sem_posted(p, t, e, ta);
	if (d < STACK_MAX)
		t->stack[d].ta = ta;
	/* An unlock, post or signal takes effect at its entry. */
	if (is_release(kind) && event_based(p) && kind != SBT_PK_SEM_POST)
		note_release(p, e, ta);
	if (is_release(kind) && p->cfg.sync)
		sync__release(p->cfg.sync, e->pid, e->tid, e->probe, e->obj, e->ts, ta);
	/* Only the outermost barrier call counts: a user-declared barrier that
	 * wraps pthread_barrier_wait is one episode, not two. */
	if (is_barrier(kind) && barrier_depth(p, t, d) == 0)
		arrive(p, t, e, kind == SBT_PK_BARRIER ? e->obj : 0);
}

/* A lock, semaphore or condvar call other than a release returned: to the
 * sync analysis and the hand-off models. Returns 1 if it was a P paired
 * with the V in *v. */
static int call_done(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
		     struct sync_post *v)
{
	struct sync_call c = {
		.pid = e->pid,
		.tid = e->tid,
		.probe = e->probe,
		.enter_ns = t->stack[d].ts,
		.exit_ns = e->ts,
		.obj = t->stack[d].obj,
		.arg2 = t->stack[d].arg2,
		.retval = (__s64)e->obj,
		.site = e->site,
		.blocked_ns = t->stack[d].blocked_ns,
		.futex_waits = t->stack[d].futex_waits,
	};

	int kind = p->cfg.probes[e->probe].kind, paired;
	struct obj_state *r;

	paired = sync__call(p->cfg.sync, &c, v);
	if (!event_based(p) || (int)c.retval != 0 || d >= STACK_MAX)
		return paired;
	if (kind == SBT_PK_SEM_WAIT || kind == SBT_PK_SEM_TRYWAIT) {
		if (paired)
			sem_acquired(p, t, d, e, v);
		return paired;
	}
	r = hmap_get(&p->objects, e->pid, c.obj);
	if (r && r->tm &&
	    (kind == SBT_PK_LOCK || kind == SBT_PK_TRYLOCK || kind == SBT_PK_COND_WAIT))
		lock_acquired(p, t, d, e, r);
	return paired;
}

/* The completed call, to the call callback. */
static void call_returned(struct phases *p, struct ph_thread *t, int d, const struct sbt_event *e,
			  const struct sync_post *v)
{
	struct ph_call c = {
		.pid = e->pid,
		.tid = e->tid,
		.probe = e->probe,
		.kind = p->cfg.probes[e->probe].kind,
		.retval = (__s64)e->obj,
		.exit_ns = e->ts,
	};

	if (d < STACK_MAX) {
		c.obj = t->stack[d].obj;
		c.enter_ns = t->stack[d].ts;
		c.enter_a = t->stack[d].ta;
	}
	if (approximating(p))
		c.exit_a = approx_time(p, t, e->ts);
	if (v) {
		c.v_tid = v->tid;
		c.v_ns = v->ts;
		c.v_a = v->ta;
	}
	p->ops.call(p->ctx, &c);
}

static void region_done(struct phases *p, const struct sbt_event *e, __u64 ns)
{
	struct ph_region_stats *r = &p->regions;
	struct ph_region_site *rs;
	__u32 i;

	r->count++;
	r->total_ns += ns;
	for (i = 0; i < r->nsites; i++)
		if (r->sites[i].pid == e->pid && r->sites[i].site == e->site &&
		    r->sites[i].probe == e->probe)
			break;
	if (i == r->nsites) {
		rs = realloc(r->sites, (r->nsites + 1) * sizeof(*rs));
		if (!rs)
			return;
		r->sites = rs;
		rs[r->nsites++] = (struct ph_region_site){
			.pid = e->pid, .site = e->site, .probe = e->probe, .min_ns = UINT64_MAX};
	}
	rs = &r->sites[i];
	rs->count++;
	rs->total_ns += ns;
	rs->min_ns = ns < rs->min_ns ? ns : rs->min_ns;
	rs->max_ns = ns > rs->max_ns ? ns : rs->max_ns;
}

static void on_return(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	int kind = p->cfg.probes[e->probe].kind;
	int d;

	/* Find the matching call; exits of calls entered before the session
	 * (or whose entry was lost) have none and are ignored. */
	for (d = t->depth - 1; d >= 0; d--)
		if (d < STACK_MAX && t->stack[d].probe == e->probe)
			break;
	if (d < 0)
		return;
	t->depth = d;
	/* the caller's wait includes the callee's blocked time */
	if (d > 0 && d <= STACK_MAX) {
		t->stack[d - 1].blocked_ns += t->stack[d].blocked_ns;
		t->stack[d - 1].futex_waits += t->stack[d].futex_waits;
	}
	if (is_sync_wait(kind))
		t->sync_wait_ns += e->ts - t->stack[d].ts;
	if (kind == SBT_PK_REGION) {
		region_done(p, e, e->ts - t->stack[d].ts);
	} else if (is_barrier(kind)) {
		if (barrier_depth(p, t, d) == 0)
			settle(p, t, e->ts, (__s64)e->obj, e->site, t->stack[d].blocked_ns);
	} else {
		struct sync_post v = {0};
		int paired = !is_release(kind) && p->cfg.sync && call_done(p, t, d, e, &v);

		if (p->ops.call)
			call_returned(p, t, d, e, paired ? &v : NULL);
	}
}

static void on_futex_enter(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	t->futex.active = 1;
	t->futex.op = (__u32)e->site;
	t->futex.uaddr = e->obj;
	t->futex.ts = e->ts;
	t->futex.ta = t->ta_prev;
	if (event_based(p) && sync__futex_is_wake(t->futex.op))
		futex_wake(p, t, e);
}

/* A futex wait splits the wait of the innermost probed call into spinning
 * and blocked time; outside any probed call it is a wait of its own. An
 * immediate -EAGAIN (the value had changed) did not block. */
static void on_futex_exit(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	__s64 ret = (__s64)e->obj;
	__u64 d = e->ts - t->futex.ts;
	int top = t->depth - 1;

	if (!t->futex.active)
		return;
	t->futex.active = 0;
	if (sync__futex_is_wait(t->futex.op)) {
		if (ret == -EAGAIN)
			return;
		if (top >= 0 && top < STACK_MAX) {
			t->stack[top].blocked_ns += d;
			t->stack[top].futex_waits++;
		}
		if (p->cfg.sync)
			sync__futex_wait(p->cfg.sync, e->pid, e->tid, t->futex.uaddr, t->futex.ts,
					 e->ts, top >= 0);
		if (top < 0 && !ret && event_based(p))
			futex_woken(p, t, e);
	} else if (sync__futex_is_wake(t->futex.op) && p->cfg.sync) {
		sync__futex_wake(p->cfg.sync, e->pid, t->futex.uaddr, ret);
	}
}

/* Fork-join (Malony-Reed §3.2.2): once the last worker of a process has
 * exited, its main thread (which was joining them) continues from the
 * worker exit with the greatest approximated time, if that is earlier than
 * its own approximation. */
static void join_workers(struct phases *p, struct ph_thread *w, __u64 ta_exit, __u64 tm_exit)
{
	struct ph_thread *main = hmap_get(&p->threads, w->pid, 0);
	size_t i;

	if (!main || main == w)
		return;
	if (ta_exit >= main->join_ta) {
		main->join_ta = ta_exit;
		main->join_tm = tm_exit;
	}
	for (i = 0; i < p->nthreads; i++) {
		const struct ph_thread *o = p->thread_list[i];

		if (o->pid == w->pid && o != main && !o->exit_ns)
			return; /* a worker is still running */
	}
	/* no earlier than the main thread's latest event either */
	if (main->join_ta < time_based(main, main->join_tm))
		rebase(p, main, main->join_tm,
		       main->join_ta > main->ta_prev ? main->join_ta : main->ta_prev);
}

/* Fork (Malony-Reed §3.2.2): a new thread takes its time basis from its
 * creator's approximated time. The record does not name the creator: the
 * process's main thread is taken to be it, and a thread of its own process
 * starts at its measured time when there is none. */
static void thread_started(struct phases *p, struct ph_thread *t, __u64 tm)
{
	struct ph_thread *main = hmap_get(&p->threads, t->pid, 0);
	__u64 ta = tm;

	if (approximating(p) && main && main != t && !main->exit_ns)
		ta = time_based(main, tm);
	restart(t, tm, ta);
	note_last(p, tm, ta);
}

static void on_thread_exit(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	t->exit_ns = e->ts;
	t->depth = 0;
	if (approximating(p))
		join_workers(p, t, approx_time(p, t, e->ts), e->ts);
	/* A released thread that never returned: settle without departure.
	 * A thread that dies inside an open barrier leaves it hanging. */
	if (t->waiting && t->waiting->state == PH_RELEASING)
		settle(p, t, 0, 0, 0, 0);
}

/* A new thread with the id of one that exited: nothing of the old one's
 * windows, calls or counters carries over (its totals stay merged under the
 * id). */
static void recycle_thread(struct phases *p, struct ph_thread *t)
{
	if (t->waiting)
		settle(p, t, 0, 0, 0, 0);
	t->exit_ns = 0;
	t->last_depart = 0;
	t->last_site = 0;
	t->depth = 0;
	t->futex.active = 0;
	t->sync_mark = t->sync_wait_ns;
	t->ctr_depart_valid = 0;
	t->ctr_target = CTR_NONE;
	t->ta_depart = 0;
	t->ovh_mark = t->overhead_total;
}

static void note_lost(struct phases *p, __u32 lost)
{
	size_t i;

	p->lost += lost;
	for (i = 0; i < p->ninflight; i++)
		p->inflight[i]->lost += lost;
}

int phases__feed(struct phases *p, const struct sbt_event *e)
{
	struct ph_thread *t;

	p->events++;
	if (!p->first_ts || e->ts < p->first_ts)
		p->first_ts = e->ts;
	if (e->ts > p->last_ts)
		p->last_ts = e->ts;
	if (e->lost)
		note_lost(p, e->lost);
	if ((e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT) &&
	    (e->probe >= p->cfg.nprobes || !p->cfg.probes[e->probe].kind)) {
		p->bad++;
		return -EINVAL;
	}
	if (e->type < SBT_EV_ENTER || e->type > SBT_EV_COUNTERS) {
		p->bad++;
		return -EINVAL;
	}
	t = thread_get(p, e->pid, e->tid, e->ts);
	if (!t)
		return -ENOMEM;
	if (e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT)
		t->ctr_target = CTR_NONE; /* set again by an arrival or a departure */
	/* futex records inside a probed call are part of that call: they get
	 * no approximated time of their own (the call's return may move
	 * before them) */
	if (approximating(p) && e->type != SBT_EV_EXIT && e->type != SBT_EV_FUTEX_EXIT &&
	    !(e->type == SBT_EV_FUTEX_ENTER && t->depth > 0))
		approx_time(p, t, e->ts);
	switch (e->type) {
	case SBT_EV_ENTER:
		on_call(p, t, e);
		break;
	case SBT_EV_EXIT:
		on_return(p, t, e);
		break;
	case SBT_EV_COUNTERS:
		on_counters(p, t, e);
		if (approximating(p)) {
			t->ovh += p->cfg.alpha_counters;
			t->overhead_total += p->cfg.alpha_counters;
		}
		break;
	case SBT_EV_THREAD_START:
		if (t->exit_ns)
			recycle_thread(p, t);
		t->start_ns = e->ts;
		thread_started(p, t, e->ts);
		break;
	case SBT_EV_THREAD_EXIT:
		on_thread_exit(p, t, e);
		break;
	case SBT_EV_FUTEX_ENTER:
		on_futex_enter(p, t, e);
		break;
	case SBT_EV_FUTEX_EXIT:
		on_futex_exit(p, t, e);
		break;
	}
	if (e->type == SBT_EV_ENTER || e->type == SBT_EV_EXIT) {
		if (approximating(p) && e->type == SBT_EV_EXIT)
			approx_time(p, t, e->ts); /* after a departure re-based it */
		pay(p, t, e->type, e->probe);
	} else if (e->type == SBT_EV_FUTEX_ENTER || e->type == SBT_EV_FUTEX_EXIT) {
		/* a return from a wait may have been re-timed on its wake */
		if (approximating(p) && e->type == SBT_EV_FUTEX_EXIT && t->depth == 0)
			approx_time(p, t, e->ts);
		pay(p, t, e->type, 0);
	}
	return 0;
}

/* ---- hangs --------------------------------------------------------------- */

static int arrived(const struct ph_episode *ep, __u32 tid)
{
	__u32 i;

	for (i = 0; i < ep->n; i++)
		if (ep->arr[i].tid == tid)
			return 1;
	return 0;
}

/* Threads expected at ep but not arrived: those that took part in earlier
 * episodes of the same barrier, or else every live thread of the process. */
static int missing_threads(const struct phases *p, const struct ph_episode *ep, __u32 **out)
{
	__u32 *m = calloc(p->nthreads + 1, sizeof(*m));
	size_t i, j;
	int n = 0, expected = 0;

	if (!m)
		return 0;
	for (i = 0; i < p->nsites; i++) {
		const struct ph_site *s = &p->sites[i];

		if (s->pid != ep->pid || s->object != ep->object)
			continue;
		for (j = 0; j < s->nidle; j++) {
			__u32 tid = s->idle[j].tid;
			int dup = 0, k;

			expected = 1;
			for (k = 0; k < n; k++)
				dup |= m[k] == tid;
			if (!dup && !arrived(ep, tid))
				m[n++] = tid;
		}
	}
	if (!expected) {
		for (i = 0; i < p->nthreads; i++) {
			const struct ph_thread *t = p->thread_list[i];

			if (t->pid == ep->pid && !t->exit_ns && !arrived(ep, t->tid))
				m[n++] = t->tid;
		}
	}
	*out = m;
	return n;
}

static void report_hang(struct phases *p, struct ph_episode *ep)
{
	__u32 *missing = NULL;
	int n;

	ep->hang_reported = 1;
	if (!p->ops.hang)
		return;
	n = missing_threads(p, ep, &missing);
	p->ops.hang(p->ctx, ep, missing, n);
	free(missing);
}

void phases__check_hangs(struct phases *p, __u64 now_ns, __u64 timeout_ns)
{
	size_t i;

	for (i = 0; i < p->ninflight; i++) {
		struct ph_episode *ep = p->inflight[i];

		if (ep->state == PH_OPEN && !ep->hang_reported && ep->n &&
		    now_ns >= ep->last_arrive + timeout_ns)
			report_hang(p, ep);
	}
}

void phases__finish(struct phases *p)
{
	size_t i;

	/* Settle released episodes first: completing them may move sites'
	 * participant lists, which hang reports read. */
	for (i = 0; i < p->nthreads; i++) {
		struct ph_thread *t = p->thread_list[i];

		if (t->waiting && t->waiting->state == PH_RELEASING)
			settle(p, t, 0, 0, 0, 0);
	}
	for (i = 0; i < p->ninflight; i++)
		if (!p->inflight[i]->hang_reported)
			report_hang(p, p->inflight[i]);
}

/* ---- accessors and metrics ------------------------------------------------- */

size_t phases__nsites(const struct phases *p)
{
	return p->nsites;
}

const struct ph_site *phases__site(const struct phases *p, size_t i)
{
	return i < p->nsites ? &p->sites[i] : NULL;
}

size_t phases__nthreads(const struct phases *p)
{
	return p->nthreads;
}

const struct ph_thread *phases__thread(const struct phases *p, size_t i)
{
	return i < p->nthreads ? p->thread_list[i] : NULL;
}

const struct ph_region_stats *phases__regions(const struct phases *p)
{
	return &p->regions;
}

__u64 phases__completed(const struct phases *p)
{
	return p->completed;
}

__u64 phases__events(const struct phases *p)
{
	return p->events;
}

__u64 phases__bad_records(const struct phases *p)
{
	return p->bad;
}

__u64 phases__lost(const struct phases *p)
{
	return p->lost;
}

__u64 phases__grouping_errors(const struct phases *p)
{
	return p->grouping_errors;
}

__u64 phases__approx_last_ts(const struct phases *p)
{
	return p->ta_last;
}

__u64 phases__first_ts(const struct phases *p)
{
	return p->first_ts;
}

__u64 phases__last_ts(const struct phases *p)
{
	return p->last_ts;
}

__u64 phases__lost_phases(const struct phases *p, __u64 *first, int max)
{
	int i;

	for (i = 0; i < max && i < LOST_PHASES_KEPT && (__u64)i < p->lost_phases; i++)
		first[i] = p->lost_first[i];
	return p->lost_phases;
}

void ph_episode_times(const struct ph_episode *ep, int view, struct ph_episode_times *m)
{
	__u64 sum = 0;
	__u32 i;

	memset(m, 0, sizeof(*m));
	m->first_arrive = UINT64_MAX;
	for (i = 0; i < ep->n; i++) {
		struct ph_times t = ph_times(&ep->arr[i], view);
		__u64 c = t.arrive > t.start ? t.arrive - t.start : 0;

		m->first_arrive = t.arrive < m->first_arrive ? t.arrive : m->first_arrive;
		if (t.arrive >= m->last_arrive) {
			m->last_arrive = t.arrive;
			m->critical_tid = ep->arr[i].tid;
		}
		m->start = t.start > m->start ? t.start : m->start;
		m->max_compute = c > m->max_compute ? c : m->max_compute;
		sum += c;
	}
	if (!ep->n) {
		m->first_arrive = 0;
		m->lb = 1.0;
		return;
	}
	m->barrier_ns = m->last_arrive - m->first_arrive;
	m->phase_ns = sub0(m->last_arrive, m->start);
	m->mean_compute = sum / ep->n;
	m->imbalance_ns = m->max_compute - m->mean_compute;
	m->lb = m->max_compute ? (double)m->mean_compute / (double)m->max_compute : 1.0;
}

__u64 ph_phase_ns(const struct ph_episode *ep)
{
	struct ph_episode_times m;

	ph_episode_times(ep, PH_MEASURED, &m);
	return m.phase_ns;
}

__u64 phases__violations(const struct phases *p, int kind)
{
	__u64 n = 0;
	int k;

	if (kind >= 0 && kind < PH_VIOL_NKINDS)
		return p->violations[kind];
	for (k = 0; k < PH_VIOL_NKINDS; k++)
		n += p->violations[k];
	return n;
}

__u64 phases__thread_approx(const struct phases *p, __u32 tid)
{
	const struct ph_thread *t = hmap_get(&p->threads, tid, 0);

	return t && approximating(p) ? t->ta_prev : 0;
}

__u64 phases__clamped(const struct phases *p)
{
	return p->clamped;
}

size_t phases__violation_list(const struct ph_violation **first, const struct phases *p)
{
	*first = p->violation_list;
	return p->nviolation_list;
}

const char *ph_violation_name(int kind)
{
	static const char *const names[PH_VIOL_NKINDS] = {
		[PH_VIOL_SEM_CASE_C] = "semaphore_case_c",
		[PH_VIOL_ORDER] = "thread_order",
		[PH_VIOL_BARRIER] = "barrier_exit",
	};

	return kind >= 0 && kind < PH_VIOL_NKINDS ? names[kind] : "unknown";
}
