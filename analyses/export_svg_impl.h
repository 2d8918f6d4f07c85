/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The SVG timeline's state (doc/design.md §6), shared by what collects it
 * as phases complete (export_svg.c) and what draws it at the end
 * (export_svg_draw.c). Everything is kept per pixel column of the time
 * axis, so memory does not grow with the trace.
 */
#ifndef SBT_EXPORT_SVG_IMPL_H
#define SBT_EXPORT_SVG_IMPL_H

#include "analyses/export.h"
#include "lib/hmap.h"

#define SVG_DEFAULT_W 1200 /* the picture: fits a 1400-px window */
#define SVG_MIN_W     300
#define SVG_LABEL_W   170	  /* thread names, left of the time axis */
#define SVG_RIGHT     32	  /* right of the axis: room for the last tick's label */
#define SVG_MIXED     ((__u32)-1) /* phases of several sites in one column */
/* Rows drawn: the first threads seen; a picture of more is unreadable, and
 * the cells of each take memory (a hostile trace names millions). */
#define SVG_MAX_ROWS 512

struct svg_cell {
	__u32 compute, wait; /* ns of the column in a phase's compute, in a barrier */
	__u32 other;	     /* ns waiting outside barriers (lock, semaphore, condvar, futex) */
	__u8 critical;	     /* a phase whose last arrival was this thread's ended here */
};

struct svg_row {
	__u32 pid, tid;
	struct svg_cell *cells[2]; /* measured, approximated (NULL: view not exported) */
	__u64 born[2], died[2];	   /* from its start and exit records; 0: not seen */
};

struct svg {
	int width; /* the picture, px */
	int cols;  /* the time axis: a cell per pixel column */
	__u64 t0, t1;
	struct hmap rows; /* tid -> index (hmap_put_index) */
	struct svg_row *row;
	size_t nrows, cap;
	struct hmap left_out; /* threads beyond SVG_MAX_ROWS: not drawn, counted */
	/* The phase band: per column, the phases in progress there (from a
	 * phase's start to its last arrival), lowest and highest index, and
	 * the site of the lowest (SVG_MIXED: several); measured view, or the
	 * approximated when only that one is exported. */
	__u64 *ph_lo, *ph_hi;
	__u32 *ph_site;
	__u64 max_shift; /* the greatest |measured - approximated| of a time drawn */
};

static inline int svg__collects(const struct exporter *x, int v)
{
	return !!(x->o.views & (v ? EXPORT_APPROXIMATED : EXPORT_MEASURED));
}
double svg__col_ns(const struct svg *s);
int svg__column(const struct svg *s, __u64 t);
struct svg_row *svg__row(struct exporter *x, __u32 pid, __u32 tid);
/* Writes the whole picture (export_svg_draw.c). */
void svg__draw(struct exporter *x, const struct phases *p, const struct export_drops *d);

#endif
