// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Draws the SVG timeline (doc/design.md §6) from what export_svg.c
 * collected: a title, the legend (colour swatches, the barrier sites), the
 * time axis with round ticks, the phase band with phase numbers, a row per
 * thread and view. Every element lies within the picture's width: text
 * widths are estimated (export_svg_text.h) and text is cut to its room.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "analyses/export_svg_impl.h"
#include "analyses/export_svg_scale.h"
#include "analyses/export_svg_text.h"
#include "analyses/names.h"

#define MARGIN	  6
#define ROW_H	  14
#define FS	  11 /* text */
#define FS_SMALL  10 /* time ticks, phase numbers */
#define LINE_H	  15
#define TICK_PX	  70 /* at least, between two time ticks */
#define MAX_SITES 8  /* listed in the legend; all of them on hover */
#define NAME_LEN  256
#define SITE_LEN  (2 * NAME_LEN + 8)

struct pen {
	struct exporter *x;
	const struct phases *p;
	struct svg *s;
	FILE *f;		/* the body (the height is known at its end) */
	int y;			/* top of the next block */
	int view[2], nv;	/* the views drawn: 0 measured, 1 approximated */
	char (*site)[SITE_LEN]; /* names of the barrier sites */
	size_t nsites;
};

static const char *const palette[] = {"#7b5ea7", "#e08e1b", "#2b9c94", "#a0522d",
				      "#d0589a", "#6b8e23", "#4a6fa5", "#8c8c3c"};
static const int green[3] = {60, 170, 60}, red[3] = {240, 50, 60}, blue[3] = {70, 120, 210};

#define GREY "#aaa"

static const char *site_color(__u32 site)
{
	return site == SVG_MIXED ? "#555" : palette[site % (sizeof(palette) / sizeof(*palette))];
}

static int right(const struct pen *pn)
{
	return pn->s->width - MARGIN;
}

static void fmt_ns(double ns, char *buf, size_t n)
{
	if (ns < 1e3)
		snprintf(buf, n, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, n, "%.1f µs", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, n, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, n, "%.2f s", ns / 1e9);
}

/* A line of text at x, baseline y, cut before the right margin; with a
 * tooltip when title is not NULL. */
static void text(struct pen *pn, int x, int y, int fs, const char *attrs, const char *s,
		 const char *title)
{
	fprintf(pn->f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\"%s>", x, y, fs, attrs);
	svg_text(pn->f, s, svg_text_fit(right(pn) - x, fs));
	if (title) {
		fputs("<title>", pn->f);
		svg_text(pn->f, title, (size_t)-1);
		fputs("</title>", pn->f);
	}
	fputs("</text>\n", pn->f);
}

/* A paragraph, broken at spaces into lines that fit. */
static void para(struct pen *pn, int fs, const char *s)
{
	size_t fit = svg_text_fit(right(pn) - MARGIN, fs);
	char line[1024];

	while (*s) {
		size_t n = 0, cut = 0, chars = 0;

		/* the longest prefix of whole words within fit characters */
		while (s[n] && n < sizeof(line) - 1) {
			if (s[n] == ' ' && chars <= fit)
				cut = n;
			if ((s[n] & 0xc0) != 0x80 && ++chars > fit)
				break;
			n++;
		}
		if (!s[n] || !cut)
			cut = n ? n : 1; /* n is 0 only with no room at all */
		memcpy(line, s, cut);
		line[cut] = 0;
		pn->y += fs + 4;
		text(pn, MARGIN, pn->y, fs, "", line, NULL);
		for (s += cut; *s == ' '; s++)
			;
	}
}

/* ---- which views ---------------------------------------------------------- */

/* The measured and approximated rows look the same when the approximation
 * moved no time by a column: then only the measured ones are drawn (unless
 * --both asked for both), and a note says so. */
