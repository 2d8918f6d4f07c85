// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The SVG timeline's pure pieces: round time ticks, which phase numbers fit
 * along the axis, XML text. */
#include <stdlib.h>
#include "analyses/export_svg_scale.h"
#include "analyses/export_svg_text.h"
#include "unit.h"

static struct svg_ticks ticks(__u64 span, int max)
{
	struct svg_ticks t;

	svg_ticks__choose(&t, span, max);
	return t;
}

static const char *label(const struct svg_ticks *t, __u64 v)
{
	static char buf[32];

	svg_ticks__label(t, v, buf, sizeof(buf));
	return buf;
}

TEST(ticks_in_ms_below_a_second)
{
	/* 81.2 ms over at most 14 steps: 5 ms gives 16, 10 ms gives 8 */
	struct svg_ticks t = ticks(81200000, 14);

	CHECK_EQ(t.step_ns, 10000000);
	CHECK_EQ(t.unit_ns, 1000000);
	CHECK_STR(t.unit, "ms");
	CHECK_EQ(t.decimals, 0);
	CHECK_EQ(t.n, 9);
	CHECK_STR(label(&t, 0), "0");
	CHECK_STR(label(&t, 80000000), "80");
}

TEST(ticks_in_seconds_with_a_decimal)
{
	/* 2.5 s over at most 10 steps: 0.2 s gives 12, 0.5 s gives 5 */
	struct svg_ticks t = ticks(2500000000ULL, 10);

	CHECK_EQ(t.step_ns, 500000000);
	CHECK_STR(t.unit, "s");
	CHECK_EQ(t.decimals, 1);
	CHECK_EQ(t.n, 6);
	CHECK_STR(label(&t, 0), "0.0");
	CHECK_STR(label(&t, 1500000000), "1.5");
	CHECK_STR(label(&t, 2500000000ULL), "2.5");
}

TEST(ticks_in_us_and_ns)
{
	struct svg_ticks t = ticks(999000, 4); /* 200 us: 4 steps */

	CHECK_EQ(t.step_ns, 200000);
	CHECK_STR(t.unit, "µs");
	CHECK_EQ(t.n, 5);
	CHECK_STR(label(&t, 800000), "800");
	t = ticks(1500, 3); /* 0.5 us */
	CHECK_EQ(t.step_ns, 500);
	CHECK_STR(t.unit, "µs");
	CHECK_EQ(t.decimals, 1);
	CHECK_STR(label(&t, 1000), "1.0");
	t = ticks(12000000, 5); /* 2 ms gives 6 steps: 5 ms */
	CHECK_EQ(t.step_ns, 5000000);
	CHECK_EQ(t.n, 3);
	t = ticks(0, 10); /* an empty trace still has an axis */
	CHECK_EQ(t.step_ns, 1);
	CHECK_STR(t.unit, "ns");
	CHECK_EQ(t.n, 2);
	t = ticks(37, 0); /* 2 steps allowed at least: 20 */
	CHECK_EQ(t.step_ns, 20);
	CHECK_EQ(t.n, 2);
	t = ticks(41000000, 1); /* 50 ms would leave one tick: 20 ms */
	CHECK_EQ(t.step_ns, 20000000);
	CHECK_EQ(t.n, 3);
}

#define N SVG_NO_PHASE

/* Phases in progress per column: 0, 0, 0-1 (a boundary), 1, 2, 2-3, 3,
 * none, 4, 5-9 (five short phases in one column). */
static const __u64 lo[] = {0, 0, 0, 1, 2, 2, 3, N, 4, 5};
static const __u64 hi[] = {0, 0, 1, 1, 2, 3, 3, N, 4, 9};

TEST(phase_marks_where_each_multiple_first_appears)
{
	int col[8];
	__u64 idx[8];

	/* every phase: 3 starts one column after 2, too close for a gap of 2 */
	CHECK_EQ(svg_phase_marks(lo, hi, 10, 1, 2, col, idx, 8), -1);
	/* even phases: 6 and 8 fall in the last column, next to 4 */
	CHECK_EQ(svg_phase_marks(lo, hi, 10, 2, 2, col, idx, 8), -1);
	CHECK_EQ(svg_phase_marks(lo, hi, 10, 5, 2, col, idx, 8), 2);
	CHECK_EQ(col[0], 0);
	CHECK_EQ(idx[0], 0);
	CHECK_EQ(col[1], 9);
	CHECK_EQ(idx[1], 5);
	CHECK_EQ(svg_phase_step(lo, hi, 10, 2), 5);
	/* with room for one character a column, every phase but the last
	 * column's crowd: still 5 */
	CHECK_EQ(svg_phase_step(lo, hi, 10, 1), 5);
	/* without the crowded column, every phase fits at a gap of 1 */
	CHECK_EQ(svg_phase_step(lo, hi, 9, 1), 1);
	CHECK_EQ(svg_phase_marks(lo, hi, 9, 1, 1, col, idx, 8), 5);
	CHECK_EQ(col[4], 8);
	CHECK_EQ(idx[4], 4);
}

TEST(phase_marks_start_at_the_first_multiple_present)
{
	static const __u64 l[] = {N, 10, 11, 12}, h[] = {N, 10, 11, 14};
	int col[4];
	__u64 idx[4];

	CHECK_EQ(svg_phase_marks(l, h, 4, 5, 1, col, idx, 4), 1);
	CHECK_EQ(col[0], 1);
	CHECK_EQ(idx[0], 10);
	/* no phase at all: any step, no mark */
	CHECK_EQ(svg_phase_step(l, h, 1, 3), 1);
	CHECK_EQ(svg_phase_marks(l, h, 1, 1, 3, col, idx, 4), 0);
}

static char *written(const char *s, size_t max, size_t *chars)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*chars = svg_text(f, s, max);
	fclose(f);
	return buf;
}

TEST(text_escaped_cut_and_valid_utf8)
{
	size_t n;
	char *s;

	s = written("a<b&c\"d>", 100, &n);
	CHECK_STR(s, "a&lt;b&amp;c&quot;d&gt;");
	CHECK_EQ(n, 8);
	free(s);
	s = written("abcdef", 4, &n);
	CHECK_STR(s, "abc…");
	CHECK_EQ(n, 4);
	free(s);
	s = written("ééé", 2, &n); /* cut between characters, not bytes */
	CHECK_STR(s, "é…");
	free(s);
	s = written("a\xff\x01z\xc3", 100, &n); /* invalid bytes, a control character */
	CHECK_STR(s, "a??z?");
	CHECK_EQ(n, 5);
	free(s);
	CHECK_EQ(svg_text_len("µs"), 2);
	CHECK_EQ(svg_text_px(10, 11), 66);
	CHECK_EQ(svg_text_px(1, 10), 6);
	CHECK_EQ(svg_text_fit(66, 11), 10);
	CHECK_EQ(svg_text_fit(65, 11), 9);
	CHECK_EQ(svg_text_fit(-3, 11), 0);
}
