// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * SVG timeline: a row per thread and view (measured, then approximated
 * below it), time across. Each row is cut into one cell per pixel column
 * holding the compute and barrier-wait time that fell in it, so the picture
 * stays readable (and memory bounded) for thousands of phases: a cell is
 * drawn green for compute, red for waiting, mixed by their shares; the
 * critical (last arriving) thread of a phase gets a black tick at the
 * phase's end.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/export.h"
#include "lib/hmap.h"

#define ROW_H	  14
#define LABEL_W	  190
#define TOP	  40
#define DEFAULT_W 1600

struct cell {
	__u32 compute, wait; /* ns in this column, saturating (a column < 4 s) */
	__u8 critical;
};

struct row {
	__u32 pid, tid;
	struct cell *cells[2]; /* per view */
};

struct svg {
	int width;
	__u64 t0, t1;
	struct hmap rows; /* tid -> index + 2 */
	struct row *row;
	size_t nrows, cap;
};

static struct svg *state(struct exporter *x)
{
	return x->state;
}

static int nviews(const struct exporter *x)
{
	return (x->o.views & EXPORT_MEASURED ? 1 : 0) + (x->o.views & EXPORT_APPROXIMATED ? 1 : 0);
}

static struct row *row_of(struct exporter *x, __u32 pid, __u32 tid)
{
	struct svg *s = state(x);
	/* stored as index + 2: hmap values 0 and 1 are taken */
	size_t i = (size_t)(uintptr_t)hmap_get(&s->rows, tid, 0);
	struct row *r;
	int v;