static void choose_views(struct pen *pn, char *note, size_t n)
{
	struct exporter *x = pn->x;
	double col = svg__col_ns(pn->s);
	char a[32], b[32];
	int v;

	for (v = 0; v < 2; v++)
		if (svg__collects(x, v))
			pn->view[pn->nv++] = v;
	if (pn->nv == 2 && !x->o.keep_views && pn->s->max_shift < col) {
		pn->nv = 1;
		fmt_ns((double)pn->s->max_shift, a, sizeof(a));
		fmt_ns(col, b, sizeof(b));
		snprintf(note, n,
			 "Approximated times (probe cost removed) not drawn: they differ from the "
			 "measured ones by %s at most, less than a pixel (%s); --both draws them.",
			 a, b);
	} else if (pn->nv == 2) {
		snprintf(note, n,
			 "Each thread: its measured row, then its approximated row (~: probe cost "
			 "removed).");
	} else if (pn->view[0]) {
		snprintf(note, n, "Approximated times (probe cost removed).");
	} else if (!x->src.phases.alpha_enter || !x->src.phases.alpha_exit) {
		snprintf(note, n,
			 "Measured times (the trace has no probe costs: no approximated view).");
	} else {
		snprintf(note, n, "Measured times.");
	}
}

/* ---- title and legend ----------------------------------------------------- */

static void title(struct pen *pn, const char *note)
{
	struct svg *s = pn->s;
	char line[1100], span[32];

	snprintf(line, sizeof(line), "sbt-bpf: %s", pn->x->src.command ? pn->x->src.command : "");
	pn->y += 16;
	text(pn, MARGIN, pn->y, 14, " font-weight=\"bold\"", line, pn->x->src.command);
	fmt_ns((double)(s->t1 - s->t0), span, sizeof(span));
	snprintf(line, sizeof(line),
		 "%" PRIu64 " phases at %zu barrier site%s, %zu threads, %s traced. %s",
		 (uint64_t)phases__completed(pn->p), pn->nsites, pn->nsites == 1 ? "" : "s",
		 s->nrows, span, note);
	para(pn, FS, line);
}

struct key {
	const char *label;
	const char *fill;
	int w, h; /* the swatch */
};

/* Colour swatches with their meaning, wrapped to the width. */
#define CRIT_COLOR "#e0a800"

/* The view index (in pn->view) of the rows the critical path goes under:
 * the approximated, or the one set drawn when the views look alike. */
static int approximated_row(const struct pen *pn)
{
	int k;

	for (k = 0; k < pn->nv; k++)
		if (pn->view[k] == PH_APPROXIMATED)
			return k;
	return pn->nv == 1 ? 0 : -1;
}

/* --critical-path: its stretches are drawn under the approximated rows. */
static int critical_drawn(const struct pen *pn)
{
	return pn->x->o.critical_path && !pn->x->path_err && approximated_row(pn) >= 0;
}

/* A bar under each approximated row where its thread is on the critical
 * path: the path's stretches (doc/design.md §5.7), runs of adjacent columns
 * of one row drawn as one. rows_y: the first row's top. */
static void critical_path(struct pen *pn, int rows_y)
{
	const struct sim_path *p = &pn->x->path;
	int k = approximated_row(pn), run_row = -1, run_a = 0, run_b = 0;
	size_t i, ix;

	if (!critical_drawn(pn))
		return;
	fputs("<g class=\"critical-path\">\n", pn->f);
	for (i = 0; i <= p->nsegs; i++) {
		const struct sim_segment *g = i < p->nsegs ? &p->segs[i] : NULL;
		int row = -1, a = 0, b = 0;

		if (g && g->tid && hmap_get_index(&pn->s->rows, g->tid, 0, &ix)) {
			row = (int)ix;
			a = svg__column(pn->s, g->from);
			b = svg__column(pn->s, g->to);
		}
		if (row >= 0 && row == run_row && a <= run_b + 1) {
			run_b = b > run_b ? b : run_b;
			continue;
		}
		if (run_row >= 0)
			fprintf(pn->f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"3\" "
				"fill=\"" CRIT_COLOR "\"/>\n",
				SVG_LABEL_W + run_a,
				rows_y + (run_row * pn->nv + k) * ROW_H + ROW_H - 5,
				run_b - run_a + 1);
		if (g && !g->tid)
			continue; /* synchronization: no thread's; the run goes on after it */
		run_row = row;
		run_a = a;
		run_b = b;
	}
	fputs("</g>\n", pn->f);
}

