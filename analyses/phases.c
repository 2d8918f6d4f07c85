// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The barrier-phase analysis as an object (doc/design.md §5.1): its lifecycle,
 * what it exposes, and the metrics of an episode in either view. The work
 * is done by the modules listed in analyses/phases_impl.h.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/condbar.h"
#include "analyses/forkjoin.h"
#include "analyses/phases_impl.h"
#include "analyses/sembar.h"
#include "analyses/semgroups.h"

/* Which condvars and semaphores are barriers. Without them (no memory),
 * none is. */
static void new_classifiers(struct phases *p)
{
	p->condbar = condbar__new(p->cfg.probes, p->cfg.nprobes);
	p->sembar = sembar__new(p->cfg.probes, p->cfg.nprobes);
	p->semgroups = semgroups__new(NULL, NULL);
	if (!p->sembar || !p->semgroups) {
		sembar__free(p->sembar);
		semgroups__free(p->semgroups);
		p->sembar = NULL;
		p->semgroups = NULL;
	}
}

struct phases *phases__new(const struct phases_config *cfg, const struct phases_ops *ops, void *ctx)
{
	struct phases *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->cfg = *cfg;
	p->conc_k = 1; /* no hit beside another yet */
	if (ops)
		p->ops = *ops;
	p->ctx = ctx;
	hmap_init(&p->threads);
	hmap_init(&p->open);
	hmap_init(&p->bodies);
	hmap_init(&p->objects);
	hmap_init(&p->procs);
	hmap_init(&p->barriers);
	hmap_init(&p->member_set);
	hmap_init(&p->site_ix);
	hmap_init(&p->idle_ix);
	hmap_init(&p->region_ix);
	if (!cfg->no_sync_barriers)
		new_classifiers(p);
	p->band = band__new(p);
	p->forkjoin = forkjoin__new(); /* NULL: no steps reported */
	return p;
}

static void free_procs(struct phases *p)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	while ((s = hmap_next(&p->procs, &pos)))
		free(((struct ph_proc *)s->val)->tasks.buf);
	hmap_free_values(&p->procs);
}

static void free_barriers(struct phases *p)
{
	const struct hmap_slot *s;
	size_t pos = 0;

	while ((s = hmap_next(&p->barriers, &pos)))
		free(((struct ph_barrier *)s->val)->tids);
	hmap_free_values(&p->barriers);
}

void phases__free(struct phases *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < p->nthreads; i++) {
		free(p->thread_list[i]->stack);
		free(p->thread_list[i]);
	}
	for (i = 0; i < p->ninflight; i++)
		episode__free(p->inflight[i]);
	for (i = 0; i < p->nsites; i++)
		free(p->sites[i].idle);
	free(p->regions.sites);
	free(p->thread_list);
	free(p->inflight);
	free(p->watch);
	free(p->sites);
	hmap_free(&p->threads);
	hmap_free(&p->open);
	hmap_free_values(&p->bodies);
	hmap_free_values(&p->objects);
	free_procs(p);
	free_barriers(p);
	hmap_free(&p->member_set);
	hmap_free(&p->site_ix);
	hmap_free(&p->idle_ix);
	hmap_free(&p->region_ix);
	condbar__free(p->condbar);
	sembar__free(p->sembar);
	semgroups__free(p->semgroups);
	band__free(p->band);
	forkjoin__free(p->forkjoin);
	free(p->held);
	free(p);
}

void phases__set_stopped(struct phases *p, const __u32 *tids, int n)
{
	int kept = n < PH_STOPPED_KEPT ? n : PH_STOPPED_KEPT;
	struct phases *side;
	int i;

	for (i = 0; (side = band__side(p->band, i)); i++)
		phases__set_stopped(side, tids, n);
	if (kept > 0) /* tids may be NULL with none */
		memcpy(p->stopped, tids, kept * sizeof(*tids));
	p->nstopped = n > 0 ? n : 0;
}

int phases__stopped(const struct phases *p, const __u32 **tids)
{
	*tids = p->stopped;
	return p->nstopped;
}

void phases__on_record(struct phases *p,
		       void (*fn)(void *ctx, const struct sbt_event *e, const struct phases *p),
		       void *ctx)
{
	p->on_record = fn;
	p->record_ctx = ctx;
}

/* ---- accessors ------------------------------------------------------------- */

const struct forkjoin *phases__forkjoin(const struct phases *p)
{
	return p->forkjoin;
}

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

__u64 phases__partial(const struct phases *p)
{
	return p->partial;
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

__u64 phases__concurrent_forks(const struct phases *p)
{
	return p->concurrent_forks;
}

__u64 phases__grouping_errors(const struct phases *p)
{
	return p->grouping_errors;
}

__u64 phases__out_of_order(const struct phases *p)
{
	return p->out_of_order;
}

__u64 phases__first_ts(const struct phases *p)
{
	return p->first_ts;
}

__u64 phases__last_ts(const struct phases *p)
{
	return p->last_ts;
}

__u64 phases__eff_phases(const struct phases *p)
{
	return p->eff_phases;
}

__u64 phases__eff_start(const struct phases *p, int view)
{
	return p->eff_start[view == PH_APPROXIMATED];
}

__u64 phases__lost_phases(const struct phases *p, __u64 *first, int max)
{
	int i;

	for (i = 0; i < max && i < LOST_PHASES_KEPT && (__u64)i < p->lost_phases; i++)
		first[i] = p->lost_first[i];
	return p->lost_phases;
}

/* The usual number of threads of an episode: the most frequent among the
 * complete ones; 0 when none completed. */
static __u64 usual_team(const struct phases *p)
{
	__u64 best = 0;
	int n;

	for (n = 1; n < PH_TEAM_SIZES_KEPT; n++)
		if (p->team_sizes[n] > p->team_sizes[best])
			best = n;
	return p->team_sizes[best] ? best : 0;
}

__u64 phases__missing_phases(const struct phases *p)
{
	__u64 team = usual_team(p), all;

	if (!team || !p->lost_arrivals)
		return 0;
	all = (p->arrivals + p->lost_arrivals + team / 2) / team;
	return all > p->completed ? all - p->completed : 0;
}

/* ---- episode metrics (doc/design.md §5.1) ------------------------------------------- */

void ph_episode_times(const struct ph_episode *ep, int view, struct ph_episode_times *m)
{
	__u64 sum = 0;
	__u32 i;

	memset(m, 0, sizeof(*m));
	m->first_arrive = m->start = UINT64_MAX;
	for (i = 0; i < ep->n; i++) {
		struct ph_times t = ph_times(&ep->arr[i], view);
		__u64 c = t.arrive > t.start ? t.arrive - t.start : 0;

		m->first_arrive = t.arrive < m->first_arrive ? t.arrive : m->first_arrive;
		if (t.arrive >= m->last_arrive) {
			m->last_arrive = t.arrive;
			m->critical_tid = ep->arr[i].tid;
		}
		m->start = t.start < m->start ? t.start : m->start;
		m->max_compute = c > m->max_compute ? c : m->max_compute;
		sum += c;
	}
	if (!ep->n) {
		m->first_arrive = m->start = 0;
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