	if (i)
		return &s->row[i - 2];
	if (s->nrows == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct row *n = realloc(s->row, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->row = n;
		s->cap = cap;
	}
	r = &s->row[s->nrows];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->tid = tid;
	for (v = 0; v < 2; v++) {
		r->cells[v] = calloc(s->width, sizeof(struct cell));
		if (!r->cells[v]) {
			free(r->cells[0]);
			return NULL;
		}
	}
	if (hmap_put(&s->rows, tid, 0, (void *)(uintptr_t)(s->nrows + 2))) {
		free(r->cells[0]);
		free(r->cells[1]);
		return NULL;
	}
	return &s->row[s->nrows++];
}

static int init(struct exporter *x, char *err, size_t errlen)
{
	struct svg *s = calloc(1, sizeof(*s));
	int i;

	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->width = x->o.width > 0 ? x->o.width : DEFAULT_W;
	s->t0 = x->src.phases.start_ns;
	s->t1 = x->o.end_ns > s->t0 ? x->o.end_ns : s->t0 + 1;
	hmap_init(&s->rows);
	x->state = s;
	for (i = 0; i < x->o.nthreads; i++)
		row_of(x, x->o.threads[i].pid, x->o.threads[i].tid);
	return 0;
}

static void fini(struct exporter *x)
{
	struct svg *s = state(x);
	size_t i;

	for (i = 0; i < s->nrows; i++) {
		free(s->row[i].cells[0]);
		free(s->row[i].cells[1]);
	}
	free(s->row);
	hmap_free(&s->rows);
	free(s);
}

static double col_ns(const struct svg *s)
{
	return (double)(s->t1 - s->t0) / s->width;
}

static int column(const struct svg *s, __u64 t)
{
	double c = t <= s->t0 ? 0 : (t - s->t0) / col_ns(s);

	return c >= s->width ? s->width - 1 : (int)c;
}

static void add(__u32 *slot, double ns)
{
	double v = *slot + ns;

	*slot = v > 4e9 ? 4000000000u : (__u32)v;
}

/* Spread [a, b) over the columns it covers, into compute or wait. */
static void spread(struct svg *s, struct cell *cells, __u64 a, __u64 b, int wait)
{
	double w = col_ns(s);
	int c;

	if (b <= a)
		return;
	for (c = column(s, a); c <= column(s, b); c++) {
		double lo = s->t0 + c * w, hi = lo + w;
		double from = a > lo ? a : lo, to = b < hi ? b : hi;

		if (to > from)
			add(wait ? &cells[c].wait : &cells[c].compute, to - from);
	}
}

static void episode(struct exporter *x, const struct ph_episode *ep)
{
	struct svg *s = state(x);
	int view, v;
	__u32 i;

	for (view = PH_MEASURED, v = 0; view <= PH_APPROXIMATED; view++) {
		struct ph_episode_times m;

		if (!(x->o.views & (view == PH_MEASURED ? EXPORT_MEASURED : EXPORT_APPROXIMATED)))
			continue;
		ph_episode_times(ep, view, &m);
		for (i = 0; i < ep->n; i++) {
			struct row *r = row_of(x, ep->pid, ep->arr[i].tid);
			struct ph_times t = ph_times(&ep->arr[i], view);

			if (!r)
				continue;
			spread(s, r->cells[v], t.start, t.arrive, 0);
			spread(s, r->cells[v], t.arrive, t.depart, 1);
			if (ep->arr[i].tid == m.critical_tid)
				r->cells[v][column(s, m.last_arrive)].critical = 1;
		}
		v++;
	}
}

static void begin(struct exporter *x)
{
}

/* green (compute) to red (wait) by the wait share */
static void color(const struct cell *c, char *buf, size_t n)
{
	double w = (double)c->wait / ((double)c->wait + c->compute);

	snprintf(buf, n, "#%02x%02x%02x", (int)(60 + 180 * w), (int)(170 - 120 * w), 60);
}

static void draw_row(struct exporter *x, const struct cell *cells, int y)
{
	struct svg *s = state(x);
	char cur[8] = "", col[8];
	int c, start = 0;

	for (c = 0; c <= s->width; c++) {
		int empty = c == s->width || !(cells[c].compute + cells[c].wait);

		if (!empty)
			color(&cells[c], col, sizeof(col));
		else
			col[0] = 0;
		if (strcmp(col, cur)) {
			if (cur[0])
				fprintf(x->o.out,
					"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					"fill=\"%s\"/>\n",
					LABEL_W + start, y, c - start, ROW_H - 3, cur);
			memcpy(cur, col, sizeof(cur));
			start = c;
		}
	}
	for (c = 0; c < s->width; c++)
		if (cells[c].critical)
			fprintf(x->o.out,
				"<rect x=\"%d\" y=\"%d\" width=\"1\" height=\"%d\" "
				"fill=\"#000\"/>\n",
				LABEL_W + c, y - 2, ROW_H + 1);
}

static void axis(struct exporter *x, int height)
{
	struct svg *s = state(x);
	double span = (double)(s->t1 - s->t0);
	int i;

	for (i = 0; i <= 10; i++) {
		int px = LABEL_W + i * s->width / 10;

		fprintf(x->o.out,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ccc\"/>\n"
			"<text x=\"%d\" y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%.3f "
			"s</text>\n",
			px, TOP - 6, px, height - 20, px, TOP - 10, span * i / 10 / 1e9);
	}
}

static void end(struct exporter *x, const struct phases *p, const struct export_drops *d)
{
	struct svg *s = state(x);
	int nv = nviews(x), height = TOP + (int)s->nrows * nv * ROW_H + 40, v, y;
	FILE *f = x->o.out;
	size_t i;

	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		"<text x=\"4\" y=\"14\" font-size=\"13\">sbt-bpf: %" PRIu64
		" phases; green compute, red barrier wait, black tick: critical thread%s</text>\n",
		LABEL_W + s->width + 10, height, (uint64_t)phases__completed(p),
		nv == 2 ? "; each thread: measured, then approximated (~)" : "");
	axis(x, height);
	for (i = 0, y = TOP; i < s->nrows; i++) {
		for (v = 0; v < nv; v++, y += ROW_H) {
			fprintf(f, "<text x=\"4\" y=\"%d\" font-size=\"11\">%s%.20s %u</text>\n",
				y + ROW_H - 4, nv == 2 && v ? "~ " : "",
				export__comm(x, s->row[i].tid), s->row[i].tid);
			draw_row(x, s->row[i].cells[v], y);
		}
	}
	if (d && d->total)
		fprintf(f,
			"<text x=\"4\" y=\"%d\" font-size=\"12\" fill=\"#c00\">%" PRIu64
			" records lost</text>\n",
			height - 6, (uint64_t)d->total);
	fputs("</svg>\n", f);
}

const struct export_format_ops export_svg_ops = {
	.init = init,
	.begin = begin,
	.episode = episode,
	.end = end,
	.fini = fini,
};