static void legend(struct pen *pn)
{
	char g[8], r[8], b[8];
	const struct key keys[] = {
		{"compute", g, 12, 10},
		{"barrier wait", r, 12, 10},
		{"other wait: lock, semaphore, condition variable, join", b, 12, 10},
		{"thread alive", GREY, 12, 2},
		{"last to arrive (critical thread)", "#000", 2, 14},
		{"on the critical path (approximated, replayed)", CRIT_COLOR, 12, 3},
	};
	int x = MARGIN, i, n = (int)(sizeof(keys) / sizeof(*keys)) - !critical_drawn(pn);

	snprintf(g, sizeof(g), "#%02x%02x%02x", green[0], green[1], green[2]);
	snprintf(r, sizeof(r), "#%02x%02x%02x", red[0], red[1], red[2]);
	snprintf(b, sizeof(b), "#%02x%02x%02x", blue[0], blue[1], blue[2]);
	pn->y += LINE_H + 4;
	fputs("<g class=\"legend\">\n", pn->f);
	for (i = 0; i < n; i++) {
		int w = 16 + svg_text_px(strlen(keys[i].label), FS) + 10;

		if (x > MARGIN && x + w > right(pn)) {
			x = MARGIN;
			pn->y += LINE_H;
		}
		fprintf(pn->f,
			"<rect class=\"swatch\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
			"fill=\"%s\"/>\n",
			x + (12 - keys[i].w) / 2, pn->y - 4 - keys[i].h / 2, keys[i].w, keys[i].h,
			keys[i].fill);
		text(pn, x + 16, pn->y, FS, "", keys[i].label, NULL);
		x += w;
	}
	fputs("</g>\n", pn->f);
}

static void name_sites(struct pen *pn)
{
	struct exporter *x = pn->x;
	size_t i;

	pn->nsites = phases__nsites(pn->p);
	pn->site = pn->nsites ? calloc(pn->nsites, sizeof(*pn->site)) : NULL;
	if (!pn->site)
		pn->nsites = 0;
	for (i = 0; i < pn->nsites; i++) {
		const struct ph_site *st = phases__site(pn->p, i);
		char where[NAME_LEN], obj[NAME_LEN];

		names__site(x->src.names, st->pid, st->call_site, where, sizeof(where));
		export__object(x, st->pid, st->object, st->probe, obj, sizeof(obj));
		snprintf(pn->site[i], SITE_LEN, "%s \"%s\"", where, obj);
	}
}

/* The barrier sites, in the colours of the phase band. */
static void sites(struct pen *pn)
{
	char line[SITE_LEN + 64];
	size_t i;

	if (!pn->nsites)
		return;
	pn->y += LINE_H + 4;
	fputs("<g class=\"sites\">\n", pn->f);
	text(pn, MARGIN, pn->y, FS, " font-weight=\"bold\"", "Barrier sites (phase band colours):",
	     "hover over the phase band for each phase's site");
	for (i = 0; i < pn->nsites && i < MAX_SITES; i++) {
		const struct ph_site *st = phases__site(pn->p, i);

		pn->y += LINE_H;
		snprintf(line, sizeof(line), "%s: %" PRIu64 " phase%s", pn->site[i],
			 (uint64_t)st->episodes, st->episodes == 1 ? "" : "s");
		fprintf(pn->f,
			"<rect class=\"swatch\" x=\"%d\" y=\"%d\" width=\"12\" height=\"10\" "
			"fill=\"%s\"/>\n",
			MARGIN, pn->y - 9, site_color((__u32)i));
		text(pn, MARGIN + 16, pn->y, FS, "", line, pn->site[i]);
	}
	if (pn->nsites > MAX_SITES) {
		pn->y += LINE_H;
		snprintf(line, sizeof(line), "and %zu more sites", pn->nsites - MAX_SITES);
		text(pn, MARGIN + 16, pn->y, FS, "", line, NULL);
	}
	fputs("</g>\n", pn->f);
}

