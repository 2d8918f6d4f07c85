// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SVG timeline (doc/design.md §6): a row per thread and view, time across.
 * Each row is cut into one cell per pixel column holding the compute,
 * barrier-wait and other-wait time that fell in it, so the picture stays
 * readable (and memory bounded) for thousands of phases. Above the rows, a
 * band shows which phase was in progress, in its barrier site's colour.
 * This file collects; export_svg_draw.c draws.
 */
#include <stdlib.h>
#include <string.h>
#include "analyses/export_svg_impl.h"
#include "analyses/export_svg_scale.h"

static struct svg *state(struct exporter *x)
{
	return x->state;
}

static int alloc_cells(struct exporter *x, struct svg_row *r)
{
	int v;

	for (v = 0; v < 2; v++) {
		if (!svg__collects(x, v))
			continue;
		r->cells[v] = calloc(state(x)->cols, sizeof(struct svg_cell));
		if (!r->cells[v])
			return -1;
	}
	return 0;
}

struct svg_row *svg__row(struct exporter *x, __u32 pid, __u32 tid)
{
	struct svg *s = state(x);
	struct svg_row *r;
	size_t i;

	if (hmap_get_index(&s->rows, tid, 0, &i))
		return &s->row[i];
	if (s->nrows == SVG_MAX_ROWS) {
		hmap_put_index(&s->left_out, tid, 0, 0);
		return NULL;
	}
	if (s->nrows == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct svg_row *n = realloc(s->row, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->row = n;
		s->cap = cap;
	}
	r = &s->row[s->nrows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->tid = tid;
	if (alloc_cells(x, r) || hmap_put_index(&s->rows, tid, 0, s->nrows)) {
		free(r->cells[0]);
		free(r->cells[1]);
		return NULL;
	}
	return &s->row[s->nrows++];
}

static void fini(struct exporter *x)
{
	struct svg *s = state(x);
	size_t i;

	if (!s)
		return;
	for (i = 0; i < s->nrows; i++) {
		free(s->row[i].cells[0]);
		free(s->row[i].cells[1]);
	}
	free(s->row);
	free(s->ph_lo);
	free(s->ph_hi);
	free(s->ph_site);
	hmap_free(&s->rows);
	hmap_free(&s->left_out);
	free(s);
	x->state = NULL;
}

static int init(struct exporter *x, char *err, size_t errlen)
{
	struct svg *s = calloc(1, sizeof(*s));
	int i;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	x->state = s;
	s->width = x->o.width >= SVG_MIN_W ? x->o.width : x->o.width ? SVG_MIN_W : SVG_DEFAULT_W;
	s->cols = s->width - SVG_LABEL_W - SVG_RIGHT;
	s->t0 = x->src.phases.start_ns;
	s->t1 = x->o.end_ns > s->t0 ? x->o.end_ns : s->t0 + 1;
	hmap_init(&s->rows);
	hmap_init(&s->left_out);
	s->ph_lo = malloc(s->cols * sizeof(*s->ph_lo));
	s->ph_hi = calloc(s->cols, sizeof(*s->ph_hi));
	s->ph_site = calloc(s->cols, sizeof(*s->ph_site));
	if (!s->ph_lo || !s->ph_hi || !s->ph_site) {
		snprintf(err, errlen, "out of memory");
		fini(x);
		return -1;
	}
	for (i = 0; i < s->cols; i++)
		s->ph_lo[i] = SVG_NO_PHASE;
	for (i = 0; i < x->o.nthreads; i++)
		svg__row(x, x->o.threads[i].pid, x->o.threads[i].tid);
	return 0;
}

double svg__col_ns(const struct svg *s)
{
	return (double)(s->t1 - s->t0) / s->cols;
}

int svg__column(const struct svg *s, __u64 t)
{
	double c = t <= s->t0 ? 0 : (t - s->t0) / svg__col_ns(s);

	return c >= s->cols ? s->cols - 1 : (int)c;
}

static void add(__u32 *slot, double ns)
{
	double v = *slot + ns;

	*slot = v > 4e9 ? 4000000000u : (__u32)v;
}

enum { COMPUTE, WAIT, OTHER };

/* Spread [a, b) over the columns it covers. */
static void spread(struct svg *s, struct svg_cell *cells, __u64 a, __u64 b, int what)
{
	double w = svg__col_ns(s);
	int c;

	if (!cells || b <= a)
		return;
	for (c = svg__column(s, a); c <= svg__column(s, b); c++) {
		double lo = s->t0 + c * w, hi = lo + w;
		double from = a > lo ? a : lo, to = b < hi ? b : hi;
		struct svg_cell *cl = &cells[c];

		if (to > from)
			add(what == COMPUTE ? &cl->compute
			    : what == WAIT  ? &cl->wait
					    : &cl->other,
			    to - from);
	}
}

/* How far the approximation moved a time: the views look alike when no
 * time moved by a column (export_svg_draw.c draws one then). */
static void shift(struct svg *s, __u64 tm, __u64 ta)
{
	__u64 d = tm > ta ? tm - ta : ta - tm;

	if (tm && ta && d > s->max_shift)
		s->max_shift = d;
}

/* The columns from the phase's start to its last arrival have it in
 * progress. */
static void band(struct exporter *x, const struct ph_episode *ep)
{
	struct svg *s = state(x);
	struct ph_episode_times m;
	int c;

	ph_episode_times(ep, svg__collects(x, 0) ? PH_MEASURED : PH_APPROXIMATED, &m);
	for (c = svg__column(s, m.start); c <= svg__column(s, m.last_arrive); c++) {
		if (s->ph_lo[c] == SVG_NO_PHASE) {
			s->ph_lo[c] = s->ph_hi[c] = ep->index;
			s->ph_site[c] = ep->site;
			continue;
		}
		if (s->ph_site[c] != ep->site)
			s->ph_site[c] = SVG_MIXED;
		s->ph_lo[c] = ep->index < s->ph_lo[c] ? ep->index : s->ph_lo[c];
		s->ph_hi[c] = ep->index > s->ph_hi[c] ? ep->index : s->ph_hi[c];
	}
}

static void episode_view(struct exporter *x, const struct ph_episode *ep, int v)
{
	struct svg *s = state(x);
	struct ph_episode_times m;
	int view = v ? PH_APPROXIMATED : PH_MEASURED;
	__u32 i;

	ph_episode_times(ep, view, &m);
	for (i = 0; i < ep->n; i++) {
		struct svg_row *r = svg__row(x, ep->pid, ep->arr[i].tid);
		struct ph_times t = ph_times(&ep->arr[i], view);

		if (!r)
			continue;
		spread(s, r->cells[v], t.start, t.arrive, COMPUTE);
		spread(s, r->cells[v], t.arrive, t.depart, WAIT);
		if (ep->arr[i].tid == m.critical_tid)
			r->cells[v][svg__column(s, m.last_arrive)].critical = 1;
	}
}

static void episode(struct exporter *x, const struct ph_episode *ep)
{
	struct svg *s = state(x);
	__u32 i;
	int v;

	for (v = 0; v < 2; v++)
		if (svg__collects(x, v))
			episode_view(x, ep, v);
	for (i = 0; svg__collects(x, 0) && svg__collects(x, 1) && i < ep->n; i++) {
		struct ph_times m = ph_times(&ep->arr[i], PH_MEASURED);
		struct ph_times a = ph_times(&ep->arr[i], PH_APPROXIMATED);

		shift(s, m.start, a.start);
		shift(s, m.arrive, a.arrive);
		shift(s, m.depart, a.depart);
	}
	band(x, ep);
}

/* A wait outside barriers: both views' cells, as other wait. */
static void other_wait(struct exporter *x, const struct ph_call *c)
{
	struct svg *s = state(x);
	struct svg_row *r = svg__row(x, c->pid, c->tid);

	if (!r || !c->enter_ns)
		return;
	spread(s, r->cells[0], c->enter_ns, c->exit_ns, OTHER);
	if (c->exit_a)
		spread(s, r->cells[1], c->enter_a, c->exit_a, OTHER);
	if (r->cells[0] && r->cells[1]) {
		shift(s, c->enter_ns, c->enter_a);
		shift(s, c->exit_ns, c->exit_a);
	}
}

static void call(struct exporter *x, const struct ph_call *c)
{
	if (c->kind == SBT_PK_LOCK || c->kind == SBT_PK_SEM_WAIT || c->kind == SBT_PK_COND_WAIT)
		other_wait(x, c);
}

/* Thread starts and exits: the rows' lifetimes, in both views. */
static void record(struct exporter *x, const struct sbt_event *e, __u64 ta)
{
	struct svg_row *r;

	if (e->type != SBT_EV_THREAD_START && e->type != SBT_EV_THREAD_EXIT)
		return;
	r = svg__row(x, e->pid, e->tid);
	if (!r)
		return;
	if (e->type == SBT_EV_THREAD_START) {
		r->born[0] = e->ts;
		r->born[1] = ta ? ta : e->ts;
		r->died[0] = r->died[1] = 0;
	} else {
		r->died[0] = e->ts;
		r->died[1] = ta ? ta : e->ts;
	}
	if (r->cells[0] && r->cells[1])
		shift(state(x), e->ts, ta);
}

static void end(struct exporter *x, const struct phases *p, const struct export_drops *d)
{
	svg__draw(x, p, d);
}

const struct export_format_ops export_svg_ops = {
	.init = init,
	.episode = episode,
	.call = call,
	.futex_wait = other_wait,
	.record = record,
	.end = end,
	.fini = fini,
};
