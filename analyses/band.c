// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The error band of the approximation (doc/design.md §5.4): two more phase
 * analyses fed the same records, one charging every probe the least cost
 * the session's calibrations allow it, the other the greatest
 * (alpha_series__range()) and every hand-off at the least measured at its
 * object (cfg.least_handoffs): the probes' cost, and what they may have
 * done to a hand-off, both removed at their most. What they approximate
 * bounds what this analysis does, figure by figure: the run, each phase (matched by completion
 * index: the three complete the same episodes in the same order, which
 * measured times alone decide), each thread.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/phases_impl.h"

enum { BAND_LEAST, BAND_GREATEST };

/* A phase a band analysis completed, until this one completes it too. */
struct band_phase {
	__u64 index, phase_ns;
};

struct band {
	__u64 generation; /* of the series when the tables were filled */
	struct band_side {
		struct phases *p;
		__u64 *enter, *exit;  /* its cost tables, by probe id */
		struct band_phase *q; /* completed, not yet taken: a queue */
		size_t head, n, cap;
	} side[2];
};

static void on_band_episode(void *ctx, const struct ph_episode *ep)
{
	struct band_side *s = ctx;
	struct ph_episode_times m;

	if (s->head && s->head == s->n)
		s->head = s->n = 0;
	if (array_reserve((void **)&s->q, &s->cap, s->n + 1, sizeof(*s->q)))
		return; /* no memory: that phase has no band */
	ph_episode_times(ep, PH_APPROXIMATED, &m);
	s->q[s->n++] = (struct band_phase){ep->index, m.phase_ns};
}

/* Costs of one side: a probe bound to the series, its least or greatest;
 * any other, the cost this analysis charges. */
static void fill_costs(const struct phases_config *cfg, int which, __u64 *enter, __u64 *exit,
		       __u64 *counters)
{
	struct alpha_cost lo, hi, *c = which == BAND_LEAST ? &lo : &hi;
	int id, e;

	for (id = 0; id < cfg->nprobes; id++) {
		enter[id] = cfg->alpha_enter[id];
		exit[id] = cfg->alpha_exit[id];
		if (!alpha_series__range(cfg->alpha_series, id, &lo, &hi))
			continue;
		/* a calibration holds no --inject-delay; uprobe hits spun it */
		enter[id] = c->entry_ns + (id ? cfg->inject_ns : 0);
		exit[id] = c->exit_ns + (id ? cfg->inject_ns : 0);
	}
	*counters = cfg->alpha_counters;
	e = alpha_series__counters(cfg->alpha_series);
	if (cfg->alpha_counters && e >= 0) {
		struct alpha_entry_info in = alpha_series__entry(cfg->alpha_series, e);

		if (in.measured)
			*counters = which == BAND_LEAST ? in.min.entry_ns : in.max.entry_ns;
	}
}

static int open_side(struct phases *p, struct band_side *s, int which)
{
	static const struct phases_ops ops = {.episode = on_band_episode};
	struct phases_config cfg = p->cfg;
	size_t n = cfg.nprobes > 0 ? (size_t)cfg.nprobes : 1;

	s->enter = calloc(n, sizeof(*s->enter));
	s->exit = calloc(n, sizeof(*s->exit));
	if (!s->enter || !s->exit)
		return -1;
	fill_costs(&p->cfg, which, s->enter, s->exit, &cfg.alpha_counters);
	cfg.alpha_enter = s->enter;
	cfg.alpha_exit = s->exit;
	cfg.alpha_series = NULL; /* the tables hold the bound throughout */
	cfg.sync = NULL;	 /* the lock tables are this analysis's */
	cfg.error_band = 0;
	cfg.least_handoffs = which == BAND_GREATEST;
	s->p = phases__new(&cfg, &ops, s);
	return s->p ? 0 : -1;
}

void band__free(struct band *b)
{
	int i;

	if (!b)
		return;
	for (i = 0; i < 2; i++) {
		phases__free(b->side[i].p);
		free(b->side[i].enter);
		free(b->side[i].exit);
		free(b->side[i].q);
	}
	free(b);
}