/* ---- time axis and phase band ----------------------------------------------- */

static int px_of(const struct svg *s, __u64 dt)
{
	return SVG_LABEL_W + (int)(dt / svg__col_ns(s) + 0.5);
}

/* Round ticks across, grid lines down to the end of the rows. */
static void time_axis(struct pen *pn, int rows_end)
{
	struct svg *s = pn->s;
	struct svg_ticks t;
	char label[32], caption[32];
	int i;

	svg_ticks__choose(&t, s->t1 - s->t0, s->cols / TICK_PX);
	pn->y += 16;
	snprintf(caption, sizeof(caption), "time (%s)", t.unit);
	text(pn, MARGIN, pn->y, FS, "", caption, "time from the start of the trace");
	for (i = 0; i < t.n; i++) {
		int x = px_of(s, (__u64)i * t.step_ns);

		svg_ticks__label(&t, (__u64)i * t.step_ns, label, sizeof(label));
		fprintf(pn->f,
			"<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#ddd\"/>\n"
			"<text class=\"tick\" x=\"%d\" y=\"%d\" font-size=\"%d\" "
			"text-anchor=\"middle\">%s</text>\n",
			x, pn->y + 3, x, rows_end, x, pn->y, FS_SMALL, label);
	}
}

static void band_run(struct pen *pn, int c0, int c1, int y)
{
	struct svg *s = pn->s;
	__u64 lo = s->ph_lo[c0], hi = s->ph_hi[c0];
	__u32 site = s->ph_site[c0];
	const char *name = site < pn->nsites ? pn->site[site] : "several barrier sites";
	char tip[SITE_LEN + 64];

	if (lo == hi)
		snprintf(tip, sizeof(tip), "phase %" PRIu64 ": %s", (uint64_t)lo, name);
	else
		snprintf(tip, sizeof(tip), "phases %" PRIu64 "–%" PRIu64 ": %s", (uint64_t)lo,
			 (uint64_t)hi, name);
	fprintf(pn->f,
		"<rect class=\"band\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"10\" fill=\"%s\" "
		"fill-opacity=\"%s\"><title>",
		SVG_LABEL_W + c0, y, c1 - c0, site_color(site),
		lo != hi ? "0.9"
		: lo % 2 ? "0.65"
			 : "0.35");
	svg_text(pn->f, tip, (size_t)-1);
	fputs("</title></rect>\n", pn->f);
}

static int same_phases(const struct svg *s, int a, int b)
{
	return s->ph_lo[a] == s->ph_lo[b] && s->ph_hi[a] == s->ph_hi[b] &&
	       s->ph_site[a] == s->ph_site[b];
}

/* Phase numbers where a round multiple starts, above a band that shows
 * which phase was in progress (alternate shades, the site's colour). */
