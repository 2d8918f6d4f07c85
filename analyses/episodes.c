// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Barrier episodes from enter/exit records (doc/design.md §5.1).
 *
 * Grouping: arrivals at the same barrier key (pid + object, or pid + team for
 * barriers that name no object) join the key's OPEN episode. The first
 * departure releases it: later arrivals at the same key start a new episode,
 * even if some threads of the released one have not been seen leaving yet
 * (a fast thread can leave and arrive again before a slow one wakes up).
 * An episode completes when each of its arrivals has departed, or is known
 * never to (lost record, thread exited, end of trace): it is then handed to
 * the episode callback and freed.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/phases_impl.h"

void episode__free(struct ph_episode *ep)
{
	if (ep) {
		free(ep->arr);
		free(ep);
	}
}

/* Out of the in-flight list: the last one takes its slot. */
static void inflight_remove(struct phases *p, struct ph_episode *ep)
{
	size_t i = ep->inflight_ix;

	if (i >= p->ninflight || p->inflight[i] != ep)
		return;
	p->inflight[i] = p->inflight[--p->ninflight];
	p->inflight[i]->inflight_ix = i;
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

/* Arrivals still expected: a semaphore barrier's waiter can enter its wait
 * after the last thread posted (and left). */
static int awaits_arrivals(const struct ph_episode *ep)
{
	return ep->n < ep->expect;
}

/* The records lost while ep was in flight, with those it was marked with
 * at its arrivals, saturated (a u32). */
static __u32 lost_in_flight(const struct phases *p, const struct ph_episode *ep)
{
	__u64 n = ep->lost + (p->lost_clock - ep->lost_base);

	return n > UINT32_MAX ? UINT32_MAX : (__u32)n;
}

static void complete(struct phases *p, struct ph_episode *ep)
{
	struct ph_site *s = sites__get(p, ep);

	ep->lost = lost_in_flight(p, ep);
	hangs__unwatch(p, ep);
	ep->index = p->completed++;
	/* Two serial threads: two episodes were merged. None: only wrong when
	 * every participant was seen, and not in the first episode of a
	 * barrier, which may miss threads already waiting when we attached. */
	if (checks_serial(p, ep) &&
	    (ep->serial > 1 || (!ep->serial && all_departed(ep) && s && s->episodes > 0)))
		p->grouping_errors++;
	p->partial += !!ep->partial;
	if (s) {
		ep->site = s->id;
		if (!ep->partial) {
			sites__account(p, s, ep);
			eff_sums__episode(p, s, ep);
		}
	}
	if (!ep->partial)
		approx_barrier__note_beta(p, ep);
	if (!ep->lost && !ep->partial && ep->n < PH_TEAM_SIZES_KEPT)
		p->team_sizes[ep->n]++;
	if (ep->lost) {
		if (p->lost_phases < LOST_PHASES_KEPT)
			p->lost_first[p->lost_phases] = ep->index;
		p->lost_phases++;
	}
	band__episode(p->band, ep);
	if (p->ops.episode)
		p->ops.episode(p->ctx, ep);
	inflight_remove(p, ep);
	episode__free(ep);
}

/* A departure closes the thread's phase: its totals, and the start of the
 * next one. */
static void departed(struct phases *p, struct ph_thread *t, struct ph_episode *ep,
		     const struct ph_arrival *a)
{
	int k;

	t->ctr_target = CTR_DEPARTURE;
	if (a->depart_ns > ep->last_depart)
		ep->last_depart = a->depart_ns;
	t->last_depart = a->depart_ns;
	waits__mark(t);
	if (ep->partial)
		return;
	for (k = 0; a->ctr_valid && k < SBT_MAX_COUNTERS; k++)
		t->ctr_total[k] += a->ctr[k];
	t->episodes++;
	t->compute_ns += ph_compute_ns(a);
	t->wait_ns += ph_wait_ns(a);
	t->compute_a_ns += ph_compute_a(a);
	t->wait_a_ns += ph_wait_a(a);
}

/* The first departure: later arrivals at its key begin the next episode. */
static void release(struct phases *p, struct ph_episode *ep)
{
	if (ep->state == PH_OPEN) {
		ep->state = PH_RELEASING;
		hmap_del(&p->open, ep->pid, ep->key);
		hangs__unwatch(p, ep);
	}
}

void episodes__settle(struct phases *p, struct ph_thread *t, __u64 depart_ns, __s64 retval,
		      __u64 site, __u64 blocked_ns)
{
	struct ph_episode *ep = t->waiting;
	struct ph_arrival *a;

	if (!ep)
		return;
	cond_leave__others(p, ep, t, depart_ns);
	t->waiting = NULL;
	if (!awaits_arrivals(ep))
		release(p, ep);
	a = &ep->arr[t->waiting_idx];
	a->depart_ns = depart_ns;
	a->retval = retval;
	a->blocked_ns = blocked_ns;
	ep->serial += depart_ns && (int)retval == -1; /* an int: upper bits are garbage */
	ep->departed++;
	hangs__unwatch(p, ep);
	if (site) {
		a->site = site;
		t->last_site = site;
	}
	if (depart_ns && approx__enabled(p)) {
		a->ta_depart = approx_barrier__exit(
			p, t, ep, a, depart_ns,
			t->depth < t->stack_cap ? t->stack[t->depth].probe : ep->probe);
		t->ta_depart = a->ta_depart;
	}
	if (depart_ns)
		departed(p, t, ep, a);
	if (ep->departed == ep->n && !awaits_arrivals(ep))
		complete(p, ep);
}

static struct ph_episode *open_episode(struct phases *p, __u32 pid, __u64 key, __u64 object,
				       __u16 probe)
{
	struct ph_episode *ep = hmap_get(&p->open, pid, key);

	if (ep)
		return ep;
	if (array_reserve((void **)&p->inflight, &p->cap_inflight, p->ninflight + 1, sizeof(ep)))
		return NULL;
	ep = hmap_put_new(&p->open, pid, key, sizeof(*ep));
	if (!ep)
		return NULL;
	ep->pid = pid;
	ep->key = key;
	ep->object = object;
	ep->probe = probe;
	ep->state = PH_OPEN;
	/* the arrival opening it may come after others of its own that were
	 * lost: marked while records are being lost */
	ep->lost = p->loss_until >= p->last_ts;
	ep->lost_base = p->lost_clock;
	ep->inflight_ix = p->ninflight;
	p->inflight[p->ninflight++] = ep;
	return ep;
}

/* Arrivals of a thread after a loss that are marked: a thread that lost
 * a return and the next entry pairs the return after them with its old
 * arrival (that episode is in flight: marked) and joins its next arrival
 * to the wrong episode; the one after is right again. */
#define LOSS_MARKED_ARRIVALS 2

/* Thread t's process lost records since t last looked (episodes__lost_window):
 * which of its threads lost them is not known, so any may have, t too. */
static void take_losses(struct phases *p, struct ph_thread *t)
{
	const struct ph_proc *pr = hmap_get(&p->procs, t->pid, 0);

	if (!pr || t->loss_seq == pr->loss_seq)
		return;
	t->loss_seq = pr->loss_seq;
	t->loss_marks = LOSS_MARKED_ARRIVALS;
	t->loss_after = pr->loss_after;
}

/* What thread t's compute window held until ts, into its arrival a (added
 * to what a took before: a task run at the barrier moves the arrival): its
 * waits (their marks move at departures only), the probe cost and
 * sbt-bpf's own CPU removed from it, and its approximated time at ts. */
static void take_window(struct phases *p, struct ph_thread *t, struct ph_arrival *a, __u64 ts)
{
	waits__arrival(t, a);
	if (!approx__enabled(p))
		return;
	a->ta_arrive = approx__time(p, t, ts);
	a->overhead_ns += t->overhead_total - t->ovh_mark;
	t->ovh_mark = t->overhead_total;
	a->preempted_ns += t->preempted_total - t->prm_mark;
	t->prm_mark = t->preempted_total;
}

/* Where thread t's phase began: its previous departure, else its start,
 * no earlier than the session's, no later than this arrival at ts. */
static __u64 phase_start(const struct phases *p, const struct ph_thread *t, __u64 ts)
{
	__u64 start = t->last_depart;

	if (!start)
		start = t->start_ns > p->cfg.start_ns ? t->start_ns : p->cfg.start_ns;
	/* records taken while attaching can predate the session start */
	return start > ts ? ts : start;
}

void episodes__arrive(struct phases *p, struct ph_thread *t, const struct sbt_event *e, __u64 key,
		      __u64 object)
{
	struct ph_episode *ep;
	struct ph_arrival *a;

	/* Still waiting from an earlier arrival: its departure was lost. */
	if (t->waiting)
		episodes__settle(p, t, 0, 0, 0, 0);
	ep = open_episode(p, e->pid, key, object, e->probe);
	if (!ep || array_reserve((void **)&ep->arr, &ep->cap, ep->n + 1, sizeof(*a)))
		return;
	a = &ep->arr[ep->n];
	memset(a, 0, sizeof(*a));
	a->tid = t->tid;
	a->arrive_ns = e->ts;
	a->site = t->last_site;
	a->start_ns = phase_start(p, t, e->ts);
	a->partial = !t->last_depart && t->start_unknown;
	ep->partial += a->partial;
	take_window(p, t, a, e->ts);
	if (approx__enabled(p))
		a->ta_start = t->ta_depart ? t->ta_depart : a->start_ns;
	p->arrivals++;
	take_losses(p, t);
	if (t->loss_marks && e->ts > t->loss_after) {
		t->loss_marks--;
		ep->lost++;
	}
	if (!ep->n || e->ts < ep->first_arrive)
		ep->first_arrive = e->ts;
	if (!ep->n || e->ts > ep->last_arrive) {
		ep->last_arrive = e->ts;
		if (ep->state == PH_OPEN && !ep->departed)
			hangs__watch(p, ep);
	}
	t->waiting = ep;
	t->waiting_idx = ep->n++;
	t->ctr_target = CTR_ARRIVAL;
	/* the last one expected, after a departure */
	if (ep->departed && !awaits_arrivals(ep))
		release(p, ep);
}

/* The first and last arrival of ep, from its arrivals. */
static void arrival_bounds(struct ph_episode *ep)
{
	__u32 i;

	for (i = 0; i < ep->n; i++) {
		if (!i || ep->arr[i].arrive_ns < ep->first_arrive)
			ep->first_arrive = ep->arr[i].arrive_ns;
		if (!i || ep->arr[i].arrive_ns > ep->last_arrive)
			ep->last_arrive = ep->arr[i].arrive_ns;
	}
}

void episodes__withdraw(struct phases *p, struct ph_thread *t, __u64 ts)
{
	struct ph_episode *ep = t->waiting;
	struct ph_arrival *a;
	struct ph_thread *o;
	__u32 i;

	if (!ep)
		return;
	if (ep->departed || ep->state != PH_OPEN || t->waiting_idx >= ep->n) {
		episodes__settle(p, t, ts, 0, 0, 0); /* too late: a wait of no time */
		return;
	}
	i = t->waiting_idx;
	a = &ep->arr[i];
	/* its compute window goes on */
	t->ovh_mark -= a->overhead_ns;
	t->prm_mark -= a->preempted_ns;
	ep->partial -= a->partial;
	p->arrivals--;
	t->waiting = NULL;
	t->ctr_target = CTR_NONE;
	ep->arr[i] = ep->arr[--ep->n];
	o = i < ep->n ? hmap_get(&p->threads, ep->arr[i].tid, 0) : NULL;
	if (o && o->waiting == ep)
		o->waiting_idx = i;
	hangs__unwatch(p, ep);
	if (!ep->n) {
		hmap_del(&p->open, ep->pid, ep->key);
		inflight_remove(p, ep);
		episode__free(ep);
		return;
	}
	arrival_bounds(ep);
	hangs__watch(p, ep);
}

/* OpenMP runtimes run a team's queued tasks in its barriers: a thread that
 * arrived ran task bodies while it waited, and that is work. Its arrival
 * moves to the return of each such body (record e), with what its compute
 * window held until then (doc/design.md §5.1); the barrier's waiting, and
 * the barrier's last arrival, begin there. The counters stay those read at
 * the barrier's entry. */
void episodes__task_ran(struct phases *p, struct ph_thread *t, const struct sbt_event *e)
{
	struct ph_episode *ep = t->waiting;
	struct ph_arrival *a;
	int was_first;
	__u32 i;

	if (!ep || t->waiting_idx >= ep->n || e->ts <= ep->arr[t->waiting_idx].arrive_ns)
		return;
	a = &ep->arr[t->waiting_idx];
	/* once a thread has left, the barrier was over: libgomp lets one still
	 * in its barrier call run tasks the next phase created (that time stays
	 * the barrier's, as a late departure) */
	if (ep->departed) {
		a->ran_late = 1;
		return;
	}
	was_first = a->arrive_ns == ep->first_arrive;
	a->arrive_ns = e->ts;
	take_window(p, t, a, e->ts);
	/* the first arrival moved: the first is another's, or still this */
	for (i = 0; was_first && i < ep->n; i++)
		if (i == 0 || ep->arr[i].arrive_ns < ep->first_arrive)
			ep->first_arrive = ep->arr[i].arrive_ns;
	if (e->ts > ep->last_arrive) {
		ep->last_arrive = e->ts;
		if (ep->state == PH_OPEN)
			hangs__watch(p, ep); /* working there is no hang */
	}
}

/* ep expects n arrivals from now on: released if it had waited only for
 * arrivals that n no longer asks for. */
static void expect_arrivals(struct phases *p, struct ph_episode *ep, __u32 n)
{
	int waited = awaits_arrivals(ep);

	ep->expect = n;
	if (!waited || awaits_arrivals(ep) || !ep->departed)
		return;
	release(p, ep);
	if (ep->departed == ep->n)
		complete(p, ep);
}

void episodes__expect(struct phases *p, __u32 pid, __u64 key, __u32 n)
{
	struct ph_episode *ep = hmap_get(&p->open, pid, key);

	if (ep)
		expect_arrivals(p, ep, n);
}

void episodes__stop_expecting(struct phases *p, struct ph_episode *ep)
{
	expect_arrivals(p, ep, 0);
}

void episodes__stop_expecting_key(struct phases *p, __u32 pid, __u64 key)
{
	struct ph_episode *ep = hmap_get(&p->open, pid, key);

	if (ep)
		episodes__stop_expecting(p, ep);
}

void episodes__lost_window(struct phases *p, const struct sbt_event *e)
{
	struct ph_proc *pr = threads__proc(p, e->pid);

	p->lost += e->lost;
	p->lost_arrivals += e->site;
	p->lost_clock += e->lost;
	if (e->obj > p->loss_until)
		p->loss_until = e->obj;
	/* its threads take the loss at their next arrival (take_losses) */
	if (pr) {
		pr->loss_seq++;
		pr->loss_after = e->obj;
	}
}

void episodes__lost(struct phases *p, __u32 lost)
{
	p->lost += lost;
	p->lost_clock += lost;
}