struct band *band__new(struct phases *p)
{
	struct band *b;

	if (!p->cfg.error_band || !p->cfg.alpha_series || !approx__enabled(p))
		return NULL;
	b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	if (open_side(p, &b->side[BAND_LEAST], BAND_LEAST) ||
	    open_side(p, &b->side[BAND_GREATEST], BAND_GREATEST)) {
		band__free(b);
		return NULL; /* no memory: no band */
	}
	b->generation = alpha_series__generation(p->cfg.alpha_series);
	return b;
}

/* A live session adds calibrations and binds probes as it goes (the costs
 * of probes attached later, of a new process): the sides charge the new
 * range from the next record on. */
static void refresh(struct band *b, const struct phases *p)
{
	__u64 g = alpha_series__generation(p->cfg.alpha_series);
	int i;

	if (g == b->generation)
		return;
	b->generation = g;
	for (i = 0; i < 2; i++)
		fill_costs(&p->cfg, i, b->side[i].enter, b->side[i].exit,
			   &b->side[i].p->cfg.alpha_counters);
}

struct phases *band__side(struct band *b, int i)
{
	return b && i < 2 ? b->side[i].p : NULL;
}

struct phases *band__feed_side(struct band *b, const struct phases *p, int i)
{
	if (b && !i)
		refresh(b, p);
	return band__side(b, i);
}

static void widen(struct ph_band *b, __u64 v)
{
	b->lo = v < b->lo ? v : b->lo;
	b->hi = v > b->hi ? v : b->hi;
}

/* The span side s gave phase index, taken from its queue; 0 when it has
 * none (no memory). Phases come in the same order: older ones missing here
 * were dropped. */
static int take(struct band_side *s, __u64 index, __u64 *phase_ns)
{
	while (s->head < s->n && s->q[s->head].index < index)
		s->head++;
	if (s->head == s->n || s->q[s->head].index != index)
		return 0;
	*phase_ns = s->q[s->head++].phase_ns;
	return 1;
}

void band__episode(struct band *b, struct ph_episode *ep)
{
	struct ph_episode_times m;
	struct ph_band r;
	__u64 v[2];

	if (!b || !take(&b->side[0], ep->index, &v[0]) || !take(&b->side[1], ep->index, &v[1]))
		return;
	ph_episode_times(ep, PH_APPROXIMATED, &m);
	r = (struct ph_band){m.phase_ns, m.phase_ns};
	widen(&r, v[0]);
	widen(&r, v[1]);
	ep->band_lo = r.lo;
	ep->band_hi = r.hi;
	ep->band_known = 1;
}

int phases__band(const struct phases *p, struct ph_band *duration)
{
	int i;

	if (!p->band)
		return 0;
	*duration = (struct ph_band){phases__approx_duration(p), phases__approx_duration(p)};
	for (i = 0; i < 2; i++)
		widen(duration, phases__approx_duration(p->band->side[i].p));
	return 1;
}

static __u64 end_a(const struct phases *p, const struct ph_thread *t)
{
	__u64 first = phases__first_ts(p);

	return t->ta_prev > first ? t->ta_prev - first : 0;
}

int phases__thread_band(const struct phases *p, __u32 tid, struct ph_band *compute,
			struct ph_band *end)
{
	const struct ph_thread *t = p->band ? hmap_get(&p->threads, tid, 0) : NULL;
	int i;

	if (!t)
		return 0;
	*compute = (struct ph_band){t->compute_a_ns, t->compute_a_ns};
	*end = (struct ph_band){end_a(p, t), end_a(p, t)};
	for (i = 0; i < 2; i++) {
		const struct ph_thread *o = hmap_get(&p->band->side[i].p->threads, tid, 0);

		if (!o)
			return 0;
		widen(compute, o->compute_a_ns);
		widen(end, end_a(p->band->side[i].p, o));
	}
	return 1;
}