static void phase_band(struct pen *pn)
{
	struct svg *s = pn->s;
	__u64 top = phases__completed(pn->p), step, *idx = malloc(s->cols * sizeof(*idx));
	int *col = malloc(s->cols * sizeof(*col)), gap, n, i, c0, c;
	char label[24];

	if (!top) {
		free(idx);
		free(col);
		return;
	}
	snprintf(label, sizeof(label), "%" PRIu64, (uint64_t)top);
	gap = svg_text_px(strlen(label), FS_SMALL) + 6;
	pn->y += 14;
	text(pn, MARGIN, pn->y, FS, "", "phase",
	     "barrier phases, numbered as in the report, from the phase's start to its last "
	     "arrival");
	step = svg_phase_step(s->ph_lo, s->ph_hi, s->cols, gap);
	n = idx && col ? svg_phase_marks(s->ph_lo, s->ph_hi, s->cols, step, gap, col, idx, s->cols)
		       : 0;
	for (i = 0; i < n; i++) {
		int x = SVG_LABEL_W + col[i] + 1;

		snprintf(label, sizeof(label), "%" PRIu64, (uint64_t)idx[i]);
		if (x + svg_text_px(strlen(label), FS_SMALL) <= right(pn))
			fprintf(pn->f,
				"<text class=\"phase\" x=\"%d\" y=\"%d\" "
				"font-size=\"%d\">%s</text>\n",
				x, pn->y, FS_SMALL, label);
	}
	free(idx);
	free(col);
	for (c0 = 0; c0 < s->cols; c0 = c) {
		for (c = c0 + 1; c < s->cols && same_phases(s, c0, c); c++)
			;
		if (s->ph_lo[c0] != SVG_NO_PHASE)
			band_run(pn, c0, c, pn->y + 3);
	}
	pn->y += 14;
}

/* ---- rows ----------------------------------------------------------------- */

/* green (compute), red (barrier wait), blue (other wait) by their shares;
 * a lock wait inside a phase is part of its compute time */
static void color(const struct svg_cell *c, char *buf, size_t n)
{
	double busy = c->compute > c->other ? c->compute : c->other;
	double all = busy + c->wait, w = c->wait / all, o = c->other / all, g = 1 - w - o;
	int rgb[3], i;

	for (i = 0; i < 3; i++)
		rgb[i] = (int)(g * green[i] + w * red[i] + o * blue[i] + 0.5);
	snprintf(buf, n, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

static void cells(struct pen *pn, const struct svg_cell *cells, int y)
{
	struct svg *s = pn->s;
	char cur[8] = "", col[8];
	int c, start = 0;

	for (c = 0; c <= s->cols; c++) {
		int empty = c == s->cols || !(cells[c].compute + cells[c].wait + cells[c].other);

		if (!empty)
			color(&cells[c], col, sizeof(col));
		else
			col[0] = 0;
		if (strcmp(col, cur)) {
			if (cur[0])
				fprintf(pn->f,
					"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
					"fill=\"%s\"/>\n",
					SVG_LABEL_W + start, y, c - start, ROW_H - 3, cur);
			memcpy(cur, col, sizeof(cur));
			start = c;
		}
	}
	for (c = 0; c < s->cols; c++)
		if (cells[c].critical)
			fprintf(pn->f,
				"<rect x=\"%d\" y=\"%d\" width=\"1\" height=\"%d\" "
				"fill=\"#000\"/>\n",
				SVG_LABEL_W + c, y - 2, ROW_H + 1);
}

static void row(struct pen *pn, const struct svg_row *r, int v, int y)
{
	struct svg *s = pn->s;
	const char *comm = export__comm(pn->x, r->tid);
	const char *view = v ? "approximated" : "measured";
	char label[64], tip[128];

	snprintf(label, sizeof(label), "%s%s %u", pn->nv == 2 && v ? "~ " : "", comm, r->tid);
	snprintf(tip, sizeof(tip), "thread %u (%s), pid %u, %s", r->tid, comm, r->pid, view);
	fprintf(pn->f, "<g class=\"row %s\"><title>", view);
	svg_text(pn->f, tip, (size_t)-1);
	fputs("</title>\n", pn->f);
	fprintf(pn->f, "<text x=\"%d\" y=\"%d\" font-size=\"%d\">", MARGIN, y + ROW_H - 4, FS);
	svg_text(pn->f, label, svg_text_fit(SVG_LABEL_W - MARGIN - 4, FS));
	fputs("</text>\n", pn->f);
	if (r->born[v]) {
		int a = svg__column(s, r->born[v]),
		    b = svg__column(s, r->died[v] ? r->died[v] : s->t1);

		fprintf(pn->f,
			"<rect class=\"alive\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"2\" "
			"fill=\"" GREY "\"/>\n",
			SVG_LABEL_W + a, y + (ROW_H - 3) / 2 - 1, b - a + 1);
	}
	cells(pn, r->cells[v], y);
	fputs("</g>\n", pn->f);
}

/* Lifetimes of threads without start and exit records (there before the
 * trace, or alive at its end), from the analysis; a row for every thread
 * it saw. */
static void lifetimes(struct pen *pn)
{
	size_t i, n = phases__nthreads(pn->p);

	for (i = 0; i < n; i++) {
		const struct ph_thread *t = phases__thread(pn->p, i);
		struct svg_row *r = svg__row(pn->x, t->pid, t->tid);
		__u64 ta = phases__thread_approx(pn->p, t->tid);

		if (!r)
			continue;
		if (!r->born[0])
			r->born[0] = r->born[1] = t->start_ns ? t->start_ns : pn->s->t0;
		if (!r->died[0] && t->exit_ns) {
			r->died[0] = t->exit_ns;
			r->died[1] = ta ? ta : t->exit_ns;
		}
	}
}

/* ---- the picture ---------------------------------------------------------- */

static void body(struct pen *pn, const struct export_drops *d)
{
	struct svg *s = pn->s;
	char note[256];
	int rows_end, k, y;
	size_t i;

	choose_views(pn, note, sizeof(note));
	title(pn, note);
	legend(pn);
	sites(pn);
	/* the axis's grid lines reach the end of the rows */
	rows_end = pn->y + 16 + (phases__completed(pn->p) ? 28 : 0) + 4 +
		   (int)s->nrows * pn->nv * ROW_H;
	time_axis(pn, rows_end);
	phase_band(pn);
	for (i = 0, y = pn->y + 4; i < s->nrows; i++)
		for (k = 0; k < pn->nv; k++, y += ROW_H)
			row(pn, &s->row[i], pn->view[k], y);
	critical_path(pn, pn->y + 4);
	pn->y = y;
	if (s->left_out.len) {
		pn->y += LINE_H;
		fprintf(pn->f,
			"<text x=\"%d\" y=\"%d\" font-size=\"%d\">%zu more threads not drawn (the "
			"first %d are)</text>\n",
			MARGIN, pn->y, FS, s->left_out.len, SVG_MAX_ROWS);
	}
	if (d && d->total) {
		pn->y += LINE_H;
		fprintf(pn->f,
			"<text x=\"%d\" y=\"%d\" font-size=\"%d\" fill=\"#c00\">%" PRIu64
			" records lost: phases around the losses may be wrong</text>\n",
			MARGIN, pn->y, FS, (uint64_t)d->total);
	}
}

void svg__draw(struct exporter *x, const struct phases *p, const struct export_drops *d)
{
	struct pen pn = {.x = x, .p = p, .s = x->state};
	char *buf = NULL;
	size_t len = 0;
	int h;

	pn.f = open_memstream(&buf, &len);
	if (!pn.f) {
		fprintf(stderr, "sbt-bpf: error: the SVG: out of memory\n");
		x->failed = 1;
		return;
	}
	lifetimes(&pn);
	name_sites(&pn);
	body(&pn, d);
	fclose(pn.f);
	h = pn.y + 10;
	fprintf(x->o.out,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n",
		pn.s->width, h, pn.s->width, h);
	fwrite(buf, 1, len, x->o.out);
	fputs("</svg>\n", x->o.out);
	free(buf);
	free(pn.site);
}
